"""ldp's benchmark suite: one run, one table, each ldp figure beside a reference from the same run.

`bench/run` builds ldp, installs the reference tool (the Python local-data-platform 0.1.3, whose
CLI is also `ldp`) into bench/.venv, and runs this driver with that venv's Python. The lines:

1. ingest    CSV -> Iceberg: `ldp run CONFIG` against the reference's `ldp run CONFIG` on the
             same config file; wall time, rows/s and peak RSS, at 1M and 10M rows.
2. checks    the same ingest through the seven quality checks of the demo's config.
3. upsert    an upsert of 1% of the rows (half changed, half new) into a 10M-row table
             partitioned by day(pickup_ts); each tool loads its own table (untimed) and is timed
             on the upsert alone.
4. query     a GROUP BY over 10M rows: `ldp query CONFIG SQL` against DuckDB running the same SQL
             over read_parquet of the table's data files.
5. boundary  the WebAssembly plugin boundary, parsed from the output of the plugin_boundary bench
             (`cargo bench -p ldp-plugin-runtime --bench plugin_boundary`); its reference column
             is the native baseline that bench measures in the same process.

Every figure of lines 1-4 is one child process: wall time measured around it, user + system CPU
time from wait4, peak RSS from GNU time (`/usr/bin/time -f %M`). The data is generated once,
deterministically, into target/bench-data/suite/ (the rides of the cargo benches: their
generators, ported byte for byte). The results go to target/bench/results.json and
target/bench/results.md. A line that fails prints FAIL with the reason, and the suite goes on;
the exit status is 1 when a line failed.

Only the standard library, pyarrow (the data generator) and duckdb (line 4) are used.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import rides

REPO = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target").resolve()
DATA = TARGET / "bench-data" / "suite"
OUT = TARGET / "bench"
WORK = OUT / "work"  # the tables, deleted at the end unless --keep
PLUGIN_CACHE = TARGET / "bench-cache"  # ldp's compiled plugins, shared with the cargo benches

LINES = ("ingest", "checks", "upsert", "query", "boundary")
FULL_ROWS = {
    "ingest": [1_000_000, 10_000_000],
    "checks": [1_000_000, 10_000_000],
    "upsert": [10_000_000],
    "query": [10_000_000],
}
QUICK_ROWS = 100_000
BOUNDARY_ROWS = 1_000_000  # the plugin_boundary bench's own default

# The quality block of the demo's config (host/cli/src/commands/demo/configs.rs `rides()`, the
# reference demo's rides.json).
DEMO_CHECKS = {
    "on_failure": "fail",
    "checks": [
        {"check": "row_count", "min": 1},
        {"check": "not_null", "columns": ["ride_id", "pickup_ts", "fare"]},
        {"check": "unique", "columns": ["ride_id"]},
        {"check": "accepted_values", "column": "city", "values": ["NYC", "BKK", "LDN", "SFO"]},
        {"check": "range", "column": "fare", "min": 0},
        {"check": "freshness", "column": "pickup_ts", "max_age_hours": 48,
         "now": "2024-01-08T00:00:00"},
        {"check": "schema", "columns": {"ride_id": "int64", "city": "string", "fare": "double"}},
    ],
}

QUERY = ("SELECT city, count(*) AS rides, sum(fare) AS revenue FROM rides "
         "GROUP BY city ORDER BY city")
QUERY_RUNS = 3  # a query takes well under a second: best of 3, on both sides

# DuckDB's side of line 4, a child process as `ldp query` is: the same SQL over read_parquet of
# the table's data files. It prints the rows, and its time from `import duckdb` on, as JSON.
DUCKDB_QUERY = r"""
import json, sys, time
started = time.perf_counter()
import duckdb
files = ", ".join("'" + f.replace("'", "''") + "'" for f in sys.argv[2:])
sql = sys.argv[1].replace("FROM rides", f"FROM read_parquet([{files}])")
rows = duckdb.sql(sql).fetchall()
print(json.dumps({"rows": rows, "seconds": time.perf_counter() - started}))
"""


class Failure(Exception):
    """A measurement that could not be made; its message is the FAIL reason."""


# ---------------------------------------------------------------------------------------------
# Measuring a child process


@dataclasses.dataclass
class Measure:
    wall_s: float
    cpu_s: float
    peak_rss_mb: float  # MB = 2^20 bytes
    stdout: str = ""

    def best(self, other: Measure) -> Measure:
        """The run with the better wall time, with the larger peak RSS of the two."""
        best = self if self.wall_s <= other.wall_s else other
        return dataclasses.replace(best, peak_rss_mb=max(self.peak_rss_mb, other.peak_rss_mb))

    def as_json(self) -> dict:
        return {"wall_s": round(self.wall_s, 4), "cpu_s": round(self.cpu_s, 4),
                "peak_rss_mb": round(self.peak_rss_mb, 1)}


# GNU time gives the peak RSS. wait4's ru_maxrss would not do: Linux starts a child's at the RSS
# of the process it was forked from (this driver: ~100 MB with pyarrow loaded), while time forks
# the command from its own small process.
GNU_TIME = "/usr/bin/time"


def measure(what: str, cmd: list[str], cwd: Path, env: dict | None = None) -> Measure:
    """Runs `cmd` in `cwd` (its output kept in cwd/logs/); Failure when it exits non-zero."""
    logs = cwd / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", what)
    out_path, err_path, rss_path = (logs / f"{stem}.{ext}" for ext in ("stdout", "stderr", "rss"))
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        started = time.perf_counter()
        try:
            proc = subprocess.Popen([GNU_TIME, "-o", str(rss_path), "-f", "%M", *cmd], cwd=cwd,
                                    env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        except OSError as e:
            raise Failure(f"{what}: cannot start {GNU_TIME}: {e}") from e
        _, status, usage = os.wait4(proc.pid, 0)  # time's usage includes its child's
        wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait
    if proc.returncode != 0:
        tail = err_path.read_text(errors="replace").strip().splitlines()[-6:]
        raise Failure(f"{what} exited {proc.returncode}: " + (" | ".join(tail) or "(no stderr)"))
    return Measure(
        wall_s=wall,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_rss_mb=int(rss_path.read_text().split()[-1]) / 1024,  # KiB
        stdout=out_path.read_text(errors="replace"),
    )


def measure_json(what: str, cmd: list[str], cwd: Path,
                 env: dict | None = None) -> tuple[Measure, dict]:
    """measure() of a command that prints one JSON document, and the document."""
    m = measure(what, cmd, cwd, env)
    try:
        return m, json.loads(m.stdout)
    except json.JSONDecodeError as e:
        raise Failure(f"{what}: no JSON on stdout ({e}): {m.stdout[:200]!r}") from e


# ---------------------------------------------------------------------------------------------
# Data: generated once by rides.py (the cargo benches' generators)


def generate(path: Path, ranges: list[tuple[int, int, int]], make_chunk) -> None:
    started = time.perf_counter()
    rides.write_csv(path, ranges, make_chunk)
    progress(f"generated {path.relative_to(TARGET)} in {time.perf_counter() - started:.1f} s")


def read_through(path: Path) -> Path:
    """Reads the file once, untimed, so that it is in the page cache for both tools."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass
    return path


