"""Arrow IPC messages: a Schema message and RecordBatch messages, encoded and decoded.

An *encapsulated message* (https://arrow.apache.org/docs/format/Columnar.html#encapsulated-message-format)
is:

    0xFFFFFFFF            continuation marker (u32)
    metadata length       i32, little-endian: the FlatBuffer below plus its padding
    Message               a FlatBuffer (see flatbuf.py), padded so the body starts 8-aligned
    body                  the buffers of the arrays (RecordBatch only), each padded to 8 bytes

The Message FlatBuffer (Message.fbs, Schema.fbs) holds a Schema or a RecordBatch header. A
RecordBatch header lists, depth-first over the fields, one FieldNode (length, null count) per
array and the (offset, length) of each of its buffers in the body:

    null                  no buffers
    bool                  validity bitmap, value bitmap
    ints, floats, dates,  validity bitmap, values (little-endian, fixed width)
    times, timestamps
    utf8, binary          validity bitmap, offsets (i32; i64 for large_*), bytes

A validity bitmap has one bit per row, least significant bit first, 1 = valid; it may be empty
when the array has no nulls. ldp sends the Schema message once per stream, then one RecordBatch
message per batch; concatenated (plus an end-of-stream marker) they are an Arrow IPC stream.
"""

from __future__ import annotations

import struct
import sys
from array import array
from itertools import accumulate
from typing import Iterable, Optional, Sequence

from . import flatbuf as fb
from .types import DataType, Field, Schema, Table, from_python

__all__ = [
    "IpcError",
    "encode_schema",
    "decode_schema",
    "encode_batch",
    "decode_batch",
    "read_stream",
    "write_stream",
]


class IpcError(ValueError):
    """A message that is not valid Arrow IPC, or uses a feature this codec does not support."""


CONTINUATION = b"\xff\xff\xff\xff"
END_OF_STREAM = CONTINUATION + b"\0\0\0\0"
METADATA_V5 = 4

# MessageHeader union (Message.fbs).
_HEADER_SCHEMA, _HEADER_DICTIONARY, _HEADER_RECORD_BATCH = 1, 2, 3

# Type union (Schema.fbs): the member numbers of the types supported here.
_T_NULL, _T_INT, _T_FLOAT, _T_BINARY, _T_UTF8, _T_BOOL = 1, 2, 3, 4, 5, 6
_T_DATE, _T_TIME, _T_TIMESTAMP, _T_DURATION = 8, 9, 10, 18
_T_LARGE_BINARY, _T_LARGE_UTF8 = 19, 20
_TYPE_NAMES = {
    7: "decimal", 11: "interval", 12: "list", 13: "struct", 14: "union",
    15: "fixed_size_binary", 16: "fixed_size_list", 17: "map", 21: "large_list",
    22: "run_end_encoded", 23: "binary_view", 24: "string_view", 25: "list_view",
    26: "large_list_view",
}  # fmt: skip
_TIME_UNITS = ("s", "ms", "us", "ns")  # TimeUnit enum: SECOND=0 ... NANOSECOND=3

# Fixed-width types: the `array` type code of their values. `array`'s 'i' and 'q' are 4 and 8
# bytes on every platform CPython (and componentize-py's wasm32) runs on; checked below.
_FIXED = {
    "int8": "b", "int16": "h", "int32": "i", "int64": "q",
    "uint8": "B", "uint16": "H", "uint32": "I", "uint64": "Q",
    "float": "f", "double": "d",
    "date32": "i", "date64": "q", "time32": "i", "time64": "q", "timestamp": "q", "duration": "q",
}  # fmt: skip
_TEMPORAL = {"date32", "date64", "time32", "time64", "timestamp", "duration"}
assert array("i").itemsize == 4 and array("q").itemsize == 8 and array("h").itemsize == 2
_BIG_ENDIAN = sys.byteorder == "big"


# ---------------------------------------------------------------------------------------------
# Framing


