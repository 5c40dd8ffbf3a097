"""`ldp maintain --compact` after many small windowed appends, against the same rows loaded once.

`bench/maintain/run` runs this driver with the system's Python 3 (standard library only). The
steps:

1. data     a seeded generator writes WINDOWS hourly CSV files of ROWS rides each (id, ts in the
            window, city, fare, distance), and the same rows, in the same order, as one CSV file:
            WORK/data/<size>/ (kept between runs; a stamp file marks a complete set).
2. load     a fresh warehouse WORK/warehouse (one local catalog, namespace bench). After one
            untimed warm-up run that fills the plugin cache:
              once      `ldp run` of the single CSV file into bench.rides_once (the baseline);
              appended  WINDOWS `ldp run CONFIG --window START/END`, one after another, each a
                        staged append of one hour's CSV file (the path's
                        {window_start:%Y%m%dT%H} placeholder), into bench.rides_appended; a
                        progress line every 50 windows.
            With --partitioned, the same again into two tables partitioned by day(ts).
3. before   `ldp maintain CONFIG --compact --json` (a dry run): live data files, manifests and
            the plan; the queries on the appended table and on the loaded-once one.
4. compact  `ldp maintain CONFIG --compact --apply --json`, timed (wall, peak RSS); then a dry
            run again (without --sort-by), which should find no small file left (a note if so).
5. after    the queries on the compacted table. The queries of steps 3 and 5 take turns with
            the same query on the loaded-once table (A B A B …), and the ratios after ÷ once
            use the runs of step 5.

The queries, each a whole `ldp query --json CONFIG SQL` process, best of --repeat:
  full scan       SELECT count(*), sum(fare), avg(distance) FROM t
  one-day filter  the same WHERE ts >= TIMESTAMP 'D 00:00:00' AND ts < TIMESTAMP 'D+1 00:00:00'
                  for the day D in the middle of the windows.
  table open      SELECT * FROM t LIMIT 0: no data file is read, so this is the fixed cost
                  (process, catalog, metadata file, manifest list, plan), which grows with the
                  table's history: compaction leaves every snapshot in place.
Their results must agree between the tables (counts exactly, sums and averages to 1e-9
relative) and the counts with the generated rows.

The ideal file count is the sum over partitions of ceil(live bytes / target file size), the
bytes being the table's before compaction (the snapshot summaries' sizes; per day for the
partitioned table, from the appends' added-files-size). The targets: files after compaction
within 2x of the ideal count; the full scan after compaction within 1.5x of the same data
loaded once.

Every figure is one child process: wall time measured around it, peak RSS from GNU time
(`/usr/bin/time -f %M`), as bench/suite.py and bench/tpch/tpch.py do.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GNU_TIME = "/usr/bin/time"
GENERATOR = "maintain-rides-1"  # change when the generated rows change
CITIES = ("NYC", "BKK", "LDN", "SFO", "PAR", "BER", "TYO", "SYD")
NAMESPACE = "bench"
PROGRESS_EVERY = 50
TARGETS = {"files_vs_ideal": 2.0, "full_scan_vs_once": 1.5}


class Failure(Exception):
    pass


def progress(msg: str) -> None:
    print(f"maintain: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Measuring a child process


@dataclasses.dataclass
class Measure:
    wall_s: float
    peak_rss_mb: float  # MB = 2^20 bytes
    stdout: str = ""

    def as_json(self) -> dict:
        return {"wall_s": round(self.wall_s, 4), "peak_rss_mb": round(self.peak_rss_mb, 1)}


def measure(what: str, cmd: list[str], cwd: Path, env: dict, keep_log: bool = True) -> Measure:
    """Runs `cmd` under GNU time in `cwd`. Its output is kept in cwd/logs/ when `keep_log` (the
    appends keep theirs only when they fail); Failure when it exits non-zero."""
    logs = cwd / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", what)
    rss_path = logs / f"{stem}.rss"
    started = time.perf_counter()
    try:
        proc = subprocess.run([GNU_TIME, "-o", str(rss_path), "-f", "%e %M", *cmd], cwd=cwd,
                              env=env, stdin=subprocess.DEVNULL, capture_output=True)
    except OSError as e:
        raise Failure(f"{what}: cannot start {GNU_TIME}: {e}") from e
    wall = time.perf_counter() - started
    stdout = proc.stdout.decode(errors="replace")
    stderr = proc.stderr.decode(errors="replace")
    if keep_log or proc.returncode != 0:
        (logs / f"{stem}.stdout").write_text(stdout)
        (logs / f"{stem}.stderr").write_text(stderr)
    rss_text = rss_path.read_text() if rss_path.is_file() else ""
    if not keep_log:
        rss_path.unlink(missing_ok=True)
    if proc.returncode != 0:
        lines = [ln for ln in stderr.strip().splitlines()
                 if not ln.startswith("Command exited with non-zero status")]
        raise Failure(f"{what} exited {proc.returncode}: "
                      + (" | ".join(lines[-8:]) or "(no stderr)")
                      + f"  [log: {logs / (stem + '.stderr')}]")
    try:
        rss_mb = int(rss_text.split()[-1]) / 1024
    except (IndexError, ValueError):
        rss_mb = float("nan")
    return Measure(wall_s=wall, peak_rss_mb=rss_mb, stdout=stdout)


def parse_json(what: str, m: Measure) -> dict:
    try:
        return json.loads(m.stdout)
    except json.JSONDecodeError as e:
        raise Failure(f"{what}: no JSON on stdout ({e}): {m.stdout[:300]!r}") from e


# ---------------------------------------------------------------------------------------------
# Data


def window_bounds(start: datetime.datetime, w: int) -> tuple[datetime.datetime, datetime.datetime]:
    s = start + datetime.timedelta(hours=w)
    return s, s + datetime.timedelta(hours=1)


def window_file(start: datetime.datetime, w: int) -> str:
    """The name the config's placeholder `rides_{window_start:%Y%m%dT%H}.csv` fills in."""
    return f"rides_{window_bounds(start, w)[0]:%Y%m%dT%H}.csv"


