"""TPC-H on ldp against DuckDB: timings of the 22 queries and a row-by-row check of the results.

`bench/tpch/run` installs tpchgen-cli and duckdb into bench/tpch/.venv and runs this driver with
that venv's Python. The steps:

1. data     tpchgen-cli writes the 8 tables as Parquet at the scale factor, once per scale factor,
            into WORK/data/sf<SF>/ (kept between runs).
2. load     one ldp/v1 config per table (PARQUET source -> ICEBERG table tpch.<table> of one local
            catalog) in WORK/sf<SF>/configs/; `ldp run` of each into a fresh warehouse, timed.
3. cluster  with --cluster: a Ballista scheduler and two executors, each an `ldp cluster` process
            on free loopback ports, stopped at the end whatever happens.
4. queries  queries/q<N>.sql, each run as a whole child process, best of --repeat:
              ldp       `ldp query --json --max-rows 1000000 CONFIGS -- SQL`
              cluster   the same with --cluster df://127.0.0.1:PORT
              duckdb    a Python child: a fresh in-memory DuckDB, one view per table over the
                        generated Parquet files, the query, the rows printed as JSON
            and once more, all queries in one DuckDB process (warm: `duckdb warm`), for reference.
5. check    the rows of every engine against DuckDB's, field by field (the rule: README.md and
            compare.py). A difference is printed with the query, the row and the column,
            and makes the exit status 1; so does a query that fails on any engine.

Every figure is one child process: wall time measured around it, peak RSS from GNU time
(`/usr/bin/time -f %M`, as bench/suite.py does). Only the standard library and duckdb are used.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

from compare import Failure, compare, duckdb_result, ldp_result

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
QUERIES = HERE / "queries"
TABLES = ("region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem")
GNU_TIME = "/usr/bin/time"
MAX_ROWS = 1_000_000


# DuckDB's side, a child process as `ldp query` is: a fresh connection, a view per table over
# the Parquet files, then each SQL file given; per query it prints one JSON line: columns, rows
# (decimals as strings with their scale, dates as ISO strings) and the seconds of the query.
# With --repeat K it runs each query K times in the same process (the warm reference).
DUCKDB_CHILD = r"""
import datetime, decimal, json, sys, time
started = time.perf_counter()
import duckdb
data, repeat, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
con = duckdb.connect()
for t in ("region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"):
    con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{data}/{t}.parquet')")
def value(v):
    if isinstance(v, decimal.Decimal):
        return {"decimal": str(v)}
    if isinstance(v, (datetime.date, datetime.datetime, datetime.time)):
        return v.isoformat()
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return {"float": str(v)}
    return v
for path in files:
    sql = open(path).read()
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        cur = con.execute(sql)
        rows = cur.fetchall()
        s = time.perf_counter() - t0
        best = s if best is None else min(best, s)
    cols = [{"name": d[0], "type": str(d[1])} for d in cur.description]
    print(json.dumps({"file": path, "columns": cols, "rows": [[value(v) for v in r] for r in rows],
                      "seconds": best, "process_s": time.perf_counter() - started}), flush=True)