def _frame(metadata: bytes, body: bytes = b"") -> bytes:
    """An encapsulated message: marker, length, metadata padded to 8, body."""
    padded = metadata + b"\0" * (-len(metadata) % 8)
    return CONTINUATION + struct.pack("<i", len(padded)) + padded + body


def _unframe(message: bytes | memoryview, at: int = 0) -> tuple[fb.Reader, memoryview, int]:
    """Reads the message at `at`: (its Message table, its body, where the next one starts)."""
    view = memoryview(message)
    if view[at : at + 4] == CONTINUATION:
        at += 4  # (before Arrow 0.15 the marker was absent: the length came first)
    if at + 4 > len(view):
        raise IpcError("a message is cut short before its length")
    (length,) = struct.unpack_from("<i", view, at)
    at += 4
    if length <= 0 or at + length > len(view):
        raise IpcError(f"bad message metadata length {length}")
    meta = view[at : at + length]
    root = fb.Reader.root(meta)
    body_len = root.scalar(3, "q", 0)
    body_at = at + length
    if body_at + body_len > len(view):
        raise IpcError(f"the message body ({body_len} bytes) runs past the end of the buffer")
    return root, view[body_at : body_at + body_len], body_at + body_len


def _message(header_type: int, header: fb.Table, body_len: int) -> bytes:
    return fb.build(
        fb.Table()
        .scalar(0, "h", METADATA_V5)
        .scalar(1, "B", header_type)
        .child(2, header)
        .scalar(3, "q", body_len)
    )


def _key_values(md: dict | None) -> Optional[fb.TableVector]:
    if not md:
        return None
    return fb.TableVector(
        [fb.Table().child(0, fb.String(k)).child(1, fb.String(v)) for k, v in md.items()]
    )


def _read_key_values(table: fb.Reader, slot: int) -> dict[str, str]:
    return {kv.string(0) or "": kv.string(1) or "" for kv in table.tables(slot)}


# ---------------------------------------------------------------------------------------------
# Schema


def _type_table(t: DataType) -> tuple[int, fb.Table]:
    """The Type union member and table of a type."""
    n = t.name
    if n.startswith("int") or n.startswith("uint"):
        width = int(n[n.index("int") + 3 :])
        return _T_INT, fb.Table().scalar(0, "i", width).scalar(1, "?", not n.startswith("u"))
    if n in ("float", "double"):
        return _T_FLOAT, fb.Table().scalar(0, "h", 1 if n == "float" else 2)
    simple = {"null": _T_NULL, "bool": _T_BOOL, "utf8": _T_UTF8, "large_utf8": _T_LARGE_UTF8,
              "binary": _T_BINARY, "large_binary": _T_LARGE_BINARY}  # fmt: skip
    if n in simple:
        return simple[n], fb.Table()
    if n in ("date32", "date64"):
        return _T_DATE, fb.Table().scalar(0, "h", 0 if n == "date32" else 1)
    unit = _TIME_UNITS.index(t.unit) if t.unit in _TIME_UNITS else None
    if n == "timestamp" and unit is not None:
        table = fb.Table().scalar(0, "h", unit)
        return _T_TIMESTAMP, table.child(1, fb.String(t.tz) if t.tz else None)
    if n in ("time32", "time64") and unit is not None:
        return _T_TIME, fb.Table().scalar(0, "h", unit).scalar(1, "i", 32 if n == "time32" else 64)
    if n == "duration" and unit is not None:
        return _T_DURATION, fb.Table().scalar(0, "h", unit)
    raise IpcError(f"cannot encode type {t}")


