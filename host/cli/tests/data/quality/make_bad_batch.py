"""Writes bad_batch.csv: the bad batch of step 5 of the Python tool's demo.

generate_rides(20, seed=44, start_id=1011) with ride_id[0:3] = null, ride_id[3:6] = ride_id[6]
(1017) and fare[7] = -12.5, in the demo's CSV shape. The generator is imported from a module
`demo_rng_reference` (`rides(rows, seed, start)`), an independent Python reimplementation of
the demo's `generate_rides` (its draws are listed on `ldp_demo::rides`, host/demo/src/lib.rs);
the argument is the folder that holds it:

    python3 host/cli/tests/data/quality/make_bad_batch.py DIR_OF_demo_rng_reference
"""
import pathlib
import sys

sys.path.insert(0, sys.argv[1])
from demo_rng_reference import rides  # noqa: E402

rows = [list(r) for r in rides(20, 44, 1011)]
for i in range(3):
    rows[i][0] = None
for i in range(3, 6):
    rows[i][0] = rows[6][0]
rows[7][4] = -12.5

out = pathlib.Path(__file__).with_name("bad_batch.csv")
lines = ['"ride_id","pickup_ts","city","distance_km","fare"']
for ride_id, ts, city, distance, fare in rows:
    ride = "" if ride_id is None else str(ride_id)
    lines.append(f'{ride},{ts.strftime("%Y-%m-%d %H:%M:%S.%f")},"{city}",{distance!r},{fare!r}')
out.write_text("\n".join(lines) + "\n")
