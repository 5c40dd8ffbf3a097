//! Tests of the plugin on files written to a temporary folder: the exact text of each type, and
//! that what is written reads back as the `json` source types it (numbers with a fraction as
//! doubles, `YYYY-MM-DD` as dates, date-times as timestamps that arrow parses to the same
//! instant).

use super::*;
use arrow_array::builder::{MapBuilder, StringBuilder};
use arrow_array::types::{Int8Type, Int32Type, Int64Type};
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Date64Array, Decimal128Array,
    DictionaryArray, DurationMillisecondArray, FixedSizeBinaryArray, Float16Array, Float32Array,
    Float64Array, Int8Array, Int32Array, Int64Array, LargeStringArray, ListArray, NullArray,
    StringArray, StringViewArray, StructArray, Time32SecondArray, Time64MicrosecondArray,
    TimestampMicrosecondArray, TimestampMillisecondArray, TimestampNanosecondArray,
    TimestampSecondArray, UInt64Array, UnionArray,
};
use arrow_schema::{DataType, Field, TimeUnit, UnionFields};
use ldp_plugin_sdk::ErrorKind;
use ldp_plugin_sdk::testing::{
    TempDir, batch, path_config, read_text, write_batches, written_text,
};
use serde_json::Value;
use std::sync::Arc;

/// Writes `batches` with the plugin and returns the file's text and the summary.
fn write(batches: &[RecordBatch]) -> (String, SinkSummary) {
    written_text::<JsonSink>("out.jsonl", batches)
}

fn text(columns: Vec<(&str, ArrayRef)>) -> String {
    write(&[batch(columns)]).0
}

/// The lines of `text`, parsed.
fn lines(text: &str) -> Vec<serde_json::Map<String, Value>> {
    assert!(text.ends_with('\n'), "{text:?}");
    text.lines()
        .map(|line| match serde_json::from_str(line) {
            Ok(Value::Object(map)) => map,
            other => panic!("{line}: not an object: {other:?}"),
        })
        .collect()
}

/// The instant, in microseconds, arrow-json's reader (the `json` source's decoder) parses from
/// a timestamp text, and whether the text carries a zone.
fn parsed_micros(text: &str) -> (i64, bool) {
    let utc: arrow_array::timezone::Tz = "+00:00".parse().expect("an offset");
    let at = arrow_cast::parse::string_to_datetime(&utc, text).expect("a date-time arrow parses");
    let zoned = text.ends_with('Z') || text[19..].contains(['+', '-']);
    (at.naive_utc().and_utc().timestamp_micros(), zoned)
}

#[test]
fn rows_are_objects_with_every_column_in_order_and_nulls_written() {
    let t = batch(vec![
        (
            "id",
            Arc::new(Int64Array::from(vec![Some(1), None, Some(-3)])) as ArrayRef,
        ),
        (
            "fare",
            Arc::new(Float64Array::from(vec![None, Some(7.0), Some(32.28)])),
        ),
        (
            "city",
            Arc::new(StringArray::from(vec![
                Some("LDN"),
                Some("a\"b\\c\nd"),
                None,
            ])),
        ),
        (
            "ok",
            Arc::new(BooleanArray::from(vec![Some(true), None, Some(false)])),
        ),
        ("nothing", Arc::new(NullArray::new(3))),
    ]);
    let (got, summary) = write(&[t]);
    assert_eq!(
        got,
        "{\"id\":1,\"fare\":null,\"city\":\"LDN\",\"ok\":true,\"nothing\":null}\n\
         {\"id\":null,\"fare\":7.0,\"city\":\"a\\\"b\\\\c\\nd\",\"ok\":null,\"nothing\":null}\n\
         {\"id\":-3,\"fare\":32.28,\"city\":null,\"ok\":false,\"nothing\":null}\n"
    );
    assert_eq!(summary.records, 3);
    assert_eq!(summary.files, ["out.jsonl"]);
    for row in lines(&got) {
        assert_eq!(
            row.keys().collect::<Vec<_>>(),
            ["id", "fare", "city", "ok", "nothing"]
        );
    }
}