def _read_type(field: fb.Reader, name: str) -> DataType:
    kind = field.scalar(2, "B", 0)
    t = field.table(3)
    if kind in (_T_NULL, _T_BOOL, _T_UTF8, _T_LARGE_UTF8, _T_BINARY, _T_LARGE_BINARY):
        return DataType({_T_NULL: "null", _T_BOOL: "bool", _T_UTF8: "utf8",
                         _T_LARGE_UTF8: "large_utf8", _T_BINARY: "binary",
                         _T_LARGE_BINARY: "large_binary"}[kind])  # fmt: skip
    if t is None:
        raise IpcError(f"field '{name}': type {kind} has no type table")
    if kind == _T_INT:
        width, signed = t.scalar(0, "i", 0), t.scalar(1, "?", False)
        if width not in (8, 16, 32, 64):
            raise IpcError(f"field '{name}': integer width {width}")
        return DataType(f"{'' if signed else 'u'}int{width}")
    if kind == _T_FLOAT:
        precision = t.scalar(0, "h", 0)  # HALF=0, SINGLE=1, DOUBLE=2
        if precision == 0:
            raise IpcError(f"field '{name}': float16 is not supported by ldp_arrow")
        return DataType("float" if precision == 1 else "double")
    if kind == _T_DATE:
        return DataType("date32" if t.scalar(0, "h", 1) == 0 else "date64")  # default: ms
    if kind == _T_TIMESTAMP:
        return DataType("timestamp", _TIME_UNITS[t.scalar(0, "h", 0)], t.string(1))
    if kind == _T_TIME:
        width = t.scalar(1, "i", 32)
        return DataType(f"time{width}", _TIME_UNITS[t.scalar(0, "h", 1)])
    if kind == _T_DURATION:
        return DataType("duration", _TIME_UNITS[t.scalar(0, "h", 1)])
    raise IpcError(
        f"field '{name}' has type {_TYPE_NAMES.get(kind, kind)}, which ldp_arrow does not "
        "support (it reads null, bool, integers, floats, utf8, binary, dates, times, "
        "timestamps and durations)"
    )


def encode_schema(schema: Schema) -> bytes:
    """The encapsulated Schema message of `schema` (what a plugin's `open` returns)."""
    fields = []
    for f in schema.fields:
        kind, type_table = _type_table(f.type)
        fields.append(
            fb.Table()
            .child(0, fb.String(f.name))
            .scalar(1, "?", f.nullable)
            .scalar(2, "B", kind)
            .child(3, type_table)
            .child(5, fb.TableVector([]))  # children: none; some readers want the vector
            .child(6, _key_values(dict(f.metadata)))
        )
    header = fb.Table().child(1, fb.TableVector(fields)).child(2, _key_values(dict(schema.metadata)))
    return _frame(_message(_HEADER_SCHEMA, header, 0))


def decode_schema(message: bytes | memoryview) -> Schema:
    """The schema in an encapsulated Schema message (what a transform's `open` receives)."""
    root, _, _ = _unframe(message)
    if root.scalar(1, "B", 0) != _HEADER_SCHEMA:
        raise IpcError("expected a Schema message")
    header = root.table(2)
    if header is None:
        raise IpcError("the Schema message has no schema")
    if header.scalar(0, "h", 0) != 0:
        raise IpcError("big-endian data is not supported")
    fields = []
    for f in header.tables(1):
        name = f.string(0) or ""
        if f.has(4):
            raise IpcError(f"field '{name}' is dictionary-encoded, which ldp_arrow does not support")
        fields.append(Field(name, _read_type(f, name), f.scalar(1, "?", False), _read_key_values(f, 6)))
    return Schema(fields, _read_key_values(header, 2))


# ---------------------------------------------------------------------------------------------
# Record batches: bitmaps

# _BITS[b] is the 8 booleans of byte b, least significant bit first.
_BITS = [tuple(bool(b >> i & 1) for i in range(8)) for b in range(256)]


def _unpack_bits(buf: memoryview, n: int) -> list[bool]:
    nbytes = (n + 7) // 8
    if len(buf) < nbytes:
        raise IpcError(f"a bitmap of {len(buf)} bytes for {n} rows")
    bits = [bit for byte in buf[:nbytes].tobytes() for bit in _BITS[byte]]
    del bits[n:]
    return bits