def rides_csv(rows: int) -> Path:
    """rides_N.csv, the csv_to_iceberg bench's rides (the same bytes), generated once."""
    path = DATA / f"rides_{rows}.csv"
    if not path.is_file():
        generate(path, [(1, rows, 0)], lambda ids, _: rides.rides_chunk(ids))
    return path


def upsert_csvs(rows: int) -> tuple[Path, Path]:
    """upsert_N/base.csv, rides 1..N as the upsert bench writes them, and upsert_N/batch.csv,
    1% of N: the last 0.5% of the rides with their fare + 1.00 (late corrections) and 0.5% new
    rides N+1.. (picked up after the table's last ride, on 2024-01-08: a new partition)."""
    folder = DATA / f"upsert_{rows}"
    base, batch = folder / "base.csv", folder / "batch.csv"
    half = rows // 200
    chunk = lambda ids, bump: rides.keyed_chunk(ids, rows, bump)  # noqa: E731
    if not base.is_file():
        generate(base, [(1, rows, 0)], chunk)
    if not batch.is_file():
        generate(batch, [(rows - half + 1, rows, 100), (rows + 1, rows + half, 0)], chunk)
    return base, batch


# ---------------------------------------------------------------------------------------------
# Configs and the two tools


def config(source: Path, *, checks: bool = False, partitioned: bool = False) -> dict:
    """An ldp/v1 config both tools run: the CSV into bench.rides of a local catalog in the
    config's folder. partitioned: by day(pickup_ts), upserted on ride_id."""
    target = {
        "name": "rides",
        "format": "ICEBERG",
        "catalog": {"identifier": "bench", "warehouse_path": "warehouse"},
    }
    if partitioned:
        target["write_mode"] = "upsert"
        target["join_cols"] = ["ride_id"]
        target["partition_by"] = [{"column": "pickup_ts", "transform": "day"}]
    cfg = {
        "apiVersion": "ldp/v1",
        "identifier": "bench",
        "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": str(source)},
            "target": target,
        },
    }
    if checks:
        cfg["metadata"]["quality"] = DEMO_CHECKS
    return cfg


