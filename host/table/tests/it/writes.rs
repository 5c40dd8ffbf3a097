//! Creating tables, appending, overwriting and reading back.

use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, TimestampMicrosecondArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use iceberg::spec::{PrimitiveType, Type};
use ldp_table::{Append, ErrorKind, Overwrite, Table, WriterOptions};
use std::sync::Arc;

use crate::common::{CATALOG, Warehouse, files_under, ids, rides, row_count, write, write_with};

const N: usize = 100;

fn file_name(uri: &str) -> &str {
    uri.rsplit('/').next().unwrap_or(uri)
}

#[test]
fn create_writes_version_zero_metadata_and_registers_the_table() {
    let w = Warehouse::new();
    let table = w.create("rides");
    assert_eq!(table.identifier(), "nyc.rides");
    assert_eq!(
        table.location(),
        format!("file://{}", w.location("rides").display())
    );
    let name = file_name(table.metadata_location());
    assert!(
        name.starts_with("00000-") && name.ends_with(".metadata.json"),
        "{name}"
    );
    assert!(w.location("rides").join("metadata").join(name).is_file());
    assert_eq!(w.catalog.list_namespaces(None).unwrap(), [CATALOG]);
    let record = w.catalog.load_table(CATALOG, "rides").unwrap().unwrap();
    assert_eq!(record.metadata_location, table.metadata_location());
    assert!(table.snapshots().is_empty());
    assert_eq!(table.total_records(), 0);
    assert_eq!(
        table.metadata().format_version(),
        iceberg::spec::FormatVersion::V2
    );

    let fields: Vec<(i32, String, bool, Type)> = table
        .schema()
        .as_struct()
        .fields()
        .iter()
        .map(|f| (f.id, f.name.clone(), f.required, (*f.field_type).clone()))
        .collect();
    let p = |t| Type::Primitive(t);
    assert_eq!(
        fields,
        vec![
            (1, "id".into(), false, p(PrimitiveType::Long)),
            (2, "vendor".into(), false, p(PrimitiveType::Int)),
            (3, "fare".into(), false, p(PrimitiveType::Double)),
            (4, "borough".into(), false, p(PrimitiveType::String)),
            (5, "pickup".into(), false, p(PrimitiveType::Timestamptz)),
            (6, "dropoff".into(), false, p(PrimitiveType::Timestamp)),
            (7, "day".into(), false, p(PrimitiveType::Date)),
            (8, "paid".into(), false, p(PrimitiveType::Boolean)),
        ]
    );

    let again = Table::create(
        &w.catalog,
        CATALOG,
        "rides",
        &rides(0, 1).schema(),
        &w.location("rides"),
    )
    .unwrap_err();
    assert_eq!(again.kind(), ErrorKind::AlreadyExists);
    assert!(again.to_string().contains("nyc.rides"), "{again}");
    let loaded = Table::load_or_create(
        &w.catalog,
        CATALOG,
        "rides",
        &rides(0, 1).schema(),
        &w.location("rides"),
    )
    .unwrap();
    assert_eq!(loaded.metadata_location(), table.metadata_location());

    let missing = Table::load(&w.catalog, CATALOG, "nope").unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound);
    assert!(missing.to_string().contains("nyc.nope"), "{missing}");
}

