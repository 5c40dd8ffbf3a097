//! The `_ldp` system tables (namespace `_ldp` in the sink's catalog): the Arrow schemas of
//! `_ldp.runs` and `_ldp.quality_results`, their rows built from events, the table properties
//! and partition they are created with, and the reverse, `_ldp.runs` rows back to events for
//! `ldp runs`.
//!
//! The Iceberg side (creating the tables on the first flush, appending once per run with up to
//! [`COMMIT_TRIES`] tries on conflicts) belongs to the host's table layer.

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Int32Builder, Int64Builder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int8Type, Int16Type, Int32Type, Int64Type, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type, UInt32Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use jiff::Timestamp;
use serde_json::{Map, Value};

use crate::envelope::{Event, canonical};
use crate::error::EventsError;
use crate::pyvalue::int_or_none;
use crate::time::isoformat;

/// The namespace of the system tables, in the sink's catalog.
pub const SYSTEM_NAMESPACE: &str = "_ldp";
/// `_ldp.runs`: one row per event.
pub const RUNS_TABLE: &str = "runs";
/// `_ldp.quality_results`: one row per check result of each `quality.evaluated` event.
pub const QUALITY_TABLE: &str = "quality_results";
/// The properties the system tables are created with.
pub const SYSTEM_TABLE_PROPERTIES: [(&str, &str); 4] = [
    ("ldp.managed", "true"),
    ("ldp.system", "events"),
    ("write.metadata.delete-after-commit.enabled", "true"),
    ("write.metadata.previous-versions-max", "50"),
];
/// The summary property every append to a system table carries.
pub const APPEND_SUMMARY: (&str, &str) = ("ldp.system", "events");
/// The column the tables are partitioned by, with the `day` transform ([`PARTITION_FIELD`]).
pub const PARTITION_SOURCE: &str = "ts";
/// The partition field's name (`day(ts)`).
pub const PARTITION_FIELD: &str = "ts_day";
/// Commit tries of one append when other writers conflict.
pub const COMMIT_TRIES: u32 = 6;
/// Buffered events that trigger an append before the run ends (the `iceberg` sink's default
/// `batch_size`).
pub const DEFAULT_BATCH_SIZE: usize = 500;

fn ts_type() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

fn schema(fields: &[(&str, DataType)]) -> SchemaRef {
    Arc::new(Schema::new(
        fields
            .iter()
            .map(|(name, data_type)| Field::new(*name, data_type.clone(), true))
            .collect::<Vec<_>>(),
    ))
}

/// The Arrow schema of `_ldp.runs` (every column nullable, `ts` timestamp µs UTC).
pub fn runs_schema() -> SchemaRef {
    use DataType::{Int32, Int64, Utf8};
    schema(&[
        ("event_id", Utf8),
        ("type", Utf8),
        ("schema_version", Int32),
        ("ts", ts_type()),
        ("run_id", Utf8),
        ("attempt", Int32),
        ("seq", Int32),
        ("table_uuid", Utf8),
        ("pipeline", Utf8),
        ("table_identifier", Utf8),
        ("status", Utf8),
        ("idempotency_key", Utf8),
        ("snapshot_id", Int64),
        ("payload", Utf8),
    ])
}

/// The Arrow schema of `_ldp.quality_results` (every column nullable).
pub fn quality_results_schema() -> SchemaRef {
    use DataType::{Boolean, Int32, Int64, Utf8};
    schema(&[
        ("event_id", Utf8),
        ("ts", ts_type()),
        ("run_id", Utf8),
        ("attempt", Int32),
        ("pipeline", Utf8),
        ("table_identifier", Utf8),
        ("check_index", Int32),
        ("check_name", Utf8),
        ("column_name", Utf8),
        ("passed", Boolean),
        ("failing_rows", Int64),
        ("on_failure", Utf8),
        ("details", Utf8),
        ("metrics", Utf8),
    ])
}

fn int32(value: i64) -> Option<i32> {
    i32::try_from(value).ok()
}

fn text(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str)
}

fn batch(
    table: &'static str,
    schema: SchemaRef,
    columns: Vec<ArrayRef>,
) -> Result<RecordBatch, EventsError> {
    RecordBatch::try_new(schema, columns).map_err(|source| EventsError::Arrow { table, source })
}

