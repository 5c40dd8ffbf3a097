#!/usr/bin/env bash
# Parallel tasks: a workflow of four independent pipelines, each loading its own
# CSV of ROWS rides into its own Iceberg table, run with --jobs 1 and with --jobs 2, RUNS times
# each on a fresh warehouse. Prints each time, the medians and the speed-up, and checks that
# both give the same tables (row counts and a checksum of every table).
#
#   bench/workflow_jobs.sh                          # build ldp (release), 1M rows per task, 3 runs
#   LDP=target/release/ldp ROWS=200000 RUNS=5 bench/workflow_jobs.sh
#
# A benchmark, not a test: the figures go in docs/performance.md and the closing notes.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROWS="${ROWS:-1000000}"
RUNS="${RUNS:-3}"
if [[ -n "${LDP:-}" ]]; then
    LDP="$(realpath "$LDP")"
else
    (cd "$repo" && cargo build --release -p ldp-cli)
    LDP="$repo/target/release/ldp"
fi
work="$(mktemp -d /tmp/ldp-jobs.XXXXXX)"
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$ROWS" <<'PY'
import json, random, sys
from pathlib import Path
work, rows = Path(sys.argv[1]), int(sys.argv[2])
cities = ["nyc", "sf", "paris", "berlin", "tokyo"]
tasks = []
for i in range(1, 5):
    rng = random.Random(i)
    with open(work / f"rides_{i}.csv", "w") as f:
        f.write("ride_id,pickup_ts,city,distance_km,fare\n")
        for r in range(rows):
            f.write(f"{r},2026-08-01 {r % 24:02d}:{r % 60:02d}:{(r // 60) % 60:02d},{rng.choice(cities)},"
                    f"{rng.random() * 30:.3f},{rng.random() * 80:.2f}\n")
    config = {"apiVersion": "ldp/v1", "identifier": f"rides_{i}",
              "metadata": {"source": {"name": f"rides_{i}", "format": "CSV", "path": f"rides_{i}.csv"},
                           "target": {"name": f"rides_{i}", "format": "ICEBERG", "write_mode": "append",
                                      "catalog": {"identifier": "bench", "warehouse_path": "warehouse"}},
                           "quality": {"checks": [{"check": "not_null", "columns": ["ride_id"]},
                                                  {"check": "range", "column": "fare", "min": 0}]}}}
    (work / f"rides_{i}.json").write_text(json.dumps(config))
    tasks.append({"id": f"load_{i}", "pipeline": f"rides_{i}.json"})
(work / "fan.json").write_text(json.dumps({"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "fan",
                                           "metadata": {"window": {"size": "day", "timezone": "UTC"}},
                                           "tasks": tasks}))
PY

window="2026-08-01T00:00:00Z/2026-08-02T00:00:00Z"
declare -A times
sums=()
for jobs in 1 2; do
    for run in $(seq "$RUNS"); do
        rm -rf "$work/warehouse" "$work/.ldp"
        start=$(date +%s.%N)
        (cd "$work" && "$LDP" workflow run fan.json --window "$window" --jobs "$jobs" --json > "$work/out.json")
        end=$(date +%s.%N)
        t=$(python3 -c "print(f'{$end - $start:.2f}')")
        times[$jobs]+="$t "
        echo "--jobs $jobs run $run: ${t} s"
    done
    sum=""
    for i in 1 2 3 4; do
        sum+="$(cd "$work" && "$LDP" query "rides_$i.json" "SELECT count(*) AS n, sum(ride_id) AS s, round(sum(fare), 2) AS f FROM rides_$i" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rows"])') "
    done
    sums+=("$sum")
done
python3 - "${times[1]}" "${times[2]}" <<'PY'
import statistics, sys
one = statistics.median(float(t) for t in sys.argv[1].split())
two = statistics.median(float(t) for t in sys.argv[2].split())
print(f"median --jobs 1: {one:.2f} s, --jobs 2: {two:.2f} s, speed-up {one / two:.2f}x")
PY
if [[ "${sums[0]}" == "${sums[1]}" ]]; then
    echo "same tables with --jobs 1 and --jobs 2: ${sums[0]}"
else
    echo "the tables differ: ${sums[0]} vs ${sums[1]}" >&2
    exit 1
fi
