//! End-to-end tests of the plugin on small files written to a temporary folder.

use super::*;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMicrosecondType};
use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Float64Array, Int64Array, ListArray, StringArray,
    StructArray, TimestampMicrosecondArray, TimestampNanosecondArray,
};
use arrow_schema::{DataType, Field, TimeUnit};
use ldp_plugin_sdk::ErrorKind;
use parquet::arrow::ArrowWriter;
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ldp-parquet-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        Self(dir)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).expect("a valid batch")
}

fn numbers(values: &[i64]) -> RecordBatch {
    batch(vec![
        ("n", Arc::new(Int64Array::from(values.to_vec())) as ArrayRef),
        (
            "s",
            Arc::new(StringArray::from_iter_values(
                values.iter().map(|v| format!("v{v}")),
            )),
        ),
    ])
}

fn write(path: &str, batches: &[RecordBatch], props: WriterProperties) {
    let file = std::fs::File::create(path).expect("create");
    let mut writer =
        ArrowWriter::try_new(file, batches[0].schema(), Some(props)).expect("a writer");
    for b in batches {
        writer.write(b).expect("write");
    }
    writer.close().expect("close");
}

fn props(compression: Compression, row_group: usize) -> WriterProperties {
    WriterProperties::builder()
        .set_compression(compression)
        .set_max_row_group_row_count(Some(row_group))
        .build()
}

fn open(path: &str, extra: &str) -> Result<Parquet, PluginError> {
    let path = serde_json::Value::String(path.to_string());
    Parquet::open(&format!("{{\"path\":{path}{extra}}}"))
}

fn read_all(source: &mut Parquet) -> Result<Vec<RecordBatch>, PluginError> {
    let mut batches = Vec::new();
    while let Some(b) = source.next_batch()? {
        assert_eq!(b.schema().fields(), source.schema().fields());
        batches.push(b);
    }
    Ok(batches)
}

fn column_i64(batches: &[RecordBatch], name: &str) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| {
            let column = b.column_by_name(name).expect("the column");
            column.as_primitive::<Int64Type>().values().to_vec()
        })
        .collect()
}