/// The rows of `_ldp.runs` for `events`, one per event: the envelope, `pipeline`,
/// `table_identifier` (payload `table`), `status` (`run.finished` only), `idempotency_key`,
/// `snapshot_id` (payload `published_snapshot_id` when present, else `snapshot_id`) and the
/// payload as canonical JSON.
///
/// # Errors
///
/// [`EventsError::Arrow`], which the schema rules out.
pub fn runs_batch(events: &[Event]) -> Result<RecordBatch, EventsError> {
    let n = events.len();
    let mut event_id = StringBuilder::with_capacity(n, n * 36);
    let mut event_type = StringBuilder::new();
    let mut schema_version = Int32Builder::with_capacity(n);
    let mut ts = TimestampMicrosecondBuilder::with_capacity(n).with_timezone("UTC");
    let mut run_id = StringBuilder::new();
    let mut attempt = Int32Builder::with_capacity(n);
    let mut seq = Int32Builder::with_capacity(n);
    let mut table_uuid = StringBuilder::new();
    let mut pipeline = StringBuilder::new();
    let mut table_identifier = StringBuilder::new();
    let mut status = StringBuilder::new();
    let mut idempotency_key = StringBuilder::new();
    let mut snapshot_id = Int64Builder::with_capacity(n);
    let mut payload = StringBuilder::new();
    for event in events {
        let p = &event.payload;
        event_id.append_value(&event.event_id);
        event_type.append_value(&event.event_type);
        schema_version.append_option(int32(event.schema_version));
        ts.append_value(event.ts.as_microsecond());
        run_id.append_value(&event.run_id);
        attempt.append_option(int32(event.attempt));
        seq.append_option(int32(event.seq));
        table_uuid.append_option(event.table_uuid.as_deref());
        pipeline.append_option(text(p.get("pipeline")));
        table_identifier.append_option(text(p.get("table")));
        status.append_option(if event.event_type == "run.finished" {
            text(p.get("status"))
        } else {
            None
        });
        idempotency_key.append_option(text(p.get("idempotency_key")));
        let snapshot = if p.contains_key("published_snapshot_id") {
            p.get("published_snapshot_id")
        } else {
            p.get("snapshot_id")
        };
        snapshot_id.append_option(int_or_none(snapshot));
        payload.append_value(event.payload_json());
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(event_id.finish()),
        Arc::new(event_type.finish()),
        Arc::new(schema_version.finish()),
        Arc::new(ts.finish()),
        Arc::new(run_id.finish()),
        Arc::new(attempt.finish()),
        Arc::new(seq.finish()),
        Arc::new(table_uuid.finish()),
        Arc::new(pipeline.finish()),
        Arc::new(table_identifier.finish()),
        Arc::new(status.finish()),
        Arc::new(idempotency_key.finish()),
        Arc::new(snapshot_id.finish()),
        Arc::new(payload.finish()),
    ];
    batch("_ldp.runs", runs_schema(), columns)
}

/// The rows of `_ldp.quality_results` for the `quality.evaluated` events among `events`: one
/// per result, with its index, name, column, verdict, failing rows, the run's `on_failure`,
/// the details and the metrics as canonical JSON. Other events give no rows.
///
/// # Errors
///
/// [`EventsError::Arrow`], which the schema rules out.
pub fn quality_results_batch(events: &[Event]) -> Result<RecordBatch, EventsError> {
    let mut event_id = StringBuilder::new();
    let mut ts = TimestampMicrosecondBuilder::new().with_timezone("UTC");
    let mut run_id = StringBuilder::new();
    let mut attempt = Int32Builder::new();
    let mut pipeline = StringBuilder::new();
    let mut table_identifier = StringBuilder::new();
    let mut check_index = Int32Builder::new();
    let mut check_name = StringBuilder::new();
    let mut column_name = StringBuilder::new();
    let mut passed = BooleanBuilder::new();
    let mut failing_rows = Int64Builder::new();
    let mut on_failure = StringBuilder::new();
    let mut details = StringBuilder::new();
    let mut metrics = StringBuilder::new();
    let empty = Value::Object(Map::new());
    for event in events
        .iter()
        .filter(|e| e.event_type == "quality.evaluated")
    {
        let p = &event.payload;
        let Some(Value::Array(results)) = p.get("results") else {
            continue;
        };
        for (index, result) in results.iter().enumerate() {
            let field = |key: &str| result.get(key);
            event_id.append_value(&event.event_id);
            ts.append_value(event.ts.as_microsecond());
            run_id.append_value(&event.run_id);
            attempt.append_option(int32(event.attempt));
            pipeline.append_option(text(p.get("pipeline")));
            table_identifier.append_option(text(p.get("table")));
            check_index.append_option(i32::try_from(index).ok());
            check_name.append_option(text(field("name")));
            column_name.append_option(text(field("column")));
            passed.append_value(field("passed").is_some_and(crate::pyvalue::truthy));
            failing_rows.append_option(int_or_none(field("failing_rows")));
            on_failure.append_option(text(p.get("on_failure")));
            details.append_option(text(field("details")));
            let metric = field("metrics")
                .filter(|m| crate::pyvalue::truthy(m))
                .unwrap_or(&empty);
            metrics.append_value(canonical(metric));
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(event_id.finish()),
        Arc::new(ts.finish()),
        Arc::new(run_id.finish()),
        Arc::new(attempt.finish()),
        Arc::new(pipeline.finish()),
        Arc::new(table_identifier.finish()),
        Arc::new(check_index.finish()),
        Arc::new(check_name.finish()),
        Arc::new(column_name.finish()),
        Arc::new(passed.finish()),
        Arc::new(failing_rows.finish()),
        Arc::new(on_failure.finish()),
        Arc::new(details.finish()),
        Arc::new(metrics.finish()),
    ];
    batch("_ldp.quality_results", quality_results_schema(), columns)
}

/// The events held by rows of `_ldp.runs` (read from the `payload` column and the envelope
/// columns), in row order. Rows that are not events are skipped with a warning. Sort them with
/// [`crate::sort_events`] for `ldp runs`.
///
/// # Errors
///
/// [`EventsError::Column`] when a column has a type no writer gives it.
pub fn events_from_runs_batch(batch: &RecordBatch) -> Result<Vec<Event>, EventsError> {
    const KEYS: [&str; 9] = [
        "event_id",
        "type",
        "schema_version",
        "ts",
        "run_id",
        "attempt",
        "seq",
        "table_uuid",
        "payload",
    ];
    let mut columns = Vec::new();
    for key in KEYS {
        if let Some(array) = batch.column_by_name(key) {
            columns.push((key, readable(key, array)?));
        }
    }
    let mut events = Vec::with_capacity(batch.num_rows());
    for row in 0..batch.num_rows() {
        let mut object = Map::new();
        for (key, column) in &columns {
            object.insert((*key).to_owned(), column.value(row));
        }
        match Event::from_value(&Value::Object(object)) {
            Ok(event) => events.push(event),
            Err(error) => tracing::warn!("Skipping a row of _ldp.runs: {error}"),
        }
    }
    Ok(events)
}

enum Readable<'a> {
    Text(&'a ArrayRef),
    Int(Vec<Option<i64>>),
    Time(Vec<Option<Timestamp>>),
}

impl Readable<'_> {
    fn value(&self, row: usize) -> Value {
        match self {
            Readable::Text(array) => text_at(array, row).map_or(Value::Null, Value::from),
            Readable::Int(values) => values[row].map_or(Value::Null, Value::from),
            Readable::Time(values) => {
                values[row].map_or(Value::Null, |ts| Value::from(isoformat(ts)))
            }
        }
    }
}

