//! Tests of the plugin on files written to a temporary folder, read back with the parquet
//! source's own reader.

use super::*;
use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int64Array, ListArray,
    StringArray, StructArray, TimestampMicrosecondArray, TimestampNanosecondArray,
};
use arrow_schema::{DataType, Field, TimeUnit, UnionFields, UnionMode};
use ldp_plugin_sdk::ErrorKind;
use ldp_plugin_sdk::testing::{TempDir, batch, path_config, write_batches};
use parquet::basic::Compression;
use parquet::file::reader::{FileReader, SerializedFileReader};
use std::sync::Arc;

/// The parquet source's reader, so that the round trips go through the plugin that reads.
#[path = "../../parquet/src/read.rs"]
#[allow(dead_code, reason = "the tests use only the reader")]
mod source_read;

fn write(path: &str, extra: &str, batches: &[RecordBatch]) -> SinkSummary {
    write_batches::<ParquetSink>(&path_config(path, extra), batches)
}

fn read_back(path: &str) -> (SchemaRef, RecordBatch) {
    let mut reader = source_read::ParquetReader::open(path, 8192, None).expect("reads");
    let schema = reader.schema();
    let mut batches = Vec::new();
    while let Some(b) = reader.next_batch().expect("a batch") {
        batches.push(b);
    }
    let all = arrow_select::concat::concat_batches(&schema, &batches).expect("concat");
    (schema, all)
}

fn row_groups(path: &str) -> Vec<(i64, Compression)> {
    let file = std::fs::File::open(path).expect("the file");
    let reader = SerializedFileReader::new(file).expect("a Parquet file");
    reader
        .metadata()
        .row_groups()
        .iter()
        .map(|rg| (rg.num_rows(), rg.column(0).compression()))
        .collect()
}

fn sample(offset: i64) -> RecordBatch {
    let ids: Vec<i64> = (offset..offset + 4).collect();
    let point = StructArray::from(vec![
        (
            Arc::new(Field::new("x", DataType::Float64, true)),
            Arc::new(Float64Array::from(vec![
                Some(0.5),
                None,
                Some(-1.0),
                Some(2.0),
            ])) as ArrayRef,
        ),
        (
            Arc::new(Field::new("label", DataType::Utf8, true)),
            Arc::new(StringArray::from(vec![
                Some("a"),
                Some("b"),
                None,
                Some("é"),
            ])),
        ),
    ]);
    batch(vec![
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        (
            "name",
            Arc::new(StringArray::from(vec![
                Some("x"),
                None,
                Some("\"q\""),
                Some(""),
            ])),
        ),
        (
            "ok",
            Arc::new(BooleanArray::from(vec![
                Some(true),
                Some(false),
                None,
                Some(true),
            ])),
        ),
        (
            "day",
            Arc::new(Date32Array::from(vec![
                Some(0),
                Some(19_723),
                None,
                Some(-1),
            ])),
        ),
        (
            "amount",
            Arc::new(
                Decimal128Array::from(vec![Some(150), None, Some(-1), Some(0)])
                    .with_precision_and_scale(10, 2)
                    .expect("a decimal"),
            ),
        ),
        (
            "at",
            Arc::new(
                TimestampMicrosecondArray::from(vec![Some(1), None, Some(2), Some(3)])
                    .with_timezone("UTC"),
            ),
        ),
        (
            "ns",
            Arc::new(TimestampNanosecondArray::from(vec![
                Some(1),
                None,
                None,
                Some(4),
            ])),
        ),
        ("point", Arc::new(point)),
        (
            "tags",
            Arc::new(ListArray::from_iter_primitive::<Int64Type, _, _>(vec![
                Some(vec![Some(1), None]),
                None,
                Some(vec![]),
                Some(vec![Some(4)]),
            ])),
        ),
    ])
}

#[test]
fn a_round_trip_through_the_parquet_source_keeps_rows_and_types() {
    let dir = TempDir::new();
    let path = dir.path("out.parquet");
    let summary = write(&path, "", &[sample(0), sample(4)]);
    assert_eq!(summary.records, 8);
    assert_eq!(summary.files, vec!["out.parquet".to_string()]);
    assert_eq!(
        summary.bytes,
        std::fs::metadata(&path).expect("the file").len()
    );
    let (schema, all) = read_back(&path);
    assert_eq!(schema.fields(), sample(0).schema().fields());
    let expected =
        arrow_select::concat::concat_batches(&sample(0).schema(), &[sample(0), sample(4)])
            .expect("concat");
    assert_eq!(all, expected);
    // pyarrow's default codec.
    assert_eq!(row_groups(&path), vec![(8, Compression::SNAPPY)]);
}