def fresh_dir(name: str) -> Path:
    path = WORK / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


@dataclasses.dataclass
class Tools:
    ldp: Path
    ref: Path  # the reference tool's `ldp`
    python: str  # with duckdb
    cargo: bool  # whether cargo may be run
    boundary_bin: Path | None
    boundary_output: Path | None

    def env(self) -> dict:
        return {**os.environ, "LDP_CACHE_DIR": str(PLUGIN_CACHE)}

    def run(self, tool: str, what: str, cfg: dict, folder: Path,
            *extra: str) -> tuple[Measure, dict]:
        """`ldp run config.json --json` in `folder`, by "ldp" or by the "reference"."""
        (folder / "config.json").write_text(json.dumps(cfg, indent=2))
        exe = self.ldp if tool == "ldp" else self.ref
        return measure_json(what, [str(exe), "run", "config.json", "--json", *extra], folder,
                            self.env())


def expect(what: str, report: dict, key: str, expected: int) -> None:
    """A run's report says `key` (rows_written, or a key of write_result) is `expected`."""
    got = report.get(key) if key == "rows_written" else report.get("write_result", {}).get(key)
    if got != expected:
        raise Failure(f"{what}: {key} is {got}, expected {expected}")


# ---------------------------------------------------------------------------------------------
# The lines. Each returns rows of the table: dicts with the line's number, the measure, the
# ldp and reference figures, their ratio, a note, status "ok" or "FAIL" (with a reason).


def row(line: str, label: str, unit: str, ldp: float, ref: float | None, *, fmt: str = "time",
        note: str = "", details: dict | None = None) -> dict:
    return {"line": line, "measure": label, "unit": unit, "ldp": ldp, "reference": ref,
            "ratio": ldp / ref if ref else None, "format": fmt, "note": note,
            "details": details or {}, "status": "ok"}


def fail_row(line: str, label: str, reason: str) -> dict:
    return {"line": line, "measure": label, "unit": "", "ldp": None, "reference": None,
            "ratio": None, "format": "", "note": "", "details": {}, "status": "FAIL",
            "reason": reason}


def ingest_pair(tools: Tools, n: int, checks: bool, keep: bool) -> tuple[Measure, Measure]:
    """ldp, then the reference tool, each appending rides_N.csv to a new table. keep: leave
    ldp's table for line 4."""
    cfg = config(read_through(rides_csv(n)), checks=checks)
    tag = "checks" if checks else "ingest"
    measures = []
    # Up to 1M rows a run takes seconds, and one run is noisy: the best of 3, each into a new
    # table. 10M rows run once.
    repeats = 3 if n <= 1_000_000 else 1
    for tool in ("ldp", "reference"):
        best = None
        for attempt in range(1, repeats + 1):
            folder = fresh_dir(f"{tag}_{tool}_{n}")
            what = f"{tool} run ({tag}, {n} rows)"
            progress(f"{what}, run {attempt}/{repeats}…")
            m, report = tools.run(tool, what, cfg, folder)
            expect(what, report, "rows_written", n)
            quality = report.get("quality") or {}
            if checks and (not quality.get("passed") or quality.get("checks_run") != 7):
                raise Failure(f"{what}: not 7 passed checks: {quality}")
            if best is None or m.wall_s < best.wall_s:
                best = m
            if tool == "ldp" and keep and attempt == repeats:
                (folder / "complete").write_text(str(n))
            else:
                shutil.rmtree(folder, ignore_errors=True)
        measures.append(best)
    return measures[0], measures[1]


