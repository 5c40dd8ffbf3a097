//! Values both ways: numbers, strings, booleans, timestamps, dates, nulls.

use crate::common::{batch, rows, run, run_err};
use ldp_plugin_sdk::arrow_array::cast::AsArray;
use ldp_plugin_sdk::arrow_array::types::{
    Date32Type, Float32Type, Int8Type, TimestampMillisecondType, UInt64Type,
};
use ldp_plugin_sdk::arrow_array::{
    Array, BooleanArray, Date32Array, Float32Array, Float64Array, Int8Array, Int64Array,
    LargeStringArray, StringArray, StringViewArray, TimestampMicrosecondArray,
    TimestampMillisecondArray, TimestampNanosecondArray, TimestampSecondArray, UInt64Array,
};
use ldp_plugin_sdk::arrow_schema::TimeUnit;
use ldp_plugin_sdk::prelude::*;
use serde_json::json;
use std::sync::Arc;

fn ts(unit: TimeUnit, tz: Option<&str>) -> DataType {
    DataType::Timestamp(unit, tz.map(Into::into))
}

/// Shows each row as JSON text inside the JavaScript, in a string column.
const SHOW: &str = r#"
  function schema(fields) { return [{ name: "shown", type: "string" }]; }
  function transform(rows) { return rows.map(r => ({ shown: JSON.stringify(r) })); }"#;

fn shown(input: RecordBatch) -> Vec<serde_json::Value> {
    let out = run(SHOW, input).expect("run");
    rows(&out[0])
        .iter()
        .map(|r| serde_json::from_str(r["shown"].as_str().unwrap_or("null")).expect("json"))
        .collect()
}

#[test]
fn timestamps_and_dates_as_javascript_sees_them() {
    let input = batch(
        vec![
            Field::new("us", ts(TimeUnit::Microsecond, None), true),
            Field::new("us_utc", ts(TimeUnit::Microsecond, Some("UTC")), true),
            Field::new("ms", ts(TimeUnit::Millisecond, None), true),
            Field::new("s", ts(TimeUnit::Second, Some("+02:00")), true),
            Field::new("ns", ts(TimeUnit::Nanosecond, None), true),
            Field::new("day", DataType::Date32, true),
        ],
        vec![
            Arc::new(TimestampMicrosecondArray::from(vec![
                Some(1_704_070_478_000_000),
                Some(1_704_070_478_123_456),
                None,
            ])),
            Arc::new(
                TimestampMicrosecondArray::from(vec![Some(1_704_070_478_000_000), Some(1), None])
                    .with_timezone("UTC"),
            ),
            Arc::new(TimestampMillisecondArray::from(vec![
                Some(1_500),
                Some(-1),
                None,
            ])),
            Arc::new(
                TimestampSecondArray::from(vec![Some(0), Some(86_399), None])
                    .with_timezone("+02:00"),
            ),
            Arc::new(TimestampNanosecondArray::from(vec![Some(1), Some(0), None])),
            Arc::new(Date32Array::from(vec![Some(19_723), Some(-1), None])),
        ],
    );
    assert_eq!(
        shown(input),
        [
            json!({"us": "2024-01-01T00:54:38", "us_utc": "2024-01-01T00:54:38Z", "ms": "1970-01-01T00:00:01.500",
                   "s": "1970-01-01T00:00:00Z", "ns": "1970-01-01T00:00:00.000000001", "day": "2024-01-01"}),
            json!({"us": "2024-01-01T00:54:38.123456", "us_utc": "1970-01-01T00:00:00.000001Z", "ms": "1969-12-31T23:59:59.999",
                   "s": "1970-01-01T23:59:59Z", "ns": "1970-01-01T00:00:00", "day": "1969-12-31"}),
            json!({"us": null, "us_utc": null, "ms": null, "s": null, "ns": null, "day": null}),
        ]
    );
}

#[test]
fn timestamps_and_dates_round_trip() {
    let input = batch(
        vec![
            Field::new("us", ts(TimeUnit::Microsecond, None), true),
            Field::new("us_utc", ts(TimeUnit::Microsecond, Some("UTC")), true),
            Field::new("ms", ts(TimeUnit::Millisecond, None), true),
            Field::new("s", ts(TimeUnit::Second, Some("Europe/Paris")), true),
            Field::new("ns", ts(TimeUnit::Nanosecond, None), true),
            Field::new("day", DataType::Date32, true),
        ],
        vec![
            Arc::new(TimestampMicrosecondArray::from(vec![
                Some(1_704_070_478_123_456),
                Some(-1),
                None,
            ])),
            Arc::new(
                TimestampMicrosecondArray::from(vec![Some(1_704_070_478_000_000), Some(1), None])
                    .with_timezone("UTC"),
            ),
            Arc::new(TimestampMillisecondArray::from(vec![
                Some(1_500),
                Some(-1),
                None,
            ])),
            Arc::new(
                TimestampSecondArray::from(vec![Some(0), Some(-86_401), None])
                    .with_timezone("Europe/Paris"),
            ),
            Arc::new(TimestampNanosecondArray::from(vec![
                Some(1_704_070_478_123_456_789),
                Some(-1),
                None,
            ])),
            Arc::new(Date32Array::from(vec![Some(19_723), Some(-719_162), None])),
        ],
    );
    // Through JavaScript as strings, unchanged, and back: the same values and types.
    let out = run(
        "function transform(rows) { return rows.map(r => ({ ...r })); }",
        input.clone(),
    )
    .expect("run");
    assert_eq!(out[0], input);
}