#[test]
fn row_groups_are_bounded_by_row_group_size() {
    let dir = TempDir::new();
    let path = dir.path("groups.parquet");
    let summary = write(
        &path,
        r#","row_group_size":3,"compression":"gzip""#,
        &[sample(0), sample(4), sample(8).slice(0, 2)],
    );
    assert_eq!(summary.records, 10);
    let groups = row_groups(&path);
    let rows: Vec<i64> = groups.iter().map(|g| g.0).collect();
    assert_eq!(rows, vec![3, 3, 3, 1]);
    assert!(matches!(groups[0].1, Compression::GZIP(_)));
    let (_, all) = read_back(&path);
    let ids: Vec<i64> = all.column(0).as_primitive::<Int64Type>().values().to_vec();
    assert_eq!(ids, (0..10).collect::<Vec<_>>());
}

#[test]
fn the_hosts_utc_zone_is_written_as_utc_at_any_depth() {
    let at = TimestampMicrosecondArray::from(vec![Some(7), None]).with_timezone("+00:00");
    let nested = StructArray::from(vec![(
        Arc::new(Field::new("when", at.data_type().clone(), true)),
        Arc::new(at.clone()) as ArrayRef,
    )]);
    let input = batch(vec![
        ("at", Arc::new(at) as ArrayRef),
        ("nested", Arc::new(nested)),
    ]);
    let dir = TempDir::new();
    let path = dir.path("utc.parquet");
    write(&path, "", &[input]);
    let (schema, all) = read_back(&path);
    let utc = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    assert_eq!(schema.field(0).data_type(), &utc);
    let DataType::Struct(fields) = schema.field(1).data_type() else {
        panic!("a struct: {schema}");
    };
    assert_eq!(fields[0].data_type(), &utc);
    let values = all
        .column(0)
        .as_primitive::<arrow_array::types::TimestampMicrosecondType>();
    assert_eq!((values.value(0), values.is_null(1)), (7, true));
}

#[test]
fn no_batch_is_a_file_with_the_schema_and_no_rows() {
    let dir = TempDir::new();
    let path = dir.path("empty.parquet");
    let sink =
        ParquetSink::open_batches(&path_config(&path, ""), sample(0).schema()).expect("opens");
    let summary = sink.close().expect("closes");
    assert_eq!(summary.records, 0);
    let (schema, all) = read_back(&path);
    assert_eq!(schema.fields(), sample(0).schema().fields());
    assert_eq!(all.num_rows(), 0);
}

#[test]
fn an_unwritable_type_is_refused_and_leaves_no_file() {
    // An empty struct: the parquet crate refuses it.
    let empty = Arc::new(Schema::new(vec![Field::new(
        "s",
        DataType::Struct(Vec::<Field>::new().into()),
        true,
    )]));
    let dir = TempDir::new();
    let path = dir.path("s.parquet");
    let e = ParquetSink::open_batches(&path_config(&path, ""), empty)
        .err()
        .expect("refused");
    assert!(
        e.message
            .starts_with(&format!("{path}: cannot write these columns as Parquet")),
        "{e}"
    );
    assert!(!std::path::Path::new(&path).exists());
    // A union: Parquet has none (and the parquet crate would panic on it).
    let union = DataType::Union(
        UnionFields::try_new(vec![0], vec![Field::new("a", DataType::Int64, true)])
            .expect("union fields"),
        UnionMode::Sparse,
    );
    let schema = Arc::new(Schema::new(vec![Field::new("u", union, true)]));
    let path = dir.path("u.parquet");
    let e = ParquetSink::open_batches(&path_config(&path, ""), schema)
        .err()
        .expect("refused");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message
            .starts_with(&format!("{path}: cannot write column \"u\" as Parquet")),
        "{e}"
    );
    assert!(!std::path::Path::new(&path).exists());
}

#[test]
fn a_missing_folder_is_an_io_error() {
    let dir = TempDir::new();
    let path = dir.path("missing/o.parquet");
    let e = ParquetSink::open_batches(&path_config(&path, ""), sample(0).schema())
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
    let info = ParquetSink::describe();
    assert_eq!(info.name, "parquet-sink");
    assert!(info.config_schema.contains("row_group_size"));
}
