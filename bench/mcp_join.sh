#!/usr/bin/env bash
# A 1M-row join through the MCP server against the same query through `ldp query` (the goal:
# within 3x). Builds a lake of two tables (ROWS orders, 1,000 dishes), then times, RUNS times
# each: `ldp query` (the whole process), and the `query` tool's round trip in one MCP session
# driven by the official Python client (tests/data/mcp/client.py; the server's start is not
# counted, as an agent's session is long-lived). Prints the medians and the ratio.
#
#   LDP=target/release/ldp bench/mcp_join.sh          # 1M rows, 5 runs
#   LDP=target/release/ldp ROWS=200000 RUNS=3 bench/mcp_join.sh
#
# Needs the Python MCP client: .venv/bin/pip install 'mcp==1.22.0' (scripts/test installs it).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROWS="${ROWS:-1000000}"
RUNS="${RUNS:-5}"
PY="${LDP_PYTHON:-$repo/.venv/bin/python}"
"$PY" -c 'import mcp' 2>/dev/null || { echo "no Python MCP client: $PY -m pip install 'mcp==1.22.0'" >&2; exit 1; }
if [[ -n "${LDP:-}" ]]; then
    LDP="$(realpath "$LDP")"
else
    (cd "$repo" && cargo build --release -p ldp-cli)
    LDP="$repo/target/release/ldp"
fi
work="$(mktemp -d /tmp/ldp-mcp-join.XXXXXX)"
trap 'rm -rf "$work"' EXIT
cd "$work"
"$PY" - "$ROWS" <<'PY'
import json, random, sys
rows = int(sys.argv[1])
rng = random.Random(7)
with open("orders.csv", "w") as f:
    f.write("order_id,dish_id,amount\n")
    for i in range(rows):
        f.write(f"{i},{rng.randrange(1000)},{rng.random() * 50:.2f}\n")
with open("dishes.csv", "w") as f:
    f.write("dish_id,category\n")
    for d in range(1000):
        f.write(f"{d},cat{d % 17}\n")
for name in ("orders", "dishes"):
    json.dump({"identifier": name, "metadata": {
        "source": {"name": name, "format": "CSV", "path": f"{name}.csv"},
        "target": {"name": name, "format": "ICEBERG", "catalog": {"identifier": "lake", "warehouse_path": "warehouse"}}}},
        open(f"{name}.json", "w"))
PY
"$LDP" run orders.json > /dev/null
"$LDP" run dishes.json > /dev/null
mkdir out  # results go here, outside the folder of configs the server reads
sql="SELECT d.category, count(*) AS n, round(sum(o.amount), 2) AS total FROM lake.orders o JOIN lake.dishes d ON o.dish_id = d.dish_id GROUP BY d.category ORDER BY d.category"
cli=()
for _ in $(seq "$RUNS"); do
    start=$(date +%s.%N)
    "$LDP" query . "$sql" --json > out/cli.json
    end=$(date +%s.%N)
    cli+=("$(python3 -c "print($end - $start)")")
done
"$PY" -c "
import json, sys
calls = [['query', {'sql': sys.argv[1]}] for _ in range(int(sys.argv[2]))]
json.dump(calls, open('out/calls.json', 'w'))
" "$sql" "$RUNS"
"$PY" "$repo/host/cli/tests/data/mcp/client.py" "$LDP" out/calls.json -- --config . --no-iceberg-audit > out/mcp.json 2> out/mcp.err
"$PY" - "${cli[@]}" <<'PY'
import json, statistics, sys
cli = statistics.median(float(t) for t in sys.argv[1:])
doc = json.load(open("out/mcp.json"))
times = [c["elapsed_s"] for c in doc["calls"]]
assert not any(c["is_error"] for c in doc["calls"]), doc["calls"][0]
mcp = statistics.median(times)
rows_cli = json.load(open("out/cli.json"))["rows"]
rows_mcp = doc["calls"][0]["result"]["rows"]
assert [list(r.values()) for r in rows_cli] == rows_mcp, (rows_cli[:2], rows_mcp[:2])
print(f"ldp query (whole process): median {cli:.3f} s over {len(sys.argv) - 1} runs")
print(f"MCP query tool (round trip): median {mcp:.3f} s over {len(times)} calls ({', '.join(f'{t:.3f}' for t in times)})")
print(f"ratio MCP / ldp query: {mcp / cli:.2f}x (target <= 3x); same {len(rows_mcp)} result rows")
PY