#[test]
fn timestamp_strings_and_dates_accepted_back() {
    let code = r#"
      function schema(f) { return [
        { name: "a", type: "timestamp[us]" }, { name: "b", type: "timestamp[us, tz=UTC]" },
        { name: "c", type: "date32" }, { name: "d", type: "timestamp[ms]" }, { name: "e", type: "date32[day]" }]; }
      function transform(rows) { return [
        { a: "2024-01-01 00:54:38", b: "2024-01-01T01:54:38+01:00", c: "2024-01-01",
          d: new Date(Date.UTC(2024, 0, 1, 0, 54, 38, 5)), e: new Date(Date.UTC(2024, 0, 1, 23)) },
        { a: "2024-01-01T00:54:38.000Z", b: "2024-01-01T00:54:38", c: null, d: "2024-01-01", e: undefined },
        { a: new Date(0).toISOString() },
      ]; }"#;
    let out = run(code, crate::common::rides(1)).expect("run");
    let b = &out[0];
    let a = b
        .column(0)
        .as_any()
        .downcast_ref::<TimestampMicrosecondArray>()
        .expect("a");
    assert_eq!(
        a.values().to_vec(),
        [1_704_070_478_000_000, 1_704_070_478_000_000, 0]
    );
    let bb = b
        .column(1)
        .as_any()
        .downcast_ref::<TimestampMicrosecondArray>()
        .expect("b");
    assert_eq!(bb.timezone(), Some("UTC"));
    assert_eq!(bb.value(0), 1_704_070_478_000_000);
    assert_eq!(bb.value(1), 1_704_070_478_000_000);
    assert!(bb.is_null(2));
    assert_eq!(b.column(2).as_primitive::<Date32Type>().value(0), 19_723);
    assert!(b.column(2).is_null(1));
    let d = b.column(3).as_primitive::<TimestampMillisecondType>();
    assert_eq!(
        (d.value(0), d.value(1)),
        (1_704_070_478_005, 1_704_067_200_000)
    );
    let e = b.column(4).as_primitive::<Date32Type>();
    assert_eq!(e.value(0), 19_723);
    assert!(e.is_null(1) && e.is_null(2));
}

#[test]
fn bad_timestamp_string() {
    let code = r#"
      function schema(f) { return [{ name: "at", type: "timestamp[us]" }]; }
      function transform(rows) { return [{ at: "01/02/2024 10:00" }]; }"#;
    let e = run_err(code, crate::common::rides(1));
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message
            .contains("column 'at' is timestamp[us] and takes a timestamp string"),
        "{e}"
    );
    assert!(
        e.message
            .contains("the string \"01/02/2024 10:00\" (not an ISO-8601 date-time)"),
        "{e}"
    );
}

