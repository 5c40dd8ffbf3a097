//! `_ldp.runs` and `_ldp.quality_results` rows of the Python tool's staged run, and back.

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use ldp_events::system_tables::{
    PARTITION_FIELD, QUALITY_TABLE, RUNS_TABLE, SYSTEM_NAMESPACE, SYSTEM_TABLE_PROPERTIES,
    events_from_runs_batch, quality_results_batch, quality_results_schema, runs_batch, runs_schema,
};

use crate::vector_events;

fn texts(batch: &RecordBatch, column: &str) -> Vec<Option<String>> {
    let array = batch
        .column_by_name(column)
        .expect("the column")
        .as_string::<i32>();
    (0..array.len())
        .map(|i| (!array.is_null(i)).then(|| array.value(i).to_owned()))
        .collect()
}

fn longs(batch: &RecordBatch, column: &str) -> Vec<Option<i64>> {
    let array = batch
        .column_by_name(column)
        .expect("the column")
        .as_primitive::<Int64Type>();
    (0..array.len())
        .map(|i| (!array.is_null(i)).then(|| array.value(i)))
        .collect()
}

fn ints(batch: &RecordBatch, column: &str) -> Vec<Option<i32>> {
    let array = batch
        .column_by_name(column)
        .expect("the column")
        .as_primitive::<Int32Type>();
    (0..array.len())
        .map(|i| (!array.is_null(i)).then(|| array.value(i)))
        .collect()
}

#[test]
fn schemas_are_the_references() {
    let runs = runs_schema();
    let names: Vec<&str> = runs.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(
        names,
        [
            "event_id",
            "type",
            "schema_version",
            "ts",
            "run_id",
            "attempt",
            "seq",
            "table_uuid",
            "pipeline",
            "table_identifier",
            "status",
            "idempotency_key",
            "snapshot_id",
            "payload"
        ]
    );
    assert!(runs.fields().iter().all(|f| f.is_nullable()));
    assert_eq!(
        runs.field_with_name("ts").expect("ts").data_type(),
        &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
    );
    let quality = quality_results_schema();
    let names: Vec<&str> = quality.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(
        names,
        [
            "event_id",
            "ts",
            "run_id",
            "attempt",
            "pipeline",
            "table_identifier",
            "check_index",
            "check_name",
            "column_name",
            "passed",
            "failing_rows",
            "on_failure",
            "details",
            "metrics"
        ]
    );
    assert_eq!(
        quality
            .field_with_name("passed")
            .expect("passed")
            .data_type(),
        &DataType::Boolean
    );
    assert_eq!(
        (SYSTEM_NAMESPACE, RUNS_TABLE, QUALITY_TABLE, PARTITION_FIELD),
        ("_ldp", "runs", "quality_results", "ts_day")
    );
    assert!(SYSTEM_TABLE_PROPERTIES.contains(&("ldp.managed", "true")));
}

#[test]
fn runs_rows_promote_the_useful_fields() {
    let events = vector_events("events_staged_run.jsonl");
    let batch = runs_batch(&events).expect("rows");
    assert_eq!(batch.schema(), runs_schema());
    assert_eq!(batch.num_rows(), 5);
    let key = "62831bc16852034866a7b4b9869fcdabe016ba9bfdac1f07d73a9d265f3315c6".to_owned();
    assert_eq!(
        texts(&batch, "status"),
        [None, None, None, None, Some("published".to_owned())]
    );
    assert_eq!(
        texts(&batch, "idempotency_key"),
        [Some(key.clone()), None, None, Some(key.clone()), Some(key)]
    );
    let snapshot = Some(1400909108394497822);
    assert_eq!(
        longs(&batch, "snapshot_id"),
        [None, None, None, snapshot, snapshot]
    );
    assert_eq!(texts(&batch, "pipeline"), vec![Some("rides".to_owned()); 5]);
    assert_eq!(
        texts(&batch, "table_identifier"),
        vec![Some("nyc.rides".to_owned()); 5]
    );
    assert_eq!(
        ints(&batch, "seq"),
        [Some(0), Some(1), Some(2), Some(3), Some(4)]
    );
    let ts = batch
        .column_by_name("ts")
        .expect("ts")
        .as_primitive::<TimestampMicrosecondType>();
    assert_eq!(ts.value(0), events[0].ts.as_microsecond());
    for (event, payload) in events.iter().zip(texts(&batch, "payload")) {
        let payload = payload.expect("a payload");
        assert!(event.to_line().contains(&format!("\"payload\":{payload},")));
    }
}

#[test]
fn runs_rows_read_back_to_the_same_events() {
    for vector in [
        "events_staged_run.jsonl",
        "ledger_workflow_run.jsonl",
        "runs_mixed.jsonl",
    ] {
        let events = vector_events(vector);
        let batch = runs_batch(&events).expect("rows");
        assert_eq!(
            events_from_runs_batch(&batch).expect("events"),
            events,
            "{vector}"
        );
    }
}

#[test]
fn quality_rows_are_one_per_result() {
    let events = vector_events("events_staged_run.jsonl");
    let batch = quality_results_batch(&events).expect("rows");
    assert_eq!(batch.schema(), quality_results_schema());
    assert_eq!(batch.num_rows(), 3);
    assert_eq!(ints(&batch, "check_index"), [Some(0), Some(1), Some(2)]);
    assert_eq!(
        texts(&batch, "column_name"),
        [None, Some("ride_id".to_owned()), Some("fare".to_owned())]
    );
    assert_eq!(
        texts(&batch, "on_failure"),
        vec![Some("fail".to_owned()); 3]
    );
    assert_eq!(longs(&batch, "failing_rows"), [Some(0); 3]);
    let passed = batch.column_by_name("passed").expect("passed").as_boolean();
    assert!((0..3).all(|i| passed.value(i)));
    assert_eq!(
        texts(&batch, "metrics")[2].as_deref(),
        Some(
            r#"{"below_min":0,"column_type":"double","nan_count":0,"null_count":0,"observed_max":30.25,"observed_min":8.0,"row_count":3}"#
        )
    );
    assert_eq!(
        texts(&batch, "event_id"),
        vec![Some(events[2].event_id.clone()); 3]
    );
    assert_eq!(
        quality_results_batch(&events[..2])
            .expect("rows")
            .num_rows(),
        0
    );
}
