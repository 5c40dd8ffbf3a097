import json, os, pathlib, sys
import pyarrow as pa
sys.path.insert(0, os.environ.get("LDP_REFERENCE_SRC", "/tmp/ldpref/src"))
ROOT = pathlib.Path(__file__).resolve().parent.parent

def case(name, description, schema, rows, checks, context=None, batch_rows=None):
    d = ROOT / name
    d.mkdir(parents=True, exist_ok=True)
    c = {"description": description, "schema": schema, "checks": checks}
    if context: c["context"] = context
    if batch_rows: c["batch_rows"] = batch_rows
    c["expected"] = "generate"
    (d / "case.json").write_text(json.dumps(c, indent=2) + "\n")
    (d / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

# ---------------------------------------------------------------- demo
from local_data_platform import demo
bad = demo.generate_rides(demo.MIN_ROWS, 42 + 2, start_id=1000 + demo.NEW_RIDES + 1)
ids = bad["ride_id"].to_pylist(); ids[0:3] = [None] * 3; ids[3:6] = [ids[6]] * 3
fares = bad["fare"].to_pylist(); fares[7] = -12.5
rows = []
for i, r in enumerate(bad.to_pylist()):
    rows.append({"ride_id": ids[i], "pickup_ts": r["pickup_ts"].isoformat(), "city": r["city"],
                 "distance_km": r["distance_km"], "fare": fares[i]})
demo_schema = {"ride_id": "int64", "pickup_ts": "timestamp[us]", "city": "string", "distance_km": "double", "fare": "double"}
demo_checks = [
    {"check": "row_count", "min": 1},
    {"check": "not_null", "columns": ["ride_id", "pickup_ts", "fare"]},
    {"check": "unique", "columns": ["ride_id"]},
    {"check": "accepted_values", "column": "city", "values": ["NYC", "BKK", "LDN", "SFO"]},
    {"check": "range", "column": "fare", "min": 0},
    {"check": "freshness", "column": "pickup_ts", "max_age_hours": 48, "now": "2024-01-08T00:00:00"},
    {"check": "schema", "columns": {"ride_id": "int64", "city": "string", "fare": "double"}},
]
case("demo-bad-batch", "The demo's bad batch (seed 42 + 2, ids from 1011): 3 null ride_ids, 1017 four times, a negative fare; the demo's seven checks (3 fail).",
     demo_schema, rows, demo_checks, batch_rows=3)
clean = demo.generate_rides(50, 42)
crow = [{"ride_id": r["ride_id"], "pickup_ts": r["pickup_ts"].isoformat(), "city": r["city"], "distance_km": r["distance_km"], "fare": r["fare"]} for r in clean.to_pylist()]
case("demo-clean-batch", "50 clean demo rides (seed 42): the demo's seven checks all pass.", demo_schema, crow, demo_checks, batch_rows=7)

# ---------------------------------------------------------------- row_count
s = {"id": "int64"}
four = [{"id": i} for i in range(4)]
case("row_count-min-pass", "row_count with min passes.", s, four, [{"check": "row_count", "min": 1}])
case("row_count-bounds-fail", "row_count outside min and max; max alone; equals.", s, four,
     [{"check": "row_count", "min": 5, "max": 10}, {"check": "row_count", "max": 3}, {"check": "row_count", "equals": 4, "name": "exactly four"}, {"check": "row_count", "min": 0, "max": 4}])
case("row_count-equals-source", "equals 'source' compares with the context's source_rows.", s, four,
     [{"check": "row_count", "equals": "source"}, {"check": " ROW_COUNT ", "min": 1, "equals": "source"}], context={"source_rows": 5})
case("row_count-equals-source-pass", "equals 'source' passes when source_rows matches.", s, four,
     [{"check": "row_count", "equals": "source"}], context={"source_rows": 4})
case("row_count-source-missing", "equals 'source' without a source row count fails.", s, four,
     [{"check": "row_count", "min": 1, "equals": "source"}])
case("row_count-empty", "0 rows.", s, [], [{"check": "row_count", "min": 1}, {"check": "row_count", "max": 0}])

# ---------------------------------------------------------------- not_null
case("not_null-pass", "No nulls.", {"ride_id": "int64", "pickup_ts": "timestamp[us]"},
     [{"ride_id": 1, "pickup_ts": "2024-01-01T00:00:00"}, {"ride_id": 2, "pickup_ts": "2024-01-01T00:00:01"}, {"ride_id": 3, "pickup_ts": "2024-01-01T00:00:02"}],
     [{"check": "not_null", "columns": ["ride_id", "pickup_ts"]}])
case("not_null-fail", "Nulls in two columns, one row with both; duplicated column names de-duplicated.", {"id": "int64", "city": "string", "x": "double"},
     [{"id": 1, "city": "NYC"}, {"id": None, "city": "BKK", "x": 1.0}, {"id": 3, "city": None, "x": 2.0}, {"id": 4, "city": "LDN", "x": 3.0}],
     [{"check": "not_null", "columns": ["id", "city"]}, {"check": "not_null", "columns": ["id", "city", "id", "x"]}, {"check": "not_null", "columns": "x"}])
case("not_null-nan-is-value", "NaN and infinities are values, not nulls.", {"x": "double"},
     [{"x": "NaN"}, {"x": "inf"}, {"x": "-inf"}, {"x": 1.5}, {"x": None}], [{"check": "not_null", "columns": ["x"]}], batch_rows=3)
case("not_null-same-row", "Nulls in several columns on the same rows count once per row.", {"a": "int64", "b": "string", "c": "date32"},
     [{"a": None, "b": None, "c": None}, {"a": 1, "b": "x", "c": "2024-01-01"}, {"a": None, "b": "y", "c": None}, {"a": 2, "b": None, "c": "2024-01-02"}, {}],
     [{"check": "not_null", "columns": ["a", "b", "c"]}], batch_rows=2)
case("not_null-missing-column", "A missing column fails without evaluating.", {"a": "int64", "b": "string"},
     [{"a": 1, "b": "x"}], [{"check": "not_null", "columns": ["a", "nope"]}, {"check": "unique", "columns": ["zz", "b", "yy"]}])
case("not_null-empty", "0 rows.", {"a": "int64"}, [], [{"check": "not_null", "columns": ["a"]}])

# ---------------------------------------------------------------- unique
case("unique-pass", "Unique keys, with null keys skipped.", {"ride_id": "int64"},
     [{"ride_id": 3}, {"ride_id": 1}, {"ride_id": None}, {"ride_id": 2}, {"ride_id": None}, {"ride_id": 10}, {"ride_id": None}],
     [{"check": "unique", "columns": ["ride_id"]}, {"check": "unique", "columns": "ride_id", "name": "ids"}], batch_rows=3)
case("unique-sequential-ids", "Increasing ids (kept as runs) with a duplicate of an early one, and a gap.", {"id": "int64"},
     [{"id": i} for i in list(range(1, 30)) + [5, 100, 101, 102, 50, 101, 5]], [{"check": "unique", "columns": ["id"]}], batch_rows=4)
case("unique-first-appearance", "More than five duplicated keys: the sample keeps the first five in order of first appearance.", {"k": "int32"},
     [{"k": k} for k in [9, 8, 7, 6, 5, 4, 3, 4, 5, 6, 7, 8, 9, 3, 9, 1, -4, -4]], [{"check": "unique", "columns": ["k"]}], batch_rows=5)
case("unique-strings", "String keys.", {"city": "string"},
     [{"city": c} for c in ["NYC", "BKK", "it's", "NYC", None, "it's", "", ""]], [{"check": "unique", "columns": ["city"]}], batch_rows=3)
case("unique-composite-keys", "Composite keys shown as dicts; a null in any key column skips the row.", {"a": "int64", "b": "string", "c": "double"},
     [{"a": 1, "b": "x", "c": 1.0}, {"a": 1, "b": "y", "c": 1.0}, {"a": 1, "b": "x", "c": 2.0}, {"a": 1, "b": None, "c": 1.0}, {"a": 1, "b": None, "c": 1.0}, {"a": 1, "b": "x", "c": 3.0}],
     [{"check": "unique", "columns": ["a", "b"]}, {"check": "unique", "columns": ["a", "b", "c"]}, {"check": "unique", "columns": ["b", "a"]}], batch_rows=2)
case("unique-temporal-keys", "Timestamp and date keys print as ISO text.", {"ts": "timestamp[us]", "tz": "timestamp[ms, tz=UTC]", "d": "date32"},
     [{"ts": "2024-01-01T00:00:00", "tz": "2024-01-01T00:00:00.250Z", "d": "2024-01-01"}, {"ts": "2024-01-01T00:00:00", "tz": "2024-01-01T00:00:00.250Z", "d": "2024-01-01"},
      {"ts": "2024-01-01T00:00:00.000001", "tz": "2024-01-02T00:00:00Z", "d": "2024-01-02"}],
     [{"check": "unique", "columns": ["ts"]}, {"check": "unique", "columns": ["tz"]}, {"check": "unique", "columns": ["d"]}, {"check": "unique", "columns": ["ts", "d"]}])
case("unique-floats", "Float keys: NaN equals NaN, -0.0 differs from 0.0.", {"x": "double"},
     [{"x": "NaN"}, {"x": 0.0}, {"x": -0.0}, {"x": "NaN"}, {"x": 1.5}, {"x": 1.5}, {"x": "inf"}], [{"check": "unique", "columns": ["x"]}], batch_rows=3)
case("unique-all-null", "Every key null.", {"a": "int64", "b": "string"}, [{"a": None, "b": "x"}, {"a": 1, "b": None}],
     [{"check": "unique", "columns": ["a", "b"]}, {"check": "unique", "columns": ["a"]}])
case("unique-empty", "0 rows.", {"a": "int64", "b": "string"}, [], [{"check": "unique", "columns": ["a"]}, {"check": "unique", "columns": ["b"]}])
case("unique-bools", "Bool keys.", {"flag": "bool", "n": "int8"}, [{"flag": True, "n": 1}, {"flag": False, "n": 1}, {"flag": True, "n": 2}],
     [{"check": "unique", "columns": ["flag"]}, {"check": "unique", "columns": ["flag", "n"]}, {"check": "unique", "columns": ["n"]}])

# ---------------------------------------------------------------- accepted_values
cities = [{"city": c} for c in ["NYC", "BKK", None, "LDN", "SFO", "NYC"]]
case("accepted_values-pass", "Every non-null city accepted; nulls skipped.", {"city": "string"}, cities,
     [{"check": "accepted_values", "column": "city", "values": ["NYC", "BKK", "LDN", "SFO"]}])
case("accepted_values-fail", "One value outside the list.", {"city": "string"}, [{"city": c} for c in ["NYC", "BKK", "XXX", "NYC"]],
     [{"check": "accepted_values", "column": "city", "values": ["NYC", "BKK"]}])
case("accepted_values-many-offenders", "More than five distinct offenders, repeated: the first five distinct in order; a list longer than 10 is cut.", {"c": "large_string"},
     [{"c": c} for c in ["g", "a", "h", "g", "i", None, "j", "k", "l", "a", "m"]],
     [{"check": "accepted_values", "column": "c", "values": ["a"]}, {"check": "accepted_values", "column": "c", "values": list("abcdefghijkl")}], batch_rows=4)
case("accepted_values-cast", "Values cast to the column's type: ints on a string column, floats truncated on an int column, strings parsed for ints, dates and bools.",
     {"s": "string", "i": "int8", "d": "date32", "b": "bool", "f": "double"},
     [{"s": "1", "i": 1, "d": "2024-01-01", "b": True, "f": 2.0}, {"s": "2", "i": 2, "d": "2024-01-02", "b": False, "f": "NaN"}, {"s": "2.5", "i": 3, "d": None, "b": None, "f": 1.0}, {"s": "a", "i": 44, "d": "2024-01-01", "b": True, "f": -0.0}],
     [{"check": "accepted_values", "column": "s", "values": [1, 2]},
      {"check": "accepted_values", "column": "s", "values": [1.5, 2.0]},
      {"check": "accepted_values", "column": "i", "values": [-2.7, 3.9]},
      {"check": "accepted_values", "column": "i", "values": [1, 300]},
      {"check": "accepted_values", "column": "i", "values": ["1", "2"]},
      {"check": "accepted_values", "column": "d", "values": ["2024-01-01"]},
      {"check": "accepted_values", "column": "b", "values": [True]},
      {"check": "accepted_values", "column": "f", "values": [0, 2]}])
case("accepted_values-timestamps", "ISO strings on naive and UTC timestamp columns.", {"ts": "timestamp[us]", "tz": "timestamp[us, tz=UTC]"},
     [{"ts": "2024-01-01T00:00:00", "tz": "2024-01-01T00:00:00Z"}, {"ts": "2024-01-02T00:00:00", "tz": "2024-01-02T00:00:00Z"}],
     [{"check": "accepted_values", "column": "ts", "values": ["2024-01-01T00:00:00"]},
      {"check": "accepted_values", "column": "tz", "values": ["2024-01-01T01:00:00+01:00"]}])
case("accepted_values-type-mismatch", "Strings that can't be cast to the column's type: could not be evaluated.", {"i": "int64", "f": "double"},
     [{"i": 1, "f": 1.0}], [{"check": "accepted_values", "column": "i", "values": ["a", "1"]}, {"check": "accepted_values", "column": "f", "values": ["x"]}])
case("accepted_values-empty", "0 rows.", {"city": "string"}, [], [{"check": "accepted_values", "column": "city", "values": ["NYC"]}])

# ---------------------------------------------------------------- range
case("range-pass", "Within bounds; nulls skipped and counted.", {"fare": "double"},
     [{"fare": 1.5}, {"fare": None}, {"fare": 0}, {"fare": None}, {"fare": 20.25}],
     [{"check": "range", "column": "fare", "min": 0}, {"check": "range", "column": "fare", "max": 100.5}, {"check": "range", "column": "fare", "min": 0, "max": 20.25}], batch_rows=2)
case("range-fail", "Below, above and NaN.", {"fare": "double"},
     [{"fare": -1}, {"fare": 150}, {"fare": "NaN"}, {"fare": 50}, {"fare": None}],
     [{"check": "range", "column": "fare", "min": 0, "max": 100}, {"check": "range", "column": "fare", "min": 0}, {"check": "range", "column": "fare", "max": 100}])
case("range-all-nan", "Every value NaN.", {"x": "float"}, [{"x": "NaN"}, {"x": "NaN"}], [{"check": "range", "column": "x", "min": 0, "max": 2}])
case("range-ints", "Integer column: exact int bounds, float bounds, string bounds cast.", {"n": "int32"},
     [{"n": 1}, {"n": 5}, {"n": 10}, {"n": None}],
     [{"check": "range", "column": "n", "min": 1, "max": 10}, {"check": "range", "column": "n", "min": 1.5}, {"check": "range", "column": "n", "max": "9"}, {"check": "range", "column": "n", "max": "x"}])
case("range-timestamps", "Timestamp bounds as ISO strings; naive values read as UTC; a tz-aware column.", {"ts": "timestamp[s]", "tz": "timestamp[ns, tz=UTC]"},
     [{"ts": "2024-01-01T00:00:00", "tz": "2024-01-01T00:00:00Z"}, {"ts": "2024-01-02T12:00:00", "tz": "2024-01-02T12:00:00.000000001Z"}, {"ts": "2024-01-03T00:00:00", "tz": "2024-01-03T00:00:00Z"}],
     [{"check": "range", "column": "ts", "min": "2024-01-01", "max": "2024-01-02T12:00:00"},
      {"check": "range", "column": "ts", "min": "2024-01-01T01:00:00+01:00"},
      {"check": "range", "column": "tz", "max": "2024-01-02T12:00:00"},
      {"check": "range", "column": "ts", "min": 5},
      {"check": "range", "column": "ts", "min": "not a date"}])
case("range-dates", "Date column with date and datetime bounds.", {"d": "date32"},
     [{"d": "2024-01-01"}, {"d": "2024-02-01"}, {"d": None}],
     [{"check": "range", "column": "d", "min": "2024-01-01", "max": "2024-01-31"}, {"check": "range", "column": "d", "max": "2024-02-01T10:00:00"}])
case("range-strings", "String column: string bounds compare as text; a numeric bound can't be compared.", {"s": "string"},
     [{"s": "apple"}, {"s": "banana"}, {"s": "cherry"}],
     [{"check": "range", "column": "s", "min": "b"}, {"check": "range", "column": "s", "min": 0}])
case("range-empty", "0 rows.", {"x": "double"}, [], [{"check": "range", "column": "x", "min": 0}])

# ---------------------------------------------------------------- freshness
ts = [{"pickup_ts": "2024-01-07T23:52:09"}, {"pickup_ts": "2024-01-05T10:00:00"}, {"pickup_ts": None}]
case("freshness-pass", "Newest value 0.1h old within 48h (the demo).", {"pickup_ts": "timestamp[us]"}, ts,
     [{"check": "freshness", "column": "pickup_ts", "max_age_hours": 48, "now": "2024-01-08T00:00:00"}])
case("freshness-fail", "Older than the limit; a float limit prints as written.", {"pickup_ts": "timestamp[us]"}, ts,
     [{"check": "freshness", "column": "pickup_ts", "max_age_hours": 24.0, "now": "2024-01-10T12:30:00"},
      {"check": "freshness", "column": "pickup_ts", "max_age_hours": 0.5, "now": "2024-01-08T00:30:00+00:00"}])
case("freshness-future", "A newest value in the future passes.", {"ts": "timestamp[ms]"}, [{"ts": "2024-01-08T03:30:00"}],
     [{"check": "freshness", "column": "ts", "max_age_hours": 1, "now": "2024-01-08T00:00:00"}])
case("freshness-time-zones", "A tz-aware column, a naive column (read as UTC), a now with an offset.", {"tz": "timestamp[us, tz=Europe/Paris]", "naive": "timestamp[ns]"},
     [{"tz": "2026-08-01T12:00:00Z", "naive": "2026-08-01T12:00:00"}, {"tz": "2026-08-01T10:00:00Z", "naive": "2026-08-01T11:59:59.999999999"}],
     [{"check": "freshness", "column": "tz", "max_age_hours": 24, "now": "2026-08-02T00:00:00"},
      {"check": "freshness", "column": "naive", "max_age_hours": 24, "now": "2026-08-02T02:00:00+02:00"},
      {"check": "freshness", "column": "tz", "max_age_hours": 12, "now": "2026-08-02T01:30:00+01:00"}])
case("freshness-context-now", "Without now, the run's now (the window end) is the reference; a now param wins over it.", {"ts": "timestamp[us, tz=UTC]"},
     [{"ts": "2026-08-01T12:00:00Z"}],
     [{"check": "freshness", "column": "ts", "max_age_hours": 24}, {"check": "freshness", "column": "ts", "max_age_hours": 24, "now": "2026-08-03T12:00:00.5"}],
     context={"now": "2026-08-02T00:00:00+00:00"})
case("freshness-dates", "A date column counts as midnight UTC.", {"d": "date32"}, [{"d": "2024-01-06"}, {"d": "2024-01-07"}],
     [{"check": "freshness", "column": "d", "max_age_hours": 24, "now": "2024-01-08T06:00:00"}])
case("freshness-all-null", "Every value null.", {"ts": "timestamp[us]"}, [{"ts": None}, {}],
     [{"check": "freshness", "column": "ts", "max_age_hours": 24, "now": "2024-01-08T06:00:00"}])
case("freshness-not-temporal", "Not a timestamp or date column.", {"ts": "string"}, [{"ts": "2024-01-08"}],
     [{"check": "freshness", "column": "ts", "max_age_hours": 24, "now": "2024-01-08T06:00:00"}])
case("freshness-empty", "0 rows.", {"ts": "timestamp[us]"}, [],
     [{"check": "freshness", "column": "ts", "max_age_hours": 24, "now": "2024-01-08T06:00:00"}, {"check": "freshness", "column": "nope", "max_age_hours": 24}])

# ---------------------------------------------------------------- schema
sch = {"ride_id": "int64", "city": "string", "big": "large_string", "ts": "timestamp[us]", "tz": "timestamp[us, tz=UTC]", "s": "timestamp[s]", "d": "date32", "dec": "decimal128(10, 2)", "f": "float", "flag": "bool"}
case("schema-pass", "Expected columns and exact types, with aliases.", sch, [{"ride_id": 1}],
     [{"check": "schema", "columns": {"ride_id": "int64", "city": "utf8", "big": "large_string", "ts": "timestamp[us]", "tz": "timestamp[us, tz=UTC]", "s": "timestamp[s]", "d": "date32", "dec": "decimal(10, 2)", "f": "float32", "flag": "boolean"}},
      {"check": "schema", "columns": ["ride_id", "city", "ride_id"]},
      {"check": "schema", "columns": "tz"}])
case("schema-fail", "Missing columns and exact type mismatches.", sch, [{"ride_id": 1}, {"ride_id": 2}],
     [{"check": "schema", "columns": {"nope": "int64", "city": "large_string"}},
      {"check": "schema", "columns": {"ts": "timestamp[ns]", "tz": "timestamp[us]", "s": "timestamp[us, tz=UTC]", "big": "string", "f": "double", "dec": "decimal128(10, 3)", "ride_id": "int32"}},
      {"check": "schema", "columns": ["a", "b", "city"], "name": "has a and b"}])

# ---------------------------------------------------------------- more types
case("range-decimals", "A decimal column: exact int and float bounds; decimals print as text.", {"amount": "decimal128(10, 2)"},
     [{"amount": "1.50"}, {"amount": "-0.05"}, {"amount": "12.00"}, {"amount": None}],
     [{"check": "range", "column": "amount", "min": 0, "max": 10.5}, {"check": "range", "column": "amount", "min": "-0.05"},
      {"check": "unique", "columns": ["amount"]}, {"check": "accepted_values", "column": "amount", "values": [1.5, 12]}])
case("unique-zoned-keys", "Keys of a column in a named zone print at the zone's offset.", {"ts": "timestamp[s, tz=Europe/Paris]", "n": "uint64"},
     [{"ts": "2024-07-01T10:00:00Z", "n": 18446744073709551615}, {"ts": "2024-07-01T10:00:00Z", "n": 18446744073709551615}, {"ts": "2024-01-01T10:00:00Z", "n": 1}, {"ts": "2024-01-01T10:00:00Z", "n": 1}],
     [{"check": "unique", "columns": ["ts"]}, {"check": "unique", "columns": ["n"]}, {"check": "range", "column": "ts", "min": "2024-01-01T00:00:00"}, {"check": "accepted_values", "column": "n", "values": [1]}])