#[test]
fn doubles_keep_a_fraction_and_non_finite_values_are_null() {
    let values = vec![
        7.0,
        -12.5,
        0.0,
        -0.0,
        100.0,
        1e10,
        1e16,
        1e-7,
        0.1 + 0.2,
        1e300,
        5e-324,
        123_456_789_012.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let got = text(vec![("g", Arc::new(Float64Array::from(values.clone())))]);
    let rows = lines(&got);
    for (row, value) in rows.iter().zip(&values) {
        let written = &row["g"];
        if value.is_finite() {
            // A JSON number with a fraction or an exponent: serde_json (and so the json
            // source) reads a double, and the same one.
            assert!(written.is_f64(), "{value} was written {written}");
            assert_eq!(written.as_f64(), Some(*value), "{value}");
        } else {
            assert!(written.is_null(), "{value} was written {written}");
        }
    }
    assert_text(
        &got,
        "{\"g\":7.0}\n{\"g\":-12.5}\n{\"g\":0.0}\n{\"g\":-0.0}\n{\"g\":100.0}\n\
         {\"g\":1.0e10}\n{\"g\":1.0e16}\n{\"g\":1.0e-7}\n{\"g\":0.30000000000000004}\n\
         {\"g\":1.0e300}\n{\"g\":5.0e-324}\n{\"g\":1.234567890125e11}\n{\"g\":null}\n\
         {\"g\":null}\n{\"g\":null}\n",
    );
    // float32 and float16: their shortest digits, as doubles.
    let got = text(vec![
        (
            "f",
            Arc::new(Float32Array::from(vec![0.1_f32, 3.0, f32::NAN])) as ArrayRef,
        ),
        (
            "h",
            Arc::new(Float16Array::from(vec![
                half_of(1.5),
                half_of(2.0),
                half_of(f32::INFINITY),
            ])),
        ),
    ]);
    assert_eq!(
        got,
        "{\"f\":0.1,\"h\":1.5}\n{\"f\":3.0,\"h\":2.0}\n{\"f\":null,\"h\":null}\n"
    );
}

/// Compares a text, printing both in full when they differ.
fn assert_text(got: &str, expected: &str) {
    assert_eq!(got, expected, "\ngot:\n{got}\nexpected:\n{expected}");
}

fn half_of(v: f32) -> <arrow_array::types::Float16Type as arrow_array::ArrowPrimitiveType>::Native {
    <arrow_array::types::Float16Type as arrow_array::ArrowPrimitiveType>::Native::from_f32(v)
}

#[test]
fn integers_decimals_durations_and_binaries() {
    let got = text(vec![
        (
            "i8",
            Arc::new(Int8Array::from(vec![Some(-128), None])) as ArrayRef,
        ),
        (
            "u64",
            Arc::new(UInt64Array::from(vec![Some(u64::MAX), Some(0)])),
        ),
        (
            "dec",
            Arc::new(
                Decimal128Array::from(vec![Some(150), Some(-5)])
                    .with_precision_and_scale(10, 2)
                    .expect("a decimal type"),
            ),
        ),
        (
            "dur",
            Arc::new(DurationMillisecondArray::from(vec![Some(1500), Some(-2)])),
        ),
        (
            "bin",
            Arc::new(BinaryArray::from(vec![Some(&b"\x00\xffA"[..]), None])),
        ),
        (
            "fixed",
            Arc::new(
                FixedSizeBinaryArray::try_from_iter(
                    vec![b"ab".to_vec(), b"\n\"".to_vec()].into_iter(),
                )
                .expect("fixed"),
            ),
        ),
    ]);
    assert_eq!(
        got,
        "{\"i8\":-128,\"u64\":18446744073709551615,\"dec\":1.50,\"dur\":1500,\"bin\":\"00ff41\",\"fixed\":\"6162\"}\n\
         {\"i8\":null,\"u64\":0,\"dec\":-0.05,\"dur\":-2,\"bin\":null,\"fixed\":\"0a22\"}\n"
    );
}

#[test]
fn strings_of_every_kind_are_json_strings() {
    let got = text(vec![
        (
            "s",
            Arc::new(StringArray::from(vec!["tab\there", "é ✓ 🚲"])) as ArrayRef,
        ),
        ("ls", Arc::new(LargeStringArray::from(vec!["\u{1}", "/"]))),
        (
            "sv",
            Arc::new(StringViewArray::from(vec!["a view longer than twelve", ""])),
        ),
    ]);
    assert_eq!(
        got,
        "{\"s\":\"tab\\there\",\"ls\":\"\\u0001\",\"sv\":\"a view longer than twelve\"}\n\
         {\"s\":\"é ✓ 🚲\",\"ls\":\"/\",\"sv\":\"\"}\n"
    );
    let rows = lines(&got);
    assert_eq!(rows[0]["ls"], "\u{1}");
}

#[test]
fn dates_and_times_are_strings_the_json_source_types() {
    let got = text(vec![
        (
            "d",
            Arc::new(Date32Array::from(vec![Some(19_723), None, Some(-719_162)])) as ArrayRef,
        ),
        (
            "d64",
            Arc::new(Date64Array::from(vec![
                Some(1_704_067_200_000),
                Some(-1),
                None,
            ])),
        ),
        (
            "t",
            Arc::new(Time32SecondArray::from(vec![Some(3_723), Some(0), None])),
        ),
        (
            "tu",
            Arc::new(Time64MicrosecondArray::from(vec![
                Some(1),
                None,
                Some(86_399_999_999),
            ])),
        ),
    ]);
    assert_eq!(
        got,
        "{\"d\":\"2024-01-01\",\"d64\":\"2024-01-01\",\"t\":\"01:02:03\",\"tu\":\"00:00:00.000001\"}\n\
         {\"d\":null,\"d64\":\"1970-01-01\",\"t\":\"00:00:00\",\"tu\":null}\n\
         {\"d\":\"0001-01-01\",\"d64\":null,\"t\":null,\"tu\":\"23:59:59.999999\"}\n"
    );
}

#[test]
fn timestamps_are_date_times_arrow_parses_to_the_same_instant() {
    // 2024-01-31 10:00:00.123456 UTC, and a time before the epoch.
    let micros = [1_706_695_200_123_456_i64, -1];
    let column = |zone: Option<&str>| -> ArrayRef {
        let array = TimestampMicrosecondArray::from(micros.to_vec());
        Arc::new(match zone {
            Some(zone) => array.with_timezone(zone),
            None => array,
        })
    };
    let got = text(vec![
        ("naive", column(None)),
        ("utc", column(Some("UTC"))),
        // How the host names Iceberg's timestamptz.
        ("host", column(Some("+00:00"))),
        ("fixed", column(Some("+05:30"))),
        ("named", column(Some("America/New_York"))),
        ("west", column(Some("-0330"))),
    ]);
    assert_eq!(
        got,
        "{\"naive\":\"2024-01-31 10:00:00.123456\",\"utc\":\"2024-01-31 10:00:00.123456Z\",\
         \"host\":\"2024-01-31 10:00:00.123456Z\",\"fixed\":\"2024-01-31 15:30:00.123456+05:30\",\
         \"named\":\"2024-01-31 05:00:00.123456-05:00\",\"west\":\"2024-01-31 06:30:00.123456-03:30\"}\n\
         {\"naive\":\"1969-12-31 23:59:59.999999\",\"utc\":\"1969-12-31 23:59:59.999999Z\",\
         \"host\":\"1969-12-31 23:59:59.999999Z\",\"fixed\":\"1970-01-01 05:29:59.999999+05:30\",\
         \"named\":\"1969-12-31 18:59:59.999999-05:00\",\"west\":\"1969-12-31 20:29:59.999999-03:30\"}\n"
    );
    for (row, expected) in lines(&got).iter().zip(micros) {
        for (name, value) in row {
            let text = value.as_str().expect("a string");
            let (at, zoned) = parsed_micros(text);
            assert_eq!(at, expected, "{name}: {text}");
            assert_eq!(zoned, name != "naive", "{name}: {text}");
        }
    }
    // Every unit writes its own fraction; all of them read back as the same instant.
    let got = text(vec![
        (
            "s",
            Arc::new(TimestampSecondArray::from(vec![1_706_695_200])) as ArrayRef,
        ),
        (
            "ms",
            Arc::new(TimestampMillisecondArray::from(vec![1_706_695_200_120])),
        ),
        (
            "ns",
            Arc::new(TimestampNanosecondArray::from(vec![
                1_706_695_200_123_456_789,
            ])),
        ),
    ]);
    assert_eq!(
        got,
        "{\"s\":\"2024-01-31 10:00:00\",\"ms\":\"2024-01-31 10:00:00.120\",\
         \"ns\":\"2024-01-31 10:00:00.123456789\"}\n"
    );
    let row = &lines(&got)[0];
    assert_eq!(
        parsed_micros(row["s"].as_str().unwrap()).0,
        1_706_695_200_000_000
    );
    assert_eq!(
        parsed_micros(row["ms"].as_str().unwrap()).0,
        1_706_695_200_120_000
    );
    assert_eq!(
        parsed_micros(row["ns"].as_str().unwrap()).0,
        1_706_695_200_123_456
    );
}

#[test]
fn lists_structs_maps_and_dictionaries_nest() {
    let list = ListArray::from_iter_primitive::<Int64Type, _, _>(vec![
        Some(vec![Some(1), None]),
        None,
        Some(vec![]),
    ]);
    let stamps = TimestampMicrosecondArray::from(vec![Some(0), None, Some(1_000_000)]);
    let inner = StructArray::from(vec![
        (
            Arc::new(Field::new(
                "at",
                DataType::Timestamp(TimeUnit::Microsecond, None),
                true,
            )),
            Arc::new(stamps) as ArrayRef,
        ),
        (
            Arc::new(Field::new("n", DataType::Int32, true)),
            Arc::new(Int32Array::from(vec![Some(1), Some(2), None])) as ArrayRef,
        ),
    ]);
    let mut map = MapBuilder::new(
        None,
        StringBuilder::new(),
        arrow_array::builder::Int64Builder::new(),
    );
    map.keys().append_value("k");
    map.values().append_value(1);
    map.append(true).expect("an entry");
    map.append(false).expect("a null map");
    map.keys().append_value("z");
    map.values().append_null();
    map.append(true).expect("an entry");
    let values = StringArray::from(vec![Some("a"), None]);
    let keys = Int8Array::from(vec![Some(0), Some(1), None]);
    let dict = DictionaryArray::<Int8Type>::try_new(keys, Arc::new(values)).expect("a dictionary");
    let got = text(vec![
        ("l", Arc::new(list) as ArrayRef),
        ("o", Arc::new(inner)),
        ("m", Arc::new(map.finish())),
        ("d", Arc::new(dict)),
    ]);
    assert_eq!(
        got,
        "{\"l\":[1,null],\"o\":{\"at\":\"1970-01-01 00:00:00.000000\",\"n\":1},\"m\":{\"k\":1},\"d\":\"a\"}\n\
         {\"l\":null,\"o\":{\"at\":null,\"n\":2},\"m\":null,\"d\":null}\n\
         {\"l\":[],\"o\":{\"at\":\"1970-01-01 00:00:01.000000\",\"n\":null},\"m\":{\"z\":null},\"d\":null}\n"
    );
}

#[test]
fn batches_append_and_the_summary_names_the_file() {
    let first = batch(vec![(
        "n",
        Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef,
    )]);
    let empty = batch(vec![(
        "n",
        Arc::new(Int64Array::from(Vec::<i64>::new())) as ArrayRef,
    )]);
    let second = batch(vec![("n", Arc::new(Int64Array::from(vec![3])) as ArrayRef)]);
    let (got, summary) = write(&[first, empty, second]);
    assert_eq!(got, "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n");
    assert_eq!(summary.records, 3);
    assert_eq!(summary.bytes, 24);
    assert_eq!(summary.files, ["out.jsonl"]);
}

#[test]
fn no_rows_is_an_empty_file() {
    let t = batch(vec![(
        "n",
        Arc::new(Int64Array::from(Vec::<i64>::new())) as ArrayRef,
    )]);
    let (got, summary) = write(&[t]);
    assert_eq!((got.as_str(), summary.records, summary.bytes), ("", 0, 0));
}

#[test]
fn an_existing_file_is_replaced() {
    let dir = TempDir::new();
    let path = dir.path("o.jsonl");
    std::fs::write(&path, "old text that is longer than the new\n").expect("written");
    let t = batch(vec![("n", Arc::new(Int64Array::from(vec![1])) as ArrayRef)]);
    write_batches::<JsonSink>(&path_config(&path, ""), &[t]);
    assert_eq!(read_text(&path), "{\"n\":1}\n");
}

/// Opens a sink for `schema`'s batch and returns its error; the file is not created.
fn refused(t: &RecordBatch) -> String {
    let dir = TempDir::new();
    let path = dir.path("out.jsonl");
    let e = JsonSink::open_batches(&path_config(&path, ""), t.schema())
        .err()
        .expect("refused");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(!std::path::Path::new(&path).exists());
    let prefix = format!("{path}: cannot write the rows as JSON: ");
    assert!(e.message.starts_with(&prefix), "{e}");
    e.message[prefix.len()..].to_string()
}

#[test]
fn what_has_no_json_form_is_refused_before_the_file_is_created() {
    let twice = RecordBatch::try_new(
        Arc::new(arrow_schema::Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("a", DataType::Int64, true),
        ])),
        vec![
            Arc::new(Int64Array::from(vec![1])) as ArrayRef,
            Arc::new(Int64Array::from(vec![2])),
        ],
    )
    .expect("a batch");
    assert_eq!(
        refused(&twice),
        "the column \"a\" appears twice, and the keys of a JSON object must differ; rename one \
         with a transform first"
    );
    let zone = batch(vec![(
        "at",
        Arc::new(TimestampMicrosecondArray::from(vec![0]).with_timezone("Mars/Olympus"))
            as ArrayRef,
    )]);
    assert_eq!(
        refused(&zone),
        "field \"at\" (Timestamp(µs, \"Mars/Olympus\")): its time zone \"Mars/Olympus\" is not a \
         known time zone"
    );
    let union = UnionArray::try_new(
        UnionFields::try_new(vec![0], vec![Field::new("i", DataType::Int32, true)])
            .expect("fields"),
        vec![0_i8].into(),
        None,
        vec![Arc::new(Int32Array::from(vec![1])) as ArrayRef],
    )
    .expect("a union");
    let message = refused(&batch(vec![("u", Arc::new(union) as ArrayRef)]));
    assert!(message.starts_with("field \"u\" (Union("), "{message}");
    assert!(
        message.ends_with(
            "a union has no JSON form that reads back; split it into columns with a transform first"
        ),
        "{message}"
    );
    let mut map = MapBuilder::new(
        None,
        arrow_array::builder::Int32Builder::new(),
        StringBuilder::new(),
    );
    map.append(true).expect("an empty map");
    let message = refused(&batch(vec![("m", Arc::new(map.finish()) as ArrayRef)]));
    assert!(
        message.contains("a JSON object's keys are strings, and this map's keys are Int32"),
        "{message}"
    );
}

