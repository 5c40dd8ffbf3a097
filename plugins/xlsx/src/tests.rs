//! End-to-end tests of the plugin on workbooks that the tests write with `rust_xlsxwriter`.

use super::*;
use crate::calendar::{MICROS_PER_DAY, days_from_civil};
use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, Time64MicrosecondType, TimestampMicrosecondType};
use arrow_schema::{DataType, TimeUnit};
use ldp_plugin_sdk::ErrorKind;
use rust_xlsxwriter::{ExcelDateTime, Format, Formula, Workbook, Worksheet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ldp-xlsx-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// Saves a workbook whose sheets `fill` writes.
    fn book(&self, name: &str, fill: impl FnOnce(&mut Workbook)) -> String {
        let mut workbook = Workbook::new();
        fill(&mut workbook);
        let path = self.0.join(name);
        workbook.save(&path).unwrap();
        path.to_str().unwrap().to_string()
    }

    /// A workbook of one sheet, `Sheet1`.
    fn sheet(&self, fill: impl FnOnce(&mut Worksheet)) -> String {
        self.book("book.xlsx", |wb| fill(wb.add_worksheet()))
    }

    fn file(&self, name: &str, content: &[u8]) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, content).unwrap();
        path.to_str().unwrap().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The config for `path` with extra keys (a JSON object's inside).
fn config(path: &str, extra: &str) -> Config {
    let path = serde_json::Value::String(path.to_string());
    let text = if extra.is_empty() {
        format!("{{\"path\":{path}}}")
    } else {
        format!("{{\"path\":{path},{extra}}}")
    };
    Config::parse(&text).unwrap()
}

/// Reads the sheet: its batches and its warnings.
fn read(path: &str, extra: &str) -> Result<(Vec<RecordBatch>, Vec<String>), PluginError> {
    let mut table = XlsxSource::read(&config(path, extra))?;
    let mut batches = Vec::new();
    while let Some(batch) = table.next_batch()? {
        assert_eq!(batch.schema(), table.schema());
        batches.push(batch);
    }
    Ok((batches, table.warnings.clone()))
}

/// Reads the sheet into one batch.
fn read_one(path: &str, extra: &str) -> (RecordBatch, Vec<String>) {
    let mut table = XlsxSource::read(&config(path, extra)).unwrap();
    let schema = table.schema();
    let mut batches = Vec::new();
    while let Some(batch) = table.next_batch().unwrap() {
        batches.push(batch);
    }
    let batch = single(&schema, &batches);
    (batch, table.warnings.clone())
}

/// The batches as one (the tests read small sheets with the default batch size: one batch).
fn single(schema: &SchemaRef, batches: &[RecordBatch]) -> RecordBatch {
    match batches {
        [] => RecordBatch::new_empty(schema.clone()),
        [one] => one.clone(),
        _ => panic!("expected one batch, got {}", batches.len()),
    }
}

fn error(path: &str, extra: &str) -> PluginError {
    read(path, extra).map(|_| ()).unwrap_err()
}

fn names(batch: &RecordBatch) -> Vec<String> {
    batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect()
}

fn strings(batch: &RecordBatch, col: usize) -> Vec<Option<String>> {
    batch
        .column(col)
        .as_string::<i32>()
        .iter()
        .map(|s| s.map(str::to_owned))
        .collect()
}

fn ints(batch: &RecordBatch, col: usize) -> Vec<Option<i64>> {
    batch
        .column(col)
        .as_primitive::<Int64Type>()
        .iter()
        .collect()
}

fn micros(y: i64, m: u32, d: u32, h: i64, mi: i64, s: i64) -> i64 {
    days_from_civil(y, m, d) * MICROS_PER_DAY + ((h * 60 + mi) * 60 + s) * 1_000_000
}

#[test]
fn describes_itself() {
    let info = XlsxSource::describe();
    assert_eq!(info.name, "xlsx");
    assert!(info.config_schema.contains("header_row"));
}

#[test]
fn each_kind_of_cell_gives_its_type() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        let date = Format::new().set_num_format("yyyy-mm-dd");
        let datetime = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss");
        let time = Format::new().set_num_format("hh:mm");
        let duration = Format::new().set_num_format("[h]:mm:ss");
        for (col, name) in [
            "id", "price", "paid", "item", "day", "at", "opens", "took", "empty",
        ]
        .iter()
        .enumerate()
        {
            ws.write_string(0, col as u16, *name).unwrap();
        }
        for row in 1..=2u32 {
            let r = f64::from(row);
            ws.write_number(row, 0, r).unwrap();
            ws.write_number(row, 1, r + 0.5).unwrap();
            ws.write_boolean(row, 2, row == 1).unwrap();
            ws.write_string(row, 3, format!("item {row}")).unwrap();
            let day = if row == 1 {
                ExcelDateTime::from_ymd(2024, 1, 31)
            } else {
                ExcelDateTime::from_ymd(2024, 2, 1)
            }
            .unwrap();
            ws.write_datetime_with_format(row, 4, &day, &date).unwrap();
            let at = ExcelDateTime::from_ymd(2024, 1, 31)
                .unwrap()
                .and_hms(13, 5, row as u8)
                .unwrap();
            ws.write_datetime_with_format(row, 5, &at, &datetime)
                .unwrap();
            ws.write_number_with_format(row, 6, 0.25 * r, &time)
                .unwrap();
            ws.write_number_with_format(row, 7, r + 0.0625, &duration)
                .unwrap();
        }
    });
    let (batch, warnings) = read_one(&path, "");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        names(&batch),
        [
            "id", "price", "paid", "item", "day", "at", "opens", "took", "empty"
        ]
    );
    let types: Vec<DataType> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    assert_eq!(
        types,
        [
            DataType::Int64,
            DataType::Float64,
            DataType::Boolean,
            DataType::Utf8,
            DataType::Timestamp(TimeUnit::Microsecond, None),
            DataType::Timestamp(TimeUnit::Microsecond, None),
            DataType::Time64(TimeUnit::Microsecond),
            DataType::Utf8,
            DataType::Utf8,
        ]
    );
    assert_eq!(ints(&batch, 0), [Some(1), Some(2)]);
    let prices: Vec<_> = batch
        .column(1)
        .as_primitive::<Float64Type>()
        .values()
        .to_vec();
    assert_eq!(prices, [1.5, 2.5]);
    let paid: Vec<_> = batch.column(2).as_boolean().iter().collect();
    assert_eq!(paid, [Some(true), Some(false)]);
    assert_eq!(
        strings(&batch, 3),
        [Some("item 1".into()), Some("item 2".into())]
    );
    let days: Vec<_> = batch
        .column(4)
        .as_primitive::<TimestampMicrosecondType>()
        .values()
        .to_vec();
    assert_eq!(
        days,
        [micros(2024, 1, 31, 0, 0, 0), micros(2024, 2, 1, 0, 0, 0)]
    );
    let ats: Vec<_> = batch
        .column(5)
        .as_primitive::<TimestampMicrosecondType>()
        .values()
        .to_vec();
    assert_eq!(
        ats,
        [micros(2024, 1, 31, 13, 5, 1), micros(2024, 1, 31, 13, 5, 2)]
    );
    let opens: Vec<_> = batch
        .column(6)
        .as_primitive::<Time64MicrosecondType>()
        .values()
        .to_vec();
    assert_eq!(opens, [6 * 3_600_000_000, 12 * 3_600_000_000]);
    // Durations read as text, as Python prints a timedelta.
    assert_eq!(
        strings(&batch, 7),
        [
            Some("1 day, 1:30:00".into()),
            Some("2 days, 1:30:00".into())
        ]
    );
    // A column with a name and no data: text, all null.
    assert_eq!(batch.column(8).null_count(), 2);
}

