//! Tests of the plugin on files written to a temporary folder, against the bytes pyarrow 26.0.1's
//! `pyarrow.csv.write_csv` writes for the same tables.

use super::*;
use arrow_array::types::Int32Type;
use arrow_array::types::Int64Type;
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Date64Array, Decimal128Array,
    DictionaryArray, DurationMillisecondArray, FixedSizeBinaryArray, Float16Array, Float32Array,
    Float64Array, Int8Array, Int64Array, LargeStringArray, ListArray, NullArray, StringArray,
    StringViewArray, Time32MillisecondArray, Time32SecondArray, Time64MicrosecondArray,
    Time64NanosecondArray, TimestampMicrosecondArray, TimestampMillisecondArray,
    TimestampNanosecondArray, TimestampSecondArray, UInt64Array,
};
use ldp_plugin_sdk::ErrorKind;
use ldp_plugin_sdk::testing::{
    TempDir, batch, path_config, read_text, write_batches, written_text,
};
use std::sync::Arc;

/// Writes `batches` with the plugin and returns the file's text and the summary.
fn write(batches: &[RecordBatch]) -> (String, SinkSummary) {
    written_text::<CsvSink>("out.csv", batches)
}

// Expected texts printed by pyarrow 26.0.1's `pyarrow.csv.write_csv` for the same values.
#[test]
fn floats_are_formatted_as_arrow_cpp_does() {
    let values = [
        7.0,
        -12.5,
        1e10,
        1e-7,
        123_456_789_012.5,
        1e21,
        0.1 + 0.2,
        1e16,
        1e15,
        5e-324,
        1e9,
        9_999_999_999.0,
        1_234_567_890.5,
        1e-6,
        0.000_012_34,
        1.5e-6,
        0.000_123,
        123.456,
        1e300,
        -1.5e-300,
        2.5e-5,
        100.0,
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let expected = "\"g\"\n7\n-12.5\n1e+10\n1e-7\n1.234567890125e+11\n1e+21\n0.30000000000000004\n\
        1e+16\n1e+15\n5e-324\n1000000000\n9999999999\n1234567890.5\n0.000001\n0.00001234\n\
        0.0000015\n0.000123\n123.456\n1e+300\n-1.5e-300\n0.000025\n100\n0\n-0\nnan\ninf\n-inf\n";
    let (text, _) = write(&[batch(vec![(
        "g",
        Arc::new(Float64Array::from(values.to_vec())) as ArrayRef,
    )])]);
    assert_eq!(text, expected);

    let values32: Vec<f32> = vec![
        1e9,
        9_999_999_999.0,
        1_234_567_890.5,
        1e-6,
        1e300_f64 as f32,
    ];
    let (text, _) = write(&[batch(vec![(
        "f",
        Arc::new(Float32Array::from(values32)) as ArrayRef,
    )])]);
    assert_eq!(
        text,
        "\"f\"\n1000000000\n1e+10\n1234568000\n0.000001\ninf\n"
    );
}

#[test]
fn strings_booleans_dates_timestamps_nulls_and_quoting() {
    let t = batch(vec![
        (
            "a b\"c",
            Arc::new(Int64Array::from(vec![Some(1), None, Some(-3)])) as ArrayRef,
        ),
        (
            "s",
            Arc::new(StringArray::from(vec![Some("a\"b"), None, Some("x,y\nz")])),
        ),
        (
            "ls",
            Arc::new(LargeStringArray::from(vec![Some("q"), None, None])),
        ),
        (
            "b",
            Arc::new(BooleanArray::from(vec![Some(true), None, Some(false)])),
        ),
        (
            "d",
            Arc::new(Date32Array::from(vec![Some(19_723), None, Some(-719_162)])),
        ),
        (
            "t",
            Arc::new(TimestampMicrosecondArray::from(vec![
                Some(1_704_067_200_000_005),
                Some(-1),
                Some(-315_619_200_000_000),
            ])),
        ),
        (
            "ts",
            Arc::new(TimestampSecondArray::from(vec![
                Some(1_704_067_200),
                None,
                None,
            ])),
        ),
        (
            "ms",
            Arc::new(TimestampMillisecondArray::from(vec![
                Some(1_704_070_923_004),
                None,
                None,
            ])),
        ),
        (
            "ns",
            Arc::new(TimestampNanosecondArray::from(vec![Some(1), None, None])),
        ),
        (
            "tz",
            Arc::new(
                TimestampMicrosecondArray::from(vec![Some(1_704_067_200_000_000), None, None])
                    .with_timezone("UTC"),
            ),
        ),
    ]);
    let expected = concat!(
        "\"a b\"\"c\",\"s\",\"ls\",\"b\",\"d\",\"t\",\"ts\",\"ms\",\"ns\",\"tz\"\n",
        "1,\"a\"\"b\",\"q\",true,2024-01-01,2024-01-01 00:00:00.000005,2024-01-01 00:00:00,",
        "2024-01-01 01:02:03.004,1970-01-01 00:00:00.000000001,2024-01-01 00:00:00.000000Z\n",
        ",,,,,1969-12-31 23:59:59.999999,,,,\n",
        "-3,\"x,y\nz\",,false,0001-01-01,1960-01-01 00:00:00.000000,,,,\n",
    );
    assert_eq!(write(&[t]).0, expected);
}

fn decimals(values: Vec<Option<i128>>, precision: u8, scale: i8) -> ArrayRef {
    Arc::new(
        Decimal128Array::from(values)
            .with_precision_and_scale(precision, scale)
            .expect("a valid decimal type"),
    )
}

#[test]
fn every_other_type_pyarrow_writes() {
    let dict: DictionaryArray<Int32Type> = vec![Some("a"), None, Some("b"), Some("a")]
        .into_iter()
        .collect();
    let t = batch(vec![
        (
            "dec",
            decimals(vec![Some(150), None, Some(-1), Some(12_345_678)], 10, 2),
        ),
        (
            "tiny",
            decimals(vec![Some(1), Some(-12), Some(10_000), Some(0)], 20, 10),
        ),
        (
            "neg",
            decimals(vec![Some(1), Some(-12), Some(0), None], 5, -2),
        ),
        (
            "t_s",
            Arc::new(Time32SecondArray::from(vec![
                Some(3723),
                None,
                Some(0),
                Some(86_399),
            ])),
        ),
        (
            "t_ms",
            Arc::new(Time32MillisecondArray::from(vec![
                Some(3_723_004),
                None,
                Some(0),
                Some(1),
            ])),
        ),
        (
            "t_us",
            Arc::new(Time64MicrosecondArray::from(vec![
                Some(3_723_000_005),
                None,
                Some(0),
                Some(1),
            ])),
        ),
        (
            "t_ns",
            Arc::new(Time64NanosecondArray::from(vec![
                Some(3_723_000_000_123),
                None,
                Some(0),
                Some(1),
            ])),
        ),
        (
            "ny",
            Arc::new(
                TimestampMicrosecondArray::from(vec![
                    Some(1_704_067_200_000_000),
                    Some(1_719_835_200_000_000),
                    None,
                    Some(0),
                ])
                .with_timezone("America/New_York"),
            ),
        ),
        (
            "plus2",
            Arc::new(
                TimestampSecondArray::from(vec![Some(1_704_067_200), Some(-1), None, Some(0)])
                    .with_timezone("+02:00"),
            ),
        ),
        (
            "kolkata",
            Arc::new(
                TimestampMillisecondArray::from(vec![Some(1_704_067_200_000), None, None, Some(0)])
                    .with_timezone("+05:30"),
            ),
        ),
        (
            "bin",
            Arc::new(BinaryArray::from(vec![
                Some(&b"ab\"c"[..]),
                None,
                Some(&b""[..]),
                Some(&b"x,y"[..]),
            ])),
        ),
        (
            "fixed",
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    vec![Some(b"ab"), None, Some(b"cd"), Some(b"ef")].into_iter(),
                    2,
                )
                .expect("fixed binaries"),
            ),
        ),
        ("dict", Arc::new(dict)),
        (
            "d64",
            Arc::new(Date64Array::from(vec![
                Some(86_400_000 * 3),
                None,
                Some(-1),
                Some(0),
            ])),
        ),
        (
            "h",
            Arc::new(Float16Array::from(vec![
                Some(half_of(0.1)),
                None,
                Some(half_of(1e-5)),
                Some(half_of(65504.0)),
            ])),
        ),
        (
            "dur",
            Arc::new(DurationMillisecondArray::from(vec![
                Some(1000),
                None,
                Some(-5),
                Some(0),
            ])),
        ),
        ("nul", Arc::new(NullArray::new(4))),
        (
            "u64",
            Arc::new(UInt64Array::from(vec![
                Some(u64::MAX),
                None,
                Some(0),
                Some(1),
            ])),
        ),
        (
            "i8",
            Arc::new(Int8Array::from(vec![Some(-128), None, Some(127), Some(0)])),
        ),
        (
            "old",
            Arc::new(TimestampSecondArray::from(vec![
                Some(-62_170_156_800),
                Some(253_402_387_199),
                None,
                Some(0),
            ])),
        ),
        (
            "d32",
            Arc::new(Date32Array::from(vec![
                Some(-719_562),
                Some(2_932_897),
                None,
                Some(0),
            ])),
        ),
    ]);
    let expected = concat!(
        "\"dec\",\"tiny\",\"neg\",\"t_s\",\"t_ms\",\"t_us\",\"t_ns\",\"ny\",\"plus2\",\"kolkata\",",
        "\"bin\",\"fixed\",\"dict\",\"d64\",\"h\",\"dur\",\"nul\",\"u64\",\"i8\",\"old\",\"d32\"\n",
        "1.50,1E-10,1E+2,01:02:03,01:02:03.004,01:02:03.000005,01:02:03.000000123,",
        "2023-12-31 19:00:00.000000-0500,2024-01-01 02:00:00+0200,",
        "2024-01-01 05:30:00.000+0530,\"ab\"\"c\",\"ab\",\"a\",1970-01-04,0.0999755859375,1000,,",
        "18446744073709551615,-128,-0001-11-28 00:00:00,-0001-11-28\n",
        ",-1.2E-9,-1.2E+3,,,,,2024-07-01 08:00:00.000000-0400,1970-01-01 01:59:59+0200,,,,,,,,,,,",
        "10000-01-01 23:59:59,10000-01-01\n",
        "-0.01,0.0000010000,0E+2,00:00:00,00:00:00.000,00:00:00.000000,00:00:00.000000000,,,,",
        "\"\",\"cd\",\"b\",1970-01-01,0.000010013580322265625,-5,,0,127,,\n",
        "123456.78,0E-10,,23:59:59,00:00:00.001,00:00:00.000001,00:00:00.000000001,",
        "1969-12-31 19:00:00.000000-0500,1970-01-01 02:00:00+0200,",
        "1970-01-01 05:30:00.000+0530,\"x,y\",\"ef\",\"a\",1970-01-01,65504,0,,1,0,",
        "1970-01-01 00:00:00,1970-01-01\n",
    );
    let (text, summary) = write(&[t]);
    assert_eq!(text, expected);
    assert_eq!(summary.records, 4);
}

