"""Write reference_cases.json: what the real local-data-platform 0.1.3 answers for the pure parts
of "exactly once" (canonical JSON, spec-path normalisation, spec hash, target identity, windows
and their shortcuts, strftime of window placeholders, `ldp plan`), for ldp-config's tests.

Run with Python 3.11 and the reference on the path, for example:

    pip download --no-deps --only-binary=:all: local-data-platform==0.1.3 -d /tmp/ldpref
    (cd /tmp/ldpref && mkdir -p src && cd src && unzip -q ../*.whl)
    PYTHONPATH=/tmp/ldpref/src:<a site-packages with pyarrow, pyiceberg, duckdb and cronsim> \
        python3.11 gen_reference_cases.py > reference_cases.json
"""

import contextlib
import datetime as dt
import io
import json
import os
import sys
import tempfile
from pathlib import Path

from local_data_platform import spec
from local_data_platform.orchestration import windows

HERE = Path(__file__).resolve().parent
NOW = dt.datetime(2026, 8, 5, 1, 30, tzinfo=dt.timezone.utc)


def outcome(function, *args, **kwargs):
    try:
        return {"ok": function(*args, **kwargs)}
    except spec.ConfigError as exc:
        return {"error": str(exc)}
    except (OverflowError, ValueError) as exc:
        return {"crash": type(exc).__name__}


CANONICAL = [
    "0.0", "-0.0", "2.5", "1e-05", "1e+100", "1e16", "1e15", "123456789.123", "5e-324",
    "1.7976931348623157e308", "0.30000000000000004", "1e22", "1E5", "100", "-7", "18446744073709551615",
    "-9223372036854775808", "[1, 1.0, 1.50, -0.000123]", '"a\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f\\u007f é € 😀 \\u2028"',
    '{"b": 1, "a": {"z": [true, null], "Z": "x"}, "é": 2, "B": 3, "😀": 4, "\\uffff": 5, "": 6}',
    '{"k": {"nested": {"deeper": [1, {"y": 2, "x": 1}]}}}',
]

PATHS = [
    "data/rides.csv", "./data/../data/rides.csv", "/proj/cfg/data/rides.csv", "/proj/cfg/./data//rides.csv",
    "/proj/cfg", "/proj/cfg/", "/proj/cfgx/a.csv", "/proj/other/a.csv", "/proj/cfg/../other/a.csv",
    "file:///proj/cfg/warehouse", "file://warehouse/", "s3://bucket/a/../b", "gs://b/x", "~/data/./x.csv", "~",
    "../up.csv", "drops/./orders_{window_start:%Y-%m-%d}.csv", "", ".", "//proj/cfg/a", "///proj/cfg/a",
    "a//b/./c/..", "/", "file:///", "http://x/../y", "C:\\data\\x.csv", "data\\x.csv",
]