def window_lines(seed: int, w: int, rows: int, start: datetime.datetime) -> list[str]:
    """The rows of window `w`: `rows` rides in its hour, in time order, ids w*rows.. ."""
    rng = random.Random(seed * 1_000_003 + w)
    hour = window_bounds(start, w)[0].strftime("%Y-%m-%d %H")
    offsets = sorted(rng.randrange(3600) for _ in range(rows))
    out = []
    for i, off in enumerate(offsets):
        distance = rng.expovariate(1 / 3.2)
        fare = 2.5 + 1.8 * distance + 3 * rng.random()
        out.append(f"{w * rows + i},{hour}:{off // 60:02d}:{off % 60:02d},"
                   f"{rng.choice(CITIES)},{fare:.2f},{distance:.2f}\n")
    return out


HEADER = "id,ts,city,fare,distance\n"


def generate(data: Path, windows: int, rows: int, seed: int,
             start: datetime.datetime) -> dict:
    """WINDOWS hourly CSV files in data/windows/ and all their rows in data/all.csv, generated
    once (a stamp file marks a complete set)."""
    stamp = data / ".complete"
    key = f"{GENERATOR} windows={windows} rows={rows} seed={seed} start={start.isoformat()}"
    if stamp.is_file() and stamp.read_text() == key:
        progress(f"data: {data} (cached)")
        return {"dir": str(data), "generated": False}
    tmp = data.with_name(data.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(data, ignore_errors=True)
    (tmp / "windows").mkdir(parents=True)
    progress(f"data: generating {windows:,} windows x {rows:,} rows into {data}")
    started = time.perf_counter()
    with open(tmp / "all.csv", "w") as everything:
        everything.write(HEADER)
        for w in range(windows):
            lines = window_lines(seed, w, rows, start)
            with open(tmp / "windows" / window_file(start, w), "w") as f:
                f.write(HEADER)
                f.writelines(lines)
            everything.writelines(lines)
    tmp.rename(data)
    stamp.write_text(key)
    took = time.perf_counter() - started
    progress(f"data: generated in {took:.1f} s")
    return {"dir": str(data), "generated": True, "seconds": round(took, 2)}


# ---------------------------------------------------------------------------------------------
# Configs, loads, maintenance, queries


@dataclasses.dataclass
class Variant:
    """One pair of tables: the appended one (compacted) and its loaded-once baseline."""
    key: str            # "plain" or "day"
    label: str
    partitioned: bool
    appended: str       # table names
    once: str
    appended_cfg: Path = Path()
    once_cfg: Path = Path()


def write_config(path: Path, table: str, source: str, warehouse: Path, windowed: bool,
                 partitioned: bool) -> None:
    target: dict = {"name": table, "format": "ICEBERG", "write_mode": "append",
                    "catalog": {"identifier": NAMESPACE, "warehouse_path": str(warehouse)}}
    if partitioned:
        target["partition_by"] = [{"column": "ts", "transform": "day"}]
    metadata: dict = {"source": {"name": "rides", "format": "CSV", "path": source},
                      "target": target}
    if windowed:
        metadata = {"window": {"size": "hour", "column": "ts"}, **metadata}
    cfg = {"apiVersion": "ldp/v1", "kind": "Pipeline", "identifier": f"maintain_{table}",
           "who": "bench/maintain", "what": f"rides into {NAMESPACE}.{table}",
           "metadata": metadata}
    path.write_text(json.dumps(cfg, indent=2) + "\n")


@dataclasses.dataclass
class Bench:
    ldp: Path
    work: Path
    env: dict
    repeat: int
    target_file_size: str | None
    sort_by: str | None

    def ldp_cmd(self, *args: str) -> list[str]:
        return [str(self.ldp), *args]

    def warm_up(self, data: Path, start: datetime.datetime) -> dict:
        """One untimed run into a scratch warehouse: the first run of a build compiles the csv
        plugin into the plugin cache, which is not loading."""
        scratch = self.work / "warm-up"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(parents=True)
        cfg = scratch / "warm-up.json"
        write_config(cfg, "warm_up", str(data / "windows" / window_file(start, 0)),
                     scratch / "warehouse", windowed=False, partitioned=False)
        m = measure("load.warm-up", self.ldp_cmd("run", str(cfg)), self.work, self.env)
        shutil.rmtree(scratch, ignore_errors=True)
        progress(f"load: warm-up run (plugin cache) {m.wall_s:.2f} s, untimed")
        return m.as_json()

    def load_once(self, v: Variant, expected_rows: int) -> dict:
        m = measure(f"load.{v.once}", self.ldp_cmd("run", str(v.once_cfg), "--json"),
                    self.work, self.env)
        doc = parse_json(f"load {v.once}", m)
        rows = doc.get("rows_written")
        if rows != expected_rows:
            raise Failure(f"load {v.once}: wrote {rows} rows, expected {expected_rows}")
        progress(f"load: {v.once}: {rows:,} rows in one run, {m.wall_s:.2f} s, "
                 f"peak RSS {m.peak_rss_mb:.0f} MB")
        return {**m.as_json(), "rows": rows}

    def load_windows(self, v: Variant, windows: int, rows: int,
                     start: datetime.datetime) -> dict:
        """WINDOWS staged appends, one after another, each its own `ldp run --window`."""
        walls: list[float] = []
        peak = 0.0
        started = time.perf_counter()
        for w in range(windows):
            s, e = window_bounds(start, w)
            window = f"{s:%Y-%m-%dT%H:%M:%S}/{e:%Y-%m-%dT%H:%M:%S}"
            what = f"load.{v.appended}.w{w:05d}"
            m = measure(what, self.ldp_cmd("run", str(v.appended_cfg), "--window", window,
                                           "--json"), self.work, self.env, keep_log=False)
            doc = parse_json(what, m)
            if doc.get("status") != "published" or doc.get("rows_written") != rows:
                raise Failure(f"{what} ({window}): status {doc.get('status')!r}, "
                              f"rows_written {doc.get('rows_written')!r}, expected published "
                              f"and {rows}")
            walls.append(m.wall_s)
            peak = max(peak, m.peak_rss_mb)
            done = w + 1
            if done % PROGRESS_EVERY == 0 or done == windows:
                elapsed = time.perf_counter() - started
                recent = walls[-PROGRESS_EVERY:]
                eta = (windows - done) * statistics.mean(recent)
                progress(f"load: {v.appended}: {done:,}/{windows:,} windows "
                         f"({done * rows:,} rows), {elapsed:.1f} s, "
                         f"last {len(recent)} at {statistics.mean(recent):.3f} s per append"
                         + (f", about {eta:.0f} s to go" if done < windows else ""))
        total = time.perf_counter() - started
        blocks = [round(statistics.mean(walls[i:i + PROGRESS_EVERY]), 4)
                  for i in range(0, len(walls), PROGRESS_EVERY)]
        return {
            "windows": windows, "rows_per_window": rows, "total_s": round(total, 2),
            "sum_of_appends_s": round(sum(walls), 2),
            "append_s": {"first": round(walls[0], 4), "last": round(walls[-1], 4),
                         "median": round(statistics.median(walls), 4),
                         "p95": round(sorted(walls)[int(0.95 * (len(walls) - 1))], 4),
                         "max": round(max(walls), 4)},
            f"mean_append_s_per_{PROGRESS_EVERY}_windows": blocks,
            "peak_rss_mb": round(peak, 1),
            "appends_s": [round(x, 4) for x in walls],
        }

    def maintain(self, what: str, cfg: Path, apply: bool,
                 sort: bool = True) -> tuple[dict, Measure]:
        """`ldp maintain CFG --compact --json`, with --apply when `apply`. `sort=False` leaves
        --sort-by out: with it every partition of several files is planned again."""
        cmd = ["maintain", str(cfg), "--compact", "--json"]
        if self.target_file_size:
            cmd += ["--target-file-size", self.target_file_size]
        if self.sort_by and sort:
            cmd += ["--sort-by", self.sort_by]
        if apply:
            cmd.append("--apply")
        m = measure(what, self.ldp_cmd(*cmd), self.work, self.env)
        doc = parse_json(what, m)
        if "compact" not in doc:
            raise Failure(f"{what}: no 'compact' report in {m.stdout[:300]!r}")
        return doc["compact"], m

    def snapshots(self, what: str, cfg: Path) -> list[dict]:
        m = measure(what, self.ldp_cmd("snapshots", str(cfg), "--json"), self.work, self.env)
        return parse_json(what, m)["snapshots"]

    def queries(self, *cases: tuple[str, Path, str]) -> list[dict]:
        """Each case (what, config, SQL) --repeat times, the cases taking turns (A B A B …) so
        that a change in the machine's load falls on both; the best run of each."""
        runs: list[list[Measure]] = [[] for _ in cases]
        for i in range(self.repeat):
            for n, (what, cfg, sql) in enumerate(cases):
                runs[n].append(measure(f"{what}.{i + 1}", self.ldp_cmd(
                    "query", "--json", str(cfg), sql), self.work, self.env))
        return [self.summary(what, r) for (what, _, _), r in zip(cases, runs)]

    @staticmethod
    def summary(what: str, runs: list[Measure]) -> dict:
        best = min(runs, key=lambda m: m.wall_s)
        doc = parse_json(what, best)
        rows = doc.get("rows") or []
        return {"wall_s": round(best.wall_s, 4),
                "peak_rss_mb": round(max(m.peak_rss_mb for m in runs), 1),
                "runs_s": [round(m.wall_s, 4) for m in runs],
                "files_scanned": doc.get("files_scanned"),
                "result": {k: rows[0][k] for k in ("n", "fare_sum", "distance_avg")}
                if rows else None}


def queries(table: str, day: datetime.date) -> dict:
    full = f"SELECT count(*) AS n, sum(fare) AS fare_sum, avg(distance) AS distance_avg FROM {table}"
    nxt = day + datetime.timedelta(days=1)
    return {"full_scan": full,
            "one_day": f"{full} WHERE ts >= TIMESTAMP '{day} 00:00:00' "
                       f"AND ts < TIMESTAMP '{nxt} 00:00:00'",
            # No data file read: the process, the catalog, the metadata file and the plan.
            "table_open": f"SELECT * FROM {table} LIMIT 0"}


def same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) or abs(a - b) < 1e-9


