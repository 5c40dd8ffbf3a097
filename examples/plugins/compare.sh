#!/usr/bin/env bash
# Runs the three email_mask components (Rust, Python, JavaScript) with the real ldp host and
# checks that they give the same output: on data/users.csv, and the same errors for bad configs.
#
#   examples/plugins/compare.sh                 # the three .wasm must be built (*/build.sh)
#   examples/plugins/compare.sh --bench 100000  # also time each: the compile (empty cache), the
#                                               # start of a 1-row run (cached), a 100k-row run
#                                               # (cached) and the transform's rows per second
#
# LDP names the ldp binary (default: target/debug/ldp of this repo).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
ldp="${LDP:-$root/target/debug/ldp}"
langs=(rust python js)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for lang in "${langs[@]}"; do
    [ -f "$here/$lang/email_mask.wasm" ] || { echo "missing $lang/email_mask.wasm: run $lang/build.sh" >&2; exit 1; }
done

run() { # run LANG CSV [ARGS...]: ldp plugins run csv ... --transform LANG's component
    local lang="$1" csv="$2"
    shift 2
    "$ldp" plugins run csv --config "{\"path\": \"$csv\"}" \
        --transform "$here/$lang/email_mask.wasm" "$@"
}

status=0
same() { # same NAME: the files NAME.rust, NAME.python and NAME.js are identical
    for lang in python js; do
        if ! diff -u "$work/$1.rust" "$work/$1.$lang" >"$work/diff"; then
            echo "DIFFERENT: $1 ($lang vs rust):" >&2
            cat "$work/diff" >&2
            status=1
        fi
    done
}

for lang in "${langs[@]}"; do
    run "$lang" "$here/data/users.csv" >"$work/users.$lang" 2>/dev/null
done
same users
echo "users.csv: $(($(wc -l <"$work/users.rust") - 1)) rows, the same from ${langs[*]}"

i=0
for config in '{"colum": "email"}' '{"column": "user_id"}' '{"column": "mail"}' '{"column": 1}' \
    '{"zz": 1, "column": 1}'; do
    i=$((i + 1))
    for lang in "${langs[@]}"; do
        if run "$lang" "$here/data/users.csv" --transform-config "$config" >/dev/null 2>"$work/err"; then
            echo "config $config: $lang did not fail" >&2
            status=1
        fi
        tail -n 1 "$work/err" >"$work/err$i.$lang"
    done
    same "err$i"
    echo "config $config: $(cat "$work/err$i.rust")"
done

if [ "${1:-}" = "--bench" ]; then
    rows="${2:-100000}"
    csv="$work/users_$rows.csv"
    python3 "$here/data/gen_users.py" "$rows" >"$csv"
    seconds() { # seconds CMD...: wall-clock seconds of CMD (its stdout discarded)
        local start=$EPOCHREALTIME
        "$@" >/dev/null 2>&1
        awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'
    }
    "$ldp" plugins run csv --config "{\"path\": \"$csv\"}" --output none 2>/dev/null # warm the csv plugin
    echo "$rows rows, csv source alone (no transform): $(seconds "$ldp" plugins run csv \
        --config "{\"path\": \"$csv\"}" --output none) s"
    one="$work/users_1.csv"
    python3 "$here/data/gen_users.py" 1 >"$one"
    # compile_s: the first run, which compiles the component (empty cache); start_s: a 1-row run
    # with the compiled code cached (the cold start a scheduled run pays); run_s: all rows,
    # cached; rows_per_s: rows / (run_s - the csv source alone), the transform's throughput.
    alone=$(seconds "$ldp" plugins run csv --config "{\"path\": \"$csv\"}" --output none)
    printf '%-8s %12s %10s %8s %8s %12s\n' lang wasm_bytes compile_s start_s run_s rows_per_s
    for lang in "${langs[@]}"; do
        cache="$work/cache-$lang" # without the component: the first run compiles it
        "$ldp" plugins run csv --config "{\"path\": \"$csv\"}" --cache-dir "$cache" --output none 2>/dev/null
        cold=$(seconds run "$lang" "$one" --cache-dir "$cache" --output none)
        start=$(seconds run "$lang" "$one" --cache-dir "$cache" --output none)
        cached=$(seconds run "$lang" "$csv" --cache-dir "$cache" --output none)
        run "$lang" "$csv" --cache-dir "$cache" >"$work/bench.$lang" 2>/dev/null
        rate=$(awk -v r="$rows" -v t="$cached" -v a="$alone" 'BEGIN { d = t - a; if (d < 0.001) d = 0.001; printf "%.0f", r / d }')
        printf '%-8s %12s %10s %8s %8s %12s\n' "$lang" "$(wc -c <"$here/$lang/email_mask.wasm")" "$cold" "$start" "$cached" "$rate"
    done
    same bench
    echo "$rows rows: the same output from ${langs[*]}"
fi
exit $status