WINDOWS = [
    "2026-08-01/2026-08-02", " 2026-08-01T00:00:00Z / 20260802 ", "2026-08-01T02:00:00+02:00/2026-08-02T00:00z",
    "2026-08-01T00:00:00.25/2026-08-01T00:00:01", "2026-08-02/2026-08-01", "2026-08-01/2026-08-01",
    "2026-08-01", "a/b/c", " /2026-08-01", "2026-08-01/tomorrow ", "", "/", "2026-W31/2026-W32",
    "2026W316/2026W317", "2026-W31-6T10/2026-W31-6T11", "2026-W53/2027-W01", "2025-W53/2026-W01",
    "2026-08-01T10/2026-08-01T11", "2026-08-01T1030/2026-08-01T1031", "2026-08-01T103000,5/2026-08-01T103001",
    "2026-08-01T10:30:00.1234567/2026-08-01T10:30:01", "2026-08-01T10:30:00.123456789+01:00/2026-08-02",
    "2026-08-01T10.5/2026-08-02", "2026-08-01T10:30.5/2026-08-02", "2026-08-01T10:00:00:5/2026-08-02",
    "2026-08-01T10000012/2026-08-02", "2026-08-01 10:30/2026-08-01 11:30", "2026-08-01é10:30/2026-08-02",
    "2026-08-01T10:30+01/2026-08-02", "2026-08-01T10:30+0130/2026-08-02", "2026-08-01T10:30-01:30:15/2026-08-02",
    "2026-08-01T10:30+01:30:15.5/2026-08-02", "2026-08-01T10:30+00:00:00.5/2026-08-02",
    "2026-08-01T10:30+23:59/2026-08-02", "2026-08-01T10:30+24:00/2026-08-02", "2026-08-01T10:30+1/2026-08-02",
    "2026-08-01T10:30+01:00 /2026-08-02", "2026-08-01T24:00/2026-08-02", "2026-08-01T23:60/2026-08-02",
    "2026-08-01T23:59:60/2026-08-02", "2026-02-29/2026-03-01", "2024-02-29/2024-03-01", "0000-01-01/2026-01-01",
    "0001-01-01/0001-01-02", "9999-12-31/9999-12-31T23:59:59.999999", "0001-01-01T00:00+01:00/2026-01-01",
    "9999-12-31T23:00-02:00/9999-12-31T23:59", "2026-8-1/2026-08-02", "2026/08/01", "2026-0801/2026-08-02",
    "202608-01/2026-08-02", "2026-08-01T/2026-08-02", "2026-08-01T1/2026-08-02", "2026-08-01T10:/2026-08-02",
    "2026-08-01T10:00:/2026-08-02", "2026-08-01T10:00:00./2026-08-02", "2026-08-01T10:00:00.x/2026-08-02",
    "2026-08-01T10:0000/2026-08-02", "2026-08-01T1000:00/2026-08-02", "2026-08-01Z/2026-08-02",
    "2026-08-01T10:00ZZ/2026-08-02", "20260801T1000Z/20260802", "2026-W01-0/2026-W02", "2026-W00/2026-W02",
    "2026-W1/2026-W02", "2026-W01-/2026-W02", "2026-W0101/2026-W02", "2026W01/2026W02", "2026W0101/2026W02",
    "2026W011T10/2026W02", "2026-W01-1T10:00/2026-W02", "2026-W01T10:00/2026-W02", "2026-W01-10:00/2026-W02",
    "2026-08-01\u00a0/2026-08-02", "\u001c2026-08-01/2026-08-02", "yesterday", " last-week ", "last-month",
    "Yesterday", "last_week", "2026-08-01T00:00:00+05:30/2026-08-01T00:00:00+05:00",
]

def fuzzed_windows(count=600):
    """Start bounds made of ISO-8601 pieces, some broken, for `fromisoformat` (seeded)."""
    import random

    rng = random.Random(20260805)
    dates = ["2026-08-01", "20260801", "2026-W31", "2026W31", "2026-W31-6", "2026W316", "2026-08-1", "2026-8-01",
             "2026-13-01", "2026-08", "2026-W5", "0001-01-01", "2026-W53-7", "2026W537", "2026-W31-6-", "2026-02-30"]
    seps = ["T", " ", "t", "x", "é", "€", "😀", "_", "-", "0", ""]
    times = ["", "10", "1030", "103000", "10:30", "10:30:00", "10:30:00.5", "10:30:00,123456789", "103000.25",
             "10:3", "1:30", "10:30:0", "10.5", "10:30.5", "10:30:00:5", "23:59:59.999999", "24", "10:30:00.",
             "10:30::00", "1030:00", "10:3000"]
    zones = ["", "Z", "z", "+01", "+0100", "+01:00", "-05:30", "+01:00:30", "+013000.5", "+00:00:00.000001", "+1",
             "+01:0", "+24:00", "-23:59:59.999999", "+01:00Z", "+01:00 ", "+", "-", "+01:00+01:00", "+0:00"]
    out = []
    for _ in range(count):
        text = rng.choice(dates)
        if rng.random() < 0.85:
            text += rng.choice(seps) + rng.choice(times) + rng.choice(zones)
        if rng.random() < 0.1:
            position = rng.randrange(len(text) + 1)
            text = text[:position] + rng.choice(["", " ", "1", ":", "-", "+", ".", "W", "a"]) + text[position:]
        out.append(text + "/9999-12-30")
    return out


