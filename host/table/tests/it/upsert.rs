//! Upsert: rows replaced by key, copy-on-write, in one snapshot; only the files that may hold a
//! key are read, only those that hold a changed row are rewritten.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Float64Array, Int64Array, RecordBatch};
use ldp_table::{Append, ErrorKind, PartitionColumn, Table, Transform, Upsert};

use crate::common::{CATALOG, Warehouse, ids, rides, row_count, write};

/// `batch` with its `fare` column replaced.
fn with_fares(batch: &RecordBatch, fares: Vec<f64>) -> RecordBatch {
    let index = batch.schema().index_of("fare").expect("fare");
    let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
    columns[index] = Arc::new(Float64Array::from(fares));
    RecordBatch::try_new(batch.schema(), columns).expect("batch")
}

fn join() -> Vec<String> {
    vec!["id".to_string()]
}

/// A table of ids 0..100 in two appends (two files: 0..50 and 50..100).
fn two_files(w: &Warehouse) -> Table {
    let mut table = w.create("rides");
    for start in [0, 50] {
        Append::new(write(&table, &[rides(start, 50)]))
            .commit(&w.catalog, &mut table)
            .expect("append");
    }
    table
}

/// (id, fare) of every row, by id.
fn fares(table: &Table) -> Vec<(i64, f64)> {
    let mut out = Vec::new();
    for batch in table.read_all(None).expect("read") {
        let id = batch
            .column_by_name("id")
            .and_then(|c| c.as_any().downcast_ref::<Int64Array>())
            .expect("ids")
            .clone();
        let fare = batch
            .column_by_name("fare")
            .and_then(|c| c.as_any().downcast_ref::<Float64Array>())
            .expect("fares")
            .clone();
        out.extend((0..batch.num_rows()).map(|i| (id.value(i), fare.value(i))));
    }
    out.sort_by_key(|(id, _)| *id);
    out
}

#[test]
fn changed_rows_are_replaced_in_one_overwrite_snapshot_and_other_files_are_not_read() {
    let w = Warehouse::new();
    let mut table = two_files(&w);
    let snapshots_before = table.snapshots().len();
    // ids 10..15 change, 15..17 are as in the table, 200..203 are new.
    let changed = with_fares(&rides(10, 5), vec![99.0; 5]);
    let batch = [changed, rides(15, 2), rides(200, 3)];
    let result = Upsert::new("nyc.rides", &batch, &join())
        .expect("keys")
        .commit(&w.catalog, &mut table)
        .expect("upsert");
    assert_eq!(
        (
            result.rows_updated,
            result.rows_inserted,
            result.rows_unchanged
        ),
        (5, 3, 2)
    );
    assert_eq!((result.rows_before, result.rows_after), (100, 103));
    assert_eq!(result.rows_written(), 8);
    assert_eq!(
        (
            result.files_before,
            result.files_read,
            result.files_rewritten
        ),
        (2, 1, 1),
        "the file of ids 50..100 holds no key of the batch"
    );
    assert_eq!(result.rows_rewritten, 45);
    let commit = result.commit.expect("a snapshot");
    assert_eq!(commit.operation, "overwrite");

    let snapshots = table.snapshots();
    assert_eq!(snapshots.len(), snapshots_before + 1, "one snapshot");
    let last = &snapshots[snapshots.len() - 1];
    assert_eq!(last.count("deleted-data-files"), 1);
    assert_eq!(last.count("deleted-records"), 50);
    assert_eq!(last.count("added-records"), 53);
    assert_eq!(last.count("total-records"), 103);
    assert_eq!(last.count("total-data-files"), 2);
    assert_eq!(last.count("total-delete-files"), 0);

    let rows = fares(&table);
    assert_eq!(rows.len(), 103);
    assert_eq!(rows[10], (10, 99.0));
    assert_eq!(rows[15], (15, 22.5));
    assert_eq!(rows[102], (202, 303.0));
    let mut expected: Vec<i64> = (0..100).collect();
    expected.extend(200..203);
    assert_eq!(ids(&table.read_all(None).expect("read")), expected);
}

