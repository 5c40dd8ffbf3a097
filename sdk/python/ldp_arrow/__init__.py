"""ldp_arrow: a small pure-Python Arrow IPC codec for ldp plugins.

ldp's host and its plugins exchange Arrow IPC messages: one Schema message per stream, then one
RecordBatch message per batch. This package reads and writes those messages for the common
types (null, bool, signed and unsigned integers, floats, utf8/large_utf8, binary/large_binary,
date32/64, time32/64, timestamps of every unit with or without a time zone, durations, and
nulls everywhere), with nothing but the standard library, so it runs inside a componentize-py
component. Dictionaries, nested types, decimals and compressed bodies are not supported: such a
schema is refused with an `IpcError` that names the field.

    from ldp_arrow import decode_schema, decode_batch, encode_schema, encode_batch

    schema = decode_schema(schema_message)        # Schema(fields=[Field(...), ...])
    table = decode_batch(batch_message, schema)   # Table: columns as lists of Python values
    table.column("email")                         # ['alice@example.com', None, ...]
    encode_batch(Table(out_schema, columns))      # bytes of one RecordBatch message
"""

from .ipc import (
    IpcError,
    decode_batch,
    decode_schema,
    encode_batch,
    encode_schema,
    read_stream,
    write_stream,
)
from .types import *  # noqa: F401,F403 - the types, fields, schema and table
from .types import __all__ as _types_all

__version__ = "0.1.0"
__all__ = [
    "IpcError",
    "decode_batch",
    "decode_schema",
    "encode_batch",
    "encode_schema",
    "read_stream",
    "write_stream",
    *_types_all,
]
