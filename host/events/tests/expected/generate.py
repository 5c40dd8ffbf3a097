"""Regenerates the expected `ldp runs` outputs (and runs_mixed.jsonl) with the reference.

Run with the Python local-data-platform 0.1.3 importable (its source unpacked from the wheel):

    PYTHONPATH=/tmp/ldpref/src python host/events/tests/expected/generate.py

Writes ../vectors/runs_mixed.jsonl (events of failed, blocked, retried and workflow runs, made
by the reference's own emitter with a fixed clock) and one `<case>.txt` per `ldp runs` case:
exactly what the reference prints.
"""

import argparse
import contextlib
import datetime as dt
import io
import itertools
import json
from pathlib import Path

from local_data_platform import events as ev

HERE = Path(__file__).resolve().parent
VECTORS = HERE.parent / "vectors"


def mixed_events() -> None:
    """Runs of every outcome, through the reference's RunEmitter and JsonlSink."""
    path = VECTORS / "runs_mixed.jsonl"
    path.unlink(missing_ok=True)
    sink = ev.JsonlSink(path)
    ticks = itertools.count()
    base = dt.datetime(2026, 8, 3, 1, 0, 0, tzinfo=dt.timezone.utc)

    def clock():
        return base + dt.timedelta(milliseconds=250 * next(ticks), microseconds=7)

    ids = iter([f"01a30000-0000-7000-8000-{n:012d}" for n in range(1, 1000)])
    orig = ev.uuid7
    ev.uuid7 = lambda: next(ids)
    try:
        # A failed direct run (a long message with a secret).
        e = ev.RunEmitter(sink, "01a30000-0000-7000-8000-aaaaaaaaaaaa", context={"pipeline": "rides", "table": "nyc.rides"}, clock=clock)
        e.emit("run.started", {"mode": "append", "publish": "direct", "idempotency_key": None, "spec_hash": "f" * 64,
                               "logical_window": None, "source": {"namespace": "file", "name": "/p/rides.csv", "format": "CSV"},
                               "target": {"namespace": "file:///p/w", "name": "nyc.rides", "format": "ICEBERG", "table_identifier": "nyc.rides"},
                               "ldp_version": "0.1.3"})
        e.emit("run.failed", {"stage": "extract", "error_type": "FileNotFoundError",
                              "message": ev.redact_text("[Errno 2] No such file or directory: '/p/rides.csv' (password=hunter2) while reading the source of the pipeline rides")})
        e.emit("run.finished", {"status": "failed", "duration_s": 0.012, "rows_read": None, "rows_written": None, "idempotency_key": None})
        # A blocked run.
        e = ev.RunEmitter(sink, "01a30000-0000-7000-8000-bbbbbbbbbbbb", context={"pipeline": "rides", "table": "nyc.rides"}, clock=clock)
        e.emit("run.started", {"mode": "upsert", "publish": "staged", "idempotency_key": "k" * 64, "spec_hash": "f" * 64,
                               "logical_window": ["2026-08-02T00:00:00+00:00", "2026-08-03T00:00:00+00:00"]}, table_uuid="795d01f3-e74b-44f7-90c9-e5b30102877b")
        e.emit("run.extracted", {"rows_read": 4, "rows_kept": 3, "schema": [{"name": "fare", "type": "double"}]})
        e.emit("quality.evaluated", {"rows": 3, "checks_run": 2, "checks_failed": 1, "passed": False, "on_failure": "fail",
                                     "results": [{"name": "not_null(fare)", "column": "fare", "passed": False, "failing_rows": 1,
                                                  "details": "fare has 1 null", "metrics": {"null_count": 1}},
                                                 {"name": "row_count", "column": None, "passed": True, "failing_rows": 0,
                                                  "details": "3 rows", "metrics": {"row_count": 3}}]})
        e.emit("run.blocked_quality", {"checks_failed": 1, "failures": ["not_null(fare)"], "on_failure": "fail"})
        e.emit("run.finished", {"status": "blocked_quality", "duration_s": 1.5, "rows_read": 4, "rows_written": 0,
                                "idempotency_key": "k" * 64, "quality_passed": False})
        # A workflow with a retried task and an upstream_failed one.
        wf = "01a30000-0000-7000-8000-cccccccccccc"
        w = ev.RunEmitter(sink, wf, context={"pipeline": "nightly", "workflow": "nightly", "workflow_run_id": wf}, clock=clock)
        w.emit("workflow.started", {"window": ["2026-08-02T22:00:00Z", "2026-08-03T22:00:00Z"], "schedule": None,
                                    "tasks": [{"id": "orders", "kind": "pipeline", "depends_on": [], "max_attempts": 2},
                                              {"id": "tidy", "kind": "maintain", "depends_on": ["orders"]}],
                                    "ldp_version": "0.1.3", "replace": True})
        tags = {"workflow": "nightly", "workflow_run_id": wf}
        task_run = "01a30000-0000-7000-8000-dddddddddddd"
        for attempt in (1, 2):
            t = ev.RunEmitter(ev.TaggedSink(sink, {**tags, "task_id": "orders"}), task_run, attempt=attempt,
                              context={"pipeline": "daily_orders", "table": "shop.orders"}, clock=clock)
            t.emit("run.started", {"mode": "overwrite", "publish": "staged", "idempotency_key": "a" * 64})
            if attempt == 1:
                t.emit("run.failed", {"stage": "write", "error_type": "CommitFailedException", "message": "conflict"})
                t.emit("run.finished", {"status": "failed", "duration_s": 0.2, "rows_read": 5, "rows_written": None,
                                        "idempotency_key": "a" * 64})
            else:
                t.emit("run.extracted", {"rows_read": 5, "schema": []})
                t.emit("quality.evaluated", {"rows": 5, "checks_run": 0, "checks_failed": 0, "passed": True, "results": []})
                t.emit("run.published", {"rows_written": 5, "snapshot_id": 7959553903485664437, "idempotency_key": "a" * 64,
                                         "write": None, "snapshot_summary": {"operation": "overwrite"}})
                t.emit("run.finished", {"status": "published", "duration_s": 0.75, "rows_read": 5, "rows_written": 5,
                                        "idempotency_key": "a" * 64, "published_snapshot_id": 7959553903485664437,
                                        "quality_passed": True})
        t = ev.RunEmitter(ev.TaggedSink(sink, {**tags, "task_id": "tidy"}), "01a30000-0000-7000-8000-eeeeeeeeeeee",
                          context={"pipeline": "tidy", "task_kind": "maintain"}, clock=clock)
        t.emit("run.started", {})
        t.emit("run.finished", {"status": "upstream_failed", "duration_s": 0.0, "blocked_by": ["orders"]})
        w.emit("workflow.finished", {"status": "failed", "duration_s": 2.25, "counts": {"published": 1, "upstream_failed": 1},
                                     "tasks": {"orders": "published", "tidy": "upstream_failed"}})
    finally:
        ev.uuid7 = orig


