#!/usr/bin/env python3
"""Loads each corpus file (corpus.json, fetched by fetch.py) with ldp and compares the table.

    compare.py --ldp target/debug/ldp --ref-ldp /var/tmp/ldp-ref-venv/bin/ldp [--only ID,ID] [--keep]

Run with a Python that has pyiceberg, pyarrow and duckdb (the reference venv of tests/corpus/run).
Each tool runs `ldp run CONFIG` into its own warehouse; both tables are read back with pyiceberg.

* compare "reference": the Python tool (local-data-platform 0.1.3) loads the same file. Column names,
  Iceberg and Arrow types, row count and every value must be equal: floats exactly (NaN equals NaN),
  timestamps to the microsecond. When the Python tool fails, ldp must fail too.
* compare "duckdb": DuckDB reads the file. JSON: read_json over the whole file; values are compared
  after normalising (numbers as floats, dates and times as ISO text, objects without their null keys).
  CSV: read_csv with the entry's delimiter and skip_rows, every cell as its raw text (a file in
  another encoding is first transcoded to UTF-8); each ldp value must be what its type parses from
  that text, a null must come from an empty cell or one of pyarrow's null markers. The types must be
  pyarrow.csv's with the same options, as Iceberg stores them (null as string, times and timestamps
  in microseconds). JSON types are not compared (DuckDB infers its own).

Prints `ok  ID` or `DIFF ID: ...` per file, then `corpus: N passed, M failed`; exits 1 on a failure.
"""
import argparse
import datetime as dt
import decimal
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.csv
from pyiceberg.catalog.sql import SqlCatalog

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetch import cache_dir, file_path, load_manifest  # noqa: E402

MAX_DIFFS = 3
RUN_TIMEOUT_S = 900
# pyarrow.csv's default null markers, and the texts it reads as booleans.
PYARROW_NULLS = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
                 "N/A", "NA", "NULL", "NaN", "n/a", "nan", "null"}
PYARROW_BOOLS = {"1": True, "True": True, "TRUE": True, "true": True,
                 "0": False, "False": False, "FALSE": False, "false": False}
PYTHON_CODECS = {"utf-8": "utf-8-sig", "utf-16": "utf-16", "latin-1": "latin-1", "windows-1252": "cp1252"}


def config(entry: dict, path: Path, warehouse: Path) -> dict:
    source = {"name": entry["id"], "format": entry["format"], "path": str(path), **entry.get("source_options", {})}
    target = {"name": entry["id"], "format": "ICEBERG",
              "catalog": {"type": "local", "identifier": "corpus", "warehouse_path": str(warehouse)}}
    return {"apiVersion": "ldp/v1", "identifier": f"corpus_{entry['id']}",
            "metadata": {"source": source, "target": target}}


