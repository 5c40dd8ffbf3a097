//! A failed or abandoned write leaves no file behind and the table as it was.

use arrow_array::{RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use ldp_catalog::Mode;
use ldp_table::{Append, DataWriter, ErrorKind, Overwrite, RetryPolicy, Table, WriterOptions};
use std::sync::Arc;

use crate::common::{CATALOG, Warehouse, files_under, rides, write};

fn bad_batch() -> RecordBatch {
    RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new(
            "vendor",
            DataType::Utf8,
            true,
        )])),
        vec![Arc::new(StringArray::from(vec!["not a number"]))],
    )
    .unwrap()
}

/// A table with one snapshot, and its files.
fn seeded(w: &Warehouse) -> Table {
    let mut table = w.create("rides");
    Append::new(write(&table, &[rides(0, 50)]))
        .commit(&w.catalog, &mut table)
        .unwrap();
    table
}

#[test]
fn a_commit_that_fails_after_writing_deletes_every_file_it_wrote() {
    let w = Warehouse::new();
    let table = seeded(&w);
    let before = files_under(&w.location("rides"));
    let pointer = table.metadata_location().to_string();

    // A read-only catalog lets the write stage everything, then refuses the commit.
    let read_only = w.open(Mode::ReadOnly);
    for overwrite in [false, true] {
        let mut stale = Table::load(&read_only, CATALOG, "rides").unwrap();
        let files = write(&stale, &[rides(100, 20)]);
        assert_eq!(files.files().len(), 1);
        let error = if overwrite {
            Overwrite::new(files)
                .commit(&read_only, &mut stale)
                .unwrap_err()
        } else {
            Append::new(files)
                .commit(&read_only, &mut stale)
                .unwrap_err()
        };
        assert_eq!(error.kind(), ErrorKind::Catalog, "{error}");
        assert!(!error.is_retryable());
        assert_eq!(
            files_under(&w.location("rides")),
            before,
            "files left by a failed write"
        );
        assert_eq!(stale.metadata_location(), pointer);
    }
    let reloaded = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(reloaded.metadata_location(), pointer);
    assert_eq!(reloaded.snapshots().len(), 1);
    assert_eq!(reloaded.total_records(), 50);
}

#[test]
fn a_writer_that_fails_midway_is_aborted_or_dropped_without_leftovers() {
    let w = Warehouse::new();
    let table = seeded(&w);
    let before = files_under(&w.location("rides"));

    let mut writer = DataWriter::new(&table, &WriterOptions::default()).unwrap();
    writer.write(&rides(100, 10)).unwrap();
    let error = writer.write(&bad_batch()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Schema);
    assert!(error.to_string().contains("column 'vendor'"), "{error}");
    writer.abort();
    assert_eq!(files_under(&w.location("rides")), before);

    // Dropped without finish: same.
    let mut writer = DataWriter::new(&table, &WriterOptions::default()).unwrap();
    writer.write(&rides(100, 10)).unwrap();
    drop(writer);
    assert_eq!(files_under(&w.location("rides")), before);

    // Finished but never committed: same.
    let files = write(&table, &[rides(100, 10)]);
    assert_eq!(files_under(&w.location("rides")).len(), before.len() + 1);
    drop(files);
    assert_eq!(files_under(&w.location("rides")), before);

    // An explicit abort of finished files too.
    write(&table, &[rides(100, 10)]).abort();
    assert_eq!(files_under(&w.location("rides")), before);
}

#[test]
fn an_overwrite_without_retries_that_loses_the_race_cleans_up() {
    let w = Warehouse::new();
    let mut winner = seeded(&w);
    let mut loser = Table::load(&w.catalog, CATALOG, "rides").unwrap();

    Append::new(write(&winner, &[rides(50, 10)]))
        .commit(&w.catalog, &mut winner)
        .unwrap();
    let before = files_under(&w.location("rides"));

    let error = Overwrite::new(write(&loser, &[rides(500, 10)]))
        .retry(RetryPolicy::no_retry())
        .commit(&w.catalog, &mut loser)
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::CommitConflict, "{error}");
    assert!(error.is_retryable());
    assert!(error.to_string().contains("nyc.rides"), "{error}");
    assert_eq!(files_under(&w.location("rides")), before);
    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(table.metadata_location(), winner.metadata_location());
    assert_eq!(table.total_records(), 60);
}
