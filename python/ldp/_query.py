"""``ldp.query``: SQL over the lake's tables, the result as a ``pyarrow.Table``.

The binary runs the query (DataFusion, read-only) and streams the result on its stdout as an
Arrow IPC stream (``ldp query --arrow``), which pyarrow reads without a CSV or JSON hop; the
binary holds only a few batches at a time (``read_stream`` says how the stream arrives).
"""

from __future__ import annotations

import mmap
import os
import threading
from typing import Any, Optional, Sequence, Union

import pyarrow as pa

from . import _cli

PathLike = Union[str, "os.PathLike[str]"]


def query(
    config_or_dir: Union[PathLike, Sequence[PathLike]],
    sql: str,
    snapshot: Optional[int] = None,
    as_of: Optional[str] = None,
    *,
    release: Optional[str] = None,
    timeout: Optional[float] = None,
) -> pa.Table:
    """Run SQL over the Iceberg tables of one config, several, or a folder of them.

    With one config the table is named after its ``target.name``; with a folder (or several
    configs) every table is ``namespace.table``, and also its bare name when that is unique.

    Args:
        config_or_dir: A dataset config, a folder of configs, or a list of them.
        sql: One read-only query (DDL, DML and ``SET`` are refused).
        snapshot: Read this snapshot of the (single) table instead of its current one.
        as_of: Read every table as it was at this time (``'2026-07-31 23:59:59'``, UTC unless
            it has an offset).
        release: Read gold tables at release ``rN`` of their namespace.
        timeout: Stop the query after this many seconds (:class:`ldp.errors.QueryTimeout`).

    Returns:
        Every row, as a ``pyarrow.Table`` (``.to_pandas()``, ``polars.from_arrow(...)``).

    Raises:
        ldp.errors.QueryError: The SQL does not parse or plan, or is not a query.
        ldp.errors.NotFound: A snapshot or table does not exist.
    """
    return read_stream(query_args(config_or_dir, sql, snapshot, as_of, release, timeout))


def query_args(
    config_or_dir: Union[PathLike, Sequence[PathLike]],
    sql: str,
    snapshot: Optional[int] = None,
    as_of: Optional[str] = None,
    release: Optional[str] = None,
    timeout: Optional[float] = None,
) -> list[Any]:
    """The arguments of ``ldp query --arrow`` for these parameters."""
    if isinstance(config_or_dir, (str, os.PathLike)):
        configs = [os.fspath(config_or_dir)]
    else:
        configs = [os.fspath(c) for c in config_or_dir]
    args: list[Any] = ["query", "--arrow"]
    if snapshot is not None:
        args += ["--snapshot", str(snapshot)]
    if as_of is not None:
        args += ["--as-of", as_of]
    if release is not None:
        args += ["--release", release]
    if timeout is not None:
        args += ["--timeout", str(timeout)]
    # A statement starting with '-' (a comment) goes after a lone '--'.
    return [*args, *configs, "--", sql] if sql.lstrip().startswith("-") else [*args, *configs, sql]


def read_stream(args: list[Any]) -> pa.Table:
    """Runs ``ldp ARGS`` and reads the Arrow IPC stream it writes on stdout.

    On Linux the binary writes into an anonymous in-memory file (``memfd_create``) that pyarrow
    then maps: the table's buffers are that file's pages, so the rows are copied once (by the
    binary's writes) and never again. Elsewhere the stream comes through a pipe, read batch by
    batch.
    """
    if hasattr(os, "memfd_create"):
        return _read_mapped(args)
    return _read_piped(args)


def _read_mapped(args: list[Any]) -> pa.Table:
    fd = os.memfd_create("ldp-query", getattr(os, "MFD_CLOEXEC", 0))
    try:
        process = _cli.popen(args, stdout=fd)
        assert process.stderr is not None
        stderr = process.stderr.read().decode("utf-8", "replace")
        code = process.wait()
        size = os.fstat(fd).st_size
        if code != 0 or size == 0:
            raise _cli.failure(code, stderr)
        mapping = mmap.mmap(fd, size, prot=mmap.PROT_READ)
    finally:
        os.close(fd)
    # The table keeps the mapping alive as long as one of its buffers is referenced.
    return pa.ipc.open_stream(pa.BufferReader(pa.py_buffer(mapping))).read_all()


def _read_piped(args: list[Any]) -> pa.Table:
    process = _cli.popen(args)
    assert process.stdout is not None and process.stderr is not None
    # stderr is drained on a thread, so warnings cannot fill its pipe and stall the stream.
    errors: list[bytes] = []
    drain = threading.Thread(target=lambda: errors.append(process.stderr.read()), daemon=True)
    drain.start()
    table: Optional[pa.Table] = None
    try:
        try:
            reader = pa.ipc.open_stream(process.stdout)
        except (pa.ArrowInvalid, OSError):
            reader = None  # nothing written: the command failed, its stderr says why
        if reader is not None:
            table = reader.read_all()
    finally:
        process.stdout.close()
        code = process.wait()
        drain.join()
        stderr = b"".join(errors).decode("utf-8", "replace")
    if code != 0 or table is None:
        raise _cli.failure(code, stderr)
    return table
