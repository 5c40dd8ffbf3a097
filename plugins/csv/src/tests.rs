//! End-to-end tests of the plugin on small files written to a temporary folder.

use super::*;
use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Float64Type, Int64Type, TimestampMicrosecondType};
use arrow_schema::TimeUnit;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// 2026-08-01 07:15:00 UTC, in microseconds since the epoch.
const AUG_1_0715_US: i64 = 1_785_568_500_000_000;
/// 2026-08-01, in days since the epoch.
const AUG_1_DAYS: i32 = 20_666;

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ldp-csv-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn file(&self, name: &str, content: impl AsRef<[u8]>) -> String {
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

/// Opens `path` with extra config keys (a JSON object's inside, e.g. `"has_header":false`).
fn open(path: &str, extra: &str) -> Result<Csv, PluginError> {
    let path = serde_json::Value::String(path.to_string());
    let config = if extra.is_empty() {
        format!("{{\"path\":{path}}}")
    } else {
        format!("{{\"path\":{path},{extra}}}")
    };
    Csv::open(&config)
}

fn read_all(csv: &mut Csv) -> Result<Vec<RecordBatch>, PluginError> {
    let mut batches = Vec::new();
    while let Some(batch) = csv.next_batch()? {
        assert_eq!(batch.schema().fields(), csv.schema().fields());
        batches.push(batch);
    }
    Ok(batches)
}

/// Reads a whole file into one batch.
fn read(content: &str, extra: &str) -> RecordBatch {
    let dir = TempDir::new();
    let path = dir.file("t.csv", content);
    let mut csv = open(&path, extra).unwrap();
    let schema = csv.schema();
    let batches = read_all(&mut csv).unwrap();
    arrow_select_concat(&schema, &batches)
}

fn arrow_select_concat(schema: &SchemaRef, batches: &[RecordBatch]) -> RecordBatch {
    // Tests read small files: one batch, or none for a header-only file.
    match batches {
        [] => RecordBatch::new_empty(schema.clone()),
        [one] => one.clone(),
        _ => panic!("expected one batch, got {}", batches.len()),
    }
}

/// The error of reading `content` to its end.
fn error(content: impl AsRef<[u8]>, extra: &str) -> (String, PluginError) {
    let dir = TempDir::new();
    let path = dir.file("bad.csv", content);
    let e = match open(&path, extra) {
        Err(e) => e,
        Ok(mut csv) => read_all(&mut csv).expect_err("the file should not read"),
    };
    (path, e)
}

fn strings(batch: &RecordBatch, i: usize) -> Vec<Option<String>> {
    batch
        .column(i)
        .as_string::<i32>()
        .iter()
        .map(|s| s.map(str::to_string))
        .collect()
}

#[test]
fn describes_itself() {
    let info = Csv::describe();
    assert_eq!(info.name, "csv");
    assert!(!info.description.is_empty());
    serde_json::from_str::<serde_json::Value>(&info.config_schema).unwrap();
}

#[test]
fn infers_and_reads_each_type() {
    let batch = read(
        "id,fare,paid,day,at,at_utc,note,empty\n\
         1,2.5,true,2026-08-01,2026-08-01 07:15:00,2026-08-01T09:15:00+02:00,a,\n\
         -7,3,false,2026-08-02,2026-08-01T07:15:00.123456,2026-08-01T07:15:00Z,,\n\
         ,,,,,,c,\n",
        "",
    );
    let schema = batch.schema();
    let types: Vec<_> = schema
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    assert_eq!(
        types,
        vec![
            DataType::Int64,
            DataType::Float64,
            DataType::Boolean,
            DataType::Date32,
            DataType::Timestamp(TimeUnit::Microsecond, None),
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            DataType::Utf8,
            DataType::Utf8,
        ]
    );
    assert!(schema.fields().iter().all(|f| f.is_nullable()));
    assert_eq!(batch.num_rows(), 3);
    let id = batch.column(0).as_primitive::<Int64Type>();
    assert_eq!(id.iter().collect::<Vec<_>>(), vec![Some(1), Some(-7), None]);
    let fare = batch.column(1).as_primitive::<Float64Type>();
    assert_eq!(
        fare.iter().collect::<Vec<_>>(),
        vec![Some(2.5), Some(3.0), None]
    );
    let paid = batch.column(2).as_boolean();
    assert_eq!(
        paid.iter().collect::<Vec<_>>(),
        vec![Some(true), Some(false), None]
    );
    let day = batch.column(3).as_primitive::<Date32Type>();
    assert_eq!(day.value(0), AUG_1_DAYS);
    let at = batch.column(4).as_primitive::<TimestampMicrosecondType>();
    assert_eq!(
        at.iter().collect::<Vec<_>>(),
        vec![Some(AUG_1_0715_US), Some(AUG_1_0715_US + 123_456), None]
    );
    let at_utc = batch.column(5).as_primitive::<TimestampMicrosecondType>();
    assert_eq!(at_utc.timezone(), Some("UTC"));
    assert_eq!(at_utc.value(0), AUG_1_0715_US);
    assert_eq!(at_utc.value(1), AUG_1_0715_US);
    // pyarrow keeps an empty field of a text column as "" (strings_can_be_null=False).
    assert_eq!(
        strings(&batch, 6),
        vec![Some("a".into()), Some(String::new()), Some("c".into())]
    );
    assert_eq!(strings(&batch, 7), vec![None, None, None]);
}

#[test]
fn arrow_csv_parses_a_space_separated_timestamp_as_microseconds() {
    // The Python tool writes "2026-08-01 07:15:00"; arrow-csv infers Timestamp(Second) and must
    // parse it into Timestamp(Microsecond) too.
    let schema = std::sync::Arc::new(Schema::new(vec![Field::new(
        "at",
        DataType::Timestamp(TimeUnit::Microsecond, None),
        true,
    )]));
    let mut reader = arrow_csv::ReaderBuilder::new(schema)
        .with_header(true)
        .build("at\n2026-08-01 07:15:00\n2026-08-01T07:15:00.5\n".as_bytes())
        .unwrap();
    let batch = reader.next().unwrap().unwrap();
    let at = batch.column(0).as_primitive::<TimestampMicrosecondType>();
    assert_eq!(at.value(0), AUG_1_0715_US);
    assert_eq!(at.value(1), AUG_1_0715_US + 500_000);
}

#[test]
fn reads_without_header() {
    let batch = read("1,x\n2,y\n", r#""has_header":false"#);
    let schema = batch.schema();
    assert_eq!(schema.field(0).name(), "f0");
    assert_eq!(schema.field(1).name(), "f1");
    assert_eq!(schema.field(0).data_type(), &DataType::Int64);
    assert_eq!(batch.num_rows(), 2);
    assert_eq!(strings(&batch, 1), vec![Some("x".into()), Some("y".into())]);
}

#[test]
fn reads_with_semicolons() {
    let batch = read("a;b\n1,5;x,y\n2,5;z\n", r#""delimiter":";""#);
    assert_eq!(batch.schema().field(0).data_type(), &DataType::Utf8);
    assert_eq!(
        strings(&batch, 0),
        vec![Some("1,5".into()), Some("2,5".into())]
    );
    assert_eq!(
        strings(&batch, 1),
        vec![Some("x,y".into()), Some("z".into())]
    );
}

#[test]
fn reads_quoted_fields() {
    let batch = read(
        "city,n\n\"Paris, France\",1\n\"say \"\"hi\"\"\",2\n\"two\nlines\",3\n",
        "",
    );
    assert_eq!(
        strings(&batch, 0),
        vec![
            Some("Paris, France".into()),
            Some("say \"hi\"".into()),
            Some("two\nlines".into())
        ]
    );
    let batch = read("a,b\n'x,y',1\n'it\\'s',2\n", r#""quote":"'","escape":"\\""#);
    assert_eq!(
        strings(&batch, 0),
        vec![Some("x,y".into()), Some("it's".into())]
    );
}

#[test]
fn splits_batches() {
    let dir = TempDir::new();
    let rows: String = (0..10).map(|i| format!("{i}\n")).collect();
    let path = dir.file("n.csv", format!("n\n{rows}"));
    let mut csv = open(&path, r#""batch_size":3"#).unwrap();
    let batches = read_all(&mut csv).unwrap();
    let sizes: Vec<_> = batches.iter().map(RecordBatch::num_rows).collect();
    assert_eq!(sizes, vec![3, 3, 3, 1]);
    let last = batches[3].column(0).as_primitive::<Int64Type>();
    assert_eq!(last.value(0), 9);
}

#[test]
fn header_only_gives_string_columns_and_no_rows() {
    let batch = read("a,b\n", "");
    assert_eq!(batch.num_rows(), 0);
    assert_eq!(batch.schema().field(1).data_type(), &DataType::Utf8);
}

/// A file of `rows` rows `i,fare` past the first MiB, then `last` (a row).
fn big_file(last: &str) -> (String, usize) {
    let mut text = String::from("id,fare\n");
    let mut line = 1;
    while text.len() <= read::MIB + 100 {
        line += 1;
        text.push_str(&format!("{line},{}\n", line % 97));
    }
    text.push_str(last);
    (text, line + 1)
}

#[test]
fn a_value_past_the_sample_names_the_line_and_column() {
    let (text, line) = big_file("9,abc\n");
    let (path, e) = error(&text, "");
    assert_eq!(e.kind, ErrorKind::Data);
    assert_eq!(
        e.message,
        format!(
            "{path}: line {line}: column 'fare': cannot parse 'abc' as int64 (the type was \
             inferred from the first 1 MiB; set \"infer_rows\": \"all\" to infer from the whole \
             file, or the column's type in \"columns\")"
        )
    );
    let (path, e) = error(&text, r#""infer_rows":10"#);
    assert_eq!(
        e.message,
        format!(
            "{path}: line {line}: column 'fare': cannot parse 'abc' as int64 (the type was \
             inferred from the first 10 rows; set \"infer_rows\": \"all\" to infer from the whole \
             file, or the column's type in \"columns\")"
        )
    );
    // Inferred from the whole file, the column is a string column.
    let dir = TempDir::new();
    let path = dir.file("all.csv", &text);
    let mut csv = open(&path, r#""infer_rows":"all","batch_size":100000"#).unwrap();
    assert_eq!(csv.schema().field(1).data_type(), &DataType::Utf8);
    let rows: usize = read_all(&mut csv)
        .unwrap()
        .iter()
        .map(|b| b.num_rows())
        .sum();
    assert_eq!(rows, line - 1);
}

#[test]
fn a_parse_error_counts_multiline_records_and_blank_lines() {
    // Line 1 header, 2-3 one record, 4 blank, 5 a record, 6 the bad one.
    let text = "note,when\r\n\"a\r\nb\",2026-08-01\r\n\r\nc,2026-08-02\r\nd,2026-02-30\r\n";
    let (path, e) = error(text, r#""columns":{"when":"date"}"#);
    assert_eq!(e.kind, ErrorKind::Data);
    assert_eq!(
        e.message,
        format!(
            "{path}: line 6: column 'when': cannot parse '2026-02-30' as date (the config's \
             \"columns\" sets its type; fix the value or the type)"
        )
    );
    // Without a header, the same line.
    let text = "x,1\n\"y\nz\",2\nw,3.5.1\n";
    let (path, e) = error(text, r#""has_header":false,"infer_rows":1"#);
    assert_eq!(
        e.message,
        format!(
            "{path}: line 4: column 'f1': cannot parse '3.5.1' as int64 (the type was inferred \
             from the first 1 rows; set \"infer_rows\": \"all\" to infer from the whole file, \
             or the column's type in \"columns\")"
        )
    );
}

#[test]
fn a_ragged_row_names_its_line() {
    // In the sample: the inference reports it.
    let (path, e) = error("a,b\r\n1,2\r\n\r\n\"3\n\",4\r\n5\r\n6,7\r\n", "");
    assert_eq!(e.kind, ErrorKind::Data);
    assert_eq!(
        e.message,
        format!(
            "{path}: line 6: expected 2 fields, got 1; every row needs as many fields as the \
             header (quote a field that holds the delimiter ',')"
        )
    );
    // Past the sample: the stream reports it.
    let (text, line) = big_file("1,2,3\n");
    let (path, e) = error(&text, r#""batch_size":1000"#);
    assert_eq!(
        e.message,
        format!(
            "{path}: line {line}: expected 2 fields, got 3; every row needs as many fields as the \
             header (quote a field that holds the delimiter ',')"
        )
    );
    let (path, e) = error("1,2\n3\n", r#""has_header":false,"infer_rows":1"#);
    assert_eq!(
        e.message,
        format!(
            "{path}: line 2: expected 2 fields, got 1; every row needs as many fields as the \
             first row (quote a field that holds the delimiter ',')"
        )
    );
}

#[test]
fn invalid_utf8_names_its_line() {
    let (path, e) = error(&b"a,b\n1,x\n2,\xff\n"[..], r#""infer_rows":1"#);
    assert_eq!(e.kind, ErrorKind::Data);
    assert_eq!(
        e.message,
        format!(
            "{path}: line 3: column 'b': the value is not valid UTF-8; set the source's \
             \"encoding\" (latin-1, windows-1252, utf-16) or convert the file to UTF-8"
        )
    );
    let (path, e) = error(&b"a,b\n1,x\n2,\xff\n"[..], "");
    assert!(e.message.starts_with(&format!("{path}: line 3: ")), "{e}");
}

#[test]
fn the_sample_ends_at_a_whole_record() {
    // A quoted field with a line break straddles the end of the first MiB: inference must not
    // see half a record (it would have one field too few).
    let mut text = String::from("a,b\n");
    while text.len() < read::MIB - 5 {
        text.push_str("x,1\n");
    }
    // The first MiB ends with `"y` and two line breaks of the quoted field.
    assert_eq!(text.len(), read::MIB - 4);
    text.push_str("\"y\n\n\nz\",2\nw,3\n");
    let dir = TempDir::new();
    let path = dir.file("straddle.csv", &text);
    let mut csv = open(&path, r#""batch_size":1000000"#).unwrap();
    assert_eq!(csv.schema().field(1).data_type(), &DataType::Int64);
    let batches = read_all(&mut csv).unwrap();
    let last = batches.last().unwrap();
    let a = strings(last, 0);
    assert_eq!(
        a[a.len() - 2..],
        [Some("y\n\n\nz".into()), Some("w".into())]
    );
}

/// Bug: a huge field in the first row left inference a first MiB without one whole data row,
/// so every column became a string. Inference reads at least [`read::MIN_INFER_ROWS`] rows.
#[test]
fn a_huge_first_field_leaves_the_other_columns_their_types() {
    let mut text = format!(
        "id,note,fare,when\n1,{},2.5,2026-08-01\n",
        "x".repeat(3 * read::MIB)
    );
    text.push_str("2,short,3,2026-08-02\n");
    let dir = TempDir::new();
    let path = dir.file("huge.csv", &text);
    let mut csv = open(&path, "").unwrap();
    let types: Vec<_> = csv
        .schema()
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    assert_eq!(
        types,
        [
            DataType::Int64,
            DataType::Utf8,
            DataType::Float64,
            DataType::Date32
        ]
    );
    let batch = arrow_select_concat(&csv.schema(), &read_all(&mut csv).unwrap());
    assert_eq!(batch.num_rows(), 2);
    assert_eq!(
        strings(&batch, 1)[0].as_ref().map(String::len),
        Some(3 * read::MIB)
    );
}

/// Rows too long for many of them to fit in the first MiB: the types come from the first
/// [`read::MIN_INFER_ROWS`] rows (a double past the MiB widens the column), and a later value
/// that does not parse says so.
#[test]
fn long_rows_infer_from_the_first_rows_past_the_first_mib() {
    let pad = "p".repeat(4096);
    let mut text = String::from("id,pad,fare\n");
    for i in 1..=read::MIN_INFER_ROWS + 10 {
        let fare = match i {
            600 => "1.5".to_string(),
            1_005 => "abc".to_string(),
            _ => i.to_string(),
        };
        text.push_str(&format!("{i},{pad},{fare}\n"));
    }
    assert!(600 * pad.len() > read::MIB);
    let (path, e) = error(&text, "");
    assert_eq!(
        e.message,
        format!(
            "{path}: line 1006: column 'fare': cannot parse 'abc' as double (the type was \
             inferred from the first 1000 rows; set \"infer_rows\": \"all\" to infer from the \
             whole file, or the column's type in \"columns\")"
        )
    );
}

#[test]
fn config_errors() {
    let dir = TempDir::new();
    let path = dir.file("c.csv", "a\n1\n");
    let e = open(&path, r#""colour":"red""#).err().unwrap();
    assert_eq!(e.kind, ErrorKind::Config);
    assert!(e.message.starts_with("config.colour: unknown key"), "{e}");
    let e = open(&path, r#""delimiter":";;""#).err().unwrap();
    assert_eq!(
        e.message,
        r#"config.delimiter: expected one character, got ";;""#
    );
}

#[test]
fn a_missing_file_is_an_io_error() {
    let dir = TempDir::new();
    let path = dir.0.join("missing.csv");
    let path = path.to_str().unwrap();
    let e = open(path, "").err().unwrap();
    assert_eq!(e.kind, ErrorKind::Io);
    assert!(
        e.message
            .starts_with(&format!("{path}: cannot open the file: ")),
        "{e}"
    );
}

#[test]
fn an_empty_file_is_a_data_error() {
    for extra in ["", r#""infer_rows":"all""#, r#""has_header":false"#] {
        let (path, e) = error("", extra);
        assert_eq!(e.kind, ErrorKind::Data);
        assert!(
            e.message.starts_with(&format!("{path}: the file is empty")),
            "{e}"
        );
    }
}

/// The batches of `path` read `batch_size` rows at a time, checked against `whole` (the same
/// file read in one batch, which arrow-csv decodes alone).
fn check_small_batches(path: &str, whole: &RecordBatch, batch_size: usize) {
    let mut csv = open(path, &format!("\"batch_size\":{batch_size}")).unwrap();
    let mut offset = 0;
    for batch in read_all(&mut csv).unwrap() {
        assert!(batch.num_rows() <= batch_size);
        assert_eq!(
            batch,
            whole.slice(offset, batch.num_rows()),
            "batch_size {batch_size}, rows from {offset}"
        );
        offset += batch.num_rows();
    }
    assert_eq!(offset, whole.num_rows(), "batch_size {batch_size}");
}

#[test]
fn small_batches_give_the_rows_one_batch_gives() {
    // Batches after the first go through the fast decoder, or through arrow-csv when they hold
    // a quote, a blank line, a lone \r or a value only arrow's parser reads: each line here
    // lands in batches of either kind as the batch size changes.
    let text = "id,fare,paid,day,at,note\n\
                1,2.5,true,2026-08-01,2026-08-01 07:15:00,a\n\
                2,3,FALSE,2026-08-02,2026-08-01T07:15:00.123456,\n\
                3,,,,,plain\n\
                4,1e3,true,2026-08-03,2026-08-01 07:15:00.5,\"quoted, with a comma\"\n\
                \n\
                5,-0.0,false,2026-08-04,2026-08-01 07:15,x\r\n\
                6,0.1,true,2026-08-05,2026-08-01 07:15:01,\"two\nlines\"\n\
                7,12345678901234567890,true,2026-08-06,2026-08-01 07:15:02,y\r\n\
                8,9.75,true,2026-08-07,2026-08-01 07:15:03,z\n\
                -9,-1.25,false,2026-08-08,2026-08-01 07:15:04,caf\u{e9}\n\
                10,4.5,true,2026-08-09,2026-08-01 07:15:05,last";
    let dir = TempDir::new();
    let path = dir.file("mixed.csv", text);
    let whole = read(text, "");
    assert_eq!(whole.num_rows(), 10);
    for batch_size in [1, 2, 3, 4, 5, 7, 9, 10, 11] {
        check_small_batches(&path, &whole, batch_size);
    }
    // Every field quoted, as R's write.csv does: the fast decoder reads quoted fields that hold
    // no quote and no line break, and leaves a batch with any other quote to arrow-csv.
    let text = "\"id\",\"fare\",\"at\",\"note\"\r\n\
                \"1\",\"2.5\",\"2026-08-01 07:15:00\",\"a, b\"\r\n\
                \"2\",\"\",\"\",\"\"\r\n\
                \"3\",\"-0.25\",\"2026-08-01T07:15:01\",\"say \"\"hi\"\"\"\r\n\
                4,5,2026-08-01 07:15:02,plain\r\n\
                \"5\",\"6\",\"2026-08-01 07:15:03\",\"two\nlines\"\r\n\
                \"6\",\"7.125\",\"2026-08-01 07:15:04\",\"\"\r\n\
                \"7\",\"8\",\"2026-08-01 07:15:05\",\"z\"";
    let path = dir.file("quoted.csv", text);
    let whole = read(text, "");
    assert_eq!(whole.num_rows(), 7);
    for batch_size in [1, 2, 3, 4, 7, 8] {
        check_small_batches(&path, &whole, batch_size);
    }
    // A file the fast decoder takes whole after the header batch.
    let (text, _) = big_file("");
    let path = dir.file("big.csv", &text);
    let whole = read(&text, r#""batch_size":1000000"#);
    for batch_size in [1, 3, 1000] {
        check_small_batches(&path, &whole, batch_size);
    }
}

#[test]
fn errors_name_the_same_line_whichever_batch_they_fall_in() {
    // Each error read in one batch (arrow-csv alone), then in batches of 1 to 3 rows, where it
    // falls in a later batch that the fast decoder declines and arrow-csv decodes from there.
    let cases: [(&[u8], &str, usize); 7] = [
        (
            b"note,when\r\n\"a\r\nb\",2026-08-01\r\n\r\nc,2026-08-02\r\nd,2026-02-30\r\n",
            "",
            6,
        ),
        (b"x,1\n\"y\nz\",2\nw,3.5.1\n", r#""has_header":false,"#, 4),
        (b"a,b\n1,2\n3,4\n\n5,6\n7\n8,9\n", "", 6),
        (b"a,b\n1,x\n2,y\n3,\xff\n", "", 4),
        (b"a,b\n1,x\n2,\"y\"\n3,\xff\n4,z\n", "", 4),
        (
            b"a,t\n1,2024-01-01 00:00:00\n2,2024-01-01 00:00:01\n3,2024-13-01 00:00:00\n",
            "",
            4,
        ),
        (b"a,b\n1,2\n3,4\n5,6\n7,x\n", "", 5),
    ];
    for (text, extra, line) in cases {
        let extra = format!("{extra}\"infer_rows\":1");
        let (path, whole) = error(text, &extra);
        let whole = whole.message.replace(&path, "FILE");
        assert!(
            whole.starts_with(&format!("FILE: line {line}: ")),
            "{whole}"
        );
        for batch_size in 1..=3 {
            let (path, e) = error(text, &format!("{extra},\"batch_size\":{batch_size}"));
            assert_eq!(
                e.message.replace(&path, "FILE"),
                whole,
                "batch_size {batch_size}"
            );
        }
    }
}

/// R's `write.csv` writes `NA` for a missing number; pyarrow reads it, `nan`, `N/A` and `NULL`
/// as nulls in number columns and keeps them as text in text columns. (ldp once read such
/// columns as strings, and `nan` as NaN.)
#[test]
fn null_markers_as_pyarrow_reads_them() {
    let dir = TempDir::new();
    let path = dir.file(
        "r.csv",
        "\u{feff}\"id\",\"score\",\"name\",\"flag\"\r\n1,NA,\"x\",TRUE\r\n2,nan,NA,NA\r\n\r\nNA,N/A,,False\r\n4,NULL,\"\",1\r\n",
    );
    let mut csv = open(&path, "").unwrap();
    let batch = arrow_select_concat(&csv.schema(), &read_all(&mut csv).unwrap());
    let types: Vec<_> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    assert_eq!(
        types,
        vec![
            DataType::Int64,
            DataType::Utf8,
            DataType::Utf8,
            DataType::Boolean
        ]
    );
    assert_eq!(batch.schema().field(0).name(), "id");
    assert_eq!(batch.column(0).null_count(), 1);
    // A column with no value but markers is text with nulls.
    assert_eq!(batch.column(1).null_count(), 4);
    assert_eq!(
        strings(&batch, 2),
        vec![
            Some("x".into()),
            Some("NA".into()),
            Some(String::new()),
            Some(String::new())
        ]
    );
    let flags = batch.column(3).as_boolean();
    assert_eq!(
        flags.iter().collect::<Vec<_>>(),
        vec![Some(true), None, Some(false), Some(true)]
    );
}

#[test]
fn null_values_and_columns_from_the_config() {
    let dir = TempDir::new();
    let path = dir.file("z.csv", "zip,amount\n02134,-\n10001,12.5\n");
    let mut csv = open(&path, r#""null_values":["-"],"columns":{"zip":"string"}"#).unwrap();
    let batch = arrow_select_concat(&csv.schema(), &read_all(&mut csv).unwrap());
    assert_eq!(
        strings(&batch, 0),
        vec![Some("02134".into()), Some("10001".into())]
    );
    let amount = batch.column(1).as_primitive::<Float64Type>();
    assert_eq!(amount.iter().collect::<Vec<_>>(), vec![None, Some(12.5)]);
}

#[test]
fn encodings_and_skipped_rows() {
    let dir = TempDir::new();
    let latin1 = dir.file(
        "l.csv",
        &b"Exported by a tool\ncity;n\nS\xe3o Paulo;1\nBogot\xe1;x\n"[..],
    );
    let mut csv = open(
        &latin1,
        r#""encoding":"latin-1","delimiter":";","skip_rows":1"#,
    )
    .unwrap();
    let batch = arrow_select_concat(&csv.schema(), &read_all(&mut csv).unwrap());
    assert_eq!(
        strings(&batch, 0),
        vec![Some("São Paulo".into()), Some("Bogotá".into())]
    );
    // Line numbers count the skipped lines.
    let (path, e) = error(
        &b"notes\ncity;n\nS\xe3o Paulo;1\nBogot\xe1;x\n"[..],
        r#""encoding":"windows-1252","delimiter":";","skip_rows":1,"infer_rows":1"#,
    );
    assert!(
        e.message.starts_with(&format!(
            "{path}: line 4: column 'n': cannot parse 'x' as int64"
        )),
        "{e}"
    );
    let text = "a,b\r\n1,é\r\n";
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let path = dir.file("u.csv", utf16);
    let mut csv = open(&path, r#""encoding":"utf-16""#).unwrap();
    let batch = arrow_select_concat(&csv.schema(), &read_all(&mut csv).unwrap());
    assert_eq!(strings(&batch, 1), vec![Some("é".into())]);
}
