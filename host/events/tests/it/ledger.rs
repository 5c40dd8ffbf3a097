//! `tests/vectors/ledger_workflow_run.jsonl`: a workflow run's ledger (the workflow's events,
//! a pipeline task found already published, a `maintain` task the runner reports for), rebuilt
//! with the emitter's context and tags.

use ldp_events::payload::{
    COMPATIBLE_VERSION, Finished, Outcome, Publish, SnapshotSummary, Started, TaskFinished,
    TaskStarted, WorkflowFinished, WorkflowStarted, WorkflowTask, WriteFacts, Written,
};
use ldp_events::{CollectSink, DatasetRef, RunEvents};
use serde_json::{Map, json};

use crate::{assert_same_lines, replay_clock, vector_events, vector_lines};

const WORKFLOW_RUN: &str = "01a23726-2181-72d2-9406-ce5d5b50f498";
const SECOND_WORKFLOW_RUN: &str = "01a23726-2f97-769b-91ca-39d9b0364247";
const SPEC_HASH: &str = "570dfc2cd5c08d6407afd766ea9f9cd2aaedcab243c6cd7e20bb0569fb922ae5";
const KEY: &str = "f63702ff77becf5ba0f844118617982aacb704eb9e044fdd1e896e62d22921be";
const SNAPSHOT: i64 = 7959553903485664437;
const TABLE_UUID: &str = "809f83ac-d641-473a-92b7-9ec6f98e5a1d";

fn instant(text: &str) -> jiff::Timestamp {
    text.parse().expect("an instant")
}

fn tasks() -> Vec<WorkflowTask> {
    vec![
        WorkflowTask {
            id: "orders".into(),
            kind: "pipeline".into(),
            depends_on: vec![],
            max_attempts: 2,
        },
        WorkflowTask {
            id: "tidy".into(),
            kind: "maintain".into(),
            depends_on: vec!["orders".into()],
            max_attempts: 2,
        },
    ]
}

fn workflow_events(run_id: &str) -> RunEvents {
    RunEvents::new(run_id, 1)
        .with_context("pipeline", "nightly")
        .with_context("workflow", "nightly")
        .with_context("workflow_run_id", run_id)
}

fn orders_started(day: &str, window: (&str, &str), key: &str) -> Started {
    Started {
        mode: Some("overwrite".into()),
        publish: Publish::Staged,
        idempotency_key: Some(key.into()),
        spec_hash: Some(SPEC_HASH.into()),
        logical_window: Some((instant(window.0), instant(window.1))),
        source: DatasetRef {
            namespace: "file".into(),
            name: format!("<project>/shop/drops/orders_{day}.csv"),
            format: Some("CSV".into()),
            table_identifier: None,
        },
        target: DatasetRef::iceberg(
            "shop.orders",
            Some("file://<project>/shop/warehouse"),
            "shop",
            None,
        ),
        ldp_version: COMPATIBLE_VERSION.into(),
        transforms: Vec::new(),
        inputs: Vec::new(),
    }
}

