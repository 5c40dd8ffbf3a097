"""Round trips between ldp_arrow and pyarrow (pyarrow is used here only, never by the codec).

Run from sdk/python:  python -m unittest discover -s tests -v
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import ldp_arrow as la  # noqa: E402

try:
    import pyarrow as pa
except ImportError:  # pragma: no cover - the codec tests below still run
    pa = None

needs_pyarrow = unittest.skipIf(pa is None, "pyarrow is not installed")

UTC = dt.timezone.utc

# (ldp_arrow type, pyarrow type, values with nulls, as pyarrow takes them)
CASES = [
    (la.bool_, "bool_", [True, None, False, True, True, False, None, True, False]),
    (la.int8, "int8", [-128, 127, None, 0]),
    (la.int16, "int16", [-32768, None, 32767]),
    (la.int32, "int32", [-(2**31), None, 2**31 - 1]),
    (la.int64, "int64", [-(2**63), None, 2**63 - 1, 0]),
    (la.uint8, "uint8", [0, None, 255]),
    (la.uint16, "uint16", [0, None, 65535]),
    (la.uint32, "uint32", [0, None, 2**32 - 1]),
    (la.uint64, "uint64", [0, None, 2**64 - 1]),
    (la.float32, "float32", [1.5, None, -0.25, float("inf")]),
    (la.float64, "float64", [1.1, None, -2.5e300, 0.0]),
    (la.utf8, "utf8", ["alice@example.com", None, "", "züß@münchen.de", "日本語", "x"]),
    (la.large_utf8, "large_utf8", ["a", None, "élodie", ""]),
    (la.binary, "binary", [b"\x00\x01", None, b""]),
    (la.large_binary, "large_binary", [b"abc", None]),
    (la.date32, "date32", [dt.date(2024, 1, 5), None, dt.date(1969, 12, 31)]),
    (la.date64, "date64", [dt.date(2024, 1, 5), None]),
    (la.null, "null", [None, None, None]),
]
for unit in ("s", "ms", "us", "ns"):
    CASES.append((la.timestamp(unit), ("timestamp", unit, None),
                  [dt.datetime(2024, 1, 5, 9, 12), None, dt.datetime(1960, 6, 1, 0, 0, 1)]))
    CASES.append((la.timestamp(unit, "UTC"), ("timestamp", unit, "UTC"),
                  [dt.datetime(2024, 1, 5, 9, 12, tzinfo=UTC), None]))
    CASES.append((la.duration(unit), ("duration", unit, None), [dt.timedelta(seconds=90), None]))
CASES.append((la.timestamp("us", "Europe/Paris"), ("timestamp", "us", "Europe/Paris"),
              [dt.datetime(2024, 7, 1, 12, tzinfo=UTC), None]))
CASES.append((la.time32("s"), ("time32", "s", None), [dt.time(23, 59, 59), None]))
CASES.append((la.time32("ms"), ("time32", "ms", None), [dt.time(1, 2, 3, 4000), None]))
CASES.append((la.time64("us"), ("time64", "us", None), [dt.time(1, 2, 3, 4), None]))
CASES.append((la.time64("ns"), ("time64", "ns", None), [dt.time(1, 2, 3, 4), None]))


def pa_type(spec):
    if isinstance(spec, str):
        return getattr(pa, spec)()
    name, unit, tz = spec
    return getattr(pa, name)(unit, tz) if name == "timestamp" else getattr(pa, name)(unit)


def expected_values(array) -> list:
    """What ldp_arrow gives for a pyarrow array: Python values, temporal types as raw ints."""
    t = array.type
    if pa.types.is_temporal(t):
        width = pa.int32() if t.bit_width == 32 else pa.int64()
        return array.view(width).to_pylist()
    return array.to_pylist()


def pa_stream(batches) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batches[0].schema) as writer:
        for b in batches:
            writer.write_batch(b)
    return sink.getvalue().to_pybytes()


def pa_read(data: bytes):
    reader = pa.ipc.open_stream(data)
    return reader.schema, list(reader)


@needs_pyarrow
class RoundTripWithPyarrow(unittest.TestCase):
    def test_every_type_from_pyarrow(self):
        for ltype, ptype, values in CASES:
            with self.subTest(type=str(ltype)):
                arr = pa.array(values, type=pa_type(ptype))
                batch = pa.record_batch([arr], names=["c"])
                schema, tables = la.read_stream(pa_stream([batch]))
                self.assertEqual(schema.fields[0].type, ltype)
                self.assertEqual(tables[0].column("c"), expected_values(arr))

    def test_every_type_to_pyarrow(self):
        for ltype, ptype, values in CASES:
            with self.subTest(type=str(ltype)):
                arr = pa.array(values, type=pa_type(ptype))
                schema = la.Schema([la.Field("c", ltype)])
                table = la.Table(schema, [expected_values(arr)])
                pschema, batches = pa_read(la.write_stream(schema, [table]))
                self.assertEqual(pschema.field("c").type, arr.type)
                batches[0].validate(full=True)
                self.assertTrue(batches[0].column(0).equals(arr), f"{batches[0].column(0)} != {arr}")

    def test_schema_metadata_and_nullability(self):
        pschema = pa.schema(
            [
                pa.field("id", pa.int64(), nullable=False, metadata={"doc": "the key"}),
                pa.field("email", pa.utf8()),
            ],
            metadata={"origin": "users.csv"},
        )
        batch = pa.record_batch([pa.array([1, 2]), pa.array(["a@b", None])], schema=pschema)
        schema, tables = la.read_stream(pa_stream([batch]))
        self.assertEqual(schema.metadata, {"origin": "users.csv"})
        self.assertFalse(schema.fields[0].nullable)
        self.assertEqual(schema.fields[0].metadata, {"doc": "the key"})
        self.assertTrue(schema.fields[1].nullable)
        back_schema, back = pa_read(la.write_stream(schema, tables))
        self.assertTrue(back_schema.equals(pschema, check_metadata=True))
        self.assertTrue(back[0].equals(batch))

    def test_many_batches_wide_and_empty(self):
        n = 10_000
        pschema = pa.schema([("i", pa.int64()), ("s", pa.utf8()), ("b", pa.bool_()), ("f", pa.float64())])
        cols = [
            pa.array([i if i % 7 else None for i in range(n)], pa.int64()),
            pa.array([None if i % 5 == 0 else f"u{i}@d{i % 13}.org" for i in range(n)]),
            pa.array([i % 3 == 0 for i in range(n)]),
            pa.array([i / 3 for i in range(n)]),
        ]
        full = pa.record_batch(cols, schema=pschema)
        batches = [full.slice(0, 4096), full.slice(4096, 0), full.slice(4096, n - 4096)]
        schema, tables = la.read_stream(pa_stream(batches))
        self.assertEqual([t.num_rows for t in tables], [4096, 0, n - 4096])
        for t, b in zip(tables, batches):
            self.assertEqual(t.to_pydict(), b.to_pydict())
        _, back = pa_read(la.write_stream(schema, tables))
        for got, want in zip(back, batches):
            got.validate(full=True)
            self.assertTrue(got.equals(want))

    def test_single_messages_concatenate_into_a_stream(self):
        """What ldp does: the schema message once, then one message per batch, no end marker."""
        schema = la.Schema([la.Field("email", la.utf8), la.Field("n", la.int32)])
        t1 = la.Table(schema, [["a@x", None], [1, 2]])
        t2 = la.Table(schema, [["é@y"], [None]])
        data = la.encode_schema(schema) + la.encode_batch(t1) + la.encode_batch(t2)
        _, batches = pa_read(data)
        self.assertEqual(pa.Table.from_batches(batches).to_pydict(),
                         {"email": ["a@x", None, "é@y"], "n": [1, 2, None]})

    def test_messages_are_8_aligned(self):
        schema = la.Schema([la.Field("s", la.utf8)])
        for msg in (la.encode_schema(schema), la.encode_batch(la.Table(schema, [["abc", None]]))):
            self.assertEqual(len(msg) % 8, 0)
            self.assertEqual(msg[:4], b"\xff\xff\xff\xff")

    def test_unsupported_types_are_named(self):
        for name, arr in [
            ("dec", pa.array([1], pa.decimal128(5, 2))),
            ("lst", pa.array([[1]])),
            ("dict", pa.array(["a"]).dictionary_encode()),
        ]:
            with self.subTest(name=name):
                data = pa_stream([pa.record_batch([arr], names=[name])])
                with self.assertRaises(la.IpcError) as e:
                    la.read_stream(data)
                self.assertIn(f"'{name}'", str(e.exception))


class CodecWithoutPyarrow(unittest.TestCase):
    def test_round_trip(self):
        schema = la.Schema(
            [
                la.Field("id", la.int64, nullable=False),
                la.Field("email", la.utf8),
                la.Field("ts", la.timestamp("us")),
                la.Field("ok", la.bool_),
            ],
            {"k": "v"},
        )
        table = la.Table(schema, [[1, 2, 3], ["a@b", None, "ü@x"], [0, None, -1], [True, None, False]])
        self.assertEqual(la.decode_schema(la.encode_schema(schema)), schema)
        self.assertEqual(la.decode_batch(la.encode_batch(table), schema).to_pydict(), table.to_pydict())

    def test_datetimes_are_stored_as_their_raw_ints(self):
        schema = la.Schema([la.Field("ts", la.timestamp("ms", "UTC")), la.Field("d", la.date32)])
        moment = dt.datetime(2024, 1, 5, 9, 12, tzinfo=UTC)
        table = la.Table(schema, [[moment, None], [dt.date(1970, 1, 2), None]])
        back = la.decode_batch(la.encode_batch(table), schema)
        self.assertEqual(back.columns, [[1704445920000, None], [1, None]])
        self.assertEqual(la.to_python(back.columns[0][0], schema.fields[0].type), moment)
        self.assertEqual(la.to_python(1, la.date32), dt.date(1970, 1, 2))

    def test_nulls_in_a_non_nullable_column_are_refused(self):
        schema = la.Schema([la.Field("id", la.int64, nullable=False)])
        with self.assertRaises(la.IpcError) as e:
            la.encode_batch(la.Table(schema, [[1, None]]))
        self.assertIn("'id'", str(e.exception))

    def test_overflow_names_the_column(self):
        schema = la.Schema([la.Field("small", la.int8)])
        with self.assertRaises(la.IpcError) as e:
            la.encode_batch(la.Table(schema, [[1000]]))
        self.assertIn("'small'", str(e.exception))

    def test_truncated_message(self):
        schema = la.Schema([la.Field("s", la.utf8)])
        msg = la.encode_batch(la.Table(schema, [["hello"]]))
        with self.assertRaises(la.IpcError):
            la.decode_batch(msg[:-8], schema)


if __name__ == "__main__":
    unittest.main()