def check_results(v: Variant, q: dict, expected: dict) -> list[str]:
    """The query results of the three states agree, and the counts are the generated rows'."""
    errs = []
    for name, per in q.items():
        if name not in expected:
            continue
        ref = per["once"]["result"]
        if ref["n"] != expected[name]:
            errs.append(f"{v.label} {name}: loaded once counts {ref['n']} rows, "
                        f"{expected[name]} generated")
        for state, label in (("before", "appended, before compaction"),
                             ("after", "appended, after compaction"),
                             ("once_before", "loaded once, first run")):
            got = per[state]["result"]
            for col in ("n", "fare_sum", "distance_avg"):
                if not same(got[col], ref[col]):
                    errs.append(f"{v.label} {name}: {col} is {got[col]!r} ({label}), "
                                f"{ref[col]!r} (loaded once)")
    return errs


def ideal_files(v: Variant, snaps: list[dict], target: int) -> dict:
    """Sum over partitions of ceil(live bytes / target), the bytes before compaction: the
    table's total-files-size, or per day (the partition) the added-files-size of the appends
    whose window is on that day (an hourly window never spans two UTC days)."""
    head = snaps[-1]["summary"]
    total = int(head.get("total-files-size", 0))
    if not v.partitioned:
        return {"bytes": total, "partitions": 1, "ideal": max(1, math.ceil(total / target))}
    per_day: dict[str, int] = {}
    for s in snaps:
        window = s["summary"].get("ldp.logical-window")
        if s["operation"] != "append" or not window:
            continue
        per_day[window[:10]] = per_day.get(window[:10], 0) + int(
            s["summary"].get("added-files-size", 0))
    return {"bytes": total, "partitions": len(per_day),
            "ideal": sum(max(1, math.ceil(b / target)) for b in per_day.values())}


