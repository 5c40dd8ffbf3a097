//! End-to-end tests of the plugin on small files written to a temporary folder.

use super::*;
use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Float64Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, StructArray};
use arrow_schema::{DataType, TimeUnit};
use ldp_plugin_sdk::ErrorKind;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// 2024-01-31 10:00:00 UTC in microseconds since the epoch.
const JAN_31_10H_US: i64 = 1_706_695_200_000_000;

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ldp-json-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        Self(dir)
    }

    fn file(&self, name: &str, content: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, content).expect("a file");
        path.to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn open(path: &str, extra: &str) -> Result<Json, PluginError> {
    let path = serde_json::Value::String(path.to_string());
    Json::open(&format!("{{\"path\":{path}{extra}}}"))
}

fn read_all(json: &mut Json) -> Result<Vec<RecordBatch>, PluginError> {
    let mut batches = Vec::new();
    while let Some(b) = json.next_batch()? {
        assert_eq!(b.schema().fields(), json.schema().fields());
        batches.push(b);
    }
    Ok(batches)
}

/// Reads a whole file into one batch.
fn read(path: &str, extra: &str) -> RecordBatch {
    let mut json = open(path, extra).expect("opens");
    let batches = read_all(&mut json).expect("reads");
    arrow_select_concat(&json.schema(), &batches)
}

fn arrow_select_concat(schema: &SchemaRef, batches: &[RecordBatch]) -> RecordBatch {
    let columns = (0..schema.fields().len())
        .map(|i| {
            let arrays: Vec<&dyn Array> = batches.iter().map(|b| b.column(i).as_ref()).collect();
            arrow_concat(&arrays)
        })
        .collect();
    RecordBatch::try_new(schema.clone(), columns).expect("same schema")
}

fn arrow_concat(arrays: &[&dyn Array]) -> ArrayRef {
    let datas: Vec<arrow_data::ArrayData> = arrays.iter().map(|a| a.to_data()).collect();
    let refs: Vec<&arrow_data::ArrayData> = datas.iter().collect();
    let capacity = refs.iter().map(|d| d.len()).sum();
    let mut mutable = arrow_data::transform::MutableArrayData::new(refs.clone(), true, capacity);
    for (i, d) in refs.iter().enumerate() {
        mutable.extend(i, 0, d.len());
    }
    arrow_array::make_array(mutable.freeze())
}

fn type_list(schema: &SchemaRef) -> Vec<String> {
    schema
        .fields()
        .iter()
        .map(|f| format!("{}: {}", f.name(), f.data_type()))
        .collect()
}

const RECORDS: &str = r#"{"id": 1, "price": 2, "name": "a", "ok": true, "at": "2024-01-31T10:00:00Z", "point": {"x": 1, "y": "p"}, "tags": ["t1", "t2"]}
{"id": 2, "price": 2.5, "ok": false, "at": "2024-01-31 11:00:00+01:00", "point": {"x": 2.5}, "tags": [], "extra": null}

{"id": 3, "name": "c\"q", "point": null, "tags": null, "day": "2024-02-29"}
"#;

fn check_records(batch: &RecordBatch) {
    assert_eq!(
        type_list(&batch.schema()),
        vec![
            "id: Int64",
            "price: Float64",
            "name: Utf8",
            "ok: Boolean",
            r#"at: Timestamp(µs, "UTC")"#,
            r#"point: Struct("x": Float64, "y": Utf8)"#,
            "tags: List(Utf8)",
            "extra: Utf8",
            "day: Date32",
        ]
    );
    assert_eq!(batch.num_rows(), 3);
    let ids = batch.column(0).as_primitive::<Int64Type>();
    assert_eq!(ids.values().to_vec(), vec![1, 2, 3]);
    let price = batch.column(1).as_primitive::<Float64Type>();
    assert_eq!(
        (price.value(0), price.value(1), price.is_null(2)),
        (2.0, 2.5, true)
    );
    let name = batch.column(2).as_string::<i32>();
    assert_eq!(
        (name.value(0), name.is_null(1), name.value(2)),
        ("a", true, "c\"q")
    );
    let at = batch.column(4).as_primitive::<TimestampMicrosecondType>();
    assert_eq!(
        (at.value(0), at.value(1), at.is_null(2)),
        (JAN_31_10H_US, JAN_31_10H_US, true)
    );
    let point: &StructArray = batch.column(5).as_struct();
    assert!(point.is_null(2));
    let x = point.column(0).as_primitive::<Float64Type>();
    assert_eq!((x.value(0), x.value(1)), (1.0, 2.5));
    let y = point.column(1).as_string::<i32>();
    assert_eq!((y.value(0), y.is_null(1)), ("p", true));
    let tags = batch.column(6).as_list::<i32>();
    assert_eq!(tags.value_length(0), 2);
    assert_eq!(tags.value_length(1), 0);
    assert!(tags.is_null(2));
    assert_eq!(batch.column(7).null_count(), 3);
    let day = batch.column(8).as_primitive::<Date32Type>();
    assert_eq!((day.is_null(0), day.value(2)), (true, 19_782));
}

