"""Writes the example rides (examples/data/rides.csv) in every source format ldp reads, for the
format round trips of host/cli/tests/it/formats.rs: rides.jsonl (one object per line),
rides_array.json (a top-level array), rides.parquet (snappy, as pyarrow writes it) and
rides.xlsx (openpyxl, timestamps as Excel datetimes).

    python make_inputs.py RIDES_CSV OUT_DIR
"""

import datetime as dt
import json
import sys
from pathlib import Path

import pyarrow.csv as pv
import pyarrow.parquet as pq
from openpyxl import Workbook

csv, out = Path(sys.argv[1]), Path(sys.argv[2])
table = pv.read_csv(csv)
rows = table.to_pylist()


def plain(row):
    return {k: (v.strftime("%Y-%m-%d %H:%M:%S") if isinstance(v, dt.datetime) else v) for k, v in row.items()}


(out / "rides.jsonl").write_text("".join(json.dumps(plain(r)) + "\n" for r in rows))
(out / "rides_array.json").write_text(json.dumps([plain(r) for r in rows], indent=1))
pq.write_table(table, out / "rides.parquet", compression="snappy")
book = Workbook()
sheet = book.active
sheet.title = "rides"
sheet.append(table.column_names)
for r in rows:
    sheet.append(list(r.values()))
book.save(out / "rides.xlsx")
