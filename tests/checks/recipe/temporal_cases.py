# ---------------------------------------------------------------- monotonic
case("monotonic-grouped-pass", "monotonic within groups passes (the reference's example)",
     {"ts": "timestamp[us]", "g": "string"},
     [{"ts": ts(0), "g": "a"}, {"ts": ts(5), "g": "b"}, {"ts": ts(1), "g": "a"}],
     [{"check": "monotonic", "column": "ts", "group_by": "g"}])
case("monotonic-table-order-fail", "a decreasing value in table order, across batches; ints",
     {"v": "int64"},
     [{"v": 1}, {"v": 3}, {"v": 2}, {"v": 2}, {"v": 5}, {"v": 0}, {"v": 7}],
     [{"check": "monotonic", "column": "v"},
      {"check": "monotonic", "column": "v", "strict": True},
      {"check": "monotonic", "column": "v", "name": "v rises"}], batch_rows=3)
case("monotonic-strict", "duplicates pass non-strict and fail strict",
     {"v": "double"},
     [{"v": 1.0}, {"v": 1.0}, {"v": 2.5}, {"v": 2.5}],
     [{"check": "monotonic", "column": "v"}, {"check": "monotonic", "column": "v", "strict": True}])
case("monotonic-nulls-nan", "null and NaN values are skipped; null keys form one group; NaN keys are groups of one",
     {"v": "double", "g": "double"},
     [{"v": 1.0, "g": 1.0}, {"v": None, "g": 1.0}, {"v": NAN, "g": None}, {"v": 0.5, "g": 1.0},
      {"v": 3.0, "g": None}, {"v": 2.0, "g": None}, {"v": 9.0, "g": NAN}, {"v": 1.0, "g": NAN},
      {"v": INF, "g": 2.0}, {"v": 4.0, "g": 2.0}, {"v": 1.0, "g": -0.0}, {"v": 0.0, "g": 0.0}],
     [{"check": "monotonic", "column": "v", "group_by": "g"}, {"check": "monotonic", "column": "v"}], batch_rows=5)
case("monotonic-order-by", "order_by sorts rows (stable) within each group before comparing; null order skipped",
     {"ts": "timestamp[ms, tz=UTC]", "ep": "int64", "frame": "int64"},
     [{"ts": ts(30), "ep": 1, "frame": 3}, {"ts": ts(10), "ep": 1, "frame": 1}, {"ts": ts(500), "ep": 2, "frame": 2},
      {"ts": ts(20), "ep": 1, "frame": 2}, {"ts": ts(400), "ep": 2, "frame": 1}, {"ts": ts(1), "ep": 2, "frame": None},
      {"ts": ts(450), "ep": 2, "frame": 3}, {"ts": ts(5), "ep": 1, "frame": 4}, {"ts": ts(5), "ep": 1, "frame": 5}],
     [{"check": "monotonic", "column": "ts", "group_by": "ep", "order_by": "frame"},
      {"check": "monotonic", "column": "ts", "group_by": "ep", "order_by": "frame", "strict": True},
      {"check": "monotonic", "column": "frame", "order_by": "ts"}], batch_rows=4)
case("monotonic-samples-in-group-order", "samples list violations by group key order then row, at most five; composite keys",
     {"v": "int64", "a": "string", "b": "int64"},
     [{"v": 9, "a": "z", "b": 1}, {"v": 8, "a": "z", "b": 1}, {"v": 7, "a": "z", "b": 1},
      {"v": 9, "a": "m", "b": None}, {"v": 1, "a": "m", "b": None},
      {"v": 5, "a": "b", "b": 2}, {"v": 4, "a": "b", "b": 2}, {"v": 3, "a": "b", "b": 2}, {"v": 2, "a": "b", "b": 2},
      {"v": 6, "a": "b", "b": 1}, {"v": 5, "a": "b", "b": 1}, {"v": 1, "a": None, "b": 1}, {"v": 0, "a": None, "b": 1}],
     [{"check": "monotonic", "column": "v", "group_by": ["a", "b"]},
      {"check": "monotonic", "column": "v", "group_by": ["a", "b", "a"], "order_by": "v"},
      {"check": "monotonic", "column": "v", "group_by": "b"}], batch_rows=3)