#[test]
fn a_mixed_column_is_text_and_a_warning_names_it() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        ws.write_string(0, 0, "amount").unwrap();
        ws.write_string(0, 1, "flag").unwrap();
        ws.write_number(1, 0, 3.0).unwrap();
        ws.write_number(2, 0, 2.5).unwrap();
        ws.write_string(3, 0, "n/a").unwrap();
        ws.write_boolean(1, 1, true).unwrap();
        let date = Format::new().set_num_format("yyyy-mm-dd");
        let day = ExcelDateTime::from_ymd(2024, 1, 31).unwrap();
        ws.write_datetime_with_format(2, 1, &day, &date).unwrap();
    });
    let (batch, warnings) = read_one(&path, "");
    assert_eq!(batch.schema().field(0).data_type(), &DataType::Utf8);
    assert_eq!(
        strings(&batch, 0),
        [Some("3".into()), Some("2.5".into()), Some("n/a".into())]
    );
    assert_eq!(
        strings(&batch, 1),
        [
            Some("TRUE".into()),
            Some("2024-01-31 00:00:00".into()),
            None
        ]
    );
    assert_eq!(
        warnings,
        [
            format!(
                "{path} (sheet 'Sheet1'): column 'amount' holds number and text, so it is read as text"
            ),
            format!(
                "{path} (sheet 'Sheet1'): column 'flag' holds bool and date, so it is read as text"
            ),
        ]
    );
}