#[test]
fn two_appends_make_two_snapshots_with_correct_summaries() {
    let w = Warehouse::new();
    let mut table = w.create("rides");

    let files = write(&table, &[rides(0, 60), rides(60, 40)]);
    assert_eq!(files.record_count(), N as u64);
    let first_size: u64 = files.files().iter().map(|f| f.file_size_in_bytes()).sum();
    let first = Append::new(files)
        .property("ldp.run-id", "run-1")
        .commit(&w.catalog, &mut table)
        .unwrap();
    assert_eq!(
        (
            first.rows_before,
            first.rows_written,
            first.rows_after,
            first.attempts
        ),
        (0, N as u64, N as u64, 1)
    );
    assert_eq!(first.operation, "append");
    assert!(file_name(&first.metadata_location).starts_with("00001-"));

    let files = write(&table, &[rides(N as i64, N)]);
    let second_size: u64 = files.files().iter().map(|f| f.file_size_in_bytes()).sum();
    let second = Append::new(files).commit(&w.catalog, &mut table).unwrap();
    assert_eq!(
        (second.rows_before, second.rows_after),
        (N as u64, 2 * N as u64)
    );
    assert!(file_name(table.metadata_location()).starts_with("00002-"));

    let snapshots = table.snapshots();
    assert_eq!(snapshots.len(), 2);
    let (s1, s2) = (&snapshots[0], &snapshots[1]);
    assert_eq!(s1.snapshot_id, first.snapshot_id);
    assert_eq!(s1.parent_snapshot_id, None);
    assert_eq!(s2.parent_snapshot_id, Some(s1.snapshot_id));
    assert_eq!(s1.operation, "append");
    let expected = |added: u64, size: u64, total: u64, total_size: u64, files: u64| {
        [
            ("added-data-files", 1),
            ("added-records", added),
            ("added-files-size", size),
            ("total-records", total),
            ("total-data-files", files),
            ("total-files-size", total_size),
            ("total-delete-files", 0),
            ("total-position-deletes", 0),
            ("total-equality-deletes", 0),
        ]
    };
    for (key, value) in expected(N as u64, first_size, N as u64, first_size, 1) {
        assert_eq!(
            s1.summary.get(key).map(String::as_str),
            Some(value.to_string().as_str()),
            "{key} in {:?}",
            s1.summary
        );
    }
    for (key, value) in expected(
        N as u64,
        second_size,
        2 * N as u64,
        first_size + second_size,
        2,
    ) {
        assert_eq!(
            s2.summary.get(key).map(String::as_str),
            Some(value.to_string().as_str()),
            "{key} in {:?}",
            s2.summary
        );
    }
    assert_eq!(
        s1.summary.get("ldp.run-id").map(String::as_str),
        Some("run-1")
    );
    assert!(!s2.summary.contains_key("ldp.run-id"));
    assert!(!s2.summary.contains_key("deleted-data-files"));

    // Reading: current and time travel, from a fresh load.
    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(table.total_records(), 2 * N as u64);
    let all = table.read_all(None).unwrap();
    assert_eq!(ids(&all), (0..2 * N as i64).collect::<Vec<_>>());
    assert_eq!(row_count(&table.read_all(Some(s1.snapshot_id)).unwrap()), N);
    assert_eq!(
        table.data_file_paths(Some(s1.snapshot_id)).unwrap().len(),
        1
    );
    assert_eq!(table.data_file_paths(None).unwrap().len(), 2);
    let unknown = table.read_all(Some(42)).unwrap_err();
    assert_eq!(unknown.kind(), ErrorKind::NotFound);

    // Timestamps are µs, tz-aware ones UTC; ns are truncated.
    let pickup = all[0].column_by_name("pickup").unwrap();
    assert_eq!(
        pickup.data_type(),
        &DataType::Timestamp(TimeUnit::Microsecond, Some("+00:00".into()))
    );
    for batch in &all {
        let id = batch
            .column_by_name("id")
            .unwrap()
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        let pickup = batch.column_by_name("pickup").unwrap();
        let pickup = pickup
            .as_any()
            .downcast_ref::<TimestampMicrosecondArray>()
            .unwrap();
        for (id, us) in id.values().iter().zip(pickup.values()) {
            assert_eq!(
                *us,
                (1_785_542_400_000_000_000 + id * 60_000_000_123) / 1000
            );
        }
    }

    // File names and the catalog pointer.
    let location = w.location("rides");
    let files = files_under(&location);
    let data: Vec<_> = files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    assert_eq!(data.len(), 2);
    for path in &data {
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(
            name.starts_with("00000-0-") && path.parent().unwrap().ends_with("data"),
            "{name}"
        );
    }
    let snap_lists = files
        .iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("snap-")
        })
        .count();
    assert_eq!(snap_lists, 2);
    let manifests = files
        .iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .ends_with("-m0.avro")
        })
        .count();
    assert_eq!(manifests, 2);
    let record = w.catalog.load_table(CATALOG, "rides").unwrap().unwrap();
    assert_eq!(record.metadata_location, table.metadata_location());
    assert_eq!(
        record.previous_metadata_location.as_deref(),
        Some(first.metadata_location.as_str())
    );
}