case("monotonic-strings-dates", "strings compare bytewise; dates print as ISO strings",
     {"s": "string", "d": "date32"},
     [{"s": "apple", "d": dt.date(2024, 1, 2)}, {"s": "Banana", "d": dt.date(2024, 1, 1)}, {"s": "cherry", "d": dt.date(2024, 1, 3)}],
     [{"check": "monotonic", "column": "s"}, {"check": "monotonic", "column": "d"}])
case("monotonic-timestamps-fail", "timestamps with a time zone print as ISO strings with the offset",
     {"ts": "timestamp[us, tz=UTC]"},
     [{"ts": dt.datetime(2024, 1, 2)}, {"ts": dt.datetime(2024, 1, 1, 0, 0, 0, 5)}],
     [{"check": "monotonic", "column": "ts"}])
case("monotonic-nothing-to-check", "fewer than two checked rows: nothing to check",
     {"v": "int64", "g": "string"},
     [{"v": 1, "g": "a"}, {"v": None, "g": "b"}],
     [{"check": "monotonic", "column": "v"}, {"check": "monotonic", "column": "v", "group_by": "g", "strict": True}])
case("monotonic-empty", "an empty table", {"v": "int64"}, [],
     [{"check": "monotonic", "column": "v"}])
case("monotonic-missing-column", "missing columns fail without evaluating",
     {"v": "int64"}, [{"v": 1}],
     [{"check": "monotonic", "column": "v", "group_by": ["g", "v"], "order_by": "o"},
      {"check": "monotonic", "column": "x"}])
# ---------------------------------------------------------------- max_skew
case("max_skew-pass", "equal columns (the reference's example)",
     {"a": "int64", "b": "int64"},
     [{"a": 1, "b": 1}, {"a": 2, "b": 2}, {"a": 3, "b": 3}],
     [{"check": "max_skew", "column_a": "a", "column_b": "b", "max_ms": 0}])
case("max_skew-timestamps-fail", "timestamps of different units and zones; at most five samples",
     {"rgb": "timestamp[ms]", "depth": "timestamp[us, tz=UTC]"},
     [{"rgb": ts(i * 100), "depth": ts(i * 100 + (i * 7 if i % 2 else 0.5))} for i in range(12)] + [{"rgb": None, "depth": ts(0)}],
     [{"check": "max_skew", "column_a": "rgb", "column_b": "depth", "max_ms": 10},
      {"check": "max_skew", "column_a": "rgb", "column_b": "depth", "max_ms": 100.0},
      {"check": "max_skew", "column_a": "depth", "column_b": "rgb", "max_ms": 0.25, "name": "sync"}], batch_rows=5)
case("max_skew-numbers-units", "numbers are read in unit; floats skip NaN",
     {"a": "int64", "b": "int64", "x": "double", "y": "float"},
     [{"a": 1_000_000, "b": 0, "x": 1.5, "y": 1.0}, {"a": 2_000_000, "b": 2_000_000, "x": NAN, "y": 2.0},
      {"a": None, "b": 5, "x": 10.0, "y": None}, {"a": 7, "b": 4_000_007, "x": 0.25, "y": 0.5}],
     [{"check": "max_skew", "column_a": "a", "column_b": "b", "max_ms": 1, "unit": "ns"},
      {"check": "max_skew", "column_a": "a", "column_b": "b", "max_ms": 1, "unit": "us"},
      {"check": "max_skew", "column_a": "a", "column_b": "b", "max_ms": 1, "unit": "s"},
      {"check": "max_skew", "column_a": "x", "column_b": "y", "max_ms": 0.3},
      {"check": "max_skew", "column_a": "a", "column_b": "x", "max_ms": 1000}])
