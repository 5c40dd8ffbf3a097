"""The suite's data: the cargo benches' rides generators (host/cli/benches/csv_to_iceberg.rs
`write_rides` and upsert.rs `write_csv`), ported to pyarrow compute so that 10M rows take
seconds, writing the same bytes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc


U64 = pa.uint64()
GAMMA = 0x9E3779B97F4A7C15
CITIES = pa.array(['"NYC"', '"BKK"', '"LDN"', '"SFO"'])
HEADER = b'"ride_id","pickup_ts","city","distance_km","fare"\n'
CHUNK = 1_000_000  # rows generated at a time


def u64(x: int) -> pa.Scalar:
    return pa.scalar(x, U64)


def splitmix(state: pa.Array) -> pa.Array:
    """splitmix64's output for each state (already advanced by GAMMA); uint64 arithmetic wraps."""
    z = state
    z = pc.multiply(pc.bit_wise_xor(z, pc.shift_right(z, u64(30))), u64(0xBF58476D1CE4E5B9))
    z = pc.multiply(pc.bit_wise_xor(z, pc.shift_right(z, u64(27))), u64(0x94D049BB133111EB))
    return pc.bit_wise_xor(z, pc.shift_right(z, u64(31)))


def digits(a: pa.Array, width: int = 0) -> pa.Array:
    s = pc.cast(a, pa.string())
    return pc.utf8_lpad(s, width=width, padding="0") if width else s


def cents(a: pa.Array) -> pa.Array:
    """Hundredths as a decimal with 2 places: 1617 -> "16.17"."""
    return pc.binary_join_element_wise(
        digits(pc.divide(a, u64(100))), digits(pc.modulo(a, u64(100)), 2), ".")


def timestamps(secs: pa.Array, fraction: str) -> pa.Array:
    """Seconds after 2024-01-01 (less than 9 days) as `2024-01-0D HH:MM:SS` + fraction."""
    return pc.binary_join_element_wise(
        "2024-01-0", digits(pc.add(pc.divide(secs, u64(86_400)), u64(1))), " ",
        digits(pc.divide(pc.modulo(secs, u64(86_400)), u64(3600)), 2), ":",
        digits(pc.divide(pc.modulo(secs, u64(3600)), u64(60)), 2), ":",
        digits(pc.modulo(secs, u64(60)), 2), fraction, "")


def rides_chunk(ids: pa.Array) -> list[pa.Array]:
    """csv_to_iceberg.rs `write_rides`: 4 draws per ride from one splitmix64 stream seeded
    0x5EEDF1DE (draw k's state is seed + k·GAMMA): the pickup, uniform over the 7 days from
    2024-01-01; the city; the distance, 0.50-30.00 km; fare = 2.50 + 1.8 × distance ± 1.00."""
    first = pc.multiply(pc.subtract(ids, u64(1)), u64(4))  # the draws before this ride

    def draw(j: int, n: int) -> pa.Array:
        state = pc.add(u64(0x5EEDF1DE), pc.multiply(pc.add(first, u64(j)), u64(GAMMA)))
        return pc.modulo(splitmix(state), u64(n))

    secs, city, distance, noise = draw(1, 7 * 86_400), draw(2, 4), draw(3, 2951), draw(4, 201)
    distance = pc.add(distance, u64(50))
    fare = pc.add(u64(250), pc.divide(pc.multiply(distance, u64(18)), u64(10)))
    fare = pc.subtract(pc.add(fare, noise), u64(100))
    return [digits(ids), timestamps(secs, ".000000"), pc.take(CITIES, city),
            cents(distance), cents(fare)]


def keyed_chunk(ids: pa.Array, rows: int, bump: int) -> list[pa.Array]:
    """upsert.rs `write_csv`: ride `id` of a `rows`-ride table is picked up (id - 1) · 7 days /
    rows after 2024-01-01 (ids grow with time, so a day's rides sit together); its city,
    distance and fare come from splitmix64(id), so a ride is the same in every file; `bump`
    hundredths are added to its fare."""
    h = splitmix(pc.add(ids, u64(GAMMA)))
    secs = pc.divide(pc.multiply(pc.subtract(ids, u64(1)), u64(7 * 86_400)), u64(rows))
    distance = pc.add(u64(50), pc.modulo(pc.shift_right(h, u64(8)), u64(2951)))
    fare = pc.add(u64(250), pc.divide(pc.multiply(distance, u64(18)), u64(10)))
    fare = pc.add(pc.add(fare, pc.modulo(pc.shift_right(h, u64(24)), u64(200))), u64(bump))
    return [digits(ids), timestamps(secs, ""), pc.take(CITIES, pc.modulo(h, u64(4))),
            cents(distance), cents(fare)]


def write_lines(out, columns: list[pa.Array]) -> None:
    """Writes one CSV line per row: the columns joined by commas, each line ended by \\n."""
    lines = pc.binary_join_element_wise(*columns, ",")
    lines = pc.binary_join_element_wise(lines, "\n", "")
    # The string array's data buffer holds the lines back to back: the text of the file.
    offsets = memoryview(lines.buffers()[1]).cast("i")  # int32, one more than the lines
    start, end = offsets[lines.offset], offsets[lines.offset + len(lines)]
    out.write(memoryview(lines.buffers()[2])[start:end])


def write_csv(path: Path, ranges: list[tuple[int, int, int]], make_chunk) -> None:
    """Writes the rides of `ranges` ([(first_id, last_id, bump)], inclusive) with
    make_chunk(ids, bump), through a temp file renamed into place: an interrupted generation
    never passes for a complete file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as out:
            out.write(HEADER)
            for first, last, bump in ranges:
                for lo in range(first, last + 1, CHUNK):
                    ids = pa.array(range(lo, min(lo + CHUNK, last + 1)), U64)
                    write_lines(out, make_chunk(ids, bump))
        tmp.rename(path)
    finally:
        tmp.unlink(missing_ok=True)
