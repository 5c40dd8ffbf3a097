//! The temporal checks on batches built by hand: state crosses batches, row indices are global,
//! and types the data cases can't express (dictionaries, lists) behave as the Python tool.

use std::sync::Arc;

use arrow_array::ArrowPrimitiveType;
use arrow_array::types::{Float16Type, Int32Type};
use arrow_array::{
    ArrayRef, BooleanArray, DictionaryArray, Float16Array, Float64Array, Int64Array, ListArray,
    RecordBatch, StringArray, StructArray, TimestampMillisecondArray,
};
use arrow_schema::{Field, Schema};
use ldp_plugin_sdk::prelude::*;
use serde_json::{Value, json};

use crate::rules::build;

/// Runs the check `item` over `columns`, cut into batches of `rows` rows.
fn run(item: Value, columns: Vec<(&str, ArrayRef)>, rows: usize) -> (CheckResult, Value) {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, array)| Field::new(*name, array.data_type().clone(), true))
        .collect();
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let arrays: Vec<ArrayRef> = columns.into_iter().map(|(_, array)| array).collect();
    let batch = RecordBatch::try_new(schema.clone(), arrays).expect("a valid batch");
    let mut rule = build(0, &item, &schema).expect("a valid check");
    let mut offset = 0;
    while offset < batch.num_rows() {
        let length = rows.min(batch.num_rows() - offset);
        rule.push(&batch.slice(offset, length));
        offset += length;
    }
    let context = CheckContext {
        source_rows: None,
        now_micros: None,
    };
    let result = rule.finish(&context);
    let metrics = serde_json::from_str(&result.metrics).expect("metrics are JSON");
    (result, metrics)
}

fn ints(values: &[Option<i64>]) -> ArrayRef {
    Arc::new(Int64Array::from(values.to_vec()))
}

fn strs(values: &[Option<&str>]) -> ArrayRef {
    Arc::new(StringArray::from(values.to_vec()))
}

#[test]
fn monotonic_compares_across_batches() {
    let v = ints(&[Some(1), Some(3), Some(2), None, Some(2), Some(5), Some(0)]);
    let (result, metrics) = run(
        json!({"check": "monotonic", "column": "v"}),
        vec![("v", v)],
        2,
    );
    assert_eq!(
        result.details,
        "2 of 6 rows break the non-decreasing order of v; e.g. row 2: 2 is less than 3"
    );
    assert_eq!(result.failing_rows, 2);
    assert_eq!(metrics["skipped_rows"], 1);
    assert_eq!(
        metrics["sample"],
        json!([{"row": 2, "value": 2, "previous": 3}, {"row": 6, "value": 0, "previous": 5}])
    );
}

#[test]
fn monotonic_samples_follow_group_order() {
    let v = ints(&[Some(9), Some(8), Some(5), Some(4), Some(7)]);
    let g = strs(&[Some("z"), Some("z"), Some("a"), Some("a"), Some("z")]);
    let item = json!({"check": "monotonic", "column": "v", "group_by": "g"});
    let (result, metrics) = run(item, vec![("v", v), ("g", g)], 1);
    assert_eq!(
        result.details,
        "3 of 5 rows break the non-decreasing order of v within each g; e.g. row 3 in group 'a': \
         4 is less than 5"
    );
    assert_eq!(metrics["groups"], 2);
    assert_eq!(metrics["sample"][1]["row"], 1);
    assert_eq!(metrics["sample"][2]["row"], 4);
}

#[test]
fn monotonic_sorts_by_order_by_across_batches() {
    let ts = ints(&[Some(30), Some(10), Some(20), Some(5)]);
    let frame = ints(&[Some(3), Some(1), Some(2), Some(4)]);
    let item = json!({"check": "monotonic", "column": "ts", "order_by": "frame", "strict": true});
    let (result, _) = run(item, vec![("ts", ts), ("frame", frame)], 3);
    assert_eq!(
        result.details,
        "1 of 4 rows break the strictly increasing order of ts in frame order; e.g. row 3: 5 is \
         not greater than 30"
    );
}

