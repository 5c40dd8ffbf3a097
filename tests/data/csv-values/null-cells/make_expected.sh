#!/usr/bin/env bash
# Writes expected.txt: the quality verdict the reference (local-data-platform 0.1.3) prints for
# cells.csv, whose number, text and boolean columns hold nan, NA, N/A, NULL, null and empty
# cells. Run with the reference's `ldp` on PATH, from this folder:
#
#     ./make_expected.sh
set -euo pipefail
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp cells.csv config.json "$work/"
status=0
(cd "$work" && ldp run config.json) 2>"$work/stderr" >/dev/null || status=$?
echo "exit $status" >expected.txt
sed 's/^ldp: error: //' "$work/stderr" >>expected.txt
