// The email_mask transform in JavaScript: an ldp plugin for the `transform-plugin` world of
// wit/plugin.wit, built into a WebAssembly component with componentize-js (./build.sh), which
// runs it in StarlingMonkey (SpiderMonkey compiled to WebAssembly). Arrow IPC is read and
// written with apache-arrow, bundled in by esbuild.
//
// Semantics (the same in ../rust and ../python):
// - config {"column": "email"}, optional (default "email"); any other key is a config error;
// - the column must exist and be a string column (utf8 or large_utf8), else a config error that
//   names it and lists the input columns;
// - each value has the local part (before the last "@") masked: its first character (a code
//   point) is kept and the rest becomes "***" ("alice@example.com" -> "a***@example.com",
//   "@x.org" -> "***@x.org", no "@" -> "***"); null stays null;
// - a new last column `email_domain` (utf8, nullable): the text after the last "@",
//   lower-cased; null when the value is null or has no "@".
//
// This module imports nothing from the host, so `node --test` runs it as it is.

import {
  DataType,
  Field,
  RecordBatch,
  RecordBatchReader,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  Utf8,
  makeData,
} from "apache-arrow";

import { CASED, CASE_IGNORABLE } from "./unicode_case.js";

export const NAME = "email_mask";
export const VERSION = "0.1.0";
export const DOMAIN_COLUMN = "email_domain";
const CONFIG_SCHEMA = JSON.stringify({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  additionalProperties: false,
  properties: {
    column: {
      type: "string",
      default: "email",
      description: "The string column holding email addresses.",
    },
  },
});

/** A plugin error: what a WIT `result` carries as its `err` (kind: config, data, io, limit, internal). */
export class PluginFailure extends Error {
  constructor(kind, message) {
    super(message);
    // componentize-js returns `payload` as the error of a `result<_, plugin-error>`.
    this.payload = { kind, message };
  }
}

// Unicode's Final_Sigma rule: a capital sigma that ends a word lower-cases to "ς", elsewhere to
// "σ". Rust's `to_lowercase`, Python's `str.lower` and node (V8, with ICU) apply it; SpiderMonkey
// as built into StarlingMonkey (no ICU) does not ("ΟΔΟΣ" gave "οδοσ", not "οδος"), nor does it
// know `\p{Cased}` in a regular expression. So the rule is applied here, before `toLowerCase`,
// the way Rust and CPython apply it: skip case-ignorable characters on either side of the sigma,
// then look for a cased letter. The two properties come as ranges from unicode_case.js.

