//! The ledger read: window records, run statuses, continuations.

use std::collections::BTreeMap;

use ldp_orchestrate::scheduling::{RunStatus, read_windows, run_status, trace_runs};

use super::DATA;
use crate::tests_dir;

const FIRST: &str = "2026-07-31T22:00:00Z";
const SECOND: &str = "2026-08-01T22:00:00Z";
const THIRD: &str = "2026-08-02T22:00:00Z";

fn key(start: &str, end: &str) -> (String, String) {
    (start.to_owned(), end.to_owned())
}

#[test]
fn sample_ledger() {
    let path = tests_dir(DATA).join("ledger_workflow_run.jsonl");
    let windows = read_windows(&path, "nightly");
    assert_eq!(windows.len(), 2);
    let first = &windows[&key(FIRST, SECOND)];
    assert_eq!(
        (first.run_id.as_str(), first.attempt),
        ("01a23726-2181-72d2-9406-ce5d5b50f498", 1)
    );
    assert_eq!(first.status(&["orders", "tidy"]), "succeeded");
    // A task added since the run makes it incomplete.
    assert_eq!(first.status(&["orders", "tidy", "gold"]), "incomplete");
    let second = &windows[&key(SECOND, THIRD)];
    assert_eq!(second.tasks, None);
    assert_eq!(second.status(&["orders", "tidy"]), "unfinished");
    assert!(read_windows(&path, "daily_orders").is_empty());
    assert!(read_windows(&tests_dir(DATA).join("missing.jsonl"), "nightly").is_empty());

    let traced = trace_runs(&path, &["01a23726-2f97-769b-91ca-39d9b0364247", "nope"]);
    assert_eq!(traced.len(), 1);
    let carried = &traced["01a23726-2f97-769b-91ca-39d9b0364247"];
    assert_eq!(carried.attempt, 1);
    assert_eq!(
        carried.task("orders"),
        (Some("01a23726-2f98-7590-803c-2b5e288f830f"), 1)
    );
    assert_eq!(carried.task("tidy"), (None, 0));
}

#[test]
fn statuses() {
    let tasks = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(id, status)| ((*id).to_owned(), (*status).to_owned()))
            .collect()
    };
    let ids = ["a", "b"];
    assert_eq!(run_status(None, &ids), None);
    assert_eq!(
        run_status(
            Some(&tasks(&[("a", "failed"), ("b", "blocked_quality")])),
            &ids
        ),
        Some(RunStatus::Failed)
    );
    assert_eq!(
        run_status(
            Some(&tasks(&[("a", "published"), ("b", "blocked_quality")])),
            &ids
        ),
        Some(RunStatus::Blocked)
    );
    assert_eq!(
        run_status(
            Some(&tasks(&[("a", "published"), ("b", "skipped_duplicate")])),
            &ids
        ),
        Some(RunStatus::Succeeded)
    );
    assert_eq!(
        run_status(
            Some(&tasks(&[("a", "published"), ("b", "upstream_failed")])),
            &ids
        ),
        Some(RunStatus::Incomplete)
    );
    assert_eq!(RunStatus::Blocked.as_str(), "blocked");
}

#[test]
fn retried_runs_and_broken_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("events.jsonl");
    let started = |run: &str, attempt: u64, start: &str, end: &str| {
        format!(
            r#"{{"attempt":{attempt},"payload":{{"workflow":"w","window":["{start}","{end}"],"workflow_run_id":"{run}"}},"run_id":"{run}","type":"workflow.started"}}"#
        )
    };
    let task = |run: &str, task_run: &str, attempt: u64| {
        format!(
            r#"{{"attempt":{attempt},"payload":{{"task_id":"t","workflow":"w","workflow_run_id":"{run}"}},"run_id":"{task_run}","type":"run.started"}}"#
        )
    };
    let finished = |run: &str, attempt: u64, status: &str| {
        format!(
            r#"{{"attempt":{attempt},"payload":{{"workflow":"w","tasks":{{"t":"{status}"}}}},"run_id":"{run}","type":"workflow.finished"}}"#
        )
    };
    let lines = [
        started("r1", 1, FIRST, SECOND),
        task("r1", "t1", 1),
        finished("r1", 1, "failed"),
        // The next tick carries the run on as attempt 2 and is cut short by a crash.
        started("r1", 2, FIRST, SECOND),
        task("r1", "t1", 2),
        r#"{"attempt":2,"payload":{"workflow":"w","#.to_owned(),
        // Another workflow in the same ledger, and a line that is not JSON.
        r#"{"attempt":1,"payload":{"workflow":"other","window":["a","b"]},"run_id":"x","type":"workflow.started"}"#.to_owned(),
        "not json".to_owned(),
        started("r2", 0, SECOND, THIRD),
        finished("r2", 1, "blocked_quality"),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let windows = read_windows(&path, "w");
    assert_eq!(windows.len(), 2);
    let first = &windows[&key(FIRST, SECOND)];
    assert_eq!((first.run_id.as_str(), first.attempt), ("r1", 2));
    // The last finished run of the window failed; the second attempt never finished.
    assert_eq!(first.status(&["t"]), "failed");
    let second = &windows[&key(SECOND, THIRD)];
    assert_eq!((second.attempt, second.status(&["t"])), (1, "blocked"));
    let traced = trace_runs(&path, &["r1"]);
    assert_eq!(traced["r1"].attempt, 2);
    assert_eq!(traced["r1"].task("t"), (Some("t1"), 2));
    assert!(trace_runs(&path, &[]).is_empty());
}