#[test]
fn monotonic_reads_dictionaries() {
    let keys: DictionaryArray<Int32Type> = vec!["b", "a", "c"].into_iter().collect();
    let (result, _) = run(
        json!({"check": "monotonic", "column": "d"}),
        vec![("d", Arc::new(keys) as ArrayRef)],
        2,
    );
    assert_eq!(
        result.details,
        "1 of 3 rows break the non-decreasing order of d; e.g. row 1: 'a' is less than 'b'"
    );
}

#[test]
fn uncomparable_types_are_not_evaluated() {
    let list = ListArray::from_iter_primitive::<arrow_array::types::Int64Type, _, _>(vec![
        Some(vec![Some(1)]),
        Some(vec![Some(2)]),
    ]);
    let (result, metrics) = run(
        json!({"check": "monotonic", "column": "l"}),
        vec![("l", Arc::new(list) as ArrayRef)],
        1,
    );
    assert_eq!(
        result.details,
        "could not be evaluated: Function 'less' has no kernel matching input types \
         (list<item: int64>, list<item: int64>)"
    );
    assert_eq!(
        metrics,
        json!({"row_count": 2, "error": "ArrowNotImplementedError"})
    );
}

#[test]
fn max_skew_keeps_global_rows_and_a_running_maximum() {
    let a: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![0, 100, 200, 300, 400]));
    let b: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![0, 100, 250, 300, 470]));
    let item = json!({"check": "max_skew", "column_a": "a", "column_b": "b", "max_ms": 10});
    let (result, metrics) = run(item, vec![("a", a), ("b", b)], 2);
    assert_eq!(
        result.details,
        "2 of 5 rows have |a - b| > 10 ms (max 70.0 ms); e.g. row 2: 50.0 ms"
    );
    assert_eq!(metrics["mean_skew_ms"], 24.0);
    assert_eq!(
        metrics["sample"],
        json!([{"row": 2, "skew_ms": 50.0}, {"row": 4, "skew_ms": 70.0}])
    );
}

#[test]
fn rate_below_counts_groups_across_batches() {
    let p = || -> ArrayRef {
        Arc::new(BooleanArray::from(vec![
            Some(true),
            Some(false),
            Some(true),
            None,
        ]))
    };
    let g = || strs(&[Some("a"), Some("a"), Some("b"), Some("b")]);
    let item =
        json!({"check": "rate_below", "predicate_column": "p", "max_rate": 0.4, "group_by": "g"});
    let (result, metrics) = run(item.clone(), vec![("p", p()), ("g", g())], 1);
    assert_eq!(
        result.details,
        "2 of 2 g groups have a p rate over 40.00%; e.g. 'b' 100.00%, 'a' 50.00%"
    );
    assert_eq!(result.failing_rows, 2);
    assert_eq!(metrics["null_count"], 1);
    // Dictionary keys group, but the Python tool can't sort them to list the failing groups.
    let keys: DictionaryArray<Int32Type> = vec!["a", "a", "b", "b"].into_iter().collect();
    let (result, _) = run(
        item,
        vec![("p", p()), ("g", Arc::new(keys.clone()) as ArrayRef)],
        3,
    );
    assert_eq!(
        result.details,
        "could not be evaluated: Unsupported type for RecordBatch sorting: \
         dictionary<values=string, indices=int32, ordered=0>"
    );
    let item =
        json!({"check": "rate_below", "predicate_column": "p", "max_rate": 1, "group_by": "g"});
    let (result, _) = run(item, vec![("p", p()), ("g", Arc::new(keys) as ArrayRef)], 3);
    assert_eq!(
        result.details,
        "p rate <= 100.00% in all 2 g groups (worst 100.00%, overall 66.67%)"
    );
}