function has(ranges, c) {
  let lo = 0;
  let hi = ranges.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (c < ranges[2 * mid]) hi = mid - 1;
    else if (c > ranges[2 * mid + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The code point that ends just before UTF-16 index `j`, and where it starts. */
function before(text, j) {
  const lowUnit = text.charCodeAt(j - 1);
  if (lowUnit >= 0xdc00 && lowUnit <= 0xdfff && j >= 2) {
    const high = text.charCodeAt(j - 2);
    if (high >= 0xd800 && high <= 0xdbff) return [text.codePointAt(j - 2), j - 2];
  }
  return [lowUnit, j - 1];
}

/** Is the capital sigma at UTF-16 index `i` the end of a word? */
function isFinalSigma(text, i) {
  let j = i;
  let c = -1;
  while (j > 0) {
    [c, j] = before(text, j);
    if (!has(CASE_IGNORABLE, c)) break;
    c = -1;
  }
  if (c < 0 || !has(CASED, c)) return false;
  for (let k = i + 1; k < text.length; ) {
    const d = text.codePointAt(k);
    if (!has(CASE_IGNORABLE, d)) return !has(CASED, d);
    k += d > 0xffff ? 2 : 1;
  }
  return true;
}

/** Unicode's default lower-casing, the same in node, in the component, in Rust and in Python. */
export function lower(text) {
  let at = text.indexOf("\u03a3");
  if (at < 0) return text.toLowerCase();
  let out = "";
  let from = 0;
  for (; at >= 0; at = text.indexOf("\u03a3", at + 1)) {
    if (isFinalSigma(text, at)) {
      out += text.slice(from, at) + "\u03c2";
      from = at + 1;
    }
  }
  return (out + text.slice(from)).toLowerCase();
}

/** [masked value, domain] of one value. The local part is everything before the last "@". */
export function mask(value) {
  const at = value.lastIndexOf("@");
  if (at < 0) return ["***", null];
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  // The first code point, not the first UTF-16 unit: "😀" is two units.
  const first = local.length ? String.fromCodePoint(local.codePointAt(0)) : "";
  return [`${first}***@${domain}`, lower(domain)];
}

/** The column to mask, from the config object text. */
export function parseConfig(text) {
  let config;
  try {
    config = text.trim() ? JSON.parse(text) : {};
  } catch (e) {
    throw new PluginFailure("config", `config is not JSON: ${e.message}`);
  }
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    throw new PluginFailure("config", "config must be a JSON object");
  }
  // Unknown keys first, in the order the config gives them.
  for (const key of Object.keys(config)) {
    if (key !== "column") {
      throw new PluginFailure("config", `unknown config key '${key}'; email_mask accepts only 'column'`);
    }
  }
  const column = "column" in config ? config.column : "email";
  if (typeof column !== "string") {
    throw new PluginFailure("config", "config.column must be a string (a column name)");
  }
  return column;
}

/** One open stream: `open` checks the input schema, `push` transforms one RecordBatch. */
export class EmailMask {
  constructor(config, inputSchema) {
    const column = parseConfig(config);
    const names = inputSchema.fields.map((f) => f.name).join(", ");
    this.index = inputSchema.fields.findIndex((f) => f.name === column);
    if (this.index < 0) {
      throw new PluginFailure(
        "config",
        `config.column: the input has no column '${column}'; its columns are: ${names}`,
      );
    }
    const type = inputSchema.fields[this.index].type;
    if (!DataType.isUtf8(type) && !DataType.isLargeUtf8(type)) {
      throw new PluginFailure(
        "config",
        `config.column: column '${column}' is not a string column; its columns are: ${names}`,
      );
    }
    if (inputSchema.fields.some((f) => f.name === DOMAIN_COLUMN)) {
      throw new PluginFailure(
        "config",
        `the input already has a column '${DOMAIN_COLUMN}'; its columns are: ${names}`,
      );
    }
    this.input = inputSchema;
    this.schema = new Schema(
      [...inputSchema.fields, new Field(DOMAIN_COLUMN, new Utf8(), true)],
      inputSchema.metadata,
    );
  }

  push(batch) {
    const input = batch.data.children[this.index];
    const emails = readStrings(input);
    const n = emails.length;
    const masked = new Array(n);
    const domains = new Array(n);
    for (let i = 0; i < n; i++) {
      const value = emails[i];
      if (value === null) {
        masked[i] = null;
        domains[i] = null;
      } else {
        const [m, d] = mask(value);
        masked[i] = m;
        domains[i] = d;
      }
    }
    const children = batch.data.children.slice();
    children[this.index] = makeStrings(masked, input.type);
    children.push(makeStrings(domains, new Utf8()));
    const data = makeData({
      type: new Struct(this.schema.fields),
      length: batch.numRows,
      nullCount: 0,
      children,
    });
    return new RecordBatch(this.schema, data);
  }
}

// ---------------------------------------------------------------------------------------------
// String columns, read and built from their buffers. apache-arrow's own per-value iterator and
// builders (`for (const v of vector)`, `vectorFromArray`) are general but slow where there is no
// JIT, as in StarlingMonkey: 10x the time of the code below on 100k rows. The fast path decodes
// or encodes a whole column with one TextDecoder/TextEncoder call when it is ASCII.

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const NON_ASCII = /[^\x00-\x7f]/;

/** The values of a utf8 or large_utf8 Data, as strings and nulls. */
export function readStrings(data) {
  const n = data.length;
  const out = new Array(n);
  if (data.offset !== 0) {
    throw new PluginFailure("internal", "a sliced string column (offset != 0) is not expected from IPC");
  }
  const large = DataType.isLargeUtf8(data.type);
  const offsets = large ? Array.from(data.valueOffsets, Number) : data.valueOffsets;
  const bytes = data.values;
  const bitmap = data.nullCount > 0 ? data.nullBitmap : null;
  const start = offsets[0];
  const whole = decoder.decode(bytes.subarray(start, offsets[n]));
  // All ASCII: a byte is a UTF-16 unit, so byte offsets slice the decoded text. (Invalid UTF-8
  // would have decoded to U+FFFD, which is not ASCII.)
  const ascii = !NON_ASCII.test(whole);
  for (let i = 0; i < n; i++) {
    if (bitmap !== null && ((bitmap[i >> 3] >> (i & 7)) & 1) === 0) {
      out[i] = null;
    } else if (ascii) {
      out[i] = whole.slice(offsets[i] - start, offsets[i + 1] - start);
    } else {
      out[i] = decoder.decode(bytes.subarray(offsets[i], offsets[i + 1]));
    }
  }
  return out;
}

/** A utf8 (or large_utf8) Data of strings and nulls. */
export function makeStrings(values, type) {
  const n = values.length;
  const large = DataType.isLargeUtf8(type);
  const offsets = large ? new BigInt64Array(n + 1) : new Int32Array(n + 1);
  const bitmap = new Uint8Array((n + 7) >> 3);
  let nullCount = 0;
  const parts = new Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null) {
      nullCount++;
      parts[i] = "";
    } else {
      bitmap[i >> 3] |= 1 << (i & 7);
      parts[i] = v;
    }
  }
  // One encode for the whole column; the offsets from each value's length in UTF-8, which is
  // its length in UTF-16 units when it is ASCII (the common case).
  const joined = parts.join("");
  const bytes = encoder.encode(joined);
  const ascii = bytes.length === joined.length;
  let end = 0;
  for (let i = 0; i < n; i++) {
    const part = parts[i];
    end += ascii || !NON_ASCII.test(part) ? part.length : encoder.encode(part).length;
    offsets[i + 1] = large ? BigInt(end) : end;
  }
  if (!large && bytes.length > 0x7fffffff) {
    throw new PluginFailure("limit", "a string column of more than 2 GiB: use large_utf8");
  }
  return makeData({
    type,
    length: n,
    nullCount,
    nullBitmap: nullCount ? bitmap : null,
    valueOffsets: offsets,
    data: bytes,
  });
}

