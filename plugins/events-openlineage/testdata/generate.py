"""Regenerates the expected OpenLineage lines with the reference's own OpenLineageSink.

Run with the Python local-data-platform 0.1.3 importable (its source unpacked from the wheel):

    PYTHONPATH=/tmp/ldpref/src python plugins/events-openlineage/testdata/generate.py

For each `<name>.jsonl` of ldp events below, writes `<name>.openlineage.jsonl`: what the
reference's `openlineage` sink appends when fed those events in order. `ids.jsonl` is the staged
run again under a run id that is no UUID and one without dashes.
"""

import json
from pathlib import Path

from local_data_platform import events as ev

HERE = Path(__file__).resolve().parent


def main() -> None:
    lines = (HERE / "events_staged_run.jsonl").read_text(encoding="utf-8").splitlines()
    ids = []
    for run_id in ("nightly-2026-08-01", "01a237256f9573c98cfec24a42626895"):
        for line in lines:
            event = json.loads(line)
            event["run_id"] = run_id
            ids.append(json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
    (HERE / "ids.jsonl").write_text("\n".join(ids) + "\n", encoding="utf-8")
    for name in ("events_staged_run", "runs_mixed", "ledger_workflow_run", "ids"):
        out = HERE / f"{name}.openlineage.jsonl"
        out.unlink(missing_ok=True)
        sink = ev.OpenLineageSink(out, namespace="ldp" if name != "ids" else "team")
        for event in ev.read_jsonl(HERE / f"{name}.jsonl"):
            sink.emit(event)


if __name__ == "__main__":
    main()