#[test]
fn key_types_the_reference_cannot_sort_or_compare() {
    type F16 = <Float16Type as ArrowPrimitiveType>::Native;
    let half: ArrayRef = Arc::new(Float16Array::from(vec![
        F16::from_f32(1.0),
        F16::from_f32(2.0),
    ]));
    let x = || ints(&[Some(1), Some(0)]);
    let item = json!({"check": "monotonic", "column": "x", "group_by": "h"});
    let (result, _) = run(item, vec![("x", x()), ("h", half.clone())], 1);
    assert_eq!(result.details, "could not be evaluated: halffloat");
    let item = json!({"check": "max_gap", "column": "x", "max_ms": 1, "group_by": "h"});
    let (result, _) = run(item, vec![("x", x()), ("h", half.clone())], 1);
    assert_eq!(
        result.details,
        "could not be evaluated: Unsupported type for RecordBatch sorting: halffloat"
    );
    let item = json!({"check": "max_skew", "column_a": "h", "column_b": "h", "max_ms": 0});
    let (result, _) = run(item, vec![("h", half)], 1);
    assert_eq!(result.details, "|h - h| <= 0 ms on 2 rows (max 0.0 ms)");
    let fields = vec![Field::new("a", arrow_schema::DataType::Int64, true)];
    let structs: ArrayRef = Arc::new(StructArray::new(fields.into(), vec![x()], None));
    let item = json!({"check": "monotonic", "column": "x", "group_by": "s"});
    let (result, _) = run(item, vec![("x", x()), ("s", structs.clone())], 1);
    assert_eq!(
        result.details,
        "could not be evaluated: Function 'equal' has no kernel matching input types \
         (struct<a: int64>, struct<a: int64>)"
    );
    let item =
        json!({"check": "rate_below", "predicate_column": "p", "max_rate": 1, "group_by": "s"});
    let p: ArrayRef = Arc::new(BooleanArray::from(vec![true, false]));
    let (result, metrics) = run(item, vec![("p", p), ("s", structs)], 1);
    assert_eq!(
        result.details,
        "could not be evaluated: Keys of type struct<a: int64>"
    );
    assert_eq!(metrics["error"], "ArrowNotImplementedError");
}

#[test]
fn max_gap_sorts_rows_of_every_batch() {
    let hour = 3_600_000;
    let t: ArrayRef = Arc::new(Float64Array::from(vec![
        58.0 * f64::from(hour),
        f64::NAN,
        0.0,
        59.5 * f64::from(hour),
    ]));
    let item = json!({"check": "max_gap", "column": "t", "max_ms": hour});
    let (result, metrics) = run(item, vec![("t", t)], 1);
    assert_eq!(
        result.details,
        "2 gap(s) in t over 3600000 ms (max 208800000.0 ms); e.g. 208800000.0 ms before row 0"
    );
    assert_eq!(metrics["skipped_rows"], 1);
    assert_eq!(
        metrics["sample"][1],
        json!({"row": 3, "gap_ms": 5400000.0, "from": 208800000.0, "to": 214200000.0})
    );
}

#[test]
fn bad_parameters_are_config_errors() {
    let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new(
        "t",
        arrow_schema::DataType::Int64,
        true,
    )]));
    for (item, message) in [
        (
            json!({"check": "max_gap", "column": "t", "max_ms": 0}),
            "max_ms must be a positive number, got 0",
        ),
        (
            json!({"check": "max_skew", "column_a": "t", "column_b": "t", "max_ms": 1, "unit": "h"}),
            "unit must be one of ['s', 'ms', 'us', 'ns'], got 'h'",
        ),
        (
            json!({"check": "monotonic", "column": "t", "strict": "yes"}),
            "strict must be true or false, got 'yes'",
        ),
        (
            json!({"check": "rate_below", "predicate_column": "t", "max_rate": 1.5}),
            "max_rate must be between 0 and 1, got 1.5",
        ),
    ] {
        let error = build(0, &item, &schema).err().expect("a config error");
        assert!(
            format!("{error:?}").contains(message),
            "{error:?} should say {message}"
        );
    }
}