SHORTCUT_ZONES = ["UTC", "Europe/Paris", "America/New_York", "America/Santiago", "America/Havana", "Asia/Beirut",
                  "Australia/Lord_Howe", "Pacific/Apia", "America/Sao_Paulo", "Asia/Tehran", "Pacific/Kiritimati",
                  "America/St_Johns", "Africa/Casablanca"]
SHORTCUT_NOWS = ["2026-08-05T01:30:00", "2026-08-03T00:00:00", "2026-08-02T23:59:59", "2026-03-30T12:00:00",
                 "2026-03-29T00:30:00", "2026-11-02T05:00:00", "2025-10-27T12:00:00", "2024-03-01T00:00:00",
                 "2018-11-05T12:00:00", "2018-11-04T03:30:00", "2011-12-31T12:00:00", "2012-01-01T00:00:00",
                 "2016-05-16T04:00:00", "2016-08-15T04:00:00", "2022-04-04T12:00:00", "2026-01-01T00:00:00"]

STRFTIME_FORMATS = ["%Y-%m-%d", "%Y%m%d", "%Y/%m/%d/%H", "%a %A %b %B %h", "%C %d %e %j %u %w %y", "%H %I %M %S %p",
                    "%f", "%c", "%D %F %T %R %r %x %X", "%z %Z", "%G %g %V %U %W", "%-d %_m %0e %-j %^a %^B %k %l",
                    "%-H%-M", "100%% %Q %-Q x%", "%n%t", "%P", "%^c", "%^p", "%^d", "dt=%Y-%m-%dT%H:%M:%S%z",
                    "%G-W%V-%u", "%y%j", "%_H:%_M", "%-I%p"]
STRFTIME_INSTANTS = ["2026-07-31T22:00:00.250000", "2026-01-04T15:04:05", "2026-12-31T23:59:59.999999",
                     "2027-01-01T00:00:00", "2024-12-30T12:00:00", "2021-01-03T08:00:00", "2026-03-29T01:00:00",
                     "2026-10-25T00:30:00", "2010-01-01T00:00:00"]
STRFTIME_ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe",
                  "Africa/Monrovia"]


def utc(text):
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.timezone.utc)


def plan_configs():
    v1 = json.loads((HERE / "v1_rides_csv_to_iceberg.json").read_text())
    v3 = json.loads((HERE / "v3_daily_orders_paris.json").read_text())
    bad = json.loads((HERE / "bad_config.json").read_text())
    csv_target = {"identifier": "export", "metadata": {
        "source": {"name": "rides", "format": "ICEBERG", "catalog": {"identifier": "nyc", "warehouse_path": "wh"},
                   "path": 5},
        "target": {"name": "rides_out", "format": "csv", "path": "./out//rides.csv"}}}
    no_route = {"identifier": "copy", "metadata": {
        "source": {"name": "a", "format": "CSV", "path": "a.csv"},
        "target": {"name": "b", "format": "PARQUET", "path": "b.parquet"}}}
    engine = {"identifier": "spark", "metadata": {
        "source": {"name": "a", "format": "CSV", "path": "a.csv", "engine": "spark"},
        "target": {"name": "b", "format": "ICEBERG", "catalog": {"identifier": "c", "warehouse_path": "wh"}}}}
    duckdb = {"identifier": "duck", "metadata": {
        "source": {"name": "a", "format": "DUCKDB", "path": "db/shop.duckdb", "relation": "orders"},
        "target": {"name": "b", "format": "ICEBERG", "catalog": {"identifier": "c", "warehouse_path": "wh"}}}}
    xlsx = {"identifier": "sheet", "when": "nightly", "metadata": {
        "source": {"name": "a", "format": "xlsx", "path": "book_{window_start:%Y%m%d}.xlsx"},
        "target": {"name": "b", "format": "ICEBERG", "write_mode": " Overwrite",
                   "catalog": {"type": "LocalIceberg", "identifier": "c", "warehouse_path": "wh"}}}}
    appends = {"identifier": "appends", "when": "Daily ", "metadata": {
        "source": {"name": "a", "format": "CSV", "path": "a.csv"},
        "target": {"name": "b", "format": "ICEBERG",
                   "catalog": {"type": "sql", "uri": "sqlite:///cat.db", "namespace": "raw", "identifier": "c"}},
        "quality": [{"check": "not_null", "columns": ["x"]}],
        "observability": {"sinks": ["jsonl", {"type": "none"}]}}}
    overwrite = {"identifier": "ow", "metadata": {
        "schedule": "@hourly", "window": {"size": "hour"},
        "source": {"name": "a", "format": "CSV", "path": "s3://bucket/{window_start:%Y/%m/%d/%H}/a.csv"},
        "target": {"name": "b", "format": "ICEBERG", "write_mode": "overwrite",
                   "catalog": {"identifier": "c", "warehouse_path": "wh"}}}}
    unicode = {"apiVersion": "ldp/v1", "identifier": "café", "how": "lot ü",
               "metadata": {"lineage": {"upstream": ["é"]}, "window": "none",
                            "source": {"name": "a", "format": "CSV", "path": "/CONFIG_DIR/data/ä.csv"},
                            "target": {"name": "b", "format": "ICEBERG",
                                       "catalog": {"identifier": "c", "warehouse_path": "file:///CONFIG_DIR/wh"}},
                            "quality": {"on_failure": "warn", "checks": [{"check": "range", "column": "x",
                                                                           "min": 0.5, "max": 1e16}]}}}
    return {
        "v1.json": v1, "v3.json": v3, "bad.json": bad, "csv_target.json": csv_target, "no_route.json": no_route,
        "engine.json": engine, "duckdb.json": duckdb, "xlsx.json": xlsx, "appends.json": appends,
        "overwrite.json": overwrite, "unicode.json": unicode,
        "wrong_kind.json": {"kind": "pipeline", "identifier": 7},
        "list.json": [1, 2],
        "api.json": {"apiVersion": "v2", "identifier": "x", "metadata": {}},
    }