#[test]
fn nulls_both_ways() {
    let input = batch(
        vec![
            Field::new("i", DataType::Int64, true),
            Field::new("f", DataType::Float64, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("b", DataType::Boolean, true),
        ],
        vec![
            Arc::new(Int64Array::from(vec![None, Some(2)])),
            Arc::new(Float64Array::from(vec![None, Some(f64::NAN)])),
            Arc::new(StringArray::from(vec![None, Some("x")])),
            Arc::new(BooleanArray::from(vec![None, Some(false)])),
        ],
    );
    let seen = shown(input.clone());
    // JSON.stringify shows NaN as null; typeof tells the truth.
    assert_eq!(seen[0], json!({"i": null, "f": null, "s": null, "b": null}));
    assert_eq!(seen[1], json!({"i": 2, "f": null, "s": "x", "b": false}));
    let code = r#"
      function transform(rows) {
        return rows.map((r, n) => n === 0
          ? { i: r.i === null ? 7 : -1, f: typeof r.f, s: undefined }   // b missing: null
          : { i: null, f: Number.isNaN(r.f) ? Infinity : 0, s: null, b: !r.b });
      }"#;
    let e = run_err(code, input.clone());
    assert!(
        e.message.contains(
            "column 'f' is double and takes a Number, but the value is the string \"object\""
        ),
        "{e}"
    );
    let code = code.replace("f: typeof r.f", "f: r.f");
    let out = run(&code, input).expect("run");
    let b = &out[0];
    assert_eq!(
        b.column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .map(|a| (a.value(0), a.is_null(1))),
        Some((7, true))
    );
    let f = b
        .column(1)
        .as_any()
        .downcast_ref::<Float64Array>()
        .expect("f");
    assert!(f.is_null(0) && f.value(1) == f64::INFINITY);
    assert!(b.column(2).is_null(0) && b.column(2).is_null(1));
    assert!(b.column(3).is_null(0));
    assert!(b.column(3).as_boolean().value(1));
}

#[test]
fn numbers_and_strings_of_every_width() {
    let input = batch(
        vec![
            Field::new("i8", DataType::Int8, true),
            Field::new("u64", DataType::UInt64, true),
            Field::new("f32", DataType::Float32, true),
            Field::new("large", DataType::LargeUtf8, true),
            Field::new("view", DataType::Utf8View, true),
        ],
        vec![
            Arc::new(Int8Array::from(vec![-128, 127])),
            Arc::new(UInt64Array::from(vec![0, 9_007_199_254_740_992])),
            Arc::new(Float32Array::from(vec![1.5, -0.25])),
            Arc::new(LargeStringArray::from(vec!["é", "日本"])),
            Arc::new(StringViewArray::from(vec![
                "a long string that does not fit inline",
                "x",
            ])),
        ],
    );
    let out = run(
        "function transform(rows) { return rows.map(r => ({ ...r })); }",
        input.clone(),
    )
    .expect("run");
    assert_eq!(out[0], input);
    let code = r#"function transform(rows) { return rows.map(r => ({ ...r, u64: 18446744073709551615n,
        large: r.large + "ü", view: r.view.toUpperCase() })); }"#;
    let out = run(code, input).expect("run");
    assert_eq!(
        out[0].column(1).as_primitive::<UInt64Type>().value(0),
        u64::MAX
    );
    assert_eq!(out[0].column(0).as_primitive::<Int8Type>().value(0), -128);
    assert_eq!(
        out[0].column(2).as_primitive::<Float32Type>().value(1),
        -0.25
    );
    assert_eq!(out[0].column(3).as_string::<i64>().value(1), "日本ü");
    assert_eq!(out[0].column(4).as_string_view().value(1), "X");
}

#[test]
fn row_objects_of_any_make() {
    let code = r#"
      class Row { constructor(city, fare) { this.city = city; this.fare = fare; } }
      function schema(f) { return [{ name: "city", type: "string" }, { name: "fare", type: "double" },
                                   { name: "2024", type: "int64" }]; }
      function transform(rows) {
        const deleted = { city: "D", fare: 1, extra: 0 }; delete deleted.extra;
        return [
          { city: "A", fare: 1 },
          { fare: 2, city: "B" },                          // other key order: another shape
          { city: "C", fare: 3 },                          // back to the first shape
          deleted,                                         // a dictionary-mode object
          new Row("E", 5),                                 // a class instance
          { get city() { return "F"; }, fare: 6 },         // a getter
          new Proxy({ city: "G", fare: 7 }, {}),           // a proxy
          Object.assign(Object.create(null), { city: "H", fare: 8 }), // no prototype
          { city: "I", fare: 9, 2024: 1 },                 // an index key
          { city: "J" },                                   // a missing key
        ];
      }"#;
    let out = run(code, crate::common::rides(1)).expect("run");
    assert_eq!(
        rows(&out[0]),
        [
            json!({"city": "A", "fare": 1.0, "2024": null}),
            json!({"city": "B", "fare": 2.0, "2024": null}),
            json!({"city": "C", "fare": 3.0, "2024": null}),
            json!({"city": "D", "fare": 1.0, "2024": null}),
            json!({"city": "E", "fare": 5.0, "2024": null}),
            json!({"city": "F", "fare": 6.0, "2024": null}),
            json!({"city": "G", "fare": 7.0, "2024": null}),
            json!({"city": "H", "fare": 8.0, "2024": null}),
            json!({"city": "I", "fare": 9.0, "2024": 1}),
            json!({"city": "J", "fare": null, "2024": null}),
        ]
    );
}

#[test]
fn an_undeclared_key_after_many_rows_of_one_shape() {
    let code = r#"function transform(rows) {
        return rows.map((r, i) => i === 7 ? { ...r, surprise: true } : { ...r });
      }"#;
    let e = run_err(code, crate::common::rides(10));
    assert!(
        e.message
            .contains("output row 7 of batch 1 has the key 'surprise'"),
        "{e}"
    );
    assert!(e.message.contains("type: \"bool\""), "{e}");
}