fn half_of(
    value: f32,
) -> <arrow_array::types::Float16Type as arrow_array::ArrowPrimitiveType>::Native {
    <arrow_array::types::Float16Type as arrow_array::ArrowPrimitiveType>::Native::from_f32(value)
}

#[test]
fn the_hosts_utc_zone_is_written_as_pyiceberg_reads_it() {
    // The host names Iceberg's timestamptz "+00:00"; pyiceberg reads it as "UTC" and pyarrow
    // writes "Z" for that.
    let t = batch(vec![(
        "at",
        Arc::new(
            TimestampMicrosecondArray::from(vec![1_704_067_200_000_000]).with_timezone("+00:00"),
        ) as ArrayRef,
    )]);
    assert_eq!(write(&[t]).0, "\"at\"\n2024-01-01 00:00:00.000000Z\n");
}

#[test]
fn string_views_are_written_like_strings() {
    let t = batch(vec![(
        "v",
        Arc::new(StringViewArray::from(vec![Some("a\"b"), None])) as ArrayRef,
    )]);
    assert_eq!(write(&[t]).0, "\"v\"\n\"a\"\"b\"\n\n");
}

#[test]
fn batches_append_and_the_summary_names_the_file() {
    let first = batch(vec![(
        "n",
        Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef,
    )]);
    let second = batch(vec![("n", Arc::new(Int64Array::from(vec![3])) as ArrayRef)]);
    let empty = first.slice(0, 0);
    let (text, summary) = write(&[first, empty, second]);
    assert_eq!(text, "\"n\"\n1\n2\n3\n");
    assert_eq!(
        summary,
        SinkSummary {
            records: 3,
            bytes: 10,
            files: vec!["out.csv".to_string()],
        }
    );
}