#[test]
fn data_files_carry_field_ids_and_column_statistics() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    Append::new(write(&table, &[rides(0, N)]))
        .commit(&w.catalog, &mut table)
        .unwrap();
    let files = table.data_files(None).unwrap();
    assert_eq!(files.len(), 1);
    let file = &files[0];
    assert_eq!(file.record_count(), N as u64);
    let on_disk = std::fs::metadata(file.file_path().trim_start_matches("file://"))
        .unwrap()
        .len();
    assert_eq!(file.file_size_in_bytes(), on_disk);
    assert_eq!(file.value_counts().get(&1), Some(&(N as u64)));
    assert_eq!(
        file.null_value_counts().get(&4),
        Some(&(N as u64 / 5)),
        "borough nulls"
    );
    assert_eq!(file.null_value_counts().get(&1), Some(&0));
    assert!(file.column_sizes().get(&1).is_some_and(|s| *s > 0));
    assert_eq!(
        file.lower_bounds().get(&1).map(ToString::to_string),
        Some("0".to_string())
    );
    assert_eq!(
        file.upper_bounds().get(&1).map(ToString::to_string),
        Some((N - 1).to_string())
    );
    assert!(file.lower_bounds().contains_key(&4) && file.upper_bounds().contains_key(&5));

    // The Parquet schema stores the Iceberg field ids.
    let reader = parquet::file::reader::SerializedFileReader::new(
        std::fs::File::open(file.file_path().trim_start_matches("file://")).unwrap(),
    )
    .unwrap();
    use parquet::file::reader::FileReader;
    let schema = reader.metadata().file_metadata().schema_descr();
    let ids: Vec<i32> = (0..schema.num_columns())
        .map(|i| schema.column(i).self_type().get_basic_info().id())
        .collect();
    assert_eq!(ids, (1..=8).collect::<Vec<_>>());
}

#[test]
fn overwrite_replaces_every_row_in_one_snapshot() {
    let w = Warehouse::new();
    let mut table = w.create("rides");

    // On an empty table an overwrite is an append.
    let first = Overwrite::new(write(&table, &[rides(0, N)]))
        .commit(&w.catalog, &mut table)
        .unwrap();
    assert_eq!(first.operation, "append");
    assert_eq!(first.rows_after, N as u64);

    let second = Overwrite::new(write(&table, &[rides(1000, N)]))
        .property("ldp.idempotency-key", "k")
        .commit(&w.catalog, &mut table)
        .unwrap();
    assert_eq!(second.operation, "overwrite");
    assert_eq!(
        (second.rows_before, second.rows_after, second.rows_written),
        (N as u64, N as u64, N as u64)
    );

    let files = write(&table, &[rides(2000, 30), rides(2030, 70)]);
    let third_size: u64 = files.files().iter().map(|f| f.file_size_in_bytes()).sum();
    let third = Overwrite::new(files)
        .commit(&w.catalog, &mut table)
        .unwrap();
    assert_eq!(third.rows_after, N as u64);

    let snapshots = table.snapshots();
    assert_eq!(snapshots.len(), 3);
    let s3 = &snapshots[2];
    assert_eq!(s3.operation, "overwrite");
    for (key, value) in [
        ("added-data-files", "1".to_string()),
        ("added-records", N.to_string()),
        ("deleted-data-files", "1".to_string()),
        ("deleted-records", N.to_string()),
        ("total-records", N.to_string()),
        ("total-data-files", "1".to_string()),
        ("total-files-size", third_size.to_string()),
    ] {
        assert_eq!(
            s3.summary.get(key),
            Some(&value),
            "{key} in {:?}",
            s3.summary
        );
    }
    assert!(s3.summary.contains_key("removed-files-size"));
    assert_eq!(
        snapshots[1]
            .summary
            .get("ldp.idempotency-key")
            .map(String::as_str),
        Some("k")
    );

    assert_eq!(
        ids(&table.read_all(None).unwrap()),
        (2000..2000 + N as i64).collect::<Vec<_>>()
    );
    assert_eq!(
        ids(&table.read_all(Some(first.snapshot_id)).unwrap()),
        (0..N as i64).collect::<Vec<_>>()
    );
    assert_eq!(
        ids(&table.read_all(Some(second.snapshot_id)).unwrap()),
        (1000..1000 + N as i64).collect::<Vec<_>>()
    );
    assert_eq!(table.data_file_paths(None).unwrap().len(), 1);
}