case("max_skew-kinds", "dates with timestamps; durations; mismatched kinds and non-time columns fail",
     {"d": "date32", "t": "timestamp[s]", "du": "duration[ms]", "dv": "duration[s]", "n": "int64", "s": "string"},
     [{"d": dt.date(2024, 1, 1), "t": dt.datetime(2024, 1, 1, 0, 0, 1), "du": 1500, "dv": 1, "n": 1, "s": "x"},
      {"d": dt.date(2024, 1, 2), "t": dt.datetime(2024, 1, 2), "du": 2000, "dv": 2, "n": 2, "s": "y"}],
     [{"check": "max_skew", "column_a": "d", "column_b": "t", "max_ms": 500},
      {"check": "max_skew", "column_a": "du", "column_b": "dv", "max_ms": 499},
      {"check": "max_skew", "column_a": "t", "column_b": "n", "max_ms": 1},
      {"check": "max_skew", "column_a": "du", "column_b": "n", "max_ms": 1},
      {"check": "max_skew", "column_a": "s", "column_b": "n", "max_ms": 1},
      {"check": "max_skew", "column_a": "n", "column_b": "s", "max_ms": 1}])
case("max_skew-infinities", "inf - inf is NaN: checked, never over the limit, ignored by max",
     {"a": "double", "b": "double"},
     [{"a": INF, "b": INF}, {"a": 1.0, "b": 1.0}, {"a": INF, "b": 2.0}],
     [{"check": "max_skew", "column_a": "a", "column_b": "b", "max_ms": 1}], batch_rows=1)
case("max_skew-overflow", "integer overflow and integers too large for the float comparison can't be evaluated",
     {"a": "duration[s]", "b": "duration[ns]", "x": "int64", "y": "int64"},
     [{"a": 1, "b": 2, "x": 0, "y": 0}, {"a": 2**62, "b": None, "x": 2**60, "y": 0}],
     [{"check": "max_skew", "column_a": "a", "column_b": "b", "max_ms": 1},
      {"check": "max_skew", "column_a": "x", "column_b": "y", "max_ms": 1}], batch_rows=1)
case("max_skew-empty", "an empty table passes with no maximum",
     {"a": "int64", "b": "int64"}, [],
     [{"check": "max_skew", "column_a": "a", "column_b": "b", "max_ms": 1.5}])
case("max_skew-missing-column", "a missing column fails without evaluating",
     {"a": "int64"}, [{"a": 1}],
     [{"check": "max_skew", "column_a": "a", "column_b": "b", "max_ms": 1},
      {"check": "max_skew", "column_a": "a", "column_b": "a", "max_ms": 1}])
# ---------------------------------------------------------------- rate_below
case("rate_below-fail", "the reference's example: 2 of 3 dropped",
     {"dropped": "bool"},
     [{"dropped": True}, {"dropped": True}, {"dropped": False}],
     [{"check": "rate_below", "predicate_column": "dropped", "max_rate": 0.5},
      {"check": "rate_below", "predicate_column": "dropped", "max_rate": 1}])
case("rate_below-nulls", "the rate divides by non-null values; an all-null column has rate 0",
     {"p": "bool", "q": "bool"},
     [{"p": True, "q": None}, {"p": None, "q": None}, {"p": False, "q": None}, {"p": None, "q": None}],
     [{"check": "rate_below", "predicate_column": "p", "max_rate": 0.5},
      {"check": "rate_below", "predicate_column": "q", "max_rate": 0},
      {"check": "rate_below", "predicate_column": "p", "max_rate": 0.4999}], batch_rows=3)