def run_variant(b: Bench, v: Variant, args, start: datetime.datetime, day: datetime.date,
                expected: dict) -> dict:
    out: dict = {"label": v.label, "partitioned": v.partitioned,
                 "tables": {"appended": f"{NAMESPACE}.{v.appended}",
                            "once": f"{NAMESPACE}.{v.once}"}}
    out["load_once"] = b.load_once(v, args.windows * args.rows)
    out["load_appended"] = b.load_windows(v, args.windows, args.rows, start)

    once_plan, _ = b.maintain(f"maintain.{v.once}.dry-run", v.once_cfg, apply=False)
    once_snap = b.snapshots(f"snapshots.{v.once}", v.once_cfg)[-1]["summary"]
    out["once"] = {"files": once_plan["files_before"], "manifests": once_plan["manifests_before"],
                   "bytes": int(once_snap.get("total-files-size", 0))}

    before, m_before = b.maintain(f"maintain.{v.appended}.dry-run-before", v.appended_cfg,
                                  apply=False)
    snaps_before = b.snapshots(f"snapshots.{v.appended}.before", v.appended_cfg)
    out["before"] = {"files": before["files_before"], "manifests": before["manifests_before"],
                     "bytes": int(snaps_before[-1]["summary"].get("total-files-size", 0)),
                     "dry_run": before, "dry_run_wall_s": round(m_before.wall_s, 4),
                     "dry_run_peak_rss_mb": round(m_before.peak_rss_mb, 1)}
    progress(f"{v.label}: before compaction {before['files_before']:,} data files, "
             f"{before['manifests_before']:,} manifests; the plan rewrites "
             f"{before['files_rewritten']:,} files into {before['files_written']:,}")

    sql = {"appended": queries(v.appended, day), "once": queries(v.once, day)}
    out["sql"] = sql["appended"]
    q: dict = {name: {} for name in sql["appended"]}
    for name in q:
        q[name]["before"], q[name]["once_before"] = b.queries(
            (f"query.{v.appended}.{name}.before", v.appended_cfg, sql["appended"][name]),
            (f"query.{v.once}.{name}.before", v.once_cfg, sql["once"][name]))
        progress(f"{v.label}: {name}: before compaction {q[name]['before']['wall_s']:.3f} s, "
                 f"loaded once {q[name]['once_before']['wall_s']:.3f} s")

    compact, m = b.maintain(f"maintain.{v.appended}.apply", v.appended_cfg, apply=True)
    out["compaction"] = {**m.as_json(), "report": compact}
    progress(f"{v.label}: compaction {m.wall_s:.2f} s, peak RSS {m.peak_rss_mb:.0f} MB: "
             f"{compact['files_before']:,} -> {compact['files_after']:,} data files, "
             f"{compact['manifests_before']:,} -> {compact['manifests_after']:,} manifests")
    if not compact.get("committed"):
        raise Failure(f"{v.label}: the compaction committed nothing: {compact}")

    after, _ = b.maintain(f"maintain.{v.appended}.dry-run-after", v.appended_cfg, apply=False,
                          sort=False)
    snaps_after = b.snapshots(f"snapshots.{v.appended}.after", v.appended_cfg)
    out["after"] = {"files": after["files_before"], "manifests": after["manifests_before"],
                    "bytes": int(snaps_after[-1]["summary"].get("total-files-size", 0)),
                    "dry_run": after}
    notes = []
    if after["files_before"] != compact["files_after"]:
        notes.append(f"{v.label}: the compaction reported {compact['files_after']} files after, "
                     f"a dry run then finds {after['files_before']}")
    if after["files_rewritten"]:
        notes.append(f"{v.label}: a dry run after the compaction would still rewrite "
                     f"{after['files_rewritten']} small files")
    for name in q:
        q[name]["after"], q[name]["once"] = b.queries(
            (f"query.{v.appended}.{name}.after", v.appended_cfg, sql["appended"][name]),
            (f"query.{v.once}.{name}.after", v.once_cfg, sql["once"][name]))
        progress(f"{v.label}: {name}: after compaction {q[name]['after']['wall_s']:.3f} s, "
                 f"loaded once {q[name]['once']['wall_s']:.3f} s")
    out["queries"] = q

    target = int(compact["target_file_size"])
    ideal = ideal_files(v, snaps_before, target)
    out["ideal"] = {**ideal, "target_file_size": target}
    files_ratio = out["after"]["files"] / ideal["ideal"]
    ratios = {name: q[name]["after"]["wall_s"] / q[name]["once"]["wall_s"] for name in q}
    out["ratios"] = {"files_after_vs_ideal": round(files_ratio, 3),
                     "full_scan_after_vs_once": round(ratios["full_scan"], 3),
                     "one_day_after_vs_once": round(ratios["one_day"], 3),
                     "table_open_after_vs_once": round(ratios["table_open"], 3),
                     **{f"{name}_before_vs_once": round(
                         q[name]["before"]["wall_s"] / q[name]["once_before"]["wall_s"], 3)
                        for name in q}}
    out["targets"] = [
        {"what": "files after compaction within 2x of the ideal count",
         "value": round(files_ratio, 3), "limit": TARGETS["files_vs_ideal"],
         "pass": files_ratio <= TARGETS["files_vs_ideal"]},
        {"what": "full scan after compaction within 1.5x of the same data loaded once",
         "value": round(ratios["full_scan"], 3), "limit": TARGETS["full_scan_vs_once"],
         "pass": ratios["full_scan"] <= TARGETS["full_scan_vs_once"]},
    ]
    out["mismatches"] = check_results(v, q, expected)
    out["notes"] = notes
    return out