// ---------------------------------------------------------------------------------------------
// Arrow IPC messages. ldp sends the Schema message once (to `open`) and then one RecordBatch
// message per `push`; apache-arrow reads and writes whole streams, so a batch is read by putting
// the schema message in front of it, and a message is cut out of a stream apache-arrow writes.

const END_OF_STREAM = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
const EOS_LENGTH = END_OF_STREAM.length;

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** The Schema message of `schema`: what a stream writer writes before its first batch. */
export function encodeSchema(schema) {
  return new RecordBatchStreamWriter().reset(undefined, schema).toUint8Array(true);
}

/** The messages of one batch (its dictionaries, if any, then the RecordBatch message). */
export function encodeBatch(batch, schemaMessage) {
  const stream = RecordBatchStreamWriter.writeAll([batch]).toUint8Array(true);
  return stream.slice(schemaMessage.length, stream.length - EOS_LENGTH);
}

export function decodeSchema(schemaMessage) {
  const reader = RecordBatchReader.from(concat(schemaMessage, END_OF_STREAM));
  reader.open();
  return reader.schema;
}

/** The batches of one `push` (normally one). */
export function decodeBatches(schemaMessage, batchMessage) {
  return RecordBatchReader.from(concat(schemaMessage, batchMessage)).readAll();
}

// ---------------------------------------------------------------------------------------------
// The export: the `ldp:plugin/transform` interface. One component instance serves one stream,
// so the open stream lives in module state.

let stream = null;

function guard(call) {
  try {
    return call();
  } catch (e) {
    if (e instanceof PluginFailure) throw e;
    throw new PluginFailure("internal", `${e?.name ?? "Error"}: ${e?.message ?? e}`);
  }
}

export const transform = {
  describe() {
    return {
      name: NAME,
      version: VERSION,
      kind: "transform",
      description: "Masks the local part of an email column and adds its domain (JavaScript)",
      configSchema: CONFIG_SCHEMA,
    };
  },

  open(config, input) {
    return guard(() => {
      const transform = new EmailMask(config, decodeSchema(input));
      const schemaIn = new Uint8Array(input);
      const schemaOut = encodeSchema(transform.schema);
      stream = { transform, schemaIn, schemaOut };
      return schemaOut;
    });
  },

  push(batch) {
    return guard(() => {
      if (stream === null) throw new PluginFailure("internal", "push called before open");
      return decodeBatches(stream.schemaIn, batch).map((b) =>
        encodeBatch(stream.transform.push(b), stream.schemaOut),
      );
    });
  },

  flush() {
    return [];
  },
};
