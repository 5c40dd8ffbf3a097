"""The rows of ldp and of DuckDB for one TPC-H query, and the rule that says they are equal.

Used by tpch.py (bench/tpch/README.md): ldp's `--json` output and DuckDB's JSON lines are read
with exact decimals, then compared field by field, ties and LIMIT cuts allowed for.
"""

from __future__ import annotations

import decimal
import json
import math
import re
from decimal import Decimal


class Failure(Exception):
    """A step that could not be done; its message says what failed."""

# The ORDER BY of each query as output column positions (0-based), and its LIMIT. Rows whose
# ORDER BY values are equal (a tie) may come in any order, so a tie group is compared as a
# multiset; and when a LIMIT cuts a tie group, which of its rows make the cut is arbitrary, so
# the last group is then compared on its ORDER BY values only. Queries without ORDER BY return
# one row.
ORDER = {
    1: ([0, 1], None),          # l_returnflag, l_linestatus
    2: ([0, 2, 1, 3], 100),     # s_acctbal desc, n_name, s_name, p_partkey
    3: ([1, 2], 10),            # revenue desc, o_orderdate
    4: ([0], None),             # o_orderpriority
    5: ([1], None),             # revenue desc
    6: ([], None),
    7: ([0, 1, 2], None),       # supp_nation, cust_nation, l_year
    8: ([0], None),             # o_year
    9: ([0, 1], None),          # nation, o_year desc
    10: ([2], 20),              # revenue desc
    11: ([1], None),            # value desc
    12: ([0], None),            # l_shipmode
    13: ([1, 0], None),         # custdist desc, c_count desc
    14: ([], None),
    15: ([0], None),            # s_suppkey
    16: ([3, 0, 1, 2], None),   # supplier_cnt desc, p_brand, p_type, p_size
    17: ([], None),
    18: ([4, 3], 100),          # o_totalprice desc, o_orderdate
    19: ([], None),
    20: ([0], None),            # s_name
    21: ([1, 0], 100),          # numwait desc, s_name
    22: ([0], None),            # cntrycode
}

# Two numbers are equal when they agree to a relative 1e-6, or to one unit in the last place of
# the less precise side when that side is a decimal (DataFusion gives avg() and a division of
# decimals as decimals with a fixed scale, DuckDB gives doubles), or both are within 1e-9 of 0.
REL_TOL = Decimal("1e-6")
ABS_FLOOR = Decimal("1e-9")

# ---------------------------------------------------------------------------------------------
# Results and their comparison


def ldp_result(stdout: str) -> dict:
    """`ldp query --json` output as {columns: [(name, type)], rows: [[...]]} (decimals exact)."""
    doc = json.loads(stdout, parse_float=Decimal, object_pairs_hook=lambda kv: kv)
    doc = dict(doc)
    cols = [dict(c) for c in doc["columns"]]
    rows = []
    for r in doc["rows"]:
        values = [v for _, v in r]
        if len(values) != len(cols):
            raise Failure(f"a row has {len(values)} values for {len(cols)} columns (repeated "
                          f"column names?): {r}")
        rows.append(values)
    if dict(doc).get("truncated"):
        raise Failure(f"ldp printed {len(rows)} rows of {doc.get('row_count')}: truncated")
    return {"columns": [(c["name"], c["type"]) for c in cols], "rows": rows}


def duckdb_result(line: dict) -> dict:
    def value(v):
        if isinstance(v, dict) and "decimal" in v:
            return Decimal(v["decimal"])
        if isinstance(v, dict) and "float" in v:
            return float(v["float"])
        if isinstance(v, float):
            return Decimal(repr(v))
        return v
    return {"columns": [(c["name"], c["type"]) for c in line["columns"]],
            "rows": [[value(v) for v in r] for r in line["rows"]]}


NUMERIC_TYPE = re.compile(r"int|float|double|decimal|numeric|real|hugeint", re.I)
DECIMAL_TYPE = re.compile(r"decimal\w*\(\s*\d+\s*,\s*(\d+)\s*\)", re.I)


def scale_of(type_name: str) -> int | None:
    m = DECIMAL_TYPE.search(type_name)
    return int(m.group(1)) if m else None