"""


def progress(msg: str) -> None:
    print(f"tpch: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Measuring a child process (as bench/suite.py)


@dataclasses.dataclass
class Measure:
    wall_s: float
    peak_rss_mb: float  # MB = 2^20 bytes
    stdout: str = ""

    def as_json(self) -> dict:
        return {"wall_s": round(self.wall_s, 4), "peak_rss_mb": round(self.peak_rss_mb, 1)}


def measure(what: str, cmd: list[str], cwd: Path, env: dict | None = None) -> Measure:
    """Runs `cmd` under GNU time in `cwd`, its output kept in cwd/logs/; Failure when it exits
    non-zero (the message holds the end of its stderr)."""
    logs = cwd / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", what)
    out_path, err_path, rss_path = (logs / f"{stem}.{ext}" for ext in ("stdout", "stderr", "rss"))
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        started = time.perf_counter()
        try:
            proc = subprocess.Popen([GNU_TIME, "-o", str(rss_path), "-f", "%e %M", *cmd],
                                    cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=err)
        except OSError as e:
            raise Failure(f"{what}: cannot start {GNU_TIME}: {e}") from e
        code = proc.wait()
        wall = time.perf_counter() - started
    if code != 0:
        lines = [ln for ln in err_path.read_text(errors="replace").strip().splitlines()
                 if not ln.startswith("Command exited with non-zero status")]
        raise Failure(f"{what} exited {code}: " + (" | ".join(lines[-8:]) or "(no stderr)")
                      + f"  [log: {err_path}]")
    return Measure(wall_s=wall, peak_rss_mb=int(rss_path.read_text().split()[-1]) / 1024,
                   stdout=out_path.read_text(errors="replace"))


def best_of(what: str, repeat: int, cmd: list[str], cwd: Path, env: dict) -> tuple[Measure, list]:
    """The fastest of `repeat` runs, with the largest peak RSS of them; and every run's wall."""
    runs = [measure(f"{what}.{i + 1}", cmd, cwd, env) for i in range(repeat)]
    best = min(runs, key=lambda m: m.wall_s)
    return (dataclasses.replace(best, peak_rss_mb=max(m.peak_rss_mb for m in runs)),
            [round(m.wall_s, 4) for m in runs])


# ---------------------------------------------------------------------------------------------
# Data and load


def sf_name(sf: str) -> str:
    d = Decimal(sf)
    if d <= 0:
        raise SystemExit(f"tpch: --sf must be positive, got {sf}")
    return "sf" + format(d.normalize(), "f")