#[test]
fn no_rows_is_the_header_and_no_columns_an_empty_file() {
    let t = batch(vec![(
        "x",
        Arc::new(Int64Array::from(Vec::<i64>::new())) as ArrayRef,
    )]);
    assert_eq!(write(&[t]).0, "\"x\"\n");
    let dir = TempDir::new();
    let path = dir.path("none.csv");
    let schema = Arc::new(Schema::empty());
    let sink = CsvSink::open_batches(&path_config(&path, ""), schema).expect("opens");
    assert_eq!(sink.close().expect("closes").bytes, 0);
    assert_eq!(read_text(&path), "");
}

#[test]
fn an_existing_file_is_replaced() {
    let dir = TempDir::new();
    let path = dir.path("old.csv");
    std::fs::write(&path, "a much longer previous content\n".repeat(10)).expect("a file");
    let t = batch(vec![("n", Arc::new(Int64Array::from(vec![1])) as ArrayRef)]);
    write_batches::<CsvSink>(&path_config(&path, ""), &[t]);
    assert_eq!(read_text(&path), "\"n\"\n1\n");
}

#[test]
fn nested_columns_are_refused_before_the_file_is_created() {
    let list = ListArray::from_iter_primitive::<Int64Type, _, _>(vec![Some(vec![Some(1)])]);
    let t = batch(vec![("l", Arc::new(list) as ArrayRef)]);
    let dir = TempDir::new();
    let path = dir.path("out.csv");
    let e = CsvSink::open_batches(&path_config(&path, ""), t.schema())
        .err()
        .expect("refused");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message
            .starts_with(&format!("{path}: cannot write column \"l\" (List(")),
        "{e}"
    );
    assert!(e.message.contains("no text form"), "{e}");
    assert!(!std::path::Path::new(&path).exists());
}