def to_number(v, type_name: str):
    """A numeric value as a Decimal (ldp may print a decimal as a string), else None."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, Decimal)):
        return Decimal(v)
    if isinstance(v, float):
        return None if math.isnan(v) or math.isinf(v) else Decimal(repr(v))
    if isinstance(v, str) and NUMERIC_TYPE.search(type_name):
        try:
            return Decimal(v)
        except decimal.InvalidOperation:
            return None
    return None


def text_of(v) -> str | None:
    """A non-numeric value as text: dates and date-times in ISO form ('T' or ' ' alike)."""
    if v is None:
        return None
    s = str(v)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?", s):
        s = s.replace("T", " ").rstrip("0").rstrip(".")
    return s


def same_value(a, ta: str, b, tb: str) -> bool:
    if a is None or b is None:
        return a is None and b is None
    na, nb = to_number(a, ta), to_number(b, tb)
    if na is not None and nb is not None:
        if na == nb:
            return True
        diff = abs(na - nb)
        if diff <= ABS_FLOOR or diff <= REL_TOL * max(abs(na), abs(nb)):
            return True
        scales = [s for s in (scale_of(ta), scale_of(tb)) if s is not None]
        return bool(scales) and diff <= Decimal(1).scaleb(-min(scales))
    if isinstance(a, float) and isinstance(b, float):  # NaN, inf
        return (math.isnan(a) and math.isnan(b)) or a == b
    return text_of(a) == text_of(b)


def show(v) -> str:
    return "NULL" if v is None else (f"'{v}'" if isinstance(v, str) else str(v))


def show_row(row: list) -> str:
    return "(" + ", ".join(map(show, row)) + ")"


def compare(q: int, engine: str, ref: dict, got: dict) -> tuple[list[str], list[str]]:
    """Differences of `got` from the reference (DuckDB), and notes; see ORDER for the rule."""
    errs, notes = [], []
    rc, gc = ref["columns"], got["columns"]
    if len(rc) != len(gc):
        return [f"q{q} {engine}: {len(gc)} columns {[c[0] for c in gc]}, duckdb has {len(rc)} "
                f"{[c[0] for c in rc]}"], notes
    rr, gr = ref["rows"], got["rows"]
    if len(rr) != len(gr):
        return [f"q{q} {engine}: {len(gr)} rows, duckdb has {len(rr)}"], notes
    keys, limit = ORDER.get(q, (list(range(len(rc))), None))

    def cell_diff(i: int, a: list, b: list, cols) -> str | None:
        for c in cols:
            if not same_value(a[c], rc[c][1], b[c], gc[c][1]):
                return (f"q{q} {engine}: row {i + 1}, column {c + 1} '{gc[c][0]}': "
                        f"{show(b[c])} ({gc[c][1]}), duckdb: {show(a[c])} ({rc[c][1]})")
        return None

    # The ORDER BY values, row by row, in order.
    for i, (a, b) in enumerate(zip(rr, gr)):
        d = cell_diff(i, a, b, keys)
        if d:
            return [d + "  [ORDER BY value]"], notes
    # Groups of rows with equal ORDER BY values (the reference's), compared as multisets.
    groups, start = [], 0
    for i in range(1, len(rr) + 1):
        if i == len(rr) or cell_diff(i, rr[start], rr[i], keys) is not None:
            groups.append((start, i))
            start = i
    for gi, (s, e) in enumerate(groups):
        # At a LIMIT, the last group may go on past the cut: which of its rows an engine keeps
        # is arbitrary, so a difference there is a note, not a mismatch.
        at_limit = limit is not None and len(rr) == limit and gi == len(groups) - 1
        if e - s == 1:
            d = cell_diff(s, rr[s], gr[s], range(len(rc)))
            if d and at_limit:
                notes.append(f"{d}: the last row at the LIMIT ({limit}), its ORDER BY values "
                             f"equal (a tie cut by the LIMIT?): not counted as a mismatch")
            elif d:
                errs.append(d)
            continue
        unmatched = list(range(s, e))
        for i in range(s, e):
            hit = next((j for j in unmatched
                        if cell_diff(i, rr[i], gr[j], range(len(rc))) is None), None)
            if hit is None:
                def ndiff(j, i=i):
                    return sum(not same_value(rr[i][c], rc[c][1], gr[j][c], gc[c][1])
                               for c in range(len(rc)))
                near = min(unmatched, key=ndiff)
                msg = (f"q{q} {engine}: duckdb's row {i + 1} {show_row(rr[i])} has no equal "
                       f"row among {engine}'s rows {s + 1}-{e} (a tie on the ORDER BY); "
                       f"nearest: {engine}'s row {near + 1} {show_row(gr[near])}")
                if at_limit:
                    notes.append(msg + f": the last rows at the LIMIT ({limit}), not counted "
                                       f"as a mismatch")
                else:
                    errs.append(msg)
                break
            unmatched.remove(hit)
        else:
            if any(cell_diff(i, rr[i], gr[i], range(len(rc))) for i in range(s, e)):
                notes.append(f"q{q} {engine}: rows {s + 1}-{e} tie on the ORDER BY and come in "
                             f"another order: compared as a set")
    return errs, notes