#[test]
fn lines_are_typed_like_pyarrow_with_ragged_records_as_nulls() {
    let dir = TempDir::new();
    let path = dir.file("data.jsonl", RECORDS);
    check_records(&read(&path, ""));
}

#[test]
fn an_array_of_objects_reads_the_same() {
    let dir = TempDir::new();
    let lines: Vec<&str> = RECORDS.lines().filter(|l| !l.is_empty()).collect();
    let path = dir.file("data.json", &format!("[\n{}\n]\n", lines.join(",\n")));
    check_records(&read(&path, ""));
    // A file named .json that holds lines is read as lines.
    let path = dir.file("lines.json", RECORDS);
    check_records(&read(&path, ""));
}

#[test]
fn batches_hold_batch_size_rows() {
    let dir = TempDir::new();
    let text: String = (0..10).map(|i| format!("{{\"n\":{i}}}\n")).collect();
    let path = dir.file("n.ndjson", &text);
    let mut json = open(&path, r#","batch_size":4"#).expect("opens");
    let batches = read_all(&mut json).expect("reads");
    let sizes: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
    assert_eq!(sizes, vec![4, 4, 2]);
    assert_eq!(json.next_batch().expect("the end"), None);
}

#[test]
fn big_integers_are_doubles_and_zoned_timestamps_keep_utc_when_nested() {
    let dir = TempDir::new();
    let path = dir.file(
        "x.jsonl",
        "{\"big\":18446744073709551615,\"o\":{\"at\":\"2024-01-31T10:00:00Z\"},\"t\":\"2024-01-31T10:00:00.5\"}\n\
         {\"big\":1,\"o\":{\"at\":null},\"t\":\"2024-01-31\"}\n",
    );
    let batch = read(&path, "");
    assert_eq!(
        type_list(&batch.schema()),
        vec![
            "big: Float64",
            r#"o: Struct("at": Timestamp(µs, "UTC"))"#,
            "t: Timestamp(µs)",
        ]
    );
    let big = batch.column(0).as_primitive::<Float64Type>();
    assert_eq!(
        (big.value(0), big.value(1)),
        (18_446_744_073_709_551_615.0, 1.0)
    );
    let o: &StructArray = batch.column(1).as_struct();
    let at = o.column(0).as_primitive::<TimestampMicrosecondType>();
    assert_eq!((at.value(0), at.is_null(1)), (JAN_31_10H_US, true));
    let t = batch.column(2).as_primitive::<TimestampMicrosecondType>();
    assert_eq!(t.value(0), JAN_31_10H_US + 500_000);
    assert_eq!(t.value(1), JAN_31_10H_US - 10 * 3_600_000_000);
    assert_eq!(
        batch.schema().field(2).data_type(),
        &DataType::Timestamp(TimeUnit::Microsecond, None)
    );
}

fn open_err(path: &str, extra: &str) -> PluginError {
    match open(path, extra) {
        Ok(mut json) => read_all(&mut json).expect_err("an error"),
        Err(e) => e,
    }
}

#[test]
fn invalid_json_names_the_line_and_column() {
    let dir = TempDir::new();
    let path = dir.file("bad.jsonl", "{\"a\":1}\n{\"a\":2}\n  {\"a\":3,}\n");
    let e = open_err(&path, "");
    assert_eq!(e.kind, ErrorKind::Data);
    assert_eq!(
        e.message,
        format!("{path}: line 3, column 10: invalid JSON: trailing comma")
    );
    // The same found while decoding (the types were inferred from the first record only).
    let e = open_err(&path, r#","infer_rows":1"#);
    assert_eq!(
        e.message,
        format!("{path}: line 3, column 10: invalid JSON: trailing comma")
    );
}

#[test]
fn a_value_of_another_type_names_the_key_and_line() {
    let dir = TempDir::new();
    let path = dir.file(
        "t.jsonl",
        "{\"a\":1}\n{\"a\":2}\n{\"b\":{\"c\":[1]}}\n{\"b\":{\"c\":[\"x\"]}}\n",
    );
    let e = open_err(&path, r#","strict_types":true"#);
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message.starts_with(&format!(
            "{path}: line 4, column 14: the key \"b.c.[]\" holds a string here but a number"
        )),
        "{e}"
    );
}

/// Without `strict_types`, a key of numbers and strings is a string column of their text, as
/// DuckDB reads it (ldp once refused the file).
#[test]
fn mixed_scalars_load_as_strings() {
    let dir = TempDir::new();
    let path = dir.file(
        "m.jsonl",
        "{\"a\":1,\"b\":true}\n{\"a\":\"x\",\"b\":2.5}\n{\"a\":null,\"b\":\"no\"}\n",
    );
    let mut json = open(&path, "").expect("opens");
    let batches = read_all(&mut json).expect("reads");
    let batch = &batches[0];
    let text = |i: usize| -> Vec<Option<String>> {
        batch
            .column(i)
            .as_string::<i32>()
            .iter()
            .map(|s| s.map(str::to_string))
            .collect()
    };
    assert_eq!(text(0), vec![Some("1".into()), Some("x".into()), None]);
    assert_eq!(
        text(1),
        vec![Some("true".into()), Some("2.5".into()), Some("no".into())]
    );
}

#[test]
fn with_infer_rows_a_later_key_or_type_is_an_error_that_says_what_to_do() {
    let dir = TempDir::new();
    let path = dir.file(
        "late.jsonl",
        "{\"a\":1}\n{\"a\":2}\n\n{\"a\":3,\"z\":true}\n",
    );
    let e = open_err(&path, r#","infer_rows":2,"batch_size":10"#);
    assert_eq!(e.kind, ErrorKind::Data);
    assert_eq!(
        e.message,
        format!(
            "{path}: line 4, column 1: the key \"z\" is not one of the columns; the column \
             types were inferred from the first 2 records: set \"infer_rows\": \"all\" to \
             infer them from the whole file"
        )
    );
    let path = dir.file("late2.jsonl", "{\"a\":1}\n{\"a\":2.5}\n");
    let e = open_err(&path, r#","infer_rows":1"#);
    assert!(
        e.message.starts_with(&format!(
            "{path}: line 2, column 1: the key \"a\" needs the type Float64 here, but the \
             column was inferred as Int64"
        )),
        "{e}"
    );
    assert!(e.message.contains("\"infer_rows\": \"all\""), "{e}");
    let path = dir.file("late3.jsonl", "{\"a\":1}\n{\"a\":2,}\n");
    let e = open_err(&path, r#","infer_rows":1"#);
    assert_eq!(
        e.message,
        format!("{path}: line 2, column 8: invalid JSON: trailing comma")
    );
    // The default infers from every record.
    let path = dir.file("late2.jsonl", "{\"a\":1}\n{\"a\":2.5}\n");
    let batch = read(&path, "");
    assert_eq!(batch.schema().field(0).data_type(), &DataType::Float64);
}

#[test]
fn layout_errors_name_the_file_line_and_column() {
    let dir = TempDir::new();
    let path = dir.file("a.jsonl", "[{\"a\":1}]\n");
    let e = open_err(&path, "");
    assert!(
        e.message.starts_with(&format!(
            "{path}: line 1, column 1: expected a JSON object (one record), found an array"
        )),
        "{e}"
    );
    let path = dir.file("b.json", "[{\"a\":1}, 2]");
    let e = open_err(&path, "");
    assert!(
        e.message.starts_with(&format!(
            "{path}: line 1, column 11: expected a JSON object"
        )),
        "{e}"
    );
    let path = dir.file("c.json", "{\"a\":1}\n{\"a\":\n");
    let e = open_err(&path, "");
    assert!(
        e.message
            .starts_with(&format!("{path}: line 2, column 1: the record")),
        "{e}"
    );
}

#[test]
fn empty_files_and_keyless_records_are_refused() {
    let dir = TempDir::new();
    for (name, text) in [("e.jsonl", ""), ("e.json", " []\n"), ("ws.jsonl", "\n\n")] {
        let path = dir.file(name, text);
        let e = open_err(&path, "");
        assert_eq!(e.kind, ErrorKind::Data);
        assert!(e.message.contains("holds no JSON record"), "{name}: {e}");
    }
    let path = dir.file("k.jsonl", "{}\n{}\n");
    assert!(open_err(&path, "").message.contains("no keys"));
}

#[test]
fn a_missing_file_is_an_io_error() {
    let dir = TempDir::new();
    let path = dir.0.join("missing.jsonl").to_string_lossy().into_owned();
    let e = open_err(&path, "");
    assert_eq!(e.kind, ErrorKind::Io);
    assert!(
        e.message
            .starts_with(&format!("{path}: cannot open the file")),
        "{e}"
    );
}

#[test]
fn describe_names_the_plugin() {
    let info = Json::describe();
    assert_eq!(info.name, "json");
    assert!(info.config_schema.contains("infer_rows"));
}