#[test]
fn the_writer_rolls_files_at_the_target_size() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    let options = WriterOptions {
        target_file_size: 1,
        row_group_bytes: 1,
    };
    let files = write_with(
        &table,
        &[rides(0, 10), rides(10, 10), rides(20, 10)],
        &options,
    );
    assert_eq!(files.files().len(), 3);
    let names: Vec<String> = files
        .paths()
        .iter()
        .map(|p| file_name(p).to_string())
        .collect();
    let uuid = names[0].trim_start_matches("00000-0-").to_string();
    for (task, name) in names.iter().enumerate() {
        assert_eq!(name, &format!("00000-{task}-{uuid}"));
    }
    let result = Append::new(files).commit(&w.catalog, &mut table).unwrap();
    assert_eq!(result.rows_after, 30);
    assert_eq!(
        table.snapshots()[0]
            .summary
            .get("added-data-files")
            .map(String::as_str),
        Some("3")
    );
    assert_eq!(row_count(&table.read_all(None).unwrap()), 30);
}

#[test]
fn empty_input_is_refused_unless_allowed() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    let empty = write(&table, &[]);
    assert!(empty.is_empty());
    let error = Append::new(empty)
        .commit(&w.catalog, &mut table)
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::EmptyInput);
    assert_eq!(
        error.to_string(),
        "No data to write: the table has 0 rows (the source gave none, so nothing was written; check the source's path, window or filter)"
    );
    assert!(table.snapshots().is_empty());

    let result = Append::new(write(&table, &[rides(0, 0)]))
        .allow_empty(true)
        .property("ldp.init", "true")
        .commit(&w.catalog, &mut table)
        .unwrap();
    assert_eq!(result.rows_after, 0);
    let snapshot = &table.snapshots()[0];
    assert_eq!(snapshot.operation, "append");
    assert_eq!(
        snapshot.summary.get("total-records").map(String::as_str),
        Some("0")
    );
    assert_eq!(
        snapshot.summary.get("ldp.init").map(String::as_str),
        Some("true")
    );
    assert!(table.read_all(None).unwrap().is_empty());

    // And an append on top of the empty base works.
    Append::new(write(&table, &[rides(0, 5)]))
        .commit(&w.catalog, &mut table)
        .unwrap();
    assert_eq!(table.total_records(), 5);
}

#[test]
fn batches_are_cast_to_the_table_schema_only_when_safe() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    // id is long in the table: an int32 id widens; missing columns are null.
    let narrow = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new("id", DataType::Int32, true)])),
        vec![Arc::new(Int32Array::from(vec![7, 8]))],
    )
    .unwrap();
    Append::new(write(&table, &[narrow]))
        .commit(&w.catalog, &mut table)
        .unwrap();
    let read = table.read_all(None).unwrap();
    assert_eq!(ids(&read), vec![7, 8]);
    assert_eq!(read[0].column_by_name("fare").unwrap().null_count(), 2);

    // vendor is int in the table: a long vendor is refused, naming the column.
    let wide = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new(
            "vendor",
            DataType::Int64,
            true,
        )])),
        vec![Arc::new(Int64Array::from(vec![1]))],
    )
    .unwrap();
    let mut writer = ldp_table::DataWriter::new(&table, &WriterOptions::default()).unwrap();
    let error = writer.write(&wide).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Schema);
    assert!(
        error
            .to_string()
            .contains("nyc.rides: column 'vendor' has type Int64"),
        "{error}"
    );
}