def line_ingest(tools: Tools, sizes: list[int], checks: bool, keep: set[int]) -> list[dict]:
    line = "2" if checks else "1"
    rows = []
    for n in sizes:
        label = f"{'ingest + 7 checks' if checks else 'CSV → Iceberg'} {human(n)} rows"
        try:
            ldp, ref = ingest_pair(tools, n, checks, keep=n in keep)
        except Failure as e:
            rows.append(fail_row(line, label, str(e)))
            continue
        details = {"rows": n, "ldp": ldp.as_json(), "reference": ref.as_json()}
        rows += [
            row(line, f"{label}: wall time", "s", ldp.wall_s, ref.wall_s, details=details),
            row(line, f"{label}: rows/s", "rows/s", n / ldp.wall_s, n / ref.wall_s, fmt="rate"),
            row(line, f"{label}: peak RSS", "MB", ldp.peak_rss_mb, ref.peak_rss_mb, fmt="mb"),
        ]
    return rows


def line_upsert(tools: Tools, sizes: list[int]) -> list[dict]:
    rows = []
    for n in sizes:
        label = f"upsert 1% into {human(n)} rows"
        half = n // 200
        try:
            base, batch = map(read_through, upsert_csvs(n))
            measures = []
            for tool in ("ldp", "reference"):
                folder = fresh_dir(f"upsert_{tool}_{n}")
                progress(f"{tool}: loading the {human(n)}-row table (untimed)…")
                what = f"{tool} load ({n} rows)"
                _, report = tools.run(tool, what, config(base, partitioned=True), folder,
                                      "--mode", "append")
                expect(what, report, "rows_after", n)
                progress(f"{tool}: upsert of {2 * half:,} rows…")
                what = f"{tool} upsert ({n} rows)"
                m, report = tools.run(tool, what, config(batch, partitioned=True), folder)
                expect(what, report, "rows_written", 2 * half)
                expect(what, report, "rows_after", n + half)
                measures.append(m)
                shutil.rmtree(folder, ignore_errors=True)
        except Failure as e:
            rows.append(fail_row("3", label, str(e)))
            continue
        ldp, ref = measures
        details = {"rows": n, "changed": half, "new": half,
                   "ldp": ldp.as_json(), "reference": ref.as_json()}
        rows += [
            row("3", f"{label}: wall time", "s", ldp.wall_s, ref.wall_s, details=details,
                note=f"{half:,} changed + {half:,} new rows into a table partitioned by "
                     "day(pickup_ts) that the same tool loaded (untimed) in one append"),
            row("3", f"{label}: CPU time", "s", ldp.cpu_s, ref.cpu_s),
            row("3", f"{label}: peak RSS", "MB", ldp.peak_rss_mb, ref.peak_rss_mb, fmt="mb"),
        ]
    return rows


def query_table(tools: Tools, n: int) -> Path:
    """The folder of an unpartitioned N-row rides table written by ldp: line 1's, else a new
    one (untimed)."""
    folder = WORK / f"ingest_ldp_{n}"
    if (folder / "complete").is_file():
        return folder
    folder = fresh_dir(f"ingest_ldp_{n}")
    progress(f"ldp: loading the {human(n)}-row table to query (untimed)…")
    _, report = tools.run("ldp", f"ldp load ({n} rows)", config(rides_csv(n)), folder)
    expect("ldp load", report, "rows_written", n)
    (folder / "complete").write_text(str(n))
    return folder