CASES = {
    "staged_summary": ("events_staged_run.jsonl", {}),
    "staged_events": ("events_staged_run.jsonl", {"events": True}),
    "staged_run": ("events_staged_run.jsonl", {"run": "01a23725-6f95-73c9-8cfe-c24a42626895"}),
    "ledger_summary": ("ledger_workflow_run.jsonl", {}),
    "ledger_events_limit3": ("ledger_workflow_run.jsonl", {"events": True, "limit": 3}),
    "mixed_summary": ("runs_mixed.jsonl", {}),
    "mixed_attempts": ("runs_mixed.jsonl", {"attempts": True}),
    "mixed_limit2": ("runs_mixed.jsonl", {"limit": 2}),
    "mixed_events": ("runs_mixed.jsonl", {"events": True}),
    "missing": ("no_such_file.jsonl", {}),
}


def main() -> None:
    mixed_events()
    for name, (file, options) in CASES.items():
        args = argparse.Namespace(config=str(VECTORS / file), jsonl=None, run=None, events=False, attempts=False, limit=20)
        for key, value in options.items():
            setattr(args, key, value)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ev._cmd_runs(args)
        (HERE / f"{name}.txt").write_text(out.getvalue().replace(str(VECTORS), "<vectors>"), encoding="utf-8")


if __name__ == "__main__":
    main()