def load(binary: str, entry: dict, path: Path, workdir: Path):
    """Runs `binary run CONFIG` in workdir. Returns ((Iceberg schema, Arrow table) or None, error or None)."""
    workdir.mkdir(parents=True)
    warehouse = workdir / "warehouse"
    cfg = workdir / "config.json"
    cfg.write_text(json.dumps(config(entry, path, warehouse), indent=2))
    try:
        result = subprocess.run([binary, "run", str(cfg)], cwd=workdir, capture_output=True, text=True,
                                timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {RUN_TIMEOUT_S}s"
    if result.returncode != 0:
        lines = (result.stderr.strip() or result.stdout.strip() or f"exit {result.returncode}").splitlines()
        message = [line for line in lines if "error" in line.lower()] or lines
        message = message[-1].replace("(run with -v for the traceback)", "").strip()
        return None, message if len(message) <= 200 else "..." + message[-197:]  # the cause is at the end
    catalog = SqlCatalog("corpus", uri=f"sqlite:///{warehouse}/corpus_catalog.db", warehouse=f"file://{warehouse}")
    table = catalog.load_table(f"corpus.{entry['id']}")
    return (table.schema(), table.scan().to_arrow()), None


def short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ------------------------------------------------------------------ against the Python tool's table


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def value_diffs(name: str, ours: pa.ChunkedArray, ref: pa.ChunkedArray, limit: int) -> list[str]:
    if ours.type == ref.type and ours.equals(ref):
        return []
    out, step = [], 65536
    for start in range(0, len(ours), step):
        rows = zip(ours.slice(start, step).to_pylist(), ref.slice(start, step).to_pylist())
        for i, (a, b) in enumerate(rows):
            if not same(a, b):
                out.append(f"{name!r} row {start + i}: ldp {short(a)} vs ref {short(b)}")
                if len(out) >= limit:
                    return out
    return out


def arrow_kind(data_type: pa.DataType) -> str:
    """An Arrow type with the 64-bit-offset variants named as the plain ones: both are an Iceberg
    `string` (or `binary`, `list`), and which one pyiceberg gives back follows the writer of the
    data files (the Python tool keeps a source's `large_string`), not the table."""
    return str(data_type).replace("large_string", "string").replace("large_binary", "binary").replace(
        "large_list", "list")


def compare_reference(ours, ref) -> list[str]:
    (our_schema, our_table), (ref_schema, ref_table) = ours, ref
    diffs = []
    if our_table.column_names != ref_table.column_names:
        diffs.append(f"columns: ldp {our_table.column_names} vs ref {ref_table.column_names}")
    common = [n for n in ref_table.column_names if n in our_table.column_names]
    our_fields = {f.name: f for f in our_schema.fields}
    ref_fields = {f.name: f for f in ref_schema.fields}
    for name in common:
        ours_type, ref_type = our_fields[name].field_type, ref_fields[name].field_type
        if str(ours_type) != str(ref_type):
            diffs.append(f"{name!r}: ldp {ours_type} vs ref {ref_type}")
        elif arrow_kind(our_table[name].type) != arrow_kind(ref_table[name].type):
            diffs.append(f"{name!r}: ldp arrow {our_table[name].type} vs ref {ref_table[name].type}")
    if our_table.num_rows != ref_table.num_rows:
        return diffs + [f"rows: ldp {our_table.num_rows} vs ref {ref_table.num_rows}"]
    for name in common:
        diffs += value_diffs(name, our_table[name], ref_table[name], MAX_DIFFS - len(diffs))
        if len(diffs) >= MAX_DIFFS:
            break
    return diffs


# ------------------------------------------------------------------ against DuckDB's reading of the file


def duckdb_table(entry: dict, path: Path, workdir: Path) -> tuple[pa.Table, set[str]]:
    """DuckDB's reading of the file, and the columns it typed JSON (their values arrive as JSON text)."""
    options = entry.get("source_options", {})
    con = duckdb.connect()
    if entry["format"] == "JSON":
        relation = con.sql(f"SELECT * FROM read_json({sql_text(path)}, sample_size = -1)")
        json_columns = {name for name, kind in zip(relation.columns, relation.types) if str(kind) == "JSON"}
        return relation.to_arrow_table(), json_columns
    encoding = options.get("encoding", "utf-8")
    if encoding != "utf-8":  # DuckDB gets the same text in UTF-8
        utf8 = workdir / f"utf8{path.suffix}"
        utf8.write_text(path.read_bytes().decode(PYTHON_CODECS[encoding]), encoding="utf-8", newline="")
        path = utf8
    relation = con.sql(
        f"SELECT * FROM read_csv({sql_text(path)}, delim = {sql_text(options.get('delimiter', ','))}, quote = '\"', "
        f"escape = '\"', header = true, skip = {int(options.get('skip_rows', 0))}, all_varchar = true, "
        "allow_quoted_nulls = false)")
    return relation.to_arrow_table(), set()


def pyarrow_types(entry: dict, path: Path) -> dict[str, pa.DataType]:
    """The column types pyarrow.csv infers with the entry's options, as an Iceberg table stores them."""
    options = entry.get("source_options", {})
    encoding = options.get("encoding", "utf-8")
    table = pyarrow.csv.read_csv(path, read_options=pyarrow.csv.ReadOptions(
        skip_rows=options.get("skip_rows", 0), encoding="utf8" if encoding == "utf-8" else PYTHON_CODECS[encoding]),
        parse_options=pyarrow.csv.ParseOptions(delimiter=options.get("delimiter", ",")))
    stored = {}
    for field in table.schema:
        kind = field.type
        if pa.types.is_null(kind):
            kind = pa.string()
        elif pa.types.is_time(kind):
            kind = pa.time64("us")
        elif pa.types.is_timestamp(kind):
            kind = pa.timestamp("us", kind.tz)
        stored[field.name] = kind
    return stored


def sql_text(value) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def parses_to(value, text) -> bool:
    """Whether ldp's value is what a CSV cell with this raw text (None: an empty cell) reads as."""
    if value is None:
        return text is None or text in PYARROW_NULLS
    if text is None:
        return value == ""
    if isinstance(value, bool):
        return PYARROW_BOOLS.get(text) is value
    if isinstance(value, (int, float, decimal.Decimal)):
        try:
            return same(float(value), float(text))
        except ValueError:
            return False
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        kind = type(value)
        try:
            parsed = kind.fromisoformat(text.strip())
        except ValueError:
            return False
        if isinstance(value, dt.datetime) and (value.tzinfo is None) != (parsed.tzinfo is None):
            return False
        return parsed == value
    if isinstance(value, bytes):
        return value == text.encode()
    return value == text


ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$")


def canonical(value):
    """A JSON value as both readers should agree on it, whatever types each inferred."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float, decimal.Decimal)):
        number = float(value)
        return "NaN" if math.isnan(number) else number
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value.isoformat()
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, str):
        if ISO_DATE.match(value):
            try:
                return canonical(dt.datetime.fromisoformat(value) if len(value) > 10 else dt.date.fromisoformat(value))
            except ValueError:
                return value
        if value[:1] in "[{":  # DuckDB's JSON type arrives as text
            try:
                return canonical(json.loads(value))
            except ValueError:
                return value
        return value
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return str(value)


def json_same(a, b) -> bool:
    a, b = canonical(a), canonical(b)
    if isinstance(a, float) and isinstance(b, str) or isinstance(a, str) and isinstance(b, float):
        try:  # a number one reader kept as text (a JSON column mixing "0" and 0)
            return float(a) == float(b)
        except ValueError:
            return False
    return a == b


def compare_duckdb(entry: dict, ours: pa.Table, theirs: pa.Table, json_columns: set[str],
                   pyarrow_types: dict[str, pa.DataType]) -> list[str]:
    diffs = []
    # DuckDB names a CSV column with an empty header columnN (N its position, zero-padded).
    names = ["" if i < ours.num_columns and ours.column_names[i] == "" and re.fullmatch(rf"column0*{i}", name)
             else name for i, name in enumerate(theirs.column_names)]
    theirs = theirs.rename_columns(names)
    if ours.column_names != theirs.column_names:
        diffs.append(f"columns: ldp {ours.column_names} vs duckdb {theirs.column_names}")
    if entry["format"] == "CSV":
        for name, kind in pyarrow_types.items():
            if name in ours.column_names and ours[name].type != kind:
                diffs.append(f"{name!r}: ldp {ours[name].type} vs pyarrow {kind}")
    if ours.num_rows != theirs.num_rows:
        return diffs + [f"rows: ldp {ours.num_rows} vs duckdb {theirs.num_rows}"]
    for name in (n for n in ours.column_names if n in theirs.column_names):
        matches = json_same
        if entry["format"] == "CSV":
            matches = parses_to
            # pyarrow keeps every cell of a string column as text ("" when empty): only a column with
            # no value at all (null type, stored as string) holds nulls.
            column = ours[name]
            if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
                if column.null_count < len(column):
                    matches = lambda a, b: a is not None and parses_to(a, b)  # noqa: E731
        values = theirs[name].to_pylist()
        if name in json_columns:
            values = [None if v is None else json.loads(v) for v in values]
        for i, (a, b) in enumerate(zip(ours[name].to_pylist(), values)):
            if not matches(a, b):
                diffs.append(f"{name!r} row {i}: ldp {short(a)} ({ours[name].type}) vs duckdb {short(b)}")
                break
        if len(diffs) >= MAX_DIFFS:
            break
    return diffs


# ------------------------------------------------------------------ driver


def check(entry: dict, args, workdir: Path) -> tuple[bool, str]:
    path = file_path(entry, args.cache)
    ours, our_error = load(args.ldp, entry, path, workdir / "ldp")
    if entry["compare"] == "reference":
        ref, ref_error = load(args.ref_ldp, entry, path, workdir / "ref")
        if ref_error and our_error:
            return True, f"both fail; ref: {ref_error}; ldp: {our_error}"
        if ref_error:
            return False, f"the Python tool fails ({ref_error}), ldp loads {ours[1].num_rows} rows"
        if our_error:
            return False, f"ldp fails: {our_error}"
        diffs = compare_reference(ours, ref)
    else:
        if our_error:
            return False, f"ldp fails: {our_error}"
        types = pyarrow_types(entry, path) if entry["format"] == "CSV" else {}
        diffs = compare_duckdb(entry, ours[1], *duckdb_table(entry, path, workdir), types)
    return not diffs, "; ".join(diffs[:MAX_DIFFS])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ldp", required=True, help="the ldp binary under test")
    parser.add_argument("--ref-ldp", required=True, help="the Python tool's ldp executable")
    parser.add_argument("--only", help="comma-separated ids")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (printed)")
    args = parser.parse_args()
    args.ldp = str(Path(args.ldp).resolve())
    args.ref_ldp = str(Path(args.ref_ldp).absolute())
    args.cache = cache_dir()
    entries = load_manifest()
    if args.only:
        wanted = set(args.only.split(","))
        entries = [e for e in entries if e["id"] in wanted]
    root = Path(tempfile.mkdtemp(prefix="ldp-corpus-"))
    passed = failed = 0
    for entry in entries:
        try:
            ok, message = check(entry, args, root / entry["id"])
        except Exception as error:  # a reader that crashed: the file fails, the others still run
            ok, message = False, f"{type(error).__name__}: {str(error).splitlines()[0][:200] if str(error) else ''}"
        if ok:
            passed += 1
            print(f"ok  {entry['id']}" + (f" ({message})" if message else ""), flush=True)
        else:
            failed += 1
            print(f"DIFF {entry['id']}: {message}", flush=True)
    if args.keep:
        print(f"work folder: {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    print(f"corpus: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