fn text_at(array: &ArrayRef, row: usize) -> Option<String> {
    if array.is_null(row) {
        return None;
    }
    match array.data_type() {
        DataType::Utf8 => Some(array.as_string::<i32>().value(row).to_owned()),
        DataType::LargeUtf8 => Some(array.as_string::<i64>().value(row).to_owned()),
        DataType::Utf8View => Some(array.as_string_view().value(row).to_owned()),
        _ => None,
    }
}

fn readable<'a>(key: &'static str, array: &'a ArrayRef) -> Result<Readable<'a>, EventsError> {
    fn collect<T>(array: &ArrayRef, f: impl Fn(usize) -> T) -> Vec<Option<T>> {
        (0..array.len())
            .map(|row| (!array.is_null(row)).then(|| f(row)))
            .collect()
    }
    let ints = |values: Vec<Option<i64>>| Ok(Readable::Int(values));
    let times = |micros: Vec<Option<i64>>| {
        Ok(Readable::Time(
            micros
                .into_iter()
                .map(|m| m.and_then(|m| Timestamp::from_microsecond(m).ok()))
                .collect(),
        ))
    };
    match array.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Ok(Readable::Text(array)),
        DataType::Int8 => ints(collect(array, |r| {
            i64::from(array.as_primitive::<Int8Type>().value(r))
        })),
        DataType::Int16 => ints(collect(array, |r| {
            i64::from(array.as_primitive::<Int16Type>().value(r))
        })),
        DataType::Int32 => ints(collect(array, |r| {
            i64::from(array.as_primitive::<Int32Type>().value(r))
        })),
        DataType::Int64 => ints(collect(array, |r| {
            array.as_primitive::<Int64Type>().value(r)
        })),
        DataType::UInt8 => ints(collect(array, |r| {
            i64::from(array.as_primitive::<UInt8Type>().value(r))
        })),
        DataType::UInt16 => ints(collect(array, |r| {
            i64::from(array.as_primitive::<UInt16Type>().value(r))
        })),
        DataType::UInt32 => ints(collect(array, |r| {
            i64::from(array.as_primitive::<UInt32Type>().value(r))
        })),
        DataType::Timestamp(unit, _) => {
            let micros = match unit {
                TimeUnit::Second => collect(array, |r| {
                    array
                        .as_primitive::<TimestampSecondType>()
                        .value(r)
                        .saturating_mul(1_000_000)
                }),
                TimeUnit::Millisecond => collect(array, |r| {
                    array
                        .as_primitive::<TimestampMillisecondType>()
                        .value(r)
                        .saturating_mul(1_000)
                }),
                TimeUnit::Microsecond => collect(array, |r| {
                    array.as_primitive::<TimestampMicrosecondType>().value(r)
                }),
                TimeUnit::Nanosecond => collect(array, |r| {
                    array
                        .as_primitive::<TimestampNanosecondType>()
                        .value(r)
                        .div_euclid(1_000)
                }),
            };
            times(micros)
        }
        other => Err(EventsError::Column {
            table: "_ldp.runs",
            column: key,
            message: format!("unexpected type {other}"),
        }),
    }
}