def generate(tpchgen: Path, sf: str, data: Path) -> dict:
    """The 8 tables as Parquet in `data`, generated once (a stamp file marks a complete set)."""
    stamp = data / ".complete"
    version = subprocess.run([str(tpchgen), "--version"], capture_output=True, text=True,
                             check=True).stdout.strip()
    if stamp.is_file() and stamp.read_text() == version:
        progress(f"data: {data} (cached, {version})")
        return {"dir": str(data), "generated": False, "tpchgen": version}
    tmp = data.with_name(data.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(data, ignore_errors=True)
    tmp.mkdir(parents=True)
    progress(f"data: generating SF {sf} with {version} into {data}")
    started = time.perf_counter()
    subprocess.run([str(tpchgen), "parquet", "-s", sf, "-o", str(tmp), "-q"], check=True)
    missing = [t for t in TABLES if not (tmp / f"{t}.parquet").is_file()]
    if missing:
        raise Failure(f"tpchgen-cli wrote no file for {', '.join(missing)} in {tmp}")
    tmp.rename(data)
    stamp.write_text(version)
    took = time.perf_counter() - started
    progress(f"data: generated in {took:.1f} s")
    return {"dir": str(data), "generated": True, "tpchgen": version, "seconds": round(took, 2)}


def write_configs(configs: Path, data: Path, warehouse: Path) -> None:
    """One ldp/v1 config per table: its Parquet file into the Iceberg table tpch.<table>."""
    shutil.rmtree(configs, ignore_errors=True)
    configs.mkdir(parents=True)
    for t in TABLES:
        cfg = {
            "apiVersion": "ldp/v1",
            "kind": "Pipeline",
            "identifier": f"tpch_{t}",
            "who": "bench/tpch",
            "what": f"TPC-H {t}",
            "metadata": {
                "source": {"name": t, "format": "PARQUET", "path": str(data / f"{t}.parquet")},
                "target": {
                    "name": t,
                    "format": "ICEBERG",
                    "catalog": {"identifier": "tpch", "warehouse_path": str(warehouse)},
                },
            },
        }
        (configs / f"{t}.json").write_text(json.dumps(cfg, indent=2) + "\n")


def warm_up(ldp: Path, sfdir: Path, configs: Path, env: dict) -> dict:
    """One untimed `ldp run` of the smallest table into a scratch warehouse: the first run of
    a build compiles the parquet plugin into the plugin cache (seconds), which is not loading."""
    scratch = sfdir / "warm-up"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    cfg = json.loads((configs / "region.json").read_text())
    cfg["metadata"]["target"]["catalog"]["warehouse_path"] = str(scratch / "warehouse")
    (scratch / "region.json").write_text(json.dumps(cfg))
    m = measure("load.warm-up", [str(ldp), "run", str(scratch / "region.json")], sfdir, env)
    shutil.rmtree(scratch, ignore_errors=True)
    progress(f"load: warm-up run (plugin cache) {m.wall_s:.2f} s, untimed")
    return m.as_json()


def load(ldp: Path, sfdir: Path, configs: Path, warehouse: Path, env: dict) -> dict:
    """`ldp run` of each config into a fresh warehouse, each timed as a whole process."""
    shutil.rmtree(warehouse, ignore_errors=True)
    warehouse.mkdir(parents=True)
    out = {}
    for t in TABLES:
        m = measure(f"load.{t}", [str(ldp), "run", str(configs / f"{t}.json"), "--json"], sfdir,
                    env)
        try:
            rows = json.loads(m.stdout).get("rows_written")
        except json.JSONDecodeError:
            rows = None
        out[t] = {**m.as_json(), "rows": rows}
        progress(f"load: {t:<8} {rows} rows in {m.wall_s:.2f} s, peak RSS {m.peak_rss_mb:.0f} MB")
    return out


def table_types(ldp: Path, sfdir: Path, configs: Path, env: dict, python: str,
                data: Path) -> dict:
    """Each table's column types: in the Parquet file (DuckDB's names) and as ldp reads the
    Iceberg table (DataFusion's Arrow types)."""
    out = {}
    script = ("import duckdb, json, sys\n"
              "print(json.dumps({t: [[c[0], c[1]] for c in duckdb.sql("
              "f\"DESCRIBE SELECT * FROM read_parquet('{sys.argv[1]}/{t}.parquet')\").fetchall()]"
              " for t in sys.argv[2:]}))")
    parquet = json.loads(subprocess.run([python, "-c", script, str(data), *TABLES],
                                        capture_output=True, text=True, check=True).stdout)
    for t in TABLES:
        m = measure(f"types.{t}", [str(ldp), "query", "--json", str(configs), "--",
                                   f"SELECT * FROM {t} LIMIT 0"], sfdir, env)
        cols = json.loads(m.stdout)["columns"]
        out[t] = [{"name": c["name"], "ldp": c["type"], "parquet": p[1]}
                  for c, p in zip(cols, parquet[t])]
    return out


def table_files(warehouse: Path, data: Path) -> dict:
    """The data files of each Iceberg table (all snapshots' files in its folder) and of the
    generated Parquet file: count and MB."""
    out = {}
    for t in TABLES:
        files = list((warehouse / "tpch" / t / "data").rglob("*.parquet"))
        out[t] = {"iceberg_files": len(files),
                  "iceberg_mb": round(sum(f.stat().st_size for f in files) / 2**20, 1),
                  "parquet_mb": round((data / f"{t}.parquet").stat().st_size / 2**20, 1)}
    return out


# ---------------------------------------------------------------------------------------------
# The cluster


def free_ports(n: int) -> list[int]:
    socks, ports = [], []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


class Cluster:
    """One scheduler and two executors, `ldp cluster` processes on free loopback ports."""

    def __init__(self, ldp: Path, folder: Path, env: dict, executors: int = 2,
                 concurrent_tasks: int = 2):
        self.ldp, self.folder, self.env = ldp, folder, env
        self.executors, self.concurrent_tasks = executors, concurrent_tasks
        self.procs: list[tuple[str, subprocess.Popen]] = []
        self.url = ""
        self.peak_rss_mb: dict[str, float] = {}
        self.shuffle_left_mb = 0.0

    def _spawn(self, name: str, args: list[str]) -> None:
        log = open(self.folder / f"{name}.log", "wb")
        proc = subprocess.Popen([str(self.ldp), "cluster", *args], cwd=self.folder, env=self.env,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.procs.append((name, proc))

    def start(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        ports = free_ports(1 + 2 * self.executors)
        self.url = f"df://127.0.0.1:{ports[0]}"
        self._spawn("scheduler", ["scheduler", "--bind", f"127.0.0.1:{ports[0]}"])
        self._wait(lambda: self._status() is not None, "the scheduler to answer")
        for i in range(self.executors):
            flight, grpc = ports[1 + 2 * i], ports[2 + 2 * i]
            work = self.folder / f"executor-{i + 1}"
            work.mkdir()
            self._spawn(f"executor-{i + 1}", [
                "executor", "--scheduler", self.url, "--bind", f"127.0.0.1:{flight}",
                "--grpc-port", str(grpc), "--work-dir", str(work),
                "--concurrent-tasks", str(self.concurrent_tasks)])
        self._wait(lambda: (self._status() or 0) >= self.executors,
                   f"{self.executors} executors to register")
        progress(f"cluster: scheduler {self.url}, {self.executors} executors "
                 f"(logs in {self.folder})")

    def _status(self) -> int | None:
        """The number of executors the scheduler knows, None when it does not answer."""
        r = subprocess.run([str(self.ldp), "cluster", "status", "--json", self.url],
                           capture_output=True, text=True, env=self.env)
        if r.returncode != 0:
            return None
        try:
            doc = json.loads(r.stdout)
        except json.JSONDecodeError:
            return None
        if isinstance(doc, dict):
            doc = doc.get("executors", [])
        return len(doc) if isinstance(doc, list) else None

    def _wait(self, ready, what: str, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name, proc in self.procs:
                if proc.poll() is not None:
                    tail = (self.folder / f"{name}.log").read_text(errors="replace")[-1500:]
                    raise Failure(f"cluster: {name} exited {proc.returncode} while waiting for "
                                  f"{what}: {tail}")
            if ready():
                return
            time.sleep(0.5)
        raise Failure(f"cluster: timed out after {timeout:.0f} s waiting for {what} "
                      f"(logs in {self.folder})")

    def alive(self) -> str | None:
        """None when every process runs, else which one exited."""
        for name, proc in self.procs:
            if proc.poll() is not None:
                return f"{name} exited {proc.returncode} (log: {self.folder / (name + '.log')})"
        return None

    def stop(self) -> None:
        """SIGTERM to each process (executors first), SIGKILL after 15 s."""
        for name, proc in self.procs:
            try:
                status = Path(f"/proc/{proc.pid}/status").read_text()
                hwm = re.search(r"VmHWM:\s+(\d+) kB", status)
                if hwm:
                    self.peak_rss_mb[name] = round(int(hwm.group(1)) / 1024, 1)
            except OSError:
                pass
        # The executors first (each tells the scheduler it stops), then the scheduler.
        executors = [p for p in self.procs if p[0] != "scheduler"]
        for group in (executors, [p for p in self.procs if p[0] == "scheduler"]):
            for name, proc in group:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            for name, proc in group:
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    progress(f"cluster: {name} did not stop in 15 s after SIGTERM: killed")
                    proc.kill()
                    proc.wait()
        # Shuffle files the executors left in their work folders (then removed: they can be
        # large at SF 10).
        left = 0
        for name, _ in executors:
            folder = self.folder / name
            left += sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
            shutil.rmtree(folder, ignore_errors=True)
        self.shuffle_left_mb = round(left / 2**20, 1)
        if self.procs:
            progress("cluster: stopped")
        self.procs = []


# ---------------------------------------------------------------------------------------------
# Running the queries


@dataclasses.dataclass
class Engines:
    ldp: Path
    python: str
    configs: Path
    data: Path
    sfdir: Path
    env: dict
    repeat: int
    cluster: Cluster | None

    def ldp_cmd(self, sql: str, cluster: bool) -> list[str]:
        cmd = [str(self.ldp), "query", "--json", "--max-rows", str(MAX_ROWS)]
        if cluster:
            cmd += ["--cluster", self.cluster.url]
        # `--` ends the options: the queries start with an SQL comment, `-- ...`, which clap
        # would otherwise take for an option.
        return cmd + [str(self.configs), "--", sql]

    def run_ldp(self, q: int, sql: str, cluster: bool) -> tuple[dict, dict]:
        what = f"q{q}.{'cluster' if cluster else 'ldp'}"
        if cluster:
            dead = self.cluster.alive()
            if dead:
                raise Failure(f"the cluster is down: {dead}")
        m, runs = best_of(what, self.repeat, self.ldp_cmd(sql, cluster), self.sfdir, self.env)
        try:
            res = ldp_result(m.stdout)
        except (json.JSONDecodeError, KeyError) as e:
            raise Failure(f"{what}: no JSON result on stdout ({e}): {m.stdout[:300]!r}") from e
        return {**m.as_json(), "runs_s": runs, "rows": len(res["rows"])}, res

    def run_duckdb(self, q: int, path: Path) -> tuple[dict, dict]:
        cmd = [self.python, "-c", DUCKDB_CHILD, str(self.data), "1", str(path)]
        m, runs = best_of(f"q{q}.duckdb", self.repeat, cmd, self.sfdir, self.env)
        line = json.loads(m.stdout.strip().splitlines()[-1])
        res = duckdb_result(line)
        return {**m.as_json(), "runs_s": runs, "rows": len(res["rows"]),
                "query_s": round(line["seconds"], 4)}, res

    def run_duckdb_warm(self, paths: list[Path]) -> dict:
        """All queries in one DuckDB process, each best of --repeat in that process."""
        cmd = [self.python, "-c", DUCKDB_CHILD, str(self.data), str(self.repeat),
               *map(str, paths)]
        m = measure("duckdb-warm", cmd, self.sfdir, self.env)
        per = {}
        for ln in m.stdout.strip().splitlines():
            d = json.loads(ln)
            per[int(re.search(r"q(\d+)\.sql$", d["file"]).group(1))] = round(d["seconds"], 4)
        return {**m.as_json(), "per_query_s": per}


def parse_queries(spec: str | None) -> list[int]:
    if not spec:
        return list(range(1, 23))
    out = []
    for part in spec.split(","):
        part = part.strip().lower().lstrip("q")
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        elif part:
            out.append(int(part))
    bad = [q for q in out if not (QUERIES / f"q{q}.sql").is_file()]
    if bad:
        raise SystemExit(f"tpch: no query file for {bad} in {QUERIES}")
    return out


def fmt(v, spec=".3f") -> str:
    return "-" if v is None else format(v, spec)


def geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", default="1", help="TPC-H scale factor (default 1; 0.01 for a check)")
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    ap.add_argument("--ldp", default=os.environ.get("LDP") or str(target / "release" / "ldp"),
                    help="the ldp binary (default: $LDP, else $CARGO_TARGET_DIR/release/ldp, "
                         "else target/release/ldp)")
    ap.add_argument("--cluster", action="store_true",
                    help="also run the queries on a local Ballista cluster (1 scheduler, "
                         "2 executors)")
    ap.add_argument("--queries", help="the queries to run, e.g. 1,3,5-7 (default: all 22)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per query, best taken (3)")
    ap.add_argument("--work", default="/var/tmp/ldp-tpch",
                    help="data, tables and logs, kept between runs (default /var/tmp/ldp-tpch)")
    ap.add_argument("--json", metavar="FILE", help="write every figure and result there")
    ap.add_argument("--check-only", action="store_true",
                    help="one run per query and engine: compare the rows, no warm DuckDB run")
    ap.add_argument("--no-load", action="store_true",
                    help="keep the tables of an earlier run at this SF instead of loading again")
    ap.add_argument("--tpchgen", default=str(Path(sys.executable).parent / "tpchgen-cli"),
                    help="the tpchgen-cli binary (default: next to this Python)")
    args = ap.parse_args()

    if not Path(GNU_TIME).is_file():
        raise SystemExit("tpch: peak RSS comes from GNU time: apt-get install time")
    ldp = Path(args.ldp).resolve()
    if not os.access(ldp, os.X_OK):
        raise SystemExit(f"tpch: no ldp binary at {ldp} (--ldp PATH or LDP=PATH)")
    repeat = 1 if args.check_only else max(1, args.repeat)
    queries = parse_queries(args.queries)
    work = Path(args.work).resolve()
    name = sf_name(args.sf)
    data = work / "data" / name
    sfdir = work / name
    configs, warehouse = sfdir / "configs", sfdir / "warehouse"
    shutil.rmtree(sfdir / "logs", ignore_errors=True)
    sfdir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "LDP_CACHE_DIR": str(work / "plugin-cache")}
    env.pop("LDP_LOG", None)

    ldp_version = subprocess.run([str(ldp), "--version"], capture_output=True,
                                 text=True).stdout.strip()
    report: dict = {
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "sf": args.sf, "ldp": str(ldp), "ldp_version": ldp_version, "repeat": repeat,
        "check_only": args.check_only, "host": {
            "cpus": os.cpu_count(), "machine": platform.machine(),
            "python": platform.python_version()},
        "work": str(work), "queries": {}, "failures": [], "mismatches": [], "notes": [],
    }
    import duckdb  # noqa: PLC0415 (the venv's; the children import it too)
    report["duckdb_version"] = duckdb.__version__
    progress(f"{ldp_version} ({ldp}), DuckDB {duckdb.__version__}, SF {args.sf}, "
             f"repeat {repeat}, work {work}")

    failures: list[str] = report["failures"]
    cluster = None

    def stop_on_signal(signum, _frame):
        raise SystemExit(128 + signum)  # unwinds through `finally`: the cluster is stopped
    signal.signal(signal.SIGTERM, stop_on_signal)
    signal.signal(signal.SIGHUP, stop_on_signal)
    try:
        report["data"] = generate(Path(args.tpchgen), args.sf, data)
        if args.no_load and (warehouse / "tpch_catalog.db").is_file() and configs.is_dir():
            progress(f"load: skipped (--no-load), the tables in {warehouse}")
            report["load"] = None
        else:
            write_configs(configs, data, warehouse)
            report["load_warm_up"] = warm_up(ldp, sfdir, configs, env)
            report["load"] = load(ldp, sfdir, configs, warehouse, env)
        report["types"] = table_types(ldp, sfdir, configs, env, sys.executable, data)
        report["files"] = table_files(warehouse, data)

        if args.cluster:
            cluster = Cluster(ldp, sfdir / "cluster", env)
            cluster.start()
            report["cluster"] = {"url": cluster.url, "executors": 2, "concurrent_tasks": 2}

        eng = Engines(ldp, sys.executable, configs, data, sfdir, env, repeat, cluster)
        for q in queries:
            path = QUERIES / f"q{q}.sql"
            sql = path.read_text()
            entry: dict = {}
            results: dict = {}
            engines = ["duckdb", "ldp"] + (["cluster"] if cluster else [])
            for e in engines:
                try:
                    if e == "duckdb":
                        entry[e], results[e] = eng.run_duckdb(q, path)
                    else:
                        entry[e], results[e] = eng.run_ldp(q, sql, e == "cluster")
                except Failure as err:
                    entry[e] = {"error": str(err)}
                    failures.append(f"q{q} {e}: {err}")
                    progress(f"FAIL q{q} {e}: {err}")
            if "duckdb" in results:
                for e in ("ldp", "cluster"):
                    if e in results:
                        errs, notes = compare(q, e, results["duckdb"], results[e])
                        entry[e]["rows_equal"] = not errs
                        if errs:
                            entry[e]["mismatch"] = errs
                        report["mismatches"] += errs
                        report["notes"] += notes
                        for msg in errs:
                            progress(f"MISMATCH {msg}")
                entry["duckdb_rows"] = [[str(v) if isinstance(v, Decimal) else v for v in r]
                                        for r in results["duckdb"]["rows"][:100]]
                entry["columns"] = {e: results[e]["columns"] for e in results}
            report["queries"][q] = entry
            progress(f"q{q}: " + ", ".join(
                f"{e} {entry[e]['wall_s']:.3f} s" if "wall_s" in entry[e] else f"{e} FAILED"
                for e in engines))
        if cluster:
            dead = cluster.alive()
            if dead:
                failures.append(f"cluster: {dead}")
        if not args.check_only:
            try:
                report["duckdb_warm"] = eng.run_duckdb_warm([QUERIES / f"q{q}.sql"
                                                             for q in queries])
            except Failure as err:
                failures.append(f"duckdb warm: {err}")
    except Failure as err:
        failures.append(str(err))
        progress(f"FAIL {err}")
    finally:
        if cluster:
            cluster.stop()
            report.setdefault("cluster", {})["peak_rss_mb"] = cluster.peak_rss_mb
            report["cluster"]["shuffle_left_mb"] = cluster.shuffle_left_mb

    print_report(report, queries, bool(args.cluster))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, default=str) + "\n")
        progress(f"report: {args.json}")
    return 1 if failures or report["mismatches"] else 0


def print_report(report: dict, queries: list[int], cluster: bool) -> None:
    out = []
    load = report.get("load")
    if load:
        out.append(f"Load (ldp run, one process per table), SF {report['sf']}:")
        files = report.get("files") or {}
        out.append(f"{'table':<9} {'rows':>10} {'wall s':>8} {'RSS MB':>7} {'files':>5} "
                   f"{'MB':>8} {'source MB':>9}")
        for t, m in load.items():
            f = files.get(t, {})
            out.append(f"{t:<9} {m['rows'] or '-':>10} {m['wall_s']:>8.2f} "
                       f"{m['peak_rss_mb']:>7.0f} {f.get('iceberg_files', '-'):>5} "
                       f"{f.get('iceberg_mb', '-'):>8} {f.get('parquet_mb', '-'):>9}")
        out.append(f"{'total':<9} {sum(m['rows'] or 0 for m in load.values()):>10} "
                   f"{sum(m['wall_s'] for m in load.values()):>8.2f}")
        out.append("")
    types = report.get("types")
    if types:
        kinds: dict = {}
        for cols in types.values():
            for c in cols:
                kinds.setdefault((c["parquet"], c["ldp"]), []).append(c["name"])
        out.append("Column types (Parquet as DuckDB reads it -> ldp's Arrow type):")
        for (p, l), names in sorted(kinds.items()):
            out.append(f"  {p:<14} -> {l:<20} {len(names)} columns")
        out.append("")

    warm = (report.get("duckdb_warm") or {}).get("per_query_s", {})
    head = f"{'query':<6} {'rows':>5} {'ldp s':>8}"
    if cluster:
        head += f" {'cluster s':>9}"
    head += f" {'duckdb s':>8} {'ldp/duck':>8}"
    if cluster:
        head += f" {'clu/duck':>8} {'clu-ldp s':>9}"
    head += f" {'warm s':>7} {'RSS ldp':>7}"
    if cluster:
        head += f" {'RSS clu':>7}"
    head += f" {'RSS duck':>8}  rows"
    out.append(f"Queries: wall s of the whole process, best of {report['repeat']}; RSS: peak MB "
               f"(cluster: the client process); warm: DuckDB in one process")
    out.append(head)
    sums = {"ldp": 0.0, "cluster": 0.0, "duckdb": 0.0}
    ratios, cratios = [], []
    complete = {"ldp": True, "cluster": True, "duckdb": True}
    if not cluster:
        del sums["cluster"]
    for q in queries:
        e = report["queries"].get(q, {})
        w = {k: e.get(k, {}).get("wall_s") for k in ("ldp", "cluster", "duckdb")}
        rss = {k: e.get(k, {}).get("peak_rss_mb") for k in ("ldp", "cluster", "duckdb")}
        for k in sums:
            if w[k] is None:
                complete[k] = False
            else:
                sums[k] += w[k]
        r = w["ldp"] / w["duckdb"] if w["ldp"] and w["duckdb"] else None
        cr = w["cluster"] / w["duckdb"] if w["cluster"] and w["duckdb"] else None
        if r:
            ratios.append(r)
        if cr:
            cratios.append(cr)
        status = []
        for k in ("ldp", "cluster") if cluster else ("ldp",):
            x = e.get(k, {})
            if "error" in x:
                status.append(f"{k} FAILED")
            elif x.get("rows_equal") is False:
                status.append(f"{k} DIFFER")
            elif x.get("rows_equal"):
                status.append(f"{k} ok")
        if "error" in e.get("duckdb", {}):
            status.append("duckdb FAILED")
        nrows = e.get("duckdb", {}).get("rows", e.get("ldp", {}).get("rows"))
        line = f"q{q:<5} {fmt(nrows, 'd'):>5} {fmt(w['ldp']):>8}"
        if cluster:
            line += f" {fmt(w['cluster']):>9}"
        line += f" {fmt(w['duckdb']):>8} {fmt(r, '.2f'):>8}"
        if cluster:
            over = w["cluster"] - w["ldp"] if w["cluster"] and w["ldp"] else None
            line += f" {fmt(cr, '.2f'):>8} {fmt(over, '+.3f'):>9}"
        line += f" {fmt(warm.get(q)):>7} {fmt(rss['ldp'], '.0f'):>7}"
        if cluster:
            line += f" {fmt(rss['cluster'], '.0f'):>7}"
        line += f" {fmt(rss['duckdb'], '.0f'):>8}  {', '.join(status)}"
        out.append(line)
    complete = {k: complete[k] for k in sums}
    star = {k: "" if complete[k] else "*" for k in complete}
    line = f"{'sum':<6} {'':>5} {sums['ldp']:>7.3f}{star['ldp'] or ' '}"
    if cluster:
        line += f" {sums['cluster']:>8.3f}{star['cluster'] or ' '}"
    line += f" {sums['duckdb']:>7.3f}{star['duckdb'] or ' '}"
    line += f" {fmt(sums['ldp'] / sums['duckdb'] if sums['duckdb'] else None, '.2f'):>8}"
    if cluster:
        line += f" {fmt(sums['cluster'] / sums['duckdb'] if sums['duckdb'] else None, '.2f'):>8}"
        line += f" {sums['cluster'] - sums['ldp']:>+9.3f}"
    if warm:
        line += f" {sum(warm.values()):>7.3f}"
    out.append(line)
    g = f"{'geomean of ratios':<33} {fmt(geomean(ratios), '.2f'):>8}"
    if cluster:
        g += f" {fmt(geomean(cratios), '.2f'):>8}"
    out.append(g)
    if any(not v for v in complete.values()):
        out.append("* a query failed on that engine: the sum leaves it out")
    if report.get("duckdb_warm"):
        dw = report["duckdb_warm"]
        out.append(f"DuckDB warm: all queries in one process, {dw['wall_s']:.2f} s wall, "
                   f"peak RSS {dw['peak_rss_mb']:.0f} MB")
    c = report.get("cluster") or {}
    if c.get("peak_rss_mb"):
        out.append("Cluster processes, peak RSS over the session (MB): " + ", ".join(
            f"{k} {v:.0f}" for k, v in c["peak_rss_mb"].items())
            + f"; shuffle files left in the executors' work folders at the end: "
              f"{c.get('shuffle_left_mb', 0):.1f} MB (removed)")
    for n in report["notes"]:
        out.append(f"note: {n}")
    for m in report["mismatches"]:
        out.append(f"MISMATCH {m}")
    for f in report["failures"]:
        out.append(f"FAIL {f}")
    def equal(engine: str) -> int:
        return sum(1 for q in queries
                   if report["queries"].get(q, {}).get(engine, {}).get("rows_equal"))
    out.append(f"rows equal to DuckDB's: ldp {equal('ldp')}/{len(queries)}"
               + (f", cluster {equal('cluster')}/{len(queries)}" if cluster else ""))
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
