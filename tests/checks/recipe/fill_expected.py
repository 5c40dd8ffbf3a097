"""Fill tests/checks/<case>/case.json "expected" from the reference (local-data-platform 0.1.3).

Usage: fill_expected.py CASE_DIR...   (cases whose case.json has "expected": "generate", or --all)
"""
import os, sys, json, math, datetime as dt, decimal, pathlib
import pyarrow as pa
from local_data_platform.quality.checks import parse_type
from local_data_platform.quality.runner import run_checks

def column(values, t):
    if pa.types.is_timestamp(t) and t.unit == "ns":
        return pa.array(values, type=pa.string()).cast(t)
    out = []
    for v in values:
        if v is None:
            out.append(None)
        elif (pa.types.is_floating(t)) and isinstance(v, str):
            out.append(float(v))
        elif pa.types.is_timestamp(t) and isinstance(v, str):
            d = dt.datetime.fromisoformat(v.replace('Z', '+00:00'))
            if t.tz is not None and d.tzinfo is None:
                d = d.replace(tzinfo=dt.timezone.utc)
            out.append(d)
        elif pa.types.is_date(t) and isinstance(v, str):
            out.append(dt.date.fromisoformat(v))
        elif pa.types.is_decimal(t):
            out.append(decimal.Decimal(str(v)))
        else:
            out.append(v)
    return pa.array(out, type=t)

def run(case_dir, force):
    case_dir = pathlib.Path(case_dir)
    case = json.loads((case_dir / "case.json").read_text())
    if not force and case.get("expected") != "generate":
        return
    schema = {name: parse_type(spec) for name, spec in case["schema"].items()}
    data = case_dir / "data.jsonl"
    rows = [json.loads(l) for l in data.read_text().splitlines() if l.strip()] if data.exists() else []
    table = pa.table({name: column([r.get(name) for r in rows], t) for name, t in schema.items()})
    ctx = dict(case.get("context", {}))
    if "now" in ctx:
        ctx["now"] = dt.datetime.fromisoformat(ctx["now"])
    report = run_checks(table, case["checks"], ctx)
    case["expected"] = [r.to_dict() for r in report.results]
    for e in case["expected"]:
        print(f"{case_dir.name}: [{'PASS' if e['passed'] else 'FAIL'}] {e['name']}: {e['details']} [{e['failing_rows']}]")
    (case_dir / "case.json").write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n")

force = "--all" in sys.argv
dirs = [a for a in sys.argv[1:] if a != "--all"]
if not dirs:  # every case folder next to this recipe
    dirs = sorted(str(p) for p in pathlib.Path(__file__).resolve().parent.parent.iterdir())
for d in dirs:
    if (pathlib.Path(d) / "case.json").is_file():
        run(d, force)
