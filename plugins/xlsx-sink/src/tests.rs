//! Tests of the plugin on workbooks written to a temporary folder and read back with calamine
//! (the reader the XLSX source uses): the cells' types and values, the sheet's name and header,
//! and the limits that make a run fail rather than write a sheet Excel cannot open.

use super::*;
use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, DictionaryArray,
    Float64Array, Int64Array, NullArray, StringArray, Time64MicrosecondArray,
    TimestampMicrosecondArray, UInt64Array,
};
use calamine::{Data, Reader, Xlsx, open_workbook};
use ldp_plugin_sdk::ErrorKind;
use ldp_plugin_sdk::testing::{TempDir, batch, path_config, write_batches};
use std::sync::Arc;

/// Writes `batches` with `extra` config keys and reads the sheet back: its name and rows.
fn round_trip(extra: &str, batches: &[RecordBatch]) -> (Vec<String>, Vec<Vec<Data>>, SinkSummary) {
    let dir = TempDir::new();
    let path = dir.path("out.xlsx");
    let summary = write_batches::<XlsxSink>(&path_config(&path, extra), batches);
    assert_eq!(summary.files, ["out.xlsx"]);
    assert_eq!(summary.bytes, std::fs::metadata(&path).expect("file").len());
    let leftovers: Vec<_> = std::fs::read_dir(dir.dir())
        .expect("folder")
        .map(|e| e.expect("entry").file_name())
        .filter(|name| name != "out.xlsx")
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    let mut workbook: Xlsx<_> = open_workbook(&path).expect("a workbook calamine opens");
    let names = workbook.sheet_names();
    let range = workbook.worksheet_range(&names[0]).expect("the sheet");
    let rows = range.rows().map(<[Data]>::to_vec).collect();
    (names, rows, summary)
}

fn opened_error(extra: &str, first: &RecordBatch) -> PluginError {
    let dir = TempDir::new();
    let config = path_config(&dir.path("out.xlsx"), extra);
    XlsxSink::open_batches(&config, first.schema()).expect_err("refused")
}

fn serial(cell: &Data) -> f64 {
    match cell {
        Data::DateTime(value) => value.as_f64(),
        other => panic!("not a date: {other:?}"),
    }
}

#[test]
fn values_become_excel_types() {
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "id",
            Arc::new(Int64Array::from(vec![Some(1), None, Some(1 << 60)])),
        ),
        (
            "fare",
            Arc::new(Float64Array::from(vec![12.5, f64::NAN, -0.25])),
        ),
        (
            "paid",
            Arc::new(BooleanArray::from(vec![Some(true), Some(false), None])),
        ),
        (
            "city",
            Arc::new(StringArray::from(vec![Some("Paris"), Some(""), None])),
        ),
        ("day", Arc::new(Date32Array::from(vec![19_737, -25_509, 0]))),
        (
            "at",
            Arc::new(
                TimestampMicrosecondArray::from(vec![
                    1_705_320_000_000_000,
                    1_705_320_000_250_000,
                    0,
                ])
                .with_timezone("UTC"),
            ),
        ),
        (
            "clock",
            Arc::new(Time64MicrosecondArray::from(vec![43_200_000_000, 0, 1_000])),
        ),
        (
            "amount",
            Arc::new(
                Decimal128Array::from(vec![1250, -5, 0])
                    .with_precision_and_scale(10, 2)
                    .expect("decimal"),
            ),
        ),
        ("big", Arc::new(UInt64Array::from(vec![u64::MAX, 7, 0]))),
        ("nothing", Arc::new(NullArray::new(3))),
    ];
    let (names, rows, summary) = round_trip("", &[batch(columns)]);
    assert_eq!(names, ["Sheet1"]);
    assert_eq!(summary.records, 3);
    let header: Vec<String> = rows[0].iter().map(ToString::to_string).collect();
    assert_eq!(
        header,
        [
            "id", "fare", "paid", "city", "day", "at", "clock", "amount", "big", "nothing"
        ]
    );
    let first = &rows[1];
    assert_eq!(first[0], Data::Float(1.0));
    assert_eq!(first[1], Data::Float(12.5));
    assert_eq!(first[2], Data::Bool(true));
    assert_eq!(first[3], Data::String("Paris".into()));
    assert_eq!(serial(&first[4]), 45_306.0, "2024-01-15");
    assert_eq!(serial(&first[5]), 45_306.5, "2024-01-15 12:00:00");
    assert_eq!(serial(&first[6]), 0.5, "12:00:00");
    assert_eq!(first[7], Data::Float(12.5));
    assert_eq!(
        first[8],
        Data::String(u64::MAX.to_string()),
        "beyond 2^53: text"
    );
    let second = &rows[2];
    assert_eq!(second[0], Data::Empty, "a null is an empty cell");
    assert_eq!(second[1], Data::String("NaN".into()));
    assert_eq!(
        second[3],
        Data::Empty,
        "Excel stores empty text as an empty cell"
    );
    assert_eq!(
        second[4],
        Data::String("1900-02-28".into()),
        "before 1900-03-01: text"
    );
    assert!((serial(&second[5]) - (45_306.5 + 0.25 / 86_400.0)).abs() < 1e-9);
    assert_eq!(second[7], Data::Float(-0.05));
    let third = &rows[3];
    assert_eq!(third[0], Data::String((1_i64 << 60).to_string()));
    assert_eq!(third[2], Data::Empty);
    assert_eq!(serial(&third[4]), 25_569.0, "1970-01-01");
    assert!(
        rows.iter()
            .skip(1)
            .all(|row| row.len() < 10 || row[9] == Data::Empty)
    );
}

