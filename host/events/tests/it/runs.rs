//! `ldp runs` output compared with what the Python tool prints for the same events
//! (`tests/expected/*.txt`, made by `tests/expected/generate.py`).

use std::path::Path;

use ldp_events::runs::{RunsOptions, runs_json, runs_text, select_events, summarize_runs};
use serde_json::json;

use crate::{vector_events, vectors};

fn expected(case: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/expected/{case}.txt")),
    )
    .expect("the expected output exists")
}

fn check(case: &str, vector: &str, options: RunsOptions) {
    let events = if vectors().join(vector).exists() {
        select_events(vector_events(vector), None, options.run.as_deref())
    } else {
        Vec::new()
    };
    let location = format!("<vectors>/{vector}");
    assert_eq!(
        runs_text(&events, &location, &options),
        expected(case),
        "{case}"
    );
}

#[test]
fn summaries_are_the_references() {
    check(
        "staged_summary",
        "events_staged_run.jsonl",
        RunsOptions::default(),
    );
    check(
        "ledger_summary",
        "ledger_workflow_run.jsonl",
        RunsOptions::default(),
    );
    check("mixed_summary", "runs_mixed.jsonl", RunsOptions::default());
    let attempts = RunsOptions {
        attempts: true,
        ..RunsOptions::default()
    };
    check("mixed_attempts", "runs_mixed.jsonl", attempts);
    let limit = RunsOptions {
        limit: 2,
        ..RunsOptions::default()
    };
    check("mixed_limit2", "runs_mixed.jsonl", limit);
}

#[test]
fn event_tables_are_the_references() {
    let events = RunsOptions {
        events: true,
        ..RunsOptions::default()
    };
    check("staged_events", "events_staged_run.jsonl", events.clone());
    check("mixed_events", "runs_mixed.jsonl", events.clone());
    check(
        "ledger_events_limit3",
        "ledger_workflow_run.jsonl",
        RunsOptions { limit: 3, ..events },
    );
    let run = RunsOptions {
        run: Some("01a23725-6f95-73c9-8cfe-c24a42626895".into()),
        limit: 1,
        ..RunsOptions::default()
    };
    check("staged_run", "events_staged_run.jsonl", run);
}

#[test]
fn nothing_recorded_says_how_to_record() {
    check("missing", "no_such_file.jsonl", RunsOptions::default());
}

#[test]
fn a_jsonl_file_is_filtered_by_pipeline_and_run() {
    let events = vector_events("ledger_workflow_run.jsonl");
    assert_eq!(
        select_events(events.clone(), Some("daily_orders"), None).len(),
        4
    );
    assert_eq!(select_events(events.clone(), Some("nobody"), None).len(), 0);
    let run = "01a23726-21f9-7567-9bd0-2032250340e6";
    assert_eq!(select_events(events, None, Some(run)).len(), 2);
}

#[test]
fn json_has_the_same_rows() {
    let events = vector_events("runs_mixed.jsonl");
    let value = runs_json(
        &events,
        "x.jsonl",
        &RunsOptions {
            limit: 1,
            ..RunsOptions::default()
        },
    );
    assert_eq!(value["where"], json!("x.jsonl"));
    assert_eq!(
        value["runs"],
        json!([{
            "run_id": "01a30000-0000-7000-8000-eeeeeeeeeeee", "attempt": 1, "pipeline": "tidy",
            "table": null, "started_at": "2026-08-03T01:00:04.250007+00:00",
            "status": "upstream_failed", "rows_read": null, "rows_written": null,
            "snapshot_id": null, "idempotency_key": null, "duration_s": 0.0, "checks": null,
            "workflow": "nightly", "task_id": "tidy",
            "workflow_run_id": "01a30000-0000-7000-8000-cccccccccccc", "is_workflow": false
        }])
    );
    let value = runs_json(
        &events,
        "x",
        &RunsOptions {
            events: true,
            limit: 2,
            ..RunsOptions::default()
        },
    );
    assert_eq!(value["events"].as_array().map(Vec::len), Some(2));
    assert_eq!(value["events"][1]["type"], json!("workflow.finished"));
    let empty = runs_json(&[], "x", &RunsOptions::default());
    assert_eq!(empty, json!({"where": "x", "runs": []}));
}

#[test]
fn summaries_keep_the_last_attempt() {
    let events = vector_events("runs_mixed.jsonl");
    let last = summarize_runs(&events, true);
    let all = summarize_runs(&events, false);
    assert_eq!((last.len(), all.len()), (5, 6));
    let orders = last
        .iter()
        .find(|run| run.run_id.ends_with("dddddddddddd"))
        .expect("the retried task");
    assert_eq!(
        (orders.attempt, orders.status.as_str()),
        (2, Some("published"))
    );
}