#[test]
fn whole_numbers_are_int64_until_one_is_not() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        ws.write_string(0, 0, "whole").unwrap();
        ws.write_string(0, 1, "mixed").unwrap();
        ws.write_string(0, 2, "huge").unwrap();
        for (row, (a, b)) in [(1.0, 1.0), (-2.0, 0.5), (1e15, 3.0)].iter().enumerate() {
            ws.write_number(row as u32 + 1, 0, *a).unwrap();
            ws.write_number(row as u32 + 1, 1, *b).unwrap();
        }
        ws.write_number(1, 2, 1e19).unwrap();
    });
    let (batch, _) = read_one(&path, "");
    assert_eq!(
        ints(&batch, 0),
        [Some(1), Some(-2), Some(1_000_000_000_000_000)]
    );
    assert_eq!(batch.schema().field(1).data_type(), &DataType::Float64);
    // Beyond int64: float64.
    assert_eq!(batch.schema().field(2).data_type(), &DataType::Float64);
}

#[test]
fn formula_cells_give_their_saved_value() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        ws.write_string(0, 0, "sum").unwrap();
        ws.write_string(0, 1, "label").unwrap();
        ws.write_string(0, 2, "check").unwrap();
        ws.write_string(0, 3, "ratio").unwrap();
        ws.write_string(0, 4, "never").unwrap();
        ws.write_formula(1, 0, Formula::new("=1+2").set_result("3"))
            .unwrap();
        ws.write_formula(2, 0, Formula::new("=20*2").set_result("40"))
            .unwrap();
        ws.write_formula(1, 1, Formula::new("=\"a\"&\"b\"").set_result("ab"))
            .unwrap();
        ws.write_formula(1, 2, Formula::new("=1>0").set_result("TRUE"))
            .unwrap();
        ws.write_formula(2, 2, Formula::new("=1<0").set_result("FALSE"))
            .unwrap();
        ws.write_formula(1, 3, Formula::new("=1/0").set_result("#DIV/0!"))
            .unwrap();
        // Written by a program that never calculated it: no saved value.
        ws.set_formula_result_default("");
        ws.write_formula(1, 4, Formula::new("=A2*2")).unwrap();
    });
    let (batch, warnings) = read_one(&path, "");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(ints(&batch, 0), [Some(3), Some(40)]);
    assert_eq!(strings(&batch, 1), [Some("ab".into()), None]);
    let checks: Vec<_> = batch.column(2).as_boolean().iter().collect();
    assert_eq!(checks, [Some(true), Some(false)]);
    assert_eq!(strings(&batch, 3), [Some("#DIV/0!".into()), None]);
    assert_eq!(batch.schema().field(4).data_type(), &DataType::Utf8);
    assert_eq!(batch.column(4).null_count(), 2);
}

#[test]
fn trailing_empty_rows_and_columns_are_dropped() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        let bold = Format::new().set_bold();
        ws.write_string(0, 0, "a").unwrap();
        ws.write_string(0, 1, "b").unwrap();
        ws.write_number(1, 0, 1.0).unwrap();
        // An empty row in the middle stays, as nulls.
        ws.write_number(3, 1, 4.0).unwrap();
        // Formatted empty cells, an empty text and a whitespace header at the edges.
        ws.write_blank(10, 0, &bold).unwrap();
        ws.write_blank(0, 5, &bold).unwrap();
        ws.write_blank(20, 8, &bold).unwrap();
        ws.write_string(0, 3, "   ").unwrap();
        ws.write_string(12, 1, "").unwrap();
    });
    let (batch, _) = read_one(&path, "");
    assert_eq!(names(&batch), ["a", "b"]);
    assert_eq!(batch.num_rows(), 3);
    assert_eq!(ints(&batch, 0), [Some(1), None, None]);
    assert_eq!(ints(&batch, 1), [None, None, Some(4)]);
}