#[test]
fn the_same_batch_again_changes_nothing_and_adds_no_snapshot() {
    let w = Warehouse::new();
    let mut table = two_files(&w);
    let batch = [with_fares(&rides(10, 3), vec![1.0, f64::NAN, -0.0])];
    let first = Upsert::new("nyc.rides", &batch, &join())
        .expect("keys")
        .commit(&w.catalog, &mut table)
        .expect("first upsert");
    assert_eq!(first.rows_updated, 3);
    let snapshots = table.snapshots().len();
    let files = table.data_file_paths(None).expect("files");

    // NaN equals NaN and 0.0 equals -0.0: nothing changed.
    let again = [with_fares(&rides(10, 3), vec![1.0, f64::NAN, 0.0])];
    let second = Upsert::new("nyc.rides", &again, &join())
        .expect("keys")
        .commit(&w.catalog, &mut table)
        .expect("second upsert");
    assert!(second.commit.is_none(), "{second:?}");
    assert_eq!(
        (
            second.rows_updated,
            second.rows_inserted,
            second.rows_unchanged
        ),
        (0, 0, 3)
    );
    assert_eq!((second.rows_before, second.rows_after), (100, 100));
    assert_eq!(table.snapshots().len(), snapshots);
    assert_eq!(table.data_file_paths(None).expect("files"), files);
    let data_dir = w.location("rides").join("data");
    assert_eq!(
        std::fs::read_dir(&data_dir).expect("data").count(),
        snapshots_files(&table),
        "no file left behind"
    );
}

/// Data files referenced by any snapshot.
fn snapshots_files(table: &Table) -> usize {
    let mut all = std::collections::BTreeSet::new();
    for snapshot in table.snapshots() {
        all.extend(
            table
                .data_file_paths(Some(snapshot.snapshot_id))
                .expect("files"),
        );
    }
    all.len()
}

#[test]
fn on_an_empty_table_an_upsert_is_an_append() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    let result = Upsert::new("nyc.rides", &[rides(0, 10)], &join())
        .expect("keys")
        .commit(&w.catalog, &mut table)
        .expect("upsert");
    let commit = result.commit.expect("snapshot");
    assert_eq!(commit.operation, "append");
    assert_eq!((result.rows_inserted, result.rows_after), (10, 10));
}

#[test]
fn only_new_keys_make_an_append_snapshot() {
    let w = Warehouse::new();
    let mut table = two_files(&w);
    let result = Upsert::new("nyc.rides", &[rides(500, 4)], &join())
        .expect("keys")
        .commit(&w.catalog, &mut table)
        .expect("upsert");
    assert_eq!(result.commit.expect("snapshot").operation, "append");
    assert_eq!((result.files_read, result.files_rewritten), (0, 0));
    assert_eq!(result.rows_after, 104);
}

#[test]
fn a_batch_without_a_table_column_is_refused_with_the_reference_message() {
    let w = Warehouse::new();
    let mut table = two_files(&w);
    let batch = rides(0, 3);
    let narrow = batch.project(&[0, 2]).expect("project");
    let error = Upsert::new("nyc.rides", &[narrow], &join())
        .expect("keys")
        .commit(&w.catalog, &mut table)
        .expect_err("missing columns");
    assert_eq!(error.kind(), ErrorKind::Input);
    assert_eq!(
        error.to_string(),
        "upsert data for nyc.rides is missing columns ['vendor', 'borough', 'pickup', 'dropoff', \
         'day', 'paid'] of the table; an upsert replaces whole rows, so the batch needs every \
         column (read the current rows and update them, or use mode 'append')"
    );
    assert_eq!(table.total_records(), 100);
}

#[test]
fn a_partition_on_the_key_limits_the_files_read() {
    let w = Warehouse::new();
    let schema = rides(0, 1).schema();
    let mut table = Table::create_partitioned(
        &w.catalog,
        CATALOG,
        "by_bucket",
        &schema,
        &[PartitionColumn {
            column: "id".into(),
            transform: Transform::Bucket(8),
            name: None,
        }],
        &w.location("by_bucket"),
    )
    .expect("create");
    Append::new(write(&table, &[rides(0, 400)]))
        .commit(&w.catalog, &mut table)
        .expect("append");
    let files = table.data_files(None).expect("files").len();
    assert_eq!(files, 8);
    let result = Upsert::new(
        "nyc.by_bucket",
        &[with_fares(&rides(7, 1), vec![-1.0])],
        &join(),
    )
    .expect("keys")
    .commit(&w.catalog, &mut table)
    .expect("upsert");
    assert_eq!(
        (
            result.files_before,
            result.files_read,
            result.files_rewritten
        ),
        (8, 1, 1)
    );
    assert_eq!(result.rows_updated, 1);
    let after = table.read_all(None).expect("read");
    assert_eq!(row_count(&after), 400);
    assert_eq!(table.data_files(None).expect("files").len(), 8);
    let fare_of_7 = after.iter().find_map(|b| {
        let id = b
            .column_by_name("id")?
            .as_any()
            .downcast_ref::<Int64Array>()?;
        let fare = b
            .column_by_name("fare")?
            .as_any()
            .downcast_ref::<Float64Array>()?;
        (0..b.num_rows())
            .find(|&i| id.value(i) == 7)
            .map(|i| fare.value(i))
    });
    assert_eq!(fare_of_7, Some(-1.0));
    assert!(after.iter().all(|b| b.column(0).null_count() == 0));
}
