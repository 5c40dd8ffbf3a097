"""ldp.query into a pyarrow.Table against `ldp query --arrow > /dev/null`: what reaching Python
costs on top of running the query and writing its result.

    bench/python/run [--rows N] [--runs 3]      # LDP=path/to/ldp (default target/release/ldp)

Both sides run the same binary over the same table (N generated rides: an id, a timestamp, a
city, two doubles; loaded once with `ldp run`); each is timed whole (wall), best of --runs, with peak RSS from GNU time
for `ldp query` and for the Python process (ru_maxrss of itself, after one byte of every page
of the table was read, and of its children, the ldp it starts). The Python side reads the
binary's Arrow IPC stream with pyarrow as ldp/_query.py does (on Linux mapped from an in-memory
file the binary wrote).
Prints one JSON object and a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "python"))

SQL = "SELECT * FROM rides"


def load_table(ldp: str, rows: int, work: Path) -> Path:
    csv = work / f"rides_{rows}.csv"
    if not csv.exists():
        write_rides(csv, rows)
    config = work / "rides.json"
    config.write_text(json.dumps({
        "apiVersion": "ldp/v1",
        "identifier": "rides",
        "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": str(csv)},
            "target": {"name": "rides", "format": "ICEBERG",
                       "catalog": {"identifier": "bench", "warehouse_path": "warehouse"}},
        },
    }))
    subprocess.run([ldp, "run", str(config), "--mode", "overwrite"], check=True,
                   stdout=subprocess.DEVNULL)
    return config


def write_rides(path: Path, rows: int, chunk: int = 1_000_000) -> None:
    """N rides with fixed seeds, a million rows at a time."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv

    cities = np.array(["NYC", "BKK", "LDN", "SFO"])
    start = np.datetime64("2024-01-01T00:00:00", "us")
    with pacsv.CSVWriter(str(path) + ".part", pa.schema([
        ("ride_id", pa.int64()), ("pickup_ts", pa.timestamp("us")), ("city", pa.string()),
        ("distance_km", pa.float64()), ("fare", pa.float64())])) as writer:
        for first in range(0, rows, chunk):
            n = min(chunk, rows - first)
            rng = np.random.default_rng(first)
            ids = np.arange(first + 1, first + n + 1, dtype=np.int64)
            distance = np.round(rng.uniform(0.5, 30.0, n), 2)
            writer.write_batch(pa.record_batch([
                pa.array(ids),
                pa.array(start + (ids * 997_000_000 % (7 * 86_400_000_000)).astype("timedelta64[us]")),
                pa.array(cities[rng.integers(0, 4, n)]),
                pa.array(distance),
                pa.array(np.round(2.5 + distance * rng.uniform(1.5, 3.0, n), 2)),
            ], names=["ride_id", "pickup_ts", "city", "distance_km", "fare"]))
    os.replace(str(path) + ".part", path)


def time_cli(ldp: str, config: Path) -> tuple[float, int]:
    """`ldp query --arrow CONFIG SQL > /dev/null` under GNU time: wall seconds, peak RSS KiB."""
    with tempfile.NamedTemporaryFile("r") as report:
        started = time.perf_counter()
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, ldp, "query", "--arrow",
                        str(config), SQL], check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        return wall, int(report.read().split()[-1])


PYTHON_SIDE = """
import json, resource, sys, time
started = time.perf_counter()
import ldp
imported = time.perf_counter()
base_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
table = ldp.query(sys.argv[1], sys.argv[2])
done = time.perf_counter()
# Untimed: one byte of every page of every buffer is read, so pages the table maps (not yet
# touched) count in the peak RSS too.
import numpy as np
for column in table.columns:
    for chunk in column.chunks:
        for buffer in chunk.buffers():
            if buffer is not None and buffer.size:
                int(np.frombuffer(buffer, dtype=np.uint8)[::4096].sum())
print(json.dumps({"wall": done - imported, "import": imported - started,
                  "rows": table.num_rows, "bytes": table.nbytes, "base_kib": base_kib,
                  "self_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "child_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def time_python(ldp: str, config: Path) -> dict:
    """ldp.query in a fresh interpreter, timed inside it from the call to the table (as in a
    notebook, where ldp and pyarrow are already imported; the import is reported apart)."""
    env = {**os.environ, "LDP_BINARY": ldp, "PYTHONPATH": str(REPO / "python")}
    done = subprocess.run([sys.executable, "-c", PYTHON_SIDE, str(config), SQL], check=True,
                          capture_output=True, text=True, env=env)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/var/tmp/ldp-bench-python"))
    args = parser.parse_args()
    ldp = os.environ.get("LDP") or str(REPO / "target/release/ldp")
    args.work.mkdir(parents=True, exist_ok=True)
    config = load_table(ldp, args.rows, args.work)
    cli = [time_cli(ldp, config) for _ in range(args.runs)]
    py = [time_python(ldp, config) for _ in range(args.runs)]
    best_cli = min(cli)
    best_py = min(py, key=lambda r: r["wall"])
    result = {
        "rows": best_py["rows"],
        "table_mib": round(best_py["bytes"] / 2**20, 1),
        "cli_s": round(best_cli[0], 3),
        "cli_peak_mib": round(best_cli[1] / 1024, 1),
        "python_s": round(best_py["wall"], 3),
        "python_import_s": round(best_py["import"], 3),
        "python_peak_mib": round(best_py["self_kib"] / 1024, 1),
        "python_growth_mib": round((best_py["self_kib"] - best_py["base_kib"]) / 1024, 1),
        "python_child_peak_mib": round(best_py["child_kib"] / 1024, 1),
        "ratio": round(best_py["wall"] / best_cli[0], 3),
    }
    print(json.dumps(result))
    print()
    print("| rows | `ldp query --arrow > /dev/null` | `ldp.query(...)` → `pyarrow.Table` | ratio "
          "| table size | Python RSS growth (peak) | ldp peak RSS |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {result['rows']:,} | {result['cli_s']} s | {result['python_s']} s | {result['ratio']}x "
          f"| {result['table_mib']} MiB | {result['python_growth_mib']} MiB ({result['python_peak_mib']} MiB) "
          f"| {result['cli_peak_mib']} MiB |")


if __name__ == "__main__":
    main()
