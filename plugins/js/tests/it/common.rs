//! Batches in, batches out, without a host.

use js::JsTransform;
use ldp_plugin_sdk::arrow_array::cast::AsArray;
use ldp_plugin_sdk::arrow_array::types::{
    Date32Type, Float64Type, Int32Type, Int64Type, TimestampMicrosecondType,
};
use ldp_plugin_sdk::arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, StringArray, TimestampMicrosecondArray,
};
use ldp_plugin_sdk::prelude::*;
use serde_json::{Value, json};
use std::sync::Arc;

/// A rides-like batch of `n` rows: ride_id, pickup_ts (timestamp[us]), city, distance_km, fare,
/// email.
pub fn rides(n: usize) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("ride_id", DataType::Int64, false),
        Field::new(
            "pickup_ts",
            DataType::Timestamp(ldp_plugin_sdk::arrow_schema::TimeUnit::Microsecond, None),
            true,
        ),
        Field::new("city", DataType::Utf8, true),
        Field::new("distance_km", DataType::Float64, true),
        Field::new("fare", DataType::Float64, true),
        Field::new("email", DataType::Utf8, true),
    ]));
    let cities = ["LDN", "NYC", "PAR", "BER"];
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(1..=n as i64)),
        Arc::new(TimestampMicrosecondArray::from_iter_values(
            (0..n as i64).map(|i| 1_704_070_478_000_000 + i * 61_000_000),
        )),
        Arc::new(StringArray::from_iter_values((0..n).map(|i| cities[i % 4]))),
        Arc::new(Float64Array::from_iter_values(
            (0..n).map(|i| 1.0 + (i % 50) as f64 * 0.37),
        )),
        Arc::new(Float64Array::from_iter_values((0..n).map(|i| {
            if i % 10 == 9 {
                -1.0
            } else {
                5.0 + (i % 40) as f64 * 0.61
            }
        }))),
        Arc::new(StringArray::from_iter_values(
            (0..n).map(|i| format!("rider{i}@example.com")),
        )),
    ];
    RecordBatch::try_new(schema, columns).expect("rides batch")
}

/// A batch from columns.
pub fn batch(fields: Vec<Field>, columns: Vec<ArrayRef>) -> RecordBatch {
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("batch")
}

/// Opens the transform on `code` for the schema of `input`.
pub fn open(code: &str, input: &RecordBatch) -> Result<JsTransform, PluginError> {
    let config = json!({ "code": code }).to_string();
    JsTransform::open(&config, input.schema())
}

/// Opens the transform and pushes one batch: the output batches.
pub fn run(code: &str, input: RecordBatch) -> Result<Vec<RecordBatch>, PluginError> {
    let mut t = open(code, &input)?;
    t.push(input)
}

/// Opens and pushes one batch, expecting an error.
pub fn run_err(code: &str, input: RecordBatch) -> PluginError {
    match run(code, input) {
        Ok(out) => panic!("expected an error, got {} batches", out.len()),
        Err(e) => e,
    }
}

/// One output batch's rows as JSON objects (for the types the tests use).
pub fn rows(batch: &RecordBatch) -> Vec<Value> {
    (0..batch.num_rows())
        .map(|row| {
            let mut object = serde_json::Map::new();
            for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
                object.insert(field.name().clone(), cell(column, row));
            }
            Value::Object(object)
        })
        .collect()
}

fn cell(column: &ArrayRef, row: usize) -> Value {
    if column.is_null(row) {
        return Value::Null;
    }
    match column.data_type() {
        DataType::Int64 => json!(column.as_primitive::<Int64Type>().value(row)),
        DataType::Int32 => json!(column.as_primitive::<Int32Type>().value(row)),
        DataType::Float64 => json!(column.as_primitive::<Float64Type>().value(row)),
        DataType::Utf8 => json!(column.as_string::<i32>().value(row)),
        DataType::Boolean => json!(
            column
                .as_any()
                .downcast_ref::<BooleanArray>()
                .map(|b| b.value(row))
        ),
        DataType::Date32 => json!(column.as_primitive::<Date32Type>().value(row)),
        DataType::Timestamp(ldp_plugin_sdk::arrow_schema::TimeUnit::Microsecond, _) => {
            json!(column.as_primitive::<TimestampMicrosecondType>().value(row))
        }
        other => json!(format!("<{other}>")),
    }
}