#[test]
fn a_merged_range_gives_its_value_to_its_first_cell() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        let center = Format::new();
        ws.write_string(0, 0, "region").unwrap();
        ws.write_string(0, 1, "city").unwrap();
        ws.write_string(0, 2, "sales").unwrap();
        ws.merge_range(1, 0, 3, 0, "North", &center).unwrap();
        ws.write_string(1, 1, "Oslo").unwrap();
        ws.write_string(2, 1, "Bergen").unwrap();
        ws.write_string(3, 1, "Tromsø").unwrap();
        // A merge of numbers: the number in its first cell, and a value that a writer left in
        // a hidden cell of the range, which is not read.
        ws.merge_range(1, 2, 2, 2, "", &center).unwrap();
        ws.write_number(1, 2, 10.0).unwrap();
        ws.write_number(2, 2, 99.0).unwrap();
        ws.write_number(3, 2, 5.0).unwrap();
    });
    let (batch, warnings) = read_one(&path, "");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(strings(&batch, 0), [Some("North".into()), None, None]);
    assert_eq!(ints(&batch, 2), [Some(10), None, Some(5)]);
}

#[test]
fn a_merged_header_leaves_the_next_column_without_a_name() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        ws.merge_range(0, 0, 0, 1, "name", &Format::new()).unwrap();
        ws.write_string(1, 0, "x").unwrap();
        ws.write_string(1, 1, "y").unwrap();
    });
    let e = error(&path, "");
    assert_eq!(
        e.message,
        format!(
            "{path} (sheet 'Sheet1'): the header cell B1 is empty; every column up to the last \
             one that has data needs a name"
        )
    );
}

#[test]
fn header_row_skips_the_rows_above() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        ws.write_string(0, 0, "Sales report").unwrap();
        ws.write_number(1, 3, 2024.0).unwrap();
        ws.write_string(2, 0, " Unit\n price ").unwrap();
        ws.write_number(2, 1, 2024.0).unwrap();
        ws.write_boolean(2, 2, true).unwrap();
        ws.write_number(3, 0, 1.5).unwrap();
        ws.write_number(3, 1, 7.0).unwrap();
    });
    let (batch, _) = read_one(&path, r#""header_row":3"#);
    // Names: white space squeezed, numbers and booleans as Python prints them.
    assert_eq!(names(&batch), ["Unit price", "2024", "True"]);
    assert_eq!(batch.num_rows(), 1);
    let e = error(&path, r#""header_row":9"#);
    assert_eq!(
        e.message,
        format!("{path} (sheet 'Sheet1'): the sheet has no row 9, so there is no header to read")
    );
}

#[test]
fn an_empty_header_row_fails() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        ws.write_string(0, 0, "title").unwrap();
        ws.write_blank(1, 0, &Format::new().set_bold()).unwrap();
    });
    let e = error(&path, r#""header_row":2"#);
    assert_eq!(
        e.message,
        format!("{path} (sheet 'Sheet1'): row 2, the header row, is empty")
    );
    assert_eq!(e.kind, ErrorKind::Data);
}

#[test]
fn an_empty_header_cell_with_data_below_fails() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        ws.write_string(0, 0, "a").unwrap();
        ws.write_string(0, 1, " ").unwrap();
        ws.write_string(0, 2, "c").unwrap();
        ws.write_number(4, 1, 1.0).unwrap();
    });
    let e = error(&path, "");
    assert!(
        e.message.starts_with(&format!(
            "{path} (sheet 'Sheet1'): the header cell B1 is empty;"
        )),
        "{e}"
    );
    assert_eq!(e.kind, ErrorKind::Data);
}

#[test]
fn a_repeated_header_fails_whatever_the_case() {
    let dir = TempDir::new();
    let path = dir.book("book.xlsx", |wb| {
        let ws = wb.add_worksheet();
        ws.set_name("Sales").unwrap();
        ws.write_string(0, 0, "Amount").unwrap();
        ws.write_string(0, 1, "day").unwrap();
        ws.write_string(0, 2, "amount ").unwrap();
    });
    let e = error(&path, "");
    assert_eq!(
        e.message,
        format!(
            "{path} (sheet 'Sales'): the header 'amount' is in both A1 and C1; every column \
             needs its own name, whatever the case"
        )
    );
}

fn three_sheets(dir: &TempDir) -> String {
    dir.book("three.xlsx", |wb| {
        for (name, value) in [("Summary", 1.0), ("Sales", 2.0), ("Costs", 3.0)] {
            let ws = wb.add_worksheet();
            ws.set_name(name).unwrap();
            ws.write_string(0, 0, "n").unwrap();
            ws.write_number(1, 0, value).unwrap();
        }
    })
}