PLAN_RUNS = [
    ("v1.json", None), ("v1.json", "2026-08-01/2026-08-02"), ("v1.json", "yesterday"), ("v1.json", "garbage"),
    ("v3.json", None), ("v3.json", "2026-08-01/2026-08-02"), ("v3.json", "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z"),
    ("v3.json", "last-month"), ("v3.json", "2026-08-02/2026-08-01"), ("bad.json", "2026-08-01/2026-08-02"),
    ("csv_target.json", None), ("csv_target.json", "2026-08-01/2026-08-02"), ("no_route.json", None),
    ("engine.json", None), ("duckdb.json", None), ("xlsx.json", None), ("xlsx.json", "last-week"),
    ("appends.json", None), ("overwrite.json", "2026-08-01T10:00/2026-08-01T11:00"), ("overwrite.json", None),
    ("unicode.json", "2026-08-01/2026-08-02"), ("wrong_kind.json", None), ("list.json", None), ("api.json", None),
    ("missing.json", None),
]


def plans(root):
    configs = plan_configs()
    for name, document in configs.items():
        text = json.dumps(document, ensure_ascii=False).replace("/CONFIG_DIR", str(root))
        (root / name).write_text(text, encoding="utf-8")
    windows.now_utc = lambda: NOW
    runs = []
    for name, window in PLAN_RUNS:
        result = spec.plan(str(root / name), window=window)
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            spec._print_plan(result)
        runs.append({"file": name, "window": window, "plan": result,
                     "json_text": json.dumps(result, indent=2),
                     "stdout": stdout.getvalue(), "stderr": stderr.getvalue()})
    return configs, runs


