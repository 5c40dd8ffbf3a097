"""Write reference_workflows.json: what the real local-data-platform 0.1.3 answers for workflow
files (validate_workflow's problems, the run order, each task's retry policy, read_workflow's
problems, and plan_workflow with its human output), for ldp-config's tests.

Run with Python 3.11 and the reference on the path. Workflow validation and plans need only the
standard library and cronsim:

    pip download --no-deps --only-binary=:all: local-data-platform==0.1.3 -d /tmp/ldpref
    (cd /tmp/ldpref && mkdir -p src && cd src && unzip -q ../*.whl)
    pip download --no-deps --only-binary=:all: cronsim==2.8 -d /tmp/pydeps
    (cd /tmp/pydeps && python3 -m zipfile -e cronsim-2.8-*.whl lib)
    PYTHONPATH=/tmp/ldpref/src:/tmp/pydeps/lib python3.11 gen_reference_workflows.py > reference_workflows.json

The project folder of the plans is written `<dir>`; its files are stored under `files` so that a
test can lay out the same folder.
"""

import contextlib
import datetime as dt
import io
import json
import sys
import tempfile
from pathlib import Path

from local_data_platform.orchestration import cli, windows
from local_data_platform.orchestration.workflow import (
    plan_workflow,
    read_workflow,
    validate_workflow,
    workflow_from_dict,
)

HERE = Path(__file__).resolve().parent
NOW = dt.datetime(2026, 8, 5, 1, 30, tzinfo=dt.timezone.utc)
windows.now_utc = lambda: NOW