case("rate_below-grouped-fail", "the reference's grouped example",
     {"dropped": "bool", "g": "string"},
     [{"dropped": True, "g": "a"}, {"dropped": False, "g": "a"}, {"dropped": True, "g": "b"}],
     [{"check": "rate_below", "predicate_column": "dropped", "max_rate": 0.4, "group_by": "g"},
      {"check": "rate_below", "predicate_column": "dropped", "max_rate": 0.5, "group_by": ["g"], "name": "drops"}])
case("rate_below-grouped-pass", "every group at or under the limit",
     {"p": "bool", "g": "int64"},
     [{"p": True, "g": 1}, {"p": False, "g": 1}, {"p": False, "g": 2}, {"p": None, "g": 3}, {"p": False, "g": 2}],
     [{"check": "rate_below", "predicate_column": "p", "max_rate": 0.5, "group_by": "g"}])
case("rate_below-composite-groups", "composite keys with nulls; more than five failing groups, sorted by rate then key",
     {"p": "bool", "a": "string", "b": "int64"},
     [{"p": True, "a": "x", "b": 1}, {"p": True, "a": "x", "b": 2}, {"p": False, "a": "x", "b": 2},
      {"p": True, "a": None, "b": 1}, {"p": True, "a": None, "b": None}, {"p": True, "a": "y", "b": None},
      {"p": True, "a": "b", "b": 3}, {"p": False, "a": "b", "b": 3}, {"p": False, "a": "b", "b": 3},
      {"p": True, "a": "a", "b": 9}, {"p": False, "a": "c", "b": 1}, {"p": None, "a": "d", "b": 1}],
     [{"check": "rate_below", "predicate_column": "p", "max_rate": 0.25, "group_by": ["a", "b"]},
      {"check": "rate_below", "predicate_column": "p", "max_rate": 0, "group_by": "b"}], batch_rows=4)
case("rate_below-float-keys", "float keys: NaN keys are one group, -0.0 and 0.0 are two",
     {"p": "bool", "g": "double"},
     [{"p": True, "g": NAN}, {"p": True, "g": NAN}, {"p": False, "g": -0.0}, {"p": True, "g": 0.0},
      {"p": True, "g": None}, {"p": False, "g": 1.0}],
     [{"check": "rate_below", "predicate_column": "p", "max_rate": 0.1, "group_by": "g"}])
case("rate_below-not-boolean", "a non-boolean predicate fails",
     {"p": "int64", "s": "string"},
     [{"p": 1, "s": "x"}, {"p": None, "s": None}],
     [{"check": "rate_below", "predicate_column": "p", "max_rate": 0.5},
      {"check": "rate_below", "predicate_column": "s", "max_rate": 0.5, "group_by": "p"}])
case("rate_below-empty", "an empty table passes, grouped or not",
     {"p": "bool", "g": "string"}, [],
     [{"check": "rate_below", "predicate_column": "p", "max_rate": 0.5},
      {"check": "rate_below", "predicate_column": "p", "max_rate": 0.5, "group_by": "g"}])
case("rate_below-missing-column", "a missing column fails without evaluating",
     {"p": "bool"}, [{"p": True}],
     [{"check": "rate_below", "predicate_column": "p", "max_rate": 0.5, "group_by": ["g", "h"]}])
# ---------------------------------------------------------------- max_gap
case("max_gap-fail", "the reference's example: values are sorted before measuring the gaps",
     {"ts": "timestamp[us]"},
     [{"ts": ts(58 * H)}, {"ts": ts(0)}, {"ts": ts(59.5 * H)}],
     [{"check": "max_gap", "column": "ts", "max_ms": 3600000},
      {"check": "max_gap", "column": "ts", "max_ms": 208800000.0}])