#[test]
fn sheet_name_header_and_dictionaries() {
    let keys = arrow_array::Int32Array::from(vec![Some(1), None, Some(0)]);
    let values = Arc::new(StringArray::from(vec!["a", "b"]));
    let dictionary = DictionaryArray::<Int32Type>::try_new(keys, values).expect("dictionary");
    let columns: Vec<(&str, ArrayRef)> = vec![("letter", Arc::new(dictionary))];
    let first = batch(columns.clone());
    let (names, rows, summary) = round_trip(
        r#","sheet":"Letters","header":false"#,
        &[first.clone(), first],
    );
    assert_eq!(names, ["Letters"]);
    assert_eq!(summary.records, 6);
    let cells: Vec<Data> = rows.into_iter().map(|row| row[0].clone()).collect();
    assert_eq!(
        cells,
        [
            Data::String("b".into()),
            Data::Empty,
            Data::String("a".into()),
            Data::String("b".into()),
            Data::Empty,
            Data::String("a".into()),
        ]
    );
}

#[test]
fn what_a_sheet_cannot_hold_is_refused() {
    let binary: Vec<(&str, ArrayRef)> =
        vec![("blob", Arc::new(BinaryArray::from(vec![b"x".as_ref()])))];
    let e = opened_error("", &batch(binary));
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message
            .contains("cannot write column \"blob\" (Binary) as XLSX"),
        "{e}"
    );

    let dir = TempDir::new();
    let config = path_config(&dir.path("out.xlsx"), "");
    let long: Vec<(&str, ArrayRef)> = vec![(
        "note",
        Arc::new(StringArray::from(vec!["ok".to_owned(), "é".repeat(32_768)])),
    )];
    let long = batch(long);
    let mut sink = XlsxSink::open_batches(&config, long.schema()).expect("opens");
    let e = sink.write_batch(&long).expect_err("too long");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message
            .contains("column \"note\", row 2: 32768 characters do not fit a cell"),
        "{e}"
    );
}

#[test]
fn a_full_sheet_fails_rather_than_dropping_rows() {
    let dir = TempDir::new();
    let config = path_config(&dir.path("out.xlsx"), "");
    let rows = 1 << 16;
    let chunk: Vec<(&str, ArrayRef)> = vec![("n", Arc::new(Int64Array::from(vec![1; rows])))];
    let chunk = batch(chunk);
    let mut sink = XlsxSink::open_batches(&config, chunk.schema()).expect("opens");
    // 16 batches of 65,536 rows fill the sheet with the header: the 16th fails.
    for _ in 0..15 {
        sink.write_batch(&chunk).expect("fits");
    }
    let e = sink.write_batch(&chunk).expect_err("full");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message.contains("a sheet holds at most 1048576 rows"),
        "{e}"
    );
}