fn summary() -> SnapshotSummary {
    let properties = [
        ("added-data-files", "1"),
        ("added-files-size", "1450"),
        ("added-records", "3"),
        ("ldp.attempt", "1"),
        ("ldp.idempotency-key", KEY),
        (
            "ldp.logical-window",
            "2026-07-31T22:00:00+00:00/2026-08-01T22:00:00+00:00",
        ),
        ("ldp.run-id", "01a23725-e7d8-76ad-acf3-c7bc5513f030"),
        ("ldp.spec-hash", SPEC_HASH),
        ("total-data-files", "1"),
        ("total-delete-files", "0"),
        ("total-equality-deletes", "0"),
        ("total-files-size", "1450"),
        ("total-position-deletes", "0"),
        ("total-records", "3"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    SnapshotSummary {
        operation: "append".into(),
        properties,
    }
}

#[test]
fn a_workflow_ledger_gives_the_reference_events() {
    let reference = vector_events("ledger_workflow_run.jsonl");
    let clock = replay_clock(&reference);
    let sink = CollectSink::new();

    let mut workflow = workflow_events(WORKFLOW_RUN)
        .with_sink(Box::new(sink.clone()))
        .with_clock(clock.clone());
    workflow.record(&WorkflowStarted {
        window: (
            instant("2026-07-31T22:00:00Z"),
            instant("2026-08-01T22:00:00Z"),
        ),
        schedule: Some("5 2 * * *".into()),
        tasks: tasks(),
        replace: false,
        ldp_version: COMPATIBLE_VERSION.into(),
    });

    let mut orders = RunEvents::for_pipeline(
        "01a23726-21be-71f0-9a0e-78f397029cb6",
        1,
        "daily_orders",
        Some("shop.orders"),
    )
    .with_workflow_tags("nightly", WORKFLOW_RUN, "orders")
    .with_sink(Box::new(sink.clone()))
    .with_clock(clock.clone());
    orders.record_with_table(
        &orders_started(
            "2026-08-01",
            ("2026-07-31T22:00:00Z", "2026-08-01T22:00:00Z"),
            KEY,
        ),
        Some(TABLE_UUID),
    );
    orders.record_with_table(
        &Written {
            skipped_duplicate: true,
            rows_written: 0,
            snapshot_id: Some(SNAPSHOT),
            idempotency_key: Some(KEY.into()),
            write: Some(WriteFacts {
                table_identifier: "shop.orders".into(),
                mode: "overwrite".into(),
                rows_written: 0,
                rows_before: 5,
                rows_after: 5,
                snapshot_id: Some(SNAPSHOT),
                branch: None,
                idempotency_key: Some(KEY.into()),
                attempts: 0,
                skipped_duplicate: true,
            }),
            snapshot_summary: Some(summary()),
        },
        None,
    );
    orders.record(&Finished {
        outcome: Outcome::Written {
            skipped_duplicate: true,
            published_snapshot_id: Some(SNAPSHOT),
            quality_passed: None,
        },
        duration_s: 0.0341,
        rows_read: None,
        rows_written: Some(0),
        idempotency_key: Some(KEY.into()),
    });
    orders.close();

    let mut tidy = RunEvents::new("01a23726-21f9-7567-9bd0-2032250340e6", 1)
        .with_context("pipeline", "tidy")
        .with_context("task_kind", "maintain")
        .with_workflow_tags("nightly", WORKFLOW_RUN, "tidy")
        .with_sink(Box::new(sink.clone()))
        .with_clock(clock.clone());
    tidy.record(&TaskStarted);
    let mut detail = Map::new();
    detail.insert("dry_run".into(), json!(true));
    detail.insert("snapshots_to_expire".into(), json!(0));
    detail.insert("table".into(), json!("shop.orders"));
    tidy.record(&TaskFinished {
        status: "succeeded".into(),
        duration_s: 0.009,
        detail,
    });
    tidy.close();

    workflow.record(&WorkflowFinished {
        status: "succeeded".into(),
        duration_s: 0.129,
        counts: vec![("skipped_duplicate".into(), 1), ("succeeded".into(), 1)],
        tasks: vec![
            ("orders".into(), "skipped_duplicate".into()),
            ("tidy".into(), "succeeded".into()),
        ],
    });
    workflow.close();

    // The next night's run, cut short in the sample after its first task started.
    let mut second = workflow_events(SECOND_WORKFLOW_RUN)
        .with_sink(Box::new(sink.clone()))
        .with_clock(clock.clone());
    second.record(&WorkflowStarted {
        window: (
            instant("2026-08-01T22:00:00Z"),
            instant("2026-08-02T22:00:00Z"),
        ),
        schedule: Some("5 2 * * *".into()),
        tasks: tasks(),
        replace: false,
        ldp_version: COMPATIBLE_VERSION.into(),
    });
    let mut next = RunEvents::for_pipeline(
        "01a23726-2f98-7590-803c-2b5e288f830f",
        1,
        "daily_orders",
        Some("shop.orders"),
    )
    .with_workflow_tags("nightly", SECOND_WORKFLOW_RUN, "orders")
    .with_sink(Box::new(sink.clone()))
    .with_clock(clock);
    next.record_with_table(
        &orders_started(
            "2026-08-02",
            ("2026-08-01T22:00:00Z", "2026-08-02T22:00:00Z"),
            "b1ceeb08f23f218a51dfaaa49784725494a043ef996f8e3618848e35ae119f03",
        ),
        Some(TABLE_UUID),
    );

    assert_same_lines(&sink.events(), &vector_lines("ledger_workflow_run.jsonl"));
}

#[test]
fn a_replace_run_and_an_upstream_failure() {
    let sink = CollectSink::new();
    let mut workflow = workflow_events("w").with_sink(Box::new(sink.clone()));
    workflow.record(&WorkflowStarted {
        window: (
            instant("2026-08-01T22:00:00.25Z"),
            instant("2026-08-02T22:00:00Z"),
        ),
        schedule: None,
        tasks: vec![WorkflowTask {
            id: "t".into(),
            kind: "dbt".into(),
            depends_on: vec![],
            max_attempts: 1,
        }],
        replace: true,
        ldp_version: COMPATIBLE_VERSION.into(),
    });
    let mut detail = Map::new();
    detail.insert("blocked_by".into(), json!(["orders"]));
    workflow.record(&TaskFinished {
        status: "upstream_failed".into(),
        duration_s: 0.0,
        detail,
    });
    let built = sink.events();
    assert_eq!(
        serde_json::Value::Object(built[0].payload.clone()),
        json!({"pipeline": "nightly", "workflow": "nightly", "workflow_run_id": "w",
               "window": ["2026-08-01T22:00:00.250000Z", "2026-08-02T22:00:00Z"], "schedule": null,
               "tasks": [{"id": "t", "kind": "dbt", "depends_on": []}], "ldp_version": "0.1.3",
               "replace": true})
    );
    assert!(
        built[1]
            .to_line()
            .contains(r#""blocked_by":["orders"],"duration_s":0.0,"#)
    );
}