def line_query(tools: Tools, sizes: list[int]) -> list[dict]:
    rows = []
    for n in sizes:
        label = f"GROUP BY over {human(n)} rows, vs DuckDB"
        try:
            folder = query_table(tools, n)
            # One append to a new table wrote every file of its data folder, and no other table
            # shares it: these are the table's data files.
            data = folder / "warehouse" / "bench" / "rides" / "data"
            files = sorted(str(p) for p in data.rglob("*.parquet"))
            if not files:
                raise Failure(f"no Parquet files under {data}")
            ldp = duck = None
            for i in range(QUERY_RUNS):
                progress(f"query, run {i + 1}/{QUERY_RUNS}: ldp, DuckDB…")
                m, ours = measure_json("ldp query", [str(tools.ldp), "query", "config.json",
                                                     QUERY, "--json"], folder, tools.env())
                ldp = m if ldp is None else ldp.best(m)
                m, theirs = measure_json("duckdb query", [tools.python, "-c", DUCKDB_QUERY,
                                                          QUERY, *files], folder)
                duck = m if duck is None else duck.best(m)
            ours_rows = [(r["city"], r["rides"], round(r["revenue"], 2)) for r in ours["rows"]]
            theirs_rows = [(c, k, round(s, 2)) for c, k, s in theirs["rows"]]
            if ours_rows != theirs_rows or sum(r[1] for r in ours_rows) != n:
                raise Failure(f"the results differ: ldp {ours_rows}, DuckDB {theirs_rows}")
        except Failure as e:
            rows.append(fail_row("4", label, str(e)))
            continue
        details = {"rows": n, "files": len(files), "ldp": ldp.as_json(), "duckdb": duck.as_json(),
                   "duckdb_in_process_s": round(theirs["seconds"], 4)}
        rows += [
            row("4", f"{label}: wall time", "s", ldp.wall_s, duck.wall_s, details=details,
                note=f"best of {QUERY_RUNS}; both are whole processes on ldp's table, DuckDB "
                     f"from Python over its {len(files)} data file(s), {theirs['seconds']:.2f} s "
                     "of it from `import duckdb` on"),
            row("4", f"{label}: peak RSS", "MB", ldp.peak_rss_mb, duck.peak_rss_mb, fmt="mb"),
        ]
    return rows


# The plugin_boundary bench's output, section by section (its println!s).
BOUNDARY_PATTERNS = {
    ("CSV source", "csv_plugin"): r"^\s+plugin\s+([\d.]+) rows/s",
    ("CSV source", "csv_native"): r"^\s+native\s+([\d.]+) rows/s",
    ("Identity transform", "identity_plugin"): r"^\s+plugin\s+([\d.]+) MB/s",
    ("Identity transform", "identity_native"): r"^\s+native\s+([\d.]+) MB/s",
    ("Identity transform", "batch_plugin"): r"^\s+1-row batch, plugin\s+([\d.]+) µs",
    ("Identity transform", "batch_native"): r"^\s+1-row batch, native\s+([\d.]+) µs",
    ("Cached component", "load"): r"^\s+load from cache\s+([\d.]+) ms",
    ("Cached component", "open"): r"^\s+open\s+([\d.]+) ms",
    ("Cached component", "first_batch"): r"^\s+to first batch\s+([\d.]+) ms",
}


def parse_boundary(text: str) -> dict[str, float]:
    """The figures of a plugin_boundary run's output; Failure when one is missing."""
    found, section = {}, None
    for line in text.splitlines():
        if line and not line[0].isspace():  # a section's title
            section = next((s for s, _ in BOUNDARY_PATTERNS if line.startswith(s)), None)
            continue
        for (sec, name), pattern in BOUNDARY_PATTERNS.items():
            if sec == section and name not in found and (m := re.match(pattern, line)):
                found[name] = float(m.group(1))
    missing = [name for (_, name) in BOUNDARY_PATTERNS if name not in found]
    if missing:
        raise Failure(f"the plugin_boundary output lacks {', '.join(missing)}: {text[-300:]!r}")
    return found


