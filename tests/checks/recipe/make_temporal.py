"""Generates tests/checks/<case>/ folders for the temporal checks, expected values from the reference."""
import sys, json, math, os, datetime as dt, shutil
sys.path.insert(0, os.environ.get('LDP_REFERENCE_SRC', '/tmp/ldpref/src'))
import pyarrow as pa
from local_data_platform.quality.temporal import MaxGap, Monotonic, MaxSkew, RateBelow
from local_data_platform.quality.checks import parse_type

CLASSES = {"monotonic": Monotonic, "max_skew": MaxSkew, "rate_below": RateBelow, "max_gap": MaxGap}
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')

def to_json_cell(v, ty):
    if v is None:
        return None
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return "NaN" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, dt.datetime) and pa.types.is_timestamp(ty) and ty.tz and v.tzinfo is None:
        return v.isoformat() + "Z"
    if isinstance(v, (dt.datetime, dt.date)):
        return v.isoformat()
    if isinstance(v, dt.timedelta):
        raise ValueError("write durations as ints")
    return v

def case(folder, description, schema, rows, checks, batch_rows=2, **kw):
    types = {k: parse_type(v) for k, v in schema.items()}
    columns = {k: [] for k in schema}
    for row in rows:
        for k in schema:
            columns[k].append(row.get(k))
    arrays = {}
    for k, ty in types.items():
        vals = columns[k]
        if pa.types.is_duration(ty):
            arrays[k] = pa.array(vals, pa.int64()).cast(ty)
        elif pa.types.is_timestamp(ty) and any(isinstance(v, str) for v in vals):
            arrays[k] = pa.array(vals, pa.string()).cast(ty)
        elif pa.types.is_timestamp(ty) and any(isinstance(v, int) for v in vals):
            arrays[k] = pa.array(vals, pa.int64()).cast(ty)
        else:
            arrays[k] = pa.array(vals, ty)
    # Chunk the table like the plugin's batches, to be faithful where chunking matters.
    table = pa.table(arrays) if rows else pa.table({k: pa.array([], t) for k, t in types.items()})
    expected = []
    for item in checks:
        params = {k: v for k, v in item.items() if k != "check"}
        check = CLASSES[item["check"].strip().lower()](**params)
        result = check.run(table).to_dict()
        result["metrics_complete"] = True
        expected.append(result)
    path = os.path.join(OUT, folder)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "data.jsonl"), "w") as f:
        for row in rows:
            cells = {k: to_json_cell(row.get(k), types[k]) for k in schema if row.get(k) is not None}
            f.write(json.dumps(cells) + "\n")
    spec = {"description": description, "schema": schema, "checks": checks, "batch_rows": batch_rows}
    spec.update(kw)
    spec["expected"] = expected
    with open(os.path.join(path, "case.json"), "w") as f:
        json.dump(spec, f, indent=2)
        f.write("\n")
    for r in expected:
        print(f"{folder}: [{'PASS' if r['passed'] else 'FAIL'}] {r['name']}: {r['details']}")

NAN, INF = float("nan"), float("inf")
T0 = dt.datetime(2024, 1, 1)
def ts(ms): return T0 + dt.timedelta(milliseconds=ms)
H = 3_600_000

exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'temporal_cases.py')).read())