def validation_documents():
    """Configs whose metadata.window or window placeholders are wrong in many ways."""
    def config(window=None, source_path="a.csv", target_path=None, extra=None):
        metadata = {"source": {"name": "a", "format": "CSV", "path": source_path},
                    "target": {"name": "b", "format": "CSV", "path": target_path or "b.csv"}}
        if window is not None:
            metadata["window"] = window
        metadata.update(extra or {})
        return {"identifier": "x", "metadata": metadata}

    windows_ = ["daily", "none", "None", 5, 1.5, True, [], {}, {"size": "day"}, {"size": "week"}, {"size": None},
                {"size": "Day"}, {"size": ["day"]}, {"size": "day", "column": ""}, {"size": "day", "column": 5},
                {"size": "day", "column": " "}, {"size": "day", "column": None}, {"size": "hour", "timezone": ""},
                {"size": "15m", "timezone": " Europe/Paris "}, {"size": "day", "timezone": "europe/paris"},
                {"size": "day", "timezone": "Mars/Olympus"}, {"size": "day", "timezone": 5},
                {"size": "day", "timezone": "UTC"}, {"size": "day", "timezone": "Etc/UTC"},
                {"size": "day", "timezone": "US/Eastern"}, {"size": "day", "timezone": None},
                {"tz": "UTC", "zone": 1, "size": "day"}, {"column": "x", "timezone": "Nowhere"}]
    paths = ["a_{window_start}.csv", "a_{window_start:}.csv", "a_{window_end:YY}.csv", "a_{window_end:%d}.csv",
             "a_{window_start.csv", "{window_{window_start:%Y}start", "{{window_start:%Y}}", "{window_start:%Y{x}",
             "a_{window_end}_{window_end}_{window_start:Y}_{window_start", "{window_starts}", "{ window_start }"]
    documents = [config(window=window) for window in windows_]
    documents += [config(source_path=path) for path in paths]
    documents.append(config(target_path="o_{window_start:%Y}.csv",
                            extra={"quality": [{"check": "not_null", "columns": ["{window_end"]}],
                                   "lineage": {"note": "{window_start}"}}))
    documents.append(config(source_path=["{window_start:%Y}"]))
    return documents


def main():
    base = Path("/proj/cfg")
    cases = {
        "canonical": [{"json": text, "canonical": spec.canonical_json(json.loads(text)).decode()}
                      for text in CANONICAL],
        "paths": [{"path": path, "base": str(base) if use_base else None,
                   "normalised": spec._relative_path(path, base if use_base else None)}
                  for path in PATHS for use_base in (True, False)],
        "windows": [{"window": text, **outcome(lambda t: (lambda b: None if b is None else
                                                          f"{spec.format_instant(b[0])}/{spec.format_instant(b[1])}")(
                         spec.parse_window(t, now=NOW)), text)} for text in WINDOWS + fuzzed_windows()],
        "shortcuts": [{"zone": zone, "now": now, "name": name,
                       **outcome(lambda: "/".join(spec.format_instant(b) for b in
                                                  windows.shortcut_window(name, zone, utc(now))))}
                      for zone in SHORTCUT_ZONES for now in SHORTCUT_NOWS
                      for name in ("yesterday", "last-week", "last-month")
                      # ldp bundles tzdata 2026f; the reference read the system's 2025b, and 2026
                      # changed the rules of Cuba and Morocco from 2026 on: those days are left out.
                      if not (zone in ("America/Havana", "Africa/Casablanca") and now >= "2025-12")],
        "strftime": [{"zone": zone, "instant": instant, "format": fmt,
                      "text": windows.resolve_placeholders("{window_start:" + fmt + "}",
                                                           (utc(instant), utc(instant) + dt.timedelta(hours=1)),
                                                           zone)}
                     for zone in STRFTIME_ZONES for instant in STRFTIME_INSTANTS for fmt in STRFTIME_FORMATS],
    }
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        configs, runs = plans(root)
        for run in runs:
            run["plan"] = json.loads(json.dumps(run["plan"]).replace(str(root), "<dir>"))
            for key in ("json_text", "stdout", "stderr"):
                run[key] = run[key].replace(str(root), "<dir>").replace(json.dumps(str(root))[1:-1], "<dir>")
    cases["plan_configs"] = configs
    cases["plans"] = runs
    hashes = []
    for name, document in configs.items():
        if isinstance(document, dict) and isinstance(document.get("metadata"), dict):
            for use_base in (True, False):
                where = Path("/CONFIG_DIR") if use_base else None
                hashes.append({"config": name, "base": str(where) if where else None,
                               "canonical": spec.canonical_json(spec.canonical_spec(document, base_dir=where)).decode(),
                               "spec_hash": spec.spec_hash(document, base_dir=where),
                               "target_identity": outcome(spec.target_identity, document, base_dir=where)})
    cases["hashes"] = hashes
    cases["validation"] = [{"config": document, "problems": [str(error) for error in spec.validate_spec(document)]}
                           for document in validation_documents()]
    json.dump(cases, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    os.environ.setdefault("TZ", "UTC")
    main()
