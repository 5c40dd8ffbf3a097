//! `tests/vectors/events_staged_run.jsonl`: the five events of a staged run, rebuilt with the
//! emitter and the typed payloads.

use std::collections::BTreeMap;

use arrow_schema::{DataType, Field, Schema, TimeUnit};
use ldp_events::payload::{
    COMPATIBLE_VERSION, CheckOutcome, Extracted, Finished, Outcome, Publish, QualityEvaluated,
    SchemaField, SnapshotSummary, Started, WriteFacts, Written,
};
use ldp_events::{CollectSink, DatasetRef, RunEvents};
use serde_json::json;

use crate::{assert_same_lines, replay_clock, vector_events, vector_lines};

const RUN_ID: &str = "01a23725-6f95-73c9-8cfe-c24a42626895";
const KEY: &str = "62831bc16852034866a7b4b9869fcdabe016ba9bfdac1f07d73a9d265f3315c6";
const SPEC_HASH: &str = "741fb6df6f2b264c5ece46ffb6af73983009a454619a4737485c46ed26298c5e";
const SNAPSHOT: i64 = 1400909108394497822;
const TABLE_UUID: &str = "795d01f3-e74b-44f7-90c9-e5b30102877b";

fn rides_schema() -> Vec<SchemaField> {
    SchemaField::from_schema(&Schema::new(vec![
        Field::new("ride_id", DataType::Int64, true),
        Field::new(
            "pickup_ts",
            DataType::Timestamp(TimeUnit::Second, None),
            true,
        ),
        Field::new("fare", DataType::Float64, true),
        Field::new("city", DataType::Utf8, true),
    ]))
}

fn started() -> Started {
    Started {
        mode: Some("upsert".into()),
        publish: Publish::Staged,
        idempotency_key: Some(KEY.into()),
        spec_hash: Some(SPEC_HASH.into()),
        logical_window: Some((
            "2026-08-01T00:00:00Z".parse().expect("instant"),
            "2026-08-02T00:00:00Z".parse().expect("instant"),
        )),
        // The Python tool wrote the absolute path; the vector replaced the project folder.
        source: DatasetRef {
            namespace: "file".into(),
            name: "<project>/data/rides.csv".into(),
            format: Some("CSV".into()),
            table_identifier: None,
        },
        target: DatasetRef::iceberg(
            "nyc.rides",
            Some("file://<project>/warehouse/"),
            "nyc",
            None,
        ),
        ldp_version: COMPATIBLE_VERSION.into(),
        transforms: Vec::new(),
        inputs: Vec::new(),
    }
}

fn quality() -> QualityEvaluated {
    QualityEvaluated {
        rows: 3,
        schema: rides_schema(),
        null_counts: ["ride_id", "pickup_ts", "fare", "city"]
            .into_iter()
            .map(|c| (c.to_owned(), 0))
            .collect(),
        on_failure: "fail".into(),
        results: vec![
            CheckOutcome {
                name: "not_null(ride_id, pickup_ts)".into(),
                passed: true,
                failing_rows: 0,
                details: "no nulls in ride_id, pickup_ts (3 rows)".into(),
                metrics: json!({"null_counts": {"ride_id": 0, "pickup_ts": 0}, "row_count": 3}),
            },
            CheckOutcome {
                name: "unique(ride_id)".into(),
                passed: true,
                failing_rows: 0,
                details: "ride_id is unique over 3 rows".into(),
                metrics: json!({"distinct_keys": 3, "duplicate_keys": 0, "duplicate_rows": 0,
                                "null_key_rows": 0, "row_count": 3, "sample": []}),
            },
            CheckOutcome {
                name: "range(fare)".into(),
                passed: true,
                failing_rows: 0,
                details: "every non-null value satisfies fare >= 0".into(),
                metrics: json!({"below_min": 0, "column_type": "double", "nan_count": 0,
                                "null_count": 0, "observed_max": 30.25, "observed_min": 8.0,
                                "row_count": 3}),
            },
        ],
    }
}

fn written() -> Written {
    let properties: BTreeMap<String, String> = [
        ("added-data-files", "1"),
        ("added-files-size", "1757"),
        ("added-records", "3"),
        ("changed-partition-count", "1"),
        ("ldp.attempt", "1"),
        ("ldp.idempotency-key", KEY),
        (
            "ldp.logical-window",
            "2026-08-01T00:00:00+00:00/2026-08-02T00:00:00+00:00",
        ),
        ("ldp.run-id", RUN_ID),
        ("ldp.spec-hash", SPEC_HASH),
        ("total-data-files", "1"),
        ("total-delete-files", "0"),
        ("total-equality-deletes", "0"),
        ("total-files-size", "1757"),
        ("total-position-deletes", "0"),
        ("total-records", "3"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    Written {
        skipped_duplicate: false,
        rows_written: 3,
        snapshot_id: Some(SNAPSHOT),
        idempotency_key: Some(KEY.into()),
        write: Some(WriteFacts {
            table_identifier: "nyc.rides".into(),
            mode: "upsert".into(),
            rows_written: 3,
            rows_before: 0,
            rows_after: 3,
            snapshot_id: Some(SNAPSHOT),
            branch: Some("ldp_r01a237256f9573c98cfec24a42626895_a1_0".into()),
            idempotency_key: Some(KEY.into()),
            attempts: 1,
            skipped_duplicate: false,
        }),
        snapshot_summary: Some(SnapshotSummary {
            operation: "append".into(),
            properties,
        }),
    }
}

#[test]
fn a_staged_run_gives_the_reference_events() {
    let reference = vector_events("events_staged_run.jsonl");
    let sink = CollectSink::new();
    let mut events = RunEvents::for_pipeline(RUN_ID, 1, "rides", Some("nyc.rides"))
        .with_sink(Box::new(sink.clone()))
        .with_clock(replay_clock(&reference));
    events.record_with_table(&started(), None);
    events.record(&Extracted {
        rows_read: 3,
        rows_kept: None,
        schema: rides_schema(),
    });
    events.record(&quality());
    events.record_with_table(&written(), Some(TABLE_UUID));
    events.record(&Finished {
        outcome: Outcome::Written {
            skipped_duplicate: false,
            published_snapshot_id: Some(SNAPSHOT),
            quality_passed: Some(true),
        },
        duration_s: 0.5412,
        rows_read: Some(3),
        rows_written: Some(3),
        idempotency_key: Some(KEY.into()),
    });
    events.close();
    assert_eq!(sink.closes(), 1);
    assert_same_lines(&sink.events(), &vector_lines("events_staged_run.jsonl"));
}

#[test]
fn event_ids_are_uuid7_in_order() {
    let sink = CollectSink::new();
    let mut events =
        RunEvents::for_pipeline(RUN_ID, 1, "rides", None).with_sink(Box::new(sink.clone()));
    events.record(&started());
    events.record(&started());
    let built = sink.events();
    assert!(built[0].event_id < built[1].event_id);
    assert_eq!(built[0].payload["table"], json!(null));
    assert_eq!(&built[0].event_id[14..15], "7");
}
