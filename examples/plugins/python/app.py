"""The email_mask transform as an ldp plugin: the `transform-plugin` world of wit/plugin.wit,
exported with componentize-py. The logic is in email_mask.py; this only moves Arrow IPC
messages in and out (with ldp_arrow) and turns failures into `plugin-error`s.

Build: ./build.sh (componentize-py -d ../../../wit -w transform-plugin componentize app ...).
"""

import traceback

import ldp_arrow as la
from wit_world import exports
from componentize_py_types import Err
from wit_world.imports import log
from wit_world.imports.types import ErrorKind, PluginError, PluginInfo, PluginKind

import email_mask

_KINDS = {
    "config": ErrorKind.CONFIG,
    "data": ErrorKind.DATA,
    "io": ErrorKind.IO,
    "limit": ErrorKind.LIMIT,
    "internal": ErrorKind.INTERNAL,
}

# One instance of the component serves one stream, so the open stream is a module global.
_stream = None


def _guard(call):
    """Runs `call`, turning a failure into the `plugin-error` the WIT result carries."""
    try:
        return call()
    except email_mask.Failure as e:
        raise Err(PluginError(_KINDS[e.kind], e.message)) from None
    except la.IpcError as e:
        raise Err(PluginError(ErrorKind.DATA, f"invalid Arrow IPC from the host: {e}")) from None
    except Err:
        raise
    except Exception as e:  # a bug: report it rather than trap
        last = traceback.format_exc().strip().splitlines()[-3:]
        raise Err(PluginError(ErrorKind.INTERNAL, f"{type(e).__name__}: {e} ({' | '.join(last)})")) from None


class Transform(exports.Transform):
    def describe(self) -> PluginInfo:
        return PluginInfo(
            name=email_mask.NAME,
            version=email_mask.VERSION,
            kind=PluginKind.TRANSFORM,
            description="Masks the local part of an email column and adds its domain (Python)",
            config_schema=email_mask.CONFIG_SCHEMA,
        )

    def open(self, config: str, input: bytes) -> bytes:
        def run():
            global _stream
            _stream = email_mask.EmailMask(config, la.decode_schema(input))
            log.log(log.Level.DEBUG, f"masking column {_stream.index}")
            return la.encode_schema(_stream.schema)

        return _guard(run)

    def push(self, batch: bytes) -> list[bytes]:
        def run():
            if _stream is None:
                raise email_mask.Failure("internal", "push called before open")
            table = la.decode_batch(batch, _stream.input_schema)
            return [la.encode_batch(_stream.push(table))]

        return _guard(run)

    def flush(self) -> list[bytes]:
        return []