#[test]
fn an_unknown_zone_is_refused() {
    let t = batch(vec![(
        "at",
        Arc::new(TimestampMicrosecondArray::from(vec![0]).with_timezone("Mars/Olympus"))
            as ArrayRef,
    )]);
    let dir = TempDir::new();
    let e = CsvSink::open_batches(&path_config(&dir.path("o.csv"), ""), t.schema())
        .err()
        .expect("refused");
    assert!(
        e.message
            .contains("\"Mars/Olympus\" is not a known time zone"),
        "{e}"
    );
}

#[test]
fn binary_that_is_not_utf8_names_the_column_and_row() {
    let first = batch(vec![(
        "raw",
        Arc::new(BinaryArray::from(vec![Some(&b"ok"[..])])) as ArrayRef,
    )]);
    let second = batch(vec![(
        "raw",
        Arc::new(BinaryArray::from(vec![
            Some(&b"fine"[..]),
            Some(&b"\xff"[..]),
        ])) as ArrayRef,
    )]);
    let dir = TempDir::new();
    let path = dir.path("o.csv");
    let mut sink = CsvSink::open_batches(&path_config(&path, ""), first.schema()).expect("opens");
    sink.write_batch(&first).expect("writes");
    let e = sink.write_batch(&second).expect_err("refused");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message
            .starts_with(&format!("{path}: column \"raw\", row 3 of the data")),
        "{e}"
    );
}

#[test]
fn a_missing_folder_is_an_io_error() {
    let t = batch(vec![("n", Arc::new(Int64Array::from(vec![1])) as ArrayRef)]);
    let dir = TempDir::new();
    let path = dir.path("missing/out.csv");
    let e = CsvSink::open_batches(&path_config(&path, ""), t.schema())
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
    let info = CsvSink::describe();
    assert_eq!(info.name, "csv-sink");
    assert!(info.config_schema.contains("\"path\""));
}

#[test]
fn dictionaries_are_looked_up_with_nulls_in_keys_and_values() {
    let values = StringArray::from(vec![Some("a,b"), None]);
    let keys = arrow_array::Int8Array::from(vec![Some(0), Some(1), None, Some(0)]);
    let dict = DictionaryArray::<arrow_array::types::Int8Type>::try_new(keys, Arc::new(values))
        .expect("a dictionary");
    let t = batch(vec![("d", Arc::new(dict) as ArrayRef)]);
    assert_eq!(write(&[t]).0, "\"d\"\n\"a,b\"\n\n\n\"a,b\"\n");
}
