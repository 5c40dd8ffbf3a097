"""The email_mask transform in Python: the logic, free of any WebAssembly binding.

`app.py` exports it as an ldp transform component (componentize-py); this module only needs
`ldp_arrow` (sdk/python), so `python -m unittest` tests it on any Python >= 3.11.

Semantics (the same in ../rust and ../js):
- config `{"column": "email"}`, optional (default "email"); any other key is a config error;
- the column must exist and be a string column (utf8 or large_utf8), else a config error that
  names it and lists the input columns;
- each value has the local part (before the last "@") masked: its first character is kept and
  the rest becomes "***" ("alice@example.com" -> "a***@example.com", "@x.org" -> "***@x.org",
  no "@" -> "***"); null stays null;
- a new last column `email_domain` (utf8, nullable): the text after the last "@", lower-cased;
  null when the value is null or has no "@".
"""

from __future__ import annotations

import json

import ldp_arrow as la

NAME = "email_mask"
VERSION = "0.1.0"
DOMAIN_COLUMN = "email_domain"
CONFIG_SCHEMA = json.dumps(
    {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "column": {
                "type": "string",
                "default": "email",
                "description": "The string column holding email addresses.",
            }
        },
    },
    separators=(",", ":"),
)


class Failure(Exception):
    """A plugin error: `kind` is one of config, data, io, limit, internal."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


def mask(value: str) -> tuple[str, str | None]:
    """(masked value, domain) of one value. The local part is everything before the last "@";
    its first character (a code point) is kept."""
    at = value.rfind("@")
    if at < 0:
        return "***", None
    local, domain = value[:at], value[at + 1 :]
    return local[:1] + "***@" + domain, domain.lower()


def parse_config(text: str) -> str:
    """The column to mask, from the config object text."""
    try:
        config = json.loads(text) if text.strip() else {}
    except ValueError as e:
        raise Failure("config", f"config is not JSON: {e}") from None
    if not isinstance(config, dict):
        raise Failure("config", "config must be a JSON object")
    # Unknown keys first, in the order the config gives them.
    for key in config:
        if key != "column":
            raise Failure("config", f"unknown config key '{key}'; email_mask accepts only 'column'")
    column = config.get("column", "email")
    if not isinstance(column, str):
        raise Failure("config", "config.column must be a string (a column name)")
    return column


class EmailMask:
    """One open stream: `open` checks the input schema, `push` transforms one table."""

    def __init__(self, config: str, input_schema: la.Schema):
        column = parse_config(config)
        self.input_schema = input_schema
        names = ", ".join(input_schema.names)
        try:
            self.index = input_schema.index(column)
        except KeyError:
            raise Failure(
                "config", f"config.column: the input has no column '{column}'; its columns are: {names}"
            ) from None
        if not input_schema.fields[self.index].type.is_string:
            raise Failure(
                "config",
                f"config.column: column '{column}' is not a string column; its columns are: {names}",
            )
        if DOMAIN_COLUMN in input_schema.names:
            raise Failure(
                "config", f"the input already has a column '{DOMAIN_COLUMN}'; its columns are: {names}"
            )
        self.schema = input_schema.append(la.Field(DOMAIN_COLUMN, la.utf8, nullable=True))

    def push(self, table: la.Table) -> la.Table:
        masked, domains = [], []
        for value in table.columns[self.index]:
            if value is None:
                masked.append(None)
                domains.append(None)
            else:
                m, d = mask(value)
                masked.append(m)
                domains.append(d)
        columns = list(table.columns)
        columns[self.index] = masked
        columns.append(domains)
        return la.Table(self.schema, columns)