def wf(tasks, **extra):
    return {"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "nightly", **extra, "tasks": tasks}


P = {"id": "a", "pipeline": "a.json"}

VALIDATION = {
    "sample": json.loads((HERE / "nightly.json").read_text()),
    "reference_example": wf([
        {"id": "orders", "pipeline": "daily_orders.json"},
        {"id": "gold", "dbt": {"project": "dbt", "select": "+daily_revenue"}, "depends_on": ["orders"]},
        {"id": "tidy", "maintain": {"config": "daily_orders.json", "expire": 7}, "depends_on": ["gold"]}],
        metadata={"schedule": "5 2 * * *", "window": {"size": "day", "timezone": "Europe/Paris"},
                  "retries": {"max_attempts": 2, "delay_s": 0}}),
    "duplicate_id": wf([P, {"id": "a", "pipeline": "b.json"}]),
    "unknown_key_gold": wf([{"id": "a", "gold": {"model": "x"}, "pipeline": "a.json"}]),
    "no_kind": wf([{"id": "a"}]),
    "two_kinds": wf([{"id": "a", "pipeline": "a.json", "maintain": {"config": "a.json"}}]),
    "depends_on": wf([P, {"id": "c", "pipeline": "c.json", "depends_on": ["b", "c", "a", "a", 3, None]}]),
    "depends_on_not_list": wf([{"id": "a", "pipeline": "a.json", "depends_on": "b", "retries": {"x": 1}}]),
    "ids": wf([{"id": " ", "pipeline": ""}, "x", {"pipeline": "p.json", "retries": {"max_attempts": 0}},
               {"id": 5, "pipeline": None}]),
    "cycle_2": wf([{"id": "a", "pipeline": "a.json", "depends_on": ["b"]},
                   {"id": "b", "pipeline": "b.json", "depends_on": ["a"]}]),
    "cycle_3": wf([{"id": "x", "pipeline": "x.json"}, {"id": "a", "pipeline": "a.json", "depends_on": ["c"]},
                   {"id": "b", "pipeline": "b.json", "depends_on": ["a"]},
                   {"id": "c", "pipeline": "c.json", "depends_on": ["b", "x"]}]),
    "cycle_late": wf([{"id": "c", "pipeline": "c.json", "depends_on": ["b"]},
                      {"id": "b", "pipeline": "b.json", "depends_on": ["a"]},
                      {"id": "a", "pipeline": "a.json", "depends_on": ["b"]}]),
    "cycle_and_other": wf([{"id": "a", "pipeline": "a.json", "depends_on": ["b"]},
                           {"id": "b", "pipeline": "b.json", "depends_on": ["a"]}], who=1),
    "top_level": {"apiVersion": "v2", "kind": "Workflow", "identifier": "", "when": 5, "metadata": [], "extra": 1},
    "no_identifier": {"kind": "Workflow", "tasks": []},
    "tasks_not_list": {"kind": "Workflow", "identifier": "w", "tasks": {"id": "a"}},
    "metadata_many": wf([P], metadata={"schedule": "@yearly", "window": {"size": "week", "column": "ts"},
                                       "catchup": True, "retries": {"delay_s": -1}, "lineage": {},
                                       "observability": {"sinks": ["kafka"]}}),
    "metadata_more": wf([P], metadata={"catchup": "yes", "start": "August", "retries": None,
                                       "window": {"size": "day", "timezone": "Mars/Olympus"}}),
    "metadata_null_column": wf([P], metadata={"window": {"size": "hour", "column": None}, "start": 20260801}),
    "metadata_window_string": wf([P], metadata={"window": "daily", "schedule": "  "}),
    "metadata_ok": wf([P], metadata={"catchup": True, "start": " 2026-08-01 ", "window": "none",
                                     "schedule": "@daily", "observability": {"sinks": ["jsonl"]}}),
    "metadata_start_z": wf([P], metadata={"start": "2026-08-01T02:00:00Z", "catchup": False}),
    "retries": wf([{"id": "a", "pipeline": "a.json", "retries": {"max_attempts": 2.0, "backoff": 0.5, "y": 1}},
                   {"id": "b", "pipeline": "b.json", "retries": [1]}],
                  metadata={"retries": {"max_attempts": None}}),
    "secret": wf([{"id": "a", "dbt": {"project": "p", "vars": {"api_token": "abc"}}}]),
    "pipeline_values": wf([{"id": "a", "pipeline": " "}, {"id": "b", "pipeline": 3}]),
    "maintain_values": wf([{"id": "a", "maintain": "a.json"},
                           {"id": "b", "maintain": {"expire": -1, "orphan_age_hours": "x", "retain_last": 0,
                                                    "keep_metadata_versions": 1.5, "orphans": "yes",
                                                    "apply": None, "dry": 1}},
                           {"id": "c", "maintain": {"config": "a.json", "expire": True, "retain_last": 2.0}}]),
    "dbt_values": wf([{"id": "a", "dbt": ["dbt"]},
                      {"id": "b", "dbt": {"command": "run", "select": [], "exclude": ["ok", " ", "--full-refresh"],
                                          "vars": {"window_start": "x", "window_end": 1}, "skip_unchanged": 1,
                                          "dbt_bin": "", "profile": "p"}},
                      {"id": "c", "dbt": {"project": "p", "select": "a -x", "vars": [1], "command": None}},
                      {"id": "d", "dbt": {"project": " ", "exclude": 5, "select": ["x", 3]}}]),
    "kind_error_only_first": wf([{"id": "a", "pipeline": 1, "maintain": 2}]),
}

ORDERS = {
    "rounds": wf([{"id": "export", "pipeline": "e.json", "depends_on": ["orders"]},
                  {"id": "orders", "pipeline": "o.json"}, {"id": "customers", "pipeline": "c.json"},
                  {"id": "tidy", "maintain": {"config": "o.json"}, "depends_on": ["export", "customers"]}]),
    "chain_and_free": wf([{"id": "a", "pipeline": "a.json"}, {"id": "b", "pipeline": "b.json", "depends_on": ["a"]},
                          {"id": "c", "pipeline": "c.json"},
                          {"id": "d", "pipeline": "d.json", "depends_on": ["b", "c"]},
                          {"id": "e", "pipeline": "e.json", "depends_on": ["a"]}]),
    "retries_overlay": wf([{"id": "a", "pipeline": "a.json"},
                           {"id": "b", "pipeline": "b.json", "retries": {"max_attempts": 5}},
                           {"id": "c", "pipeline": "c.json", "retries": {"backoff": 3, "delay_s": 1.5}},
                           {"id": "d", "pipeline": "d.json", "retries": {"max_attempts": 1}}],
                          metadata={"retries": {"max_attempts": 2, "delay_s": 0}}),
    "no_retries": wf([{"id": "a", "pipeline": "a.json", "retries": {"delay_s": 3}},
                      {"id": "b", "pipeline": "b.json", "retries": {"max_attempts": 4}}]),
}

ORDERS_CSV = "order_id,ordered_at,amount\n1,2026-08-01 09:00:00,12.5\n"
ICEBERG_SHOP = {"identifier": "shop", "warehouse_path": "warehouse"}


def config(identifier, source, target, **metadata):
    return {"identifier": identifier, "metadata": {"source": source, "target": target, **metadata}}


FILES = {
    "shop/nightly.json": (HERE / "nightly.json").read_text(),
    "shop/daily_orders.json": (HERE / "daily_orders.json").read_text(),
    "shop/drops/orders_2026-08-01.csv": ORDERS_CSV,
    "shop/export.json": json.dumps(config(
        "export", {"name": "orders", "format": "ICEBERG", "catalog": ICEBERG_SHOP},
        {"name": "orders_export", "format": "CSV", "path": "out/orders.csv"})),
    "shop/appends.json": json.dumps(config(
        "appends", {"name": "rides", "format": "CSV", "path": "rides.csv"},
        {"name": "rides", "format": "ICEBERG", "catalog": ICEBERG_SHOP})),
    "shop/bad_config.json": json.dumps({"identifier": "bad", "metadata": {"source": {"format": "XLS"}}}),
    "shop/unordered.json": json.dumps(wf([
        {"id": "export", "pipeline": "export.json"}, {"id": "orders", "pipeline": "daily_orders.json"},
        {"id": "tidy", "maintain": {"config": "export.json", "apply": True}, "depends_on": ["orders"]}],
        metadata={"window": {"size": "day", "timezone": "Europe/Paris"}})),
    "shop/ordered.json": json.dumps(wf([
        {"id": "orders", "pipeline": "daily_orders.json"},
        {"id": "export", "pipeline": "export.json", "depends_on": ["orders"]}],
        metadata={"window": {"size": "day", "timezone": "Europe/Paris"}, "retries": {"max_attempts": 3}})),
    "shop/scheduled_appends.json": json.dumps(wf([
        {"id": "rides", "pipeline": "appends.json", "retries": {"max_attempts": 2}}], when="hourly")),
    "shop/broken.json": json.dumps(wf([
        {"id": "missing", "pipeline": "missing.json"}, {"id": "bad", "pipeline": "bad_config.json"},
        {"id": "nested", "pipeline": "nightly.json"},
        {"id": "tidy", "maintain": {"config": "missing.json"}},
        {"id": "tidy_nested", "maintain": {"config": "nightly.json"}}])),
    "shop/invalid.json": json.dumps(wf([{"id": "a"}, {"id": "a", "pipeline": 1}])),
    "shop/not_object.json": "[1]",
    "shop/unscheduled.json": json.dumps(config(
        "unscheduled", {"name": "rides", "format": "CSV", "path": "rides.csv"},
        {"name": "rides", "format": "ICEBERG", "catalog": ICEBERG_SHOP})),
}

PAPER_DAY = "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z"
PLANS = [
    ("shop/nightly.json", PAPER_DAY), ("shop/nightly.json", None), ("shop/nightly.json", "2026-08-01/2026-08-02"),
    ("shop/nightly.json", "yesterday"), ("shop/nightly.json", "last-week"), ("shop/nightly.json", "2026-08-02/2026-08-01"),
    ("shop/daily_orders.json", PAPER_DAY), ("shop/unordered.json", PAPER_DAY), ("shop/ordered.json", PAPER_DAY),
    ("shop/scheduled_appends.json", "2026-08-01T00:00:00Z/2026-08-01T01:00:00Z"), ("shop/broken.json", None),
    ("shop/invalid.json", None), ("shop/not_object.json", None), ("shop/unscheduled.json", None),
    ("shop/absent.json", None),
]


def masked(value, root):
    if isinstance(value, str):
        return value.replace(root, "<dir>")
    if isinstance(value, list):
        return [masked(item, root) for item in value]
    if isinstance(value, dict):
        return {key: masked(item, root) for key, item in value.items()}
    return value


def main():
    out = {"now": "2026-08-05T01:30:00Z", "validation": {}, "orders": {}, "files": FILES, "plans": [],
           "read": {}}
    for name, document in VALIDATION.items():
        out["validation"][name] = {"document": document, "problems": [str(e) for e in validate_workflow(document)]}
    for name, document in ORDERS.items():
        flow = workflow_from_dict(document, base_dir="/project")
        out["orders"][name] = {
            "document": document, "order": [task.id for task in flow.order()],
            "retries": {task.id: (flow.retries_of(task).to_dict() if flow.retries_of(task).enabled else None)
                        for task in flow.tasks},
            "ancestors": {task.id: sorted(flow.ancestors(task.id)) for task in flow.tasks}}
    with tempfile.TemporaryDirectory() as tmp:
        root = str(Path(tmp).resolve())
        for relative, text in FILES.items():
            path = Path(root) / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        for relative in ("shop/unscheduled.json", "shop/not_object.json", "shop/invalid.json"):
            flow, problems = read_workflow(Path(root) / relative, require_schedule=False)
            out["read"][relative] = masked(problems, root)
        for relative, window in PLANS:
            result = plan_workflow(Path(root) / relative, window=window)
            stdout, stderr = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                cli._print_plan(result)
            out["plans"].append({"file": relative, "window": window, "plan": masked(result, root),
                                 "stdout": masked(stdout.getvalue(), root),
                                 "stderr": masked(stderr.getvalue(), root)})
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    print()


if __name__ == "__main__":
    main()