# ---------------------------------------------------------------------------------------------
# Output


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
        "python": platform.python_version(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def mb(n: int | None) -> str:
    return "-" if n is None else f"{n / 2**20:,.2f} MB"


def count(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def secs(s: float | None) -> str:
    if s is None:
        return "-"
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"


def table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for n, r in enumerate(rows):
        out.append("  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i])
                             for i, c in enumerate(r)).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def print_report(report: dict) -> None:
    m = report["machine"]
    out = [f"ldp maintain --compact benchmark, {report['started'][:16].replace('T', ' ')} UTC, "
           f"{report.get('seconds', 0):.0f} s",
           f"machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, {m['os']}, "
           f"load average {m['load_average_at_start'][0]} at start",
           f"ldp: {report['ldp_version']} ({report['ldp']})",
           f"data: {report['windows']:,} hourly windows x {report['rows']:,} rows = "
           f"{report['windows'] * report['rows']:,} rows from {report['start']} "
           f"(seed {report['seed']}); one-day filter on {report['day']}"]
    for v in report["variants"].values():
        if "queries" not in v:
            continue
        la, lo = v["load_appended"], v["load_once"]
        a = la["append_s"]
        q = v["queries"]
        c = v["compaction"]
        r = c["report"]
        out += ["", f"{v['label']}:",
                f"load: {la['windows']:,} appends in {la['total_s']:.1f} s "
                f"(each: first {secs(a['first'])}, median {secs(a['median'])}, "
                f"p95 {secs(a['p95'])}, last {secs(a['last'])}; peak RSS "
                f"{la['peak_rss_mb']:.0f} MB); loaded once in {secs(lo['wall_s'])} "
                f"(peak RSS {lo['peak_rss_mb']:.0f} MB)"]
        rows = [["measure", "before", "after", "loaded once", "after ÷ once"],
                ["live data files", f"{v['before']['files']:,}", f"{v['after']['files']:,}",
                 f"{v['once']['files']:,}", ""],
                ["manifests", f"{v['before']['manifests']:,}", f"{v['after']['manifests']:,}",
                 f"{v['once']['manifests']:,}", ""],
                ["data bytes", mb(v["before"]["bytes"]), mb(v["after"]["bytes"]),
                 mb(v["once"]["bytes"]), ""]]
        for name, label in (("full_scan", "full scan"), ("one_day", "one-day filter"),
                            ("table_open", "table open, LIMIT 0")):
            e = q[name]
            rows.append([f"{label} (best of {report['repeat']})", secs(e["before"]["wall_s"]),
                         secs(e["after"]["wall_s"]), secs(e["once"]["wall_s"]),
                         f"{e['after']['wall_s'] / e['once']['wall_s']:.2f}×"])
            if name != "table_open":
                rows.append(["  files scanned"] + [count(e[s]["files_scanned"])
                                                   for s in ("before", "after", "once")] + [""])
        out += table(rows, {1, 2, 3, 4})
        ideal = v["ideal"]
        out.append(f"compaction: {secs(c['wall_s'])}, peak RSS {c['peak_rss_mb']:.0f} MB; "
                   f"rewrote {r['files_rewritten']:,} files ({mb(r['bytes_rewritten'])}, "
                   f"{r['rows_rewritten']:,} rows) of {r['partitions']:,} partition(s) into "
                   f"{r['files_written']:,} ({mb(r['bytes_written'])}), target "
                   f"{mb(r['target_file_size'])}"
                   + (f", sorted by {', '.join(r['sort_by'])}" if r.get("sort_by") else "")
                   + f", {r['attempts']} commit attempt(s); the dry "
                   f"run before took {secs(v['before']['dry_run_wall_s'])}")
        out.append(f"ideal files: {ideal['ideal']:,} (ceil(bytes / {mb(ideal['target_file_size'])})"
                   + (f" over {ideal['partitions']:,} day partitions" if v["partitioned"] else
                      f" of {mb(ideal['bytes'])}")
                   + f"); files after ÷ ideal {v['ratios']['files_after_vs_ideal']:.2f}×")
        for t in v["targets"]:
            out.append(f"{'PASS' if t['pass'] else 'FAIL'}  {t['what']}: {t['value']:.2f}× "
                       f"(at most {t['limit']}×)")
        for n in v.get("notes", []):
            out.append(f"note: {n}")
        for x in v.get("mismatches", []):
            out.append(f"MISMATCH {x}")
    for f in report["failures"]:
        out.append(f"FAIL {f}")
    print("\n".join(out))


# ---------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(prog="bench/maintain/run", description=__doc__.split("\n\n")[0])
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    ap.add_argument("--ldp", default=os.environ.get("LDP") or str(target / "release" / "ldp"),
                    help="the ldp binary (default: $LDP, else $CARGO_TARGET_DIR/release/ldp, "
                         "else target/release/ldp)")
    ap.add_argument("--windows", type=int, default=1000,
                    help="hourly windows appended, one `ldp run --window` each (1000)")
    ap.add_argument("--rows", type=int, default=1000, help="rows per window (1000)")
    ap.add_argument("--seed", type=int, default=42, help="the generator's seed (42)")
    ap.add_argument("--start", default="2024-01-01T00:00:00",
                    help="start of the first window, UTC (2024-01-01T00:00:00)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per query, best taken (3)")
    ap.add_argument("--target-file-size", metavar="SIZE",
                    help="passed to `ldp maintain --target-file-size` (default: ldp's, 128MB)")
    ap.add_argument("--sort-by", metavar="COLS",
                    help="passed to `ldp maintain --sort-by` (default: none, rows kept in the "
                         "order compaction reads the files)")
    ap.add_argument("--partitioned", action="store_true",
                    help="also the same with two tables partitioned by day(ts): twice the "
                         "appends")
    ap.add_argument("--work", default="/var/tmp/ldp-maintain-bench",
                    help="data, tables and logs, kept (default /var/tmp/ldp-maintain-bench)")
    ap.add_argument("--json", metavar="FILE", help="write every figure there")
    args = ap.parse_args()

    if args.windows < 1 or args.rows < 1:
        raise SystemExit("maintain: --windows and --rows must be at least 1")
    if not Path(GNU_TIME).is_file():
        raise SystemExit("maintain: peak RSS comes from GNU time: apt-get install time")
    ldp = Path(args.ldp).resolve()
    if not os.access(ldp, os.X_OK):
        raise SystemExit(f"maintain: no ldp binary at {ldp} (--ldp PATH or LDP=PATH)")
    try:
        start = datetime.datetime.fromisoformat(args.start).replace(tzinfo=None)
    except ValueError:
        raise SystemExit(f"maintain: --start {args.start!r} is not an ISO date-time") from None
    start = start.replace(minute=0, second=0, microsecond=0)
    mid = start + datetime.timedelta(hours=args.windows // 2)
    day = mid.date()
    day_start = datetime.datetime.combine(day, datetime.time())
    in_day = sum(1 for w in range(args.windows)
                 if day_start <= window_bounds(start, w)[0] < day_start + datetime.timedelta(1))
    expected = {"full_scan": args.windows * args.rows, "one_day": in_day * args.rows}

    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(work / "logs", ignore_errors=True)
    env = {**os.environ, "LDP_CACHE_DIR": str(work / "plugin-cache")}
    env.pop("LDP_LOG", None)
    env.pop("LDP_CLUSTER", None)
    ldp_version = subprocess.run([str(ldp), "--version"], capture_output=True,
                                 text=True).stdout.strip()
    began = time.perf_counter()
    report: dict = {
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "ldp": str(ldp), "ldp_version": ldp_version, "machine": machine(),
        "windows": args.windows, "rows": args.rows, "seed": args.seed,
        "start": f"{start:%Y-%m-%dT%H:%M:%S}", "day": str(day), "repeat": args.repeat,
        "target_file_size_option": args.target_file_size, "sort_by_option": args.sort_by,
        "work": str(work),
        "expected_rows": expected, "targets": TARGETS, "variants": {}, "failures": [],
    }
    progress(f"{ldp_version} ({ldp}), {args.windows:,} windows x {args.rows:,} rows, "
             f"work {work}")

    data = work / "data" / f"w{args.windows}-r{args.rows}-s{args.seed}-{start:%Y%m%dT%H}"
    warehouse = work / "warehouse"
    configs = work / "configs"
    variants = [Variant("plain", "unpartitioned", False, "rides_appended", "rides_once")]
    if args.partitioned:
        variants.append(Variant("day", "partitioned by day(ts)", True, "rides_day_appended",
                                "rides_day_once"))
    bench = Bench(ldp, work, env, max(1, args.repeat), args.target_file_size, args.sort_by)
    try:
        report["data"] = generate(data, args.windows, args.rows, args.seed, start)
        shutil.rmtree(warehouse, ignore_errors=True)
        shutil.rmtree(configs, ignore_errors=True)
        warehouse.mkdir(parents=True)
        configs.mkdir(parents=True)
        for v in variants:
            v.appended_cfg = configs / f"{v.appended}.json"
            v.once_cfg = configs / f"{v.once}.json"
            write_config(v.appended_cfg, v.appended,
                         str(data / "windows" / "rides_{window_start:%Y%m%dT%H}.csv"),
                         warehouse, windowed=True, partitioned=v.partitioned)
            write_config(v.once_cfg, v.once, str(data / "all.csv"), warehouse,
                         windowed=False, partitioned=v.partitioned)
        report["load_warm_up"] = bench.warm_up(data, start)
        for v in variants:
            try:
                report["variants"][v.key] = run_variant(bench, v, args, start, day, expected)
            except Failure as err:
                report["failures"].append(f"{v.label}: {err}")
                progress(f"FAIL {v.label}: {err}")
    except Failure as err:
        report["failures"].append(str(err))
        progress(f"FAIL {err}")
    report["seconds"] = round(time.perf_counter() - began, 1)

    print_report(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
        progress(f"report: {args.json}")
    mismatches = [x for v in report["variants"].values() for x in v.get("mismatches", [])]
    if report["failures"] or mismatches:
        return 1
    missed = [t for v in report["variants"].values() for t in v.get("targets", [])
              if not t["pass"]]
    return 2 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