def boundary_binary(tools: Tools) -> tuple[Path, str]:
    """The plugin_boundary bench's executable, and where it comes from."""
    if tools.boundary_bin:
        return tools.boundary_bin, "given"
    if tools.cargo:
        progress("building the plugin_boundary bench (cargo bench --no-run)…")
        proc = subprocess.run(
            ["cargo", "bench", "-p", "ldp-plugin-runtime", "--bench", "plugin_boundary",
             "--no-run", "--message-format", "json"], cwd=REPO, capture_output=True, text=True)
        for line in proc.stdout.splitlines():
            msg = json.loads(line) if line.startswith("{") else {}
            if msg.get("target", {}).get("name") == "plugin_boundary" and msg.get("executable"):
                return Path(msg["executable"]), "built by cargo bench --no-run"
        raise Failure("cargo bench --no-run gave no plugin_boundary executable: "
                      + " | ".join(proc.stderr.strip().splitlines()[-4:]))
    built = [p for p in (TARGET / "release" / "deps").glob("plugin_boundary-*")
             if p.is_file() and p.suffix == "" and os.access(p, os.X_OK)]
    if not built:
        raise Failure("no plugin_boundary bench binary: build it with `cargo bench -p "
                      "ldp-plugin-runtime --bench plugin_boundary --no-run`, then pass the "
                      "Executable it prints as BOUNDARY_BIN=... (or --boundary-bin)")
    newest = max(built, key=lambda p: p.stat().st_mtime)
    built_at = datetime.datetime.fromtimestamp(newest.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    return newest, f"the newest built, {built_at}"


def line_boundary(tools: Tools, rows: int) -> list[dict]:
    try:
        if tools.boundary_output:
            text = tools.boundary_output.read_text()
            source = f"parsed from {tools.boundary_output}"
        else:
            binary, origin = boundary_binary(tools)
            progress(f"plugin_boundary bench, {rows:,} rows…")
            folder = fresh_dir("boundary")
            env = {**os.environ, "LDP_BENCH_ROWS": str(rows)}
            text = measure("plugin_boundary", [str(binary)], folder, env).stdout
            source = f"{binary.name} ({origin}), {rows:,} rows"
        f = parse_boundary(text)
    except (Failure, OSError) as e:
        return [fail_row("5", "WASM boundary (plugin_boundary bench)", str(e))]
    return [
        row("5", "WASM: CSV source plugin, vs native arrow-csv", "rows/s",
            f["csv_plugin"], f["csv_native"], fmt="rate", note=source, details=f),
        row("5", "WASM: identity transform, vs native", "MB/s",
            f["identity_plugin"], f["identity_native"], fmt="plain",
            note="8,192-row batches of Arrow IPC; native: the same encoding and decoding "
                 "in-process"),
        row("5", "WASM: 1-row batch, vs native", "µs", f["batch_plugin"], f["batch_native"],
            fmt="plain", note="the fixed cost of a batch through the identity transform"),
        row("5", "WASM: cold start from the cache (no native)", "ms", f["first_batch"], None,
            fmt="plain", note=f"cached compiled csv component to its first batch (target ≤ 5 "
                              f"ms): load {f['load']:.2f} ms, open {f['open']:.2f} ms"),
    ]


def note_checks_overhead(rows: list[dict]) -> None:
    """Notes line 2's wall times with what the checks add to each tool's plain ingest (line 1)."""
    plain = {r["details"]["rows"]: r for r in rows if r["line"] == "1" and r["details"]}
    for r in rows:
        p = plain.get(r["details"].get("rows")) if r["line"] == "2" else None
        if p:
            r["note"] = (f"the checks add {r['ldp'] / p['ldp'] - 1:+.0%} to ldp's plain "
                         f"ingest, {r['reference'] / p['reference'] - 1:+.0%} to the reference's")


# ---------------------------------------------------------------------------------------------
# Output

HEADERS = ["#", "measure", "ldp", "reference", "ldp ÷ ref"]
LEGEND = ("reference: lines 1-3 the reference tool, local-data-platform 0.1.3 (`ldp run`); "
          "line 4 DuckDB; line 5 the native baseline printed by the plugin_boundary bench. "
          "ldp ÷ ref below 1 is better for times and memory, above 1 for rates. "
          "MB = 2^20 bytes.")


def human(n: int) -> str:
    if n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def progress(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def fmt_value(v: float | None, fmt: str, unit: str) -> str:
    if v is None:
        return "–"
    if fmt == "rate":
        return f"{v / 1e6:.2f}M {unit}" if v >= 1e6 else f"{v:,.0f} {unit}"
    if fmt == "mb":
        return f"{v:,.0f} MB"
    if fmt == "time":
        return f"{v:.2f} s" if v >= 0.1 else f"{v * 1000:.0f} ms"
    return f"{v:,.2f} {unit}" if v < 100 else f"{v:,.0f} {unit}"


def cells(r: dict) -> list[str]:
    if r["status"] == "FAIL":
        return [r["line"], r["measure"], "FAIL", r["reason"], ""]
    ratio = f"{r['ratio']:.2f}×" if r["ratio"] is not None else "–"
    return [r["line"], r["measure"], fmt_value(r["ldp"], r["format"], r["unit"]),
            fmt_value(r["reference"], r["format"], r["unit"]), ratio]


def text_table(rows: list[dict]) -> str:
    table = [HEADERS] + [cells(r) for r in rows]
    measured = [c for c in table if c[2] != "FAIL"]
    widths = [max(len(c[i]) for c in measured) for i in range(len(HEADERS))]
    widths[1] = max(len(c[1]) for c in table)
    lines = []
    for c in table:
        if c[2] == "FAIL":
            lines.append(f"{c[0]:<{widths[0]}}  {c[1]:<{widths[1]}}  FAIL: {c[3]}")
        else:
            lines.append(f"{c[0]:<{widths[0]}}  {c[1]:<{widths[1]}}  {c[2]:>{widths[2]}}  "
                         f"{c[3]:>{widths[3]}}  {c[4]:>{widths[4]}}")
        if c is table[0]:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown_table(rows: list[dict]) -> str:
    out = ["| " + " | ".join(HEADERS) + " |", "|---|---|---:|---:|---:|"]
    for r in rows:
        c = cells(r)
        if r["status"] == "FAIL":
            c[3] = c[3].replace("|", "\\|")
        out.append("| " + " | ".join(c) + " |")
    return "\n".join(out)


def notes(rows: list[dict]) -> list[str]:
    return [f"{r['line']}. {r['measure']}: {r['note']}"
            for r in rows if r["status"] == "ok" and r["note"]]


def machine() -> dict:
    def field(path: str, key: str, sep: str) -> str:
        try:
            for line in Path(path).read_text().splitlines():
                if line.startswith(key + sep) or line.startswith(key + "\t"):
                    return line.split(sep, 1)[1].strip().strip('"')
        except OSError:
            pass
        return "?"

    mem_kib = field("/proc/meminfo", "MemTotal", ":").split()[0]
    return {
        "cpu": field("/proc/cpuinfo", "model name", ":"),
        "cores": os.cpu_count(),
        "memory_gib": round(int(mem_kib) / 2**20, 1) if mem_kib.isdigit() else None,
        "os": field("/etc/os-release", "PRETTY_NAME", "="),
        "kernel": platform.release(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def version(cmd: list[str]) -> str:
    """The first line that a `--version` command prints."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"? ({e})"
    return (out.strip().splitlines() or ["?"])[0]


# ---------------------------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="bench/suite.py",
        description="ldp's benchmark suite; run it through bench/run, which builds ldp and "
                    "installs the reference tool. Lines: " + ", ".join(LINES) + ".")
    p.add_argument("--ldp", required=True, type=Path, help="the ldp binary to measure")
    p.add_argument("--ref-ldp", required=True, type=Path,
                   help="the reference tool's `ldp` (bench/.venv/bin/ldp)")
    p.add_argument("--quick", action="store_true",
                   help=f"{QUICK_ROWS:,} rows in every line, the boundary bench's too")
    p.add_argument("--rows", type=int,
                   help="every line but the boundary at this many rows (instead of 1M and 10M)")
    p.add_argument("--only", action="append", default=[], metavar="LINES",
                   help="only these lines, comma-separated or repeated: " + ", ".join(LINES))
    p.add_argument("--boundary-bin", type=Path,
                   help="the plugin_boundary bench's executable (default: built by cargo with "
                        "--cargo, else the newest target/release/deps/plugin_boundary-*)")
    p.add_argument("--boundary-output", type=Path,
                   help="parse this captured plugin_boundary output instead of running the bench")
    p.add_argument("--cargo", action="store_true",
                   help="cargo may be run, to build the boundary bench (bench/run passes it "
                        "when it built ldp itself)")
    p.add_argument("--keep", action="store_true", help=f"keep the tables under {WORK}")
    args = p.parse_args(argv)
    only = [name.strip() for item in args.only for name in item.split(",") if name.strip()]
    unknown = sorted(set(only) - set(LINES))
    if unknown:
        p.error(f"unknown line(s) {unknown}; the lines are {', '.join(LINES)}")
    if args.rows is not None and args.rows < 1000:
        p.error("--rows must be at least 1000")
    args.lines = [line for line in LINES if not only or line in only]
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    tools = Tools(ldp=args.ldp.resolve(), ref=args.ref_ldp.resolve(), python=sys.executable,
                  cargo=args.cargo, boundary_bin=args.boundary_bin,
                  boundary_output=args.boundary_output)
    rows_everywhere = QUICK_ROWS if args.quick else args.rows
    sizes = {line: [rows_everywhere] if rows_everywhere else FULL_ROWS[line] for line in FULL_ROWS}
    boundary_rows = QUICK_ROWS if args.quick else BOUNDARY_ROWS
    info = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "ldp": version([str(tools.ldp), "--version"]),
        "reference": version([str(tools.ref), "--version"]),
        "duckdb": version([tools.python, "-c", "import duckdb; print(duckdb.__version__)"]),
        "options": {"quick": args.quick, "rows": args.rows, "lines": args.lines, "sizes": sizes,
                    "boundary_rows": boundary_rows},
    }
    progress(f"ldp: {tools.ldp} ({info['ldp']}); reference: {tools.ref} ({info['reference']}); "
             f"load average {info['machine']['load_average_at_start'][0]:.2f}")
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)

    if set(args.lines) & set(FULL_ROWS):
        progress("warm-up: both tools on 1,000 rows with the checks (untimed; ldp compiles "
                 f"its plugins into {PLUGIN_CACHE} once)…")
        for tool in ("ldp", "reference"):
            try:
                tools.run(tool, f"{tool} warm-up", config(rides_csv(1000), checks=True),
                          fresh_dir(f"warmup_{tool}"))
            except Failure as e:
                progress(f"the warm-up failed (the lines will say why): {e}")

    rows: list[dict] = []
    durations = {}
    keep = set(sizes["query"]) if "query" in args.lines else set()
    for name in args.lines:
        line_started = time.perf_counter()
        progress(f"== {name}")
        try:
            if name == "ingest":
                rows += line_ingest(tools, sizes["ingest"], checks=False, keep=keep)
            elif name == "checks":
                rows += line_ingest(tools, sizes["checks"], checks=True, keep=set())
            elif name == "upsert":
                rows += line_upsert(tools, sizes["upsert"])
            elif name == "query":
                rows += line_query(tools, sizes["query"])
            elif name == "boundary":
                rows += line_boundary(tools, boundary_rows)
        except Exception as e:  # a broken line must not stop the others
            rows.append(fail_row(str(LINES.index(name) + 1), name, f"{type(e).__name__}: {e}"))
        durations[name] = round(time.perf_counter() - line_started, 1)
    if not args.keep:
        shutil.rmtree(WORK, ignore_errors=True)
    note_checks_overhead(rows)

    elapsed = time.perf_counter() - started
    info["duration_s"] = round(elapsed, 1)
    info["line_durations_s"] = durations
    m = info["machine"]
    heading = "\n".join([
        f"ldp benchmark suite, {info['date']}, {elapsed:.0f} s"
        + (f" (--quick: {QUICK_ROWS:,} rows)" if args.quick else ""),
        f"machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, {m['os']}, "
        f"load average {m['load_average_at_start'][0]:.2f} at start",
        f"tools: {info['ldp']}; reference {info['reference']} (Python); DuckDB {info['duckdb']}",
    ])
    print(f"\n{heading}\n\n{text_table(rows)}\n")
    print("\n".join(notes(rows) + [LEGEND]))

    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "results.json").write_text(
        json.dumps({**info, "rows": rows}, indent=2, ensure_ascii=False) + "\n")
    (OUT / "results.md").write_text(
        heading.replace("\n", "  \n") + "\n\n" + markdown_table(rows) + "\n\n"
        + "\n".join(f"* {n}" for n in notes(rows)) + "\n\n" + LEGEND + "\n")
    print(f"\nwritten: {OUT / 'results.json'}, {OUT / 'results.md'}")
    return 1 if any(r["status"] == "FAIL" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