def _pack_bits(flags: list, n: int) -> bytes:
    """A bitmap (LSB first) from a list of n truth values (bools or 0/1): the flags as the ASCII
    digits of one binary number, most significant (the last row) first, turned into bytes."""
    if n == 0:
        return b""
    digits = bytes(flags).translate(_ASCII_01)[::-1]
    return int(digits, 2).to_bytes((n + 7) // 8, "little")


_ASCII_01 = bytes([0x30, 0x31]) + bytes(254)  # 0 -> "0", 1 -> "1"


# ---------------------------------------------------------------------------------------------
# Record batches: decoding


def decode_batch(message: bytes | memoryview, schema: Schema) -> Table:
    """The rows of an encapsulated RecordBatch message that follows `schema`."""
    root, body, _ = _unframe(message)
    header_type = root.scalar(1, "B", 0)
    if header_type == _HEADER_DICTIONARY:
        raise IpcError("dictionary batches are not supported by ldp_arrow")
    if header_type != _HEADER_RECORD_BATCH:
        raise IpcError("expected a RecordBatch message")
    header = root.table(2)
    if header is None:
        raise IpcError("the RecordBatch message has no header")
    if header.has(3):
        raise IpcError("compressed record batches are not supported by ldp_arrow")
    nodes = header.structs(1, "qq")  # FieldNode { length, null_count }
    buffers = header.structs(2, "qq")  # Buffer { offset, length }
    if len(nodes) != len(schema.fields):
        raise IpcError(f"{len(nodes)} field nodes for {len(schema.fields)} fields")
    columns = []
    b = 0  # the next buffer
    for f, (length, null_count) in zip(schema.fields, nodes):
        n_buffers = 0 if f.type.name == "null" else 3 if _is_var(f.type) else 2
        bufs = [body[off : off + ln] for off, ln in buffers[b : b + n_buffers]]
        if len(bufs) != n_buffers or any(len(x) != ln for x, (_, ln) in zip(bufs, buffers[b:])):
            raise IpcError(f"field '{f.name}': buffers missing or past the end of the body")
        b += n_buffers
        columns.append(_decode_array(f, length, null_count, bufs))
    return Table(schema, columns)


def _is_var(t: DataType) -> bool:
    return t.name in ("utf8", "large_utf8", "binary", "large_binary")


def _decode_array(f: Field, n: int, null_count: int, bufs: list[memoryview]) -> list:
    t = f.type
    if t.name == "null":
        return [None] * n
    valid = _unpack_bits(bufs[0], n) if null_count and n else None
    if t.name == "bool":
        values: list = _unpack_bits(bufs[1], n)
    elif t.name in _FIXED:
        code = _FIXED[t.name]
        a = array(code)
        width = a.itemsize
        if len(bufs[1]) < n * width:
            raise IpcError(f"field '{f.name}': {len(bufs[1])} bytes of values for {n} rows")
        a.frombytes(bufs[1][: n * width])
        if _BIG_ENDIAN:
            a.byteswap()
        values = a.tolist()
    else:  # utf8, binary and their large variants
        offsets = array("q" if t.name.startswith("large") else "i")
        if n:
            if len(bufs[1]) < (n + 1) * offsets.itemsize:
                raise IpcError(f"field '{f.name}': {len(bufs[1])} bytes of offsets for {n} rows")
            offsets.frombytes(bufs[1][: (n + 1) * offsets.itemsize])
            if _BIG_ENDIAN:
                offsets.byteswap()
        data = bufs[2].tobytes()
        if offsets and (offsets[0] < 0 or offsets[-1] > len(data)):
            raise IpcError(f"field '{f.name}': offsets outside the {len(data)} bytes of data")
        ends = offsets[1:]
        if t.is_string:
            if data.isascii():
                # One decode, then slices: byte offsets are character offsets in ASCII text.
                text = data.decode("ascii")
                values = [text[s:e] for s, e in zip(offsets, ends)]
            else:
                try:
                    values = [data[s:e].decode("utf-8") for s, e in zip(offsets, ends)]
                except UnicodeDecodeError as e:
                    raise IpcError(f"field '{f.name}': invalid UTF-8: {e}") from None
        else:
            values = [data[s:e] for s, e in zip(offsets, ends)]
    if valid is not None:
        values = [v if ok else None for v, ok in zip(values, valid)]
    return values


# ---------------------------------------------------------------------------------------------
# Record batches: encoding


def encode_batch(table: Table) -> bytes:
    """The encapsulated RecordBatch message of a table (what `push` and `next` give back)."""
    n = table.num_rows
    nodes: list[tuple[int, int]] = []
    buffers: list[tuple[int, int]] = []
    body = bytearray()

    def add(buf: bytes) -> None:
        buffers.append((len(body), len(buf)))
        body.extend(buf)
        body.extend(b"\0" * (-len(buf) % 8))  # every buffer starts 8-aligned

    for f, values in zip(table.schema.fields, table.columns):
        if len(values) != n:
            raise IpcError(f"column '{f.name}' has {len(values)} values, the table {n} rows")
        try:
            node, bufs = _encode_array(f, values)
        except (OverflowError, TypeError, ValueError, struct.error) as e:
            raise IpcError(f"column '{f.name}' ({f.type}): {e}") from None
        nodes.append(node)
        for buf in bufs:
            add(buf)

    header = (
        fb.Table()
        .scalar(0, "q", n)
        .child(1, fb.StructVector("qq", nodes))
        .child(2, fb.StructVector("qq", buffers))
    )
    return _frame(_message(_HEADER_RECORD_BATCH, header, len(body)), bytes(body))


def _encode_array(f: Field, values: Sequence) -> tuple[tuple[int, int], list[bytes]]:
    t, n = f.type, len(values)
    if t.name == "null":
        return (n, n), []
    nulls = values.count(None) if n else 0
    if nulls and not f.nullable:
        raise ValueError(f"{nulls} null values in a non-nullable column")
    validity = _pack_bits([v is not None for v in values], n) if nulls else b""
    if t.name == "bool":
        data = _pack_bits([bool(v) for v in values], n)
    elif t.name in _FIXED:
        if t.name in _TEMPORAL:
            values = [v if type(v) is int or v is None else from_python(v, t) for v in values]
        if nulls:
            zero = 0.0 if t.name in ("float", "double") else 0
            values = [zero if v is None else v for v in values]
        a = array(_FIXED[t.name], values)
        if _BIG_ENDIAN:
            a.byteswap()
        data = a.tobytes()
    else:
        if t.is_string:
            chunks = [b"" if v is None else v.encode("utf-8") for v in values]
        else:
            chunks = [b"" if v is None else bytes(v) for v in values]
        offsets = array("q" if t.name.startswith("large") else "i", accumulate(map(len, chunks), initial=0))
        if _BIG_ENDIAN:
            offsets.byteswap()
        return (n, nulls), [validity, offsets.tobytes(), b"".join(chunks)]
    return (n, nulls), [validity, data]


# ---------------------------------------------------------------------------------------------
# Streams (for tests and tools: ldp itself sends and takes single messages)


def write_stream(schema: Schema, tables: Iterable[Table]) -> bytes:
    """An Arrow IPC stream: the schema, the batches, the end-of-stream marker."""
    return b"".join([encode_schema(schema), *(encode_batch(t) for t in tables), END_OF_STREAM])


def read_stream(data: bytes) -> tuple[Schema, list[Table]]:
    """Reads an Arrow IPC stream (without dictionaries) into a schema and its batches."""
    view = memoryview(data)
    root, _, at = _unframe(view)
    if root.scalar(1, "B", 0) != _HEADER_SCHEMA:
        raise IpcError("an IPC stream starts with a Schema message")
    schema = decode_schema(view[:at])
    tables = []
    while at + 8 <= len(view) and view[at : at + 8] != END_OF_STREAM:
        _, _, end = _unframe(view, at)
        tables.append(decode_batch(view[at:end], schema))
        at = end
    return schema, tables
