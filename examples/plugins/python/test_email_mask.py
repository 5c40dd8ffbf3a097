"""Unit tests of the Python email_mask, natively (no component, no host).

Run from this folder:  python3 -m unittest -v   (pyarrow, when installed, checks the IPC too)
"""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "sdk", "python"))
sys.path.insert(0, HERE)

import ldp_arrow as la  # noqa: E402

import email_mask  # noqa: E402
from email_mask import EmailMask, Failure, mask, parse_config  # noqa: E402

USERS = la.Schema(
    [
        la.Field("user_id", la.int64),
        la.Field("email", la.utf8),
        la.Field("signup_ts", la.timestamp("us")),
    ]
)


class Mask(unittest.TestCase):
    def test_shared_cases(self):
        """The cases all three languages test: [input, masked, domain]."""
        with open(os.path.join(HERE, "..", "data", "mask_cases.json"), encoding="utf-8") as f:
            cases = json.load(f)
        self.assertGreaterEqual(len(cases), 10)
        for value, masked, domain in cases:
            with self.subTest(value=value):
                self.assertEqual(mask(value), (masked, domain))


class Config(unittest.TestCase):
    def test_default_and_column(self):
        self.assertEqual(parse_config("{}"), "email")
        self.assertEqual(parse_config(""), "email")
        self.assertEqual(parse_config('{"column": "mail"}'), "mail")

    def test_errors_are_config_errors(self):
        for text, needle in [
            ('{"colum": "mail"}', "'colum'"),
            ('{"column": 1}', "config.column"),
            ("[]", "JSON object"),
            ("{", "not JSON"),
        ]:
            with self.subTest(text=text), self.assertRaises(Failure) as e:
                parse_config(text)
            self.assertEqual(e.exception.kind, "config")
            self.assertIn(needle, e.exception.message)


class Open(unittest.TestCase):
    def test_missing_column(self):
        with self.assertRaises(Failure) as e:
            EmailMask('{"column": "mail"}', USERS)
        self.assertEqual(e.exception.kind, "config")
        self.assertEqual(
            e.exception.message,
            "config.column: the input has no column 'mail'; its columns are: user_id, email, signup_ts",
        )

    def test_not_a_string(self):
        with self.assertRaises(Failure) as e:
            EmailMask('{"column": "user_id"}', USERS)
        self.assertEqual(e.exception.kind, "config")
        self.assertIn("'user_id' is not a string column", e.exception.message)

    def test_output_schema(self):
        t = EmailMask("{}", USERS)
        self.assertEqual(t.schema.names, ["user_id", "email", "signup_ts", "email_domain"])
        self.assertEqual(t.schema.fields[-1], la.Field("email_domain", la.utf8, True))


class Push(unittest.TestCase):
    def test_through_ipc(self):
        """What the component does: decode the messages, transform, encode."""
        t = EmailMask("{}", la.decode_schema(la.encode_schema(USERS)))
        table = la.Table(USERS, [[1, 2, 3], ["alice@Example.com", None, "x"], [0, 1, None]])
        out = t.push(la.decode_batch(la.encode_batch(table), USERS))
        back = la.decode_batch(la.encode_batch(out), t.schema).to_pydict()
        self.assertEqual(
            back,
            {
                "user_id": [1, 2, 3],
                "email": ["a***@Example.com", None, "***"],
                "signup_ts": [0, 1, None],
                "email_domain": ["example.com", None, None],
            },
        )

    def test_large_utf8_keeps_its_type(self):
        schema = la.Schema([la.Field("email", la.large_utf8)])
        t = EmailMask("{}", schema)
        out = t.push(la.Table(schema, [["bo@X.io"]]))
        self.assertEqual(out.schema.fields[0].type, la.large_utf8)
        self.assertEqual(out.columns, [["b***@X.io"], ["x.io"]])


if __name__ == "__main__":
    unittest.main()