#[test]
fn a_missing_folder_is_an_io_error() {
    let t = batch(vec![("n", Arc::new(Int64Array::from(vec![1])) as ArrayRef)]);
    let dir = TempDir::new();
    let path = dir.path("missing/out.jsonl");
    let e = JsonSink::open_batches(&path_config(&path, ""), t.schema())
        .err()
        .expect("refused");
    assert_eq!(e.kind, ErrorKind::Io);
    assert!(
        e.message
            .starts_with(&format!("{path}: cannot create the file")),
        "{e}"
    );
}

#[test]
fn describe_names_the_plugin() {
    let info = JsonSink::describe();
    assert_eq!(info.name, "json-sink");
    assert!(info.config_schema.contains("\"path\""));
}

#[test]
fn a_dictionary_column_of_int32_keys_reads_its_values() {
    let values = Int64Array::from(vec![10, 20]);
    let keys = arrow_array::PrimitiveArray::<Int32Type>::from(vec![1, 0, 1]);
    let dict = DictionaryArray::<Int32Type>::try_new(keys, Arc::new(values)).expect("a dictionary");
    assert_eq!(
        text(vec![("d", Arc::new(dict) as ArrayRef)]),
        "{\"d\":20}\n{\"d\":10}\n{\"d\":20}\n"
    );
}