#[test]
fn streams_row_groups_in_batches_with_the_files_types() {
    let dir = TempDir::new();
    let path = dir.path("t.parquet");
    let item = Arc::new(Field::new("item", DataType::Int64, true));
    let point = StructArray::from(vec![
        (
            Arc::new(Field::new("x", DataType::Float64, true)),
            Arc::new(Float64Array::from(vec![1.5, 2.5, 3.5, 4.5, 5.5])) as ArrayRef,
        ),
        (
            Arc::new(Field::new("label", DataType::Utf8, true)),
            Arc::new(StringArray::from(vec![
                Some("a"),
                None,
                Some("c"),
                None,
                None,
            ])),
        ),
    ]);
    let tags = ListArray::from_iter_primitive::<Int64Type, _, _>(vec![
        Some(vec![Some(1), Some(2)]),
        None,
        Some(vec![]),
        Some(vec![None]),
        Some(vec![Some(5)]),
    ]);
    let data = batch(vec![
        (
            "id",
            Arc::new(Int64Array::from(vec![1, 2, 3, 4, 5])) as ArrayRef,
        ),
        (
            "ok",
            Arc::new(BooleanArray::from(vec![
                Some(true),
                None,
                Some(false),
                None,
                None,
            ])),
        ),
        (
            "at",
            Arc::new(
                TimestampMicrosecondArray::from(vec![0, 1, 2, 3, 4_000_000]).with_timezone("UTC"),
            ),
        ),
        (
            "ns",
            Arc::new(TimestampNanosecondArray::from(vec![
                Some(1),
                None,
                None,
                None,
                None,
            ])),
        ),
        ("day", Arc::new(Date32Array::from(vec![0, 1, 2, 3, 20_000]))),
        ("point", Arc::new(point)),
        ("tags", Arc::new(tags)),
    ]);
    assert_eq!(
        data.schema()
            .field_with_name("tags")
            .map(|f| f.data_type().clone())
            .ok(),
        Some(DataType::List(item))
    );
    write(
        &path,
        std::slice::from_ref(&data),
        props(Compression::SNAPPY, 2),
    );
    let mut source = open(&path, r#","batch_size":2"#).expect("opens");
    let schema = source.schema();
    assert_eq!(schema.fields(), data.schema().fields());
    assert_eq!(
        schema.field(2).data_type(),
        &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
    );
    assert_eq!(
        schema.field(3).data_type(),
        &DataType::Timestamp(TimeUnit::Nanosecond, None)
    );
    let batches = read_all(&mut source).expect("reads");
    // Three row groups of 2, 2 and 1 rows.
    let sizes: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
    assert_eq!(sizes, vec![2, 2, 1]);
    let all = arrow_select_concat(&batches);
    assert_eq!(all, data);
    let at = all.column(2).as_primitive::<TimestampMicrosecondType>();
    assert_eq!(at.value(4), 4_000_000);
}

/// The batches as one (the test compares whole tables).
fn arrow_select_concat(batches: &[RecordBatch]) -> RecordBatch {
    arrow_select::concat::concat_batches(&batches[0].schema(), batches).expect("same schema")
}

#[test]
fn every_built_in_codec_reads() {
    let dir = TempDir::new();
    for (name, codec) in [
        ("none", Compression::UNCOMPRESSED),
        ("snappy", Compression::SNAPPY),
        ("gzip", Compression::GZIP(GzipLevel::default())),
        ("brotli", Compression::BROTLI(BrotliLevel::default())),
        ("lz4", Compression::LZ4),
        ("lz4raw", Compression::LZ4_RAW),
    ] {
        let path = dir.path(&format!("{name}.parquet"));
        write(&path, &[numbers(&[1, 2, 3])], props(codec, 1024));
        let mut source = open(&path, "").expect(name);
        let batches = read_all(&mut source).expect(name);
        assert_eq!(column_i64(&batches, "n"), vec![1, 2, 3], "{name}");
    }
}

#[test]
fn a_zstd_column_is_refused_naming_file_column_and_codec() {
    let dir = TempDir::new();
    let path = dir.path("z.parquet");
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_column_compression(
            ColumnPath::from("s"),
            Compression::ZSTD(ZstdLevel::default()),
        )
        .build();
    write(&path, &[numbers(&[1, 2])], props);
    let e = open(&path, "").err().expect("refused");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message
            .starts_with(&format!("{path}: column \"s\" is compressed with ZSTD")),
        "{e}"
    );
    assert!(e.message.contains("compression=\"snappy\""), "{e}");
    // A projection without the ZSTD column reads.
    let mut source = open(&path, r#","columns":["n"]"#).expect("opens");
    assert_eq!(
        column_i64(&read_all(&mut source).expect("reads"), "n"),
        vec![1, 2]
    );
}

#[test]
fn columns_project_and_reorder() {
    let dir = TempDir::new();
    let path = dir.path("p.parquet");
    write(&path, &[numbers(&[7, 8])], props(Compression::SNAPPY, 10));
    let mut source = open(&path, r#","columns":["s","n"]"#).expect("opens");
    let names: Vec<String> = source
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(names, vec!["s", "n"]);
    let batches = read_all(&mut source).expect("reads");
    assert_eq!(batches[0].column(0).as_string::<i32>().value(1), "v8");
    assert_eq!(column_i64(&batches, "n"), vec![7, 8]);

    let e = open(&path, r#","columns":["n","nope"]"#)
        .err()
        .expect("refused");
    assert_eq!(e.kind, ErrorKind::Config);
    assert_eq!(
        e.message,
        format!("config.columns: {path} has no column \"nope\"; its columns are \"n\", \"s\"")
    );
}

#[test]
fn file_metadata_is_not_announced() {
    let dir = TempDir::new();
    let path = dir.path("m.parquet");
    let schema = Schema::new(vec![Field::new("n", DataType::Int64, false).with_metadata(
        HashMap::from([("PARQUET:field_id".to_string(), "1".to_string())]),
    )])
    .with_metadata(HashMap::from([("pandas".to_string(), "{}".to_string())]));
    let data = RecordBatch::try_new(
        Arc::new(schema),
        vec![Arc::new(Int64Array::from(vec![1])) as ArrayRef],
    )
    .expect("a batch");
    write(&path, &[data], props(Compression::SNAPPY, 10));
    let mut source = open(&path, "").expect("opens");
    assert!(source.schema().metadata().is_empty());
    assert!(source.schema().field(0).metadata().is_empty());
    assert!(!source.schema().field(0).is_nullable());
    assert_eq!(read_all(&mut source).expect("reads").len(), 1);
}

#[test]
fn a_folder_is_read_file_by_file_in_name_order() {
    let dir = TempDir::new();
    let folder = dir.path("set");
    std::fs::create_dir_all(format!("{folder}/day=2")).expect("folders");
    write(
        &format!("{folder}/b.parquet"),
        &[numbers(&[3])],
        props(Compression::SNAPPY, 10),
    );
    write(
        &format!("{folder}/a.parquet"),
        &[numbers(&[1, 2])],
        props(Compression::LZ4_RAW, 10),
    );
    write(
        &format!("{folder}/day=2/c.parquet"),
        &[numbers(&[4])],
        props(Compression::SNAPPY, 10),
    );
    std::fs::write(format!("{folder}/_SUCCESS"), b"").expect("marker");
    std::fs::write(format!("{folder}/.hidden"), b"junk").expect("hidden");
    let mut source = open(&folder, "").expect("opens");
    let batches = read_all(&mut source).expect("reads");
    assert_eq!(column_i64(&batches, "n"), vec![1, 2, 3, 4]);

    // A file with other columns is refused before any batch.
    let other = batch(vec![(
        "n",
        Arc::new(StringArray::from(vec!["x"])) as ArrayRef,
    )]);
    write(
        &format!("{folder}/z.parquet"),
        &[other],
        props(Compression::SNAPPY, 10),
    );
    let e = open(&folder, "").err().expect("refused");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message
            .starts_with(&format!("{folder}/z.parquet: its schema differs")),
        "{e}"
    );
    assert!(e.message.contains("column \"n\" (Utf8)"), "{e}");

    let empty = dir.path("empty");
    std::fs::create_dir_all(&empty).expect("a folder");
    let e = open(&empty, "").err().expect("refused");
    assert!(e.message.contains("holds no Parquet file"), "{e}");
}

#[test]
fn missing_and_invalid_files_name_the_file() {
    let dir = TempDir::new();
    let missing = dir.path("missing.parquet");
    let e = open(&missing, "").err().expect("refused");
    assert_eq!(e.kind, ErrorKind::Io);
    assert!(
        e.message
            .starts_with(&format!("{missing}: cannot open the file")),
        "{e}"
    );

    let text = dir.path("text.parquet");
    std::fs::write(&text, "a,b\n1,2\n").expect("a file");
    let e = open(&text, "").err().expect("refused");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message
            .starts_with(&format!("{text}: cannot read it as a Parquet file")),
        "{e}"
    );
}

#[test]
fn an_empty_file_gives_its_schema_and_no_batch() {
    let dir = TempDir::new();
    let path = dir.path("empty.parquet");
    write(&path, &[numbers(&[])], props(Compression::SNAPPY, 10));
    let mut source = open(&path, "").expect("opens");
    assert_eq!(source.schema().fields().len(), 2);
    let rows: usize = read_all(&mut source)
        .expect("reads")
        .iter()
        .map(RecordBatch::num_rows)
        .sum();
    assert_eq!(rows, 0);
}

#[test]
fn describe_names_the_plugin() {
    let info = Parquet::describe();
    assert_eq!(info.name, "parquet");
    let schema: serde_json::Value = serde_json::from_str(&info.config_schema).expect("JSON");
    assert_eq!(schema["required"][0], "path");
}
