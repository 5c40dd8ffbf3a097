"""``ldp.run`` and ``ldp.plan``: a config run (or planned) by the binary, its result as Python
objects, and a Python transform served over two pipes."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

import pyarrow as pa

from . import _cli
from .errors import SourceError

PathLike = Union[str, "os.PathLike[str]"]
Transform = Callable[[pa.RecordBatch], Union[pa.RecordBatch, pa.Table]]

# The end-of-stream marker of the Arrow IPC stream format.
_END_OF_STREAM = b"\xff\xff\xff\xff\x00\x00\x00\x00"


@dataclass(frozen=True)
class RunResult:
    """What a run did, as ``ldp run --json`` reports it.

    ``status`` is ``published`` (a staged run that reached main), ``skipped_duplicate`` (its key
    was already on main: nothing was read or written), or ``written`` (a direct run).
    """

    name: str
    status: str
    rows_read: int
    rows_written: int
    snapshot_id: Optional[int]
    run_id: Optional[str]
    idempotency_key: Optional[str]
    duration_s: float
    quality: dict[str, Any] = field(repr=False)
    write_result: Optional[dict[str, Any]] = field(repr=False)
    raw: dict[str, Any] = field(repr=False)

    @property
    def skipped(self) -> bool:
        """Whether the run was a skipped duplicate (its key was already published)."""
        return self.status == "skipped_duplicate"

    def to_dict(self) -> dict[str, Any]:
        """The result as ``ldp run --json`` printed it (for an XCom, a log, a test)."""
        return dict(self.raw)

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> "RunResult":
        write = doc.get("write_result") or None
        snapshot = doc.get("published_snapshot_id")
        if snapshot is None and write:
            snapshot = write.get("snapshot_id")
        return cls(
            name=doc.get("name", ""),
            status=doc.get("status") or "written",
            rows_read=int(doc.get("rows_read") or 0),
            rows_written=int(doc.get("rows_written") or 0),
            snapshot_id=snapshot,
            run_id=doc.get("run_id"),
            idempotency_key=doc.get("idempotency_key"),
            duration_s=float(doc.get("duration_s") or 0.0),
            quality=doc.get("quality") or {},
            write_result=write,
            raw=doc,
        )


def run(
    config: PathLike,
    window: Optional[str] = None,
    mode: Optional[str] = None,
    idempotency_key: Optional[str] = None,
    *,
    run_id: Optional[str] = None,
    attempt: Optional[int] = None,
    strict: bool = False,
    transform: Optional[Transform] = None,
) -> RunResult:
    """Run a dataset config: read its source, check its quality gate, write one snapshot.

    Args:
        config: The dataset config (``ldp/v1`` JSON file).
        window: A logical window, ``START/END`` (ISO 8601, naive = UTC) or ``yesterday``,
            ``last-week``, ``last-month``: the run is staged under the window's idempotency key
            and published at most once.
        mode: ``append``, ``overwrite`` or ``upsert`` (default: the config's ``write_mode``).
        idempotency_key: Stage the run under this key (``"auto"``: the window's key).
        run_id: The run's id; a retry passes the same id with the next ``attempt``.
        attempt: The attempt number (needs ``run_id``); it fences the earlier attempts.
        strict: Refuse a config holding a key ldp does not know, before reading anything.
        transform: A function ``RecordBatch -> RecordBatch`` applied to every batch after the
            config's transforms and before the quality checks. It runs here, in this Python
            process, **not sandboxed** like a plugin: use it for trusted code (a notebook).
            It is called once first with an empty batch, to learn its output schema.

    Returns:
        The run's :class:`RunResult` (also for a skipped duplicate).

    Raises:
        ldp.errors.QualityBlocked: A check failed with ``on_failure: fail``; nothing written.
        ldp.errors.ConfigError: The config or an argument is invalid.
        ldp.errors.CommitConflict: Another writer won every retry (``retryable`` is true).
        ldp.errors.LdpError: Any other failure, with the CLI's message.
    """
    args: list[Any] = ["run", os.fspath(config)]
    if mode:
        args += ["--mode", mode]
    if window:
        args += ["--window", window]
    if idempotency_key:
        args += ["--idempotency-key", idempotency_key]
    if run_id:
        args += ["--run-id", run_id]
    if attempt is not None:
        args += ["--attempt", str(attempt)]
    if strict:
        args.append("--strict")
    if transform is None:
        return RunResult.from_json(_cli.run_json(args))
    return _run_with_transform(args, transform)


def plan(config: PathLike, window: Optional[str] = None, strict: bool = False) -> Any:
    """Validate a config (or a folder of them) without running it, and say what a run would do:
    ``ldp plan --json`` as a dict (a list of dicts for a folder)."""
    args: list[Any] = ["plan", os.fspath(config)]
    if window:
        args += ["--window", window]
    if strict:
        args.append("--strict")
    # A plan that finds problems exits 1 and still prints its report.
    done = _cli.run([*args, "--json"], ok_codes=(0, 1))
    import json

    if not done.stdout.strip():
        raise _cli.failure(done.returncode, done.stderr)
    return json.loads(done.stdout)


def _run_with_transform(args: list[Any], transform: Transform) -> RunResult:
    """Runs ``ldp run ... --pipe-transform`` with ``transform`` served on a thread here."""
    to_read, to_write = os.pipe()  # ldp writes the batches, we read them
    from_read, from_write = os.pipe()  # we write the transformed batches, ldp reads them
    server = _TransformServer(transform, to_read, from_write)
    thread = threading.Thread(target=server.serve, name="ldp-transform", daemon=True)
    thread.start()
    try:
        done = _cli.run(
            [*args, "--pipe-transform", f"/dev/fd/{to_write},/dev/fd/{from_read}", "--json"],
            pass_fds=(to_write, from_read),
            ok_codes=(0, 1, 3, 130),
        )
    finally:
        # ldp's copies closed when it exited; ours close now, so the server sees the end.
        os.close(to_write)
        os.close(from_read)
        thread.join()
    if server.error is not None:
        raise SourceError(
            f"the Python transform failed: {server.error!r}", stderr=done.stderr
        ) from server.error
    if done.returncode != 0:
        raise _cli.failure(done.returncode, done.stderr)
    import json

    return RunResult.from_json(json.loads(done.stdout))


class _TransformServer:
    """The Python end of ``--pipe-transform``: reads ldp's Arrow IPC stream, answers each
    batch with one transformed batch, and ends its own stream when ldp ends its."""

    def __init__(self, transform: Transform, read_fd: int, write_fd: int) -> None:
        self.transform = transform
        self.read_fd = read_fd
        self.write_fd = write_fd
        self.error: Optional[BaseException] = None

    def apply(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        out = self.transform(batch)
        if isinstance(out, pa.Table):
            out = out.combine_chunks()
            batches = out.to_batches()
            out = batches[0] if batches else pa.RecordBatch.from_pylist([], schema=out.schema)
        if not isinstance(out, pa.RecordBatch):
            raise TypeError(
                f"a transform returns a pyarrow.RecordBatch (or Table), not {type(out).__name__}"
            )
        return out

    def serve(self) -> None:
        with os.fdopen(self.read_fd, "rb") as incoming, os.fdopen(self.write_fd, "wb") as out:
            try:
                reader = pa.ipc.open_stream(incoming)
            except (pa.ArrowInvalid, OSError):
                return  # ldp ended before the source's schema (a skipped run, an error)
            try:
                schema = self.apply(pa.RecordBatch.from_pylist([], schema=reader.schema)).schema
                # The stream is written message by message: pyarrow's stream writer holds the
                # schema back until the first batch, and ldp waits for it first.
                out.write(schema.serialize())
                out.flush()
                for batch in reader:
                    answer = self.apply(batch)
                    if not answer.schema.equals(schema):
                        raise TypeError(
                            "the transform returned batches of another schema than for an empty "
                            f"batch: {answer.schema} instead of {schema}"
                        )
                    out.write(answer.serialize())
                    out.flush()
                out.write(_END_OF_STREAM)
                out.flush()
            except BrokenPipeError:
                return  # ldp stopped (its own error is the one to report)
            except BaseException as e:  # noqa: BLE001 - reported after ldp exits
                self.error = e