#[test]
fn the_sheet_by_name_by_position_or_the_first() {
    let dir = TempDir::new();
    let path = three_sheets(&dir);
    let first = |extra: &str| ints(&read_one(&path, extra).0, 0)[0];
    assert_eq!(first(""), Some(1));
    assert_eq!(first(r#""sheet":"Sales""#), Some(2));
    assert_eq!(first(r#""sheet":" costs ""#), Some(3));
    assert_eq!(first(r#""sheet":2"#), Some(3));
    assert_eq!(first(r#""sheet":0"#), Some(1));
}

#[test]
fn a_missing_sheet_fails_and_lists_the_sheets() {
    let dir = TempDir::new();
    let path = three_sheets(&dir);
    let e = error(&path, r#""sheet":"Revenue""#);
    assert_eq!(e.kind, ErrorKind::Config);
    assert_eq!(
        e.message,
        format!(
            "{path}: there is no sheet named 'Revenue'; the sheets are ['Summary', 'Sales', 'Costs']"
        )
    );
    let e = error(&path, r#""sheet":3"#);
    assert_eq!(
        e.message,
        format!(
            "{path}: there is no sheet at position 3; the workbook has 3: ['Summary', 'Sales', 'Costs']"
        )
    );
}

#[test]
fn an_xls_file_is_refused() {
    let dir = TempDir::new();
    // The header of an OLE2 compound file, as a real .xls starts.
    let path = dir.file("old.XLS", &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]);
    let e = error(&path, r#""sheet":"Sales""#);
    assert_eq!(e.kind, ErrorKind::Config);
    assert_eq!(
        e.message,
        format!(
            "{path} is an old .xls workbook, which is not supported, so sheet 'Sales' cannot be \
             read. Open it in Excel and save it as .xlsx"
        )
    );
    assert!(
        error(&path, "")
            .message
            .contains("so its first sheet cannot be read")
    );
}

#[test]
fn files_that_are_not_workbooks() {
    let dir = TempDir::new();
    let missing = dir.0.join("missing.xlsx");
    let missing = missing.to_str().unwrap();
    let e = error(missing, "");
    assert_eq!(
        (e.kind, e.message),
        (ErrorKind::Io, format!("Excel file not found: {missing}"))
    );
    let csv = dir.file("data.csv", b"a,b\n1,2\n");
    let e = error(&csv, "");
    assert_eq!(e.kind, ErrorKind::Config);
    assert!(e.message.contains("it is a .csv file"), "{e}");
    let fake = dir.file("fake.xlsx", b"a,b\n1,2\n");
    let e = error(&fake, "");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message
            .starts_with(&format!("{fake} is not a readable .xlsx workbook")),
        "{e}"
    );
}

#[test]
fn batches_hold_batch_size_rows() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        ws.write_string(0, 0, "n").unwrap();
        ws.write_string(0, 1, "sparse").unwrap();
        for row in 1..=10u32 {
            ws.write_number(row, 0, f64::from(row)).unwrap();
        }
        ws.write_string(4, 1, "four").unwrap();
        ws.write_string(9, 1, "nine").unwrap();
    });
    let (batches, _) = read(&path, r#""batch_size":3"#).unwrap();
    let sizes: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
    assert_eq!(sizes, [3, 3, 3, 1]);
    let all: Vec<Option<i64>> = batches.iter().flat_map(|b| ints(b, 0)).collect();
    assert_eq!(all, (1..=10).map(Some).collect::<Vec<_>>());
    let sparse: Vec<Option<String>> = batches.iter().flat_map(|b| strings(b, 1)).collect();
    let mut expected = vec![None; 10];
    expected[3] = Some("four".to_string());
    expected[8] = Some("nine".to_string());
    assert_eq!(sparse, expected);
}

#[test]
fn a_header_without_rows_gives_no_batch() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        ws.write_string(0, 0, "a").unwrap();
    });
    let mut table = XlsxSource::read(&config(&path, "")).unwrap();
    assert_eq!(table.schema().fields().len(), 1);
    assert!(table.next_batch().unwrap().is_none());
}

#[test]
fn the_source_trait_streams_through_open() {
    let dir = TempDir::new();
    let path = dir.sheet(|ws| {
        ws.write_string(0, 0, "n").unwrap();
        ws.write_number(1, 0, 1.0).unwrap();
    });
    let text = format!(r#"{{"path":{}}}"#, serde_json::Value::String(path));
    let mut source = XlsxSource::open(&text).unwrap();
    let batch = source.next_batch().unwrap().unwrap();
    assert_eq!(batch.schema(), source.schema());
    assert!(source.next_batch().unwrap().is_none());
    let e = XlsxSource::open(r#"{"path":"/a.xlsx","header_row":0}"#)
        .err()
        .unwrap();
    assert_eq!(e.kind, ErrorKind::Config);
}