case("max_gap-grouped-fail", "gaps within each group; null keys one group, NaN keys groups of one; at most five samples",
     {"t": "int64", "g": "string", "h": "double"},
     [{"t": 0, "g": "a", "h": 1.0}, {"t": 100, "g": "a", "h": 1.0}, {"t": 1000, "g": "b", "h": NAN},
      {"t": 2500, "g": "b", "h": NAN}, {"t": 10, "g": None, "h": None}, {"t": 5000, "g": None, "h": None},
      {"t": 60, "g": "a", "h": 1.0}, {"t": 700, "g": "a", "h": 2.0}, {"t": None, "g": "a", "h": 2.0},
      {"t": 9000, "g": "c", "h": -0.0}, {"t": 9001, "g": "c", "h": 0.0}, {"t": 20000, "g": "c", "h": 0.0},
      {"t": 100000, "g": "a", "h": 3.0}],
     [{"check": "max_gap", "column": "t", "max_ms": 50, "group_by": "g"},
      {"check": "max_gap", "column": "t", "max_ms": 50, "group_by": ["h"]},
      {"check": "max_gap", "column": "t", "max_ms": 500, "group_by": ["g", "h"], "unit": "us"}], batch_rows=4)
case("max_gap-pass", "no gap over the limit; duplicates are a gap of 0",
     {"ts": "timestamp[ms, tz=UTC]", "g": "int64"},
     [{"ts": ts(0), "g": 1}, {"ts": ts(500), "g": 1}, {"ts": ts(500), "g": 1}, {"ts": ts(99999), "g": 2}],
     [{"check": "max_gap", "column": "ts", "max_ms": 500, "group_by": "g"},
      {"check": "max_gap", "column": "ts", "max_ms": 1, "group_by": "g", "name": "every group has a single stamp"}])
case("max_gap-units", "numbers read in unit; floats; dates; durations",
     {"s": "int64", "f": "double", "d": "date32", "du": "duration[us]"},
     [{"s": 10, "f": 0.5, "d": dt.date(2024, 1, 1), "du": 0}, {"s": 12, "f": NAN, "d": dt.date(2024, 1, 3), "du": 1500},
      {"s": 11, "f": 2.25, "d": None, "du": 4000}, {"s": 30, "f": None, "d": dt.date(2024, 1, 4), "du": 3999}],
     [{"check": "max_gap", "column": "s", "max_ms": 1500, "unit": "s"},
      {"check": "max_gap", "column": "f", "max_ms": 1, "unit": "ns"},
      {"check": "max_gap", "column": "d", "max_ms": 86400000},
      {"check": "max_gap", "column": "du", "max_ms": 1.5}])
case("max_gap-not-temporal", "a string or boolean column fails",
     {"s": "string", "b": "bool"}, [{"s": "x", "b": True}, {"s": "y", "b": False}],
     [{"check": "max_gap", "column": "s", "max_ms": 1}, {"check": "max_gap", "column": "b", "max_ms": 1, "group_by": "s"}])
case("max_gap-nothing-to-check", "fewer than two checked rows, or an empty table",
     {"t": "double"}, [{"t": NAN}, {"t": 4.0}, {"t": None}],
     [{"check": "max_gap", "column": "t", "max_ms": 1}])
case("max_gap-empty", "an empty table", {"t": "int64", "g": "string"}, [],
     [{"check": "max_gap", "column": "t", "max_ms": 1, "group_by": "g"}])
case("max_gap-too-large", "a gap beyond 2**53 units can't be compared with the float limit (nanoseconds, ~104 days)",
     {"ts": "timestamp[ns]", "g": "int64"},
     [{"ts": "1970-01-01T00:00:00", "g": 1}, {"ts": "1970-01-01T00:00:00.000000010", "g": 1},
      {"ts": "1970-07-20T00:00:00", "g": 2}],
     [{"check": "max_gap", "column": "ts", "max_ms": 1, "group_by": "g"}])
case("max_gap-missing-column", "a missing column fails without evaluating",
     {"t": "int64"}, [{"t": 1}],
     [{"check": "max_gap", "column": "t", "max_ms": 1, "group_by": "g"}])
