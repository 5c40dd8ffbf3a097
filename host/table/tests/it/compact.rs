//! Compaction and manifest rewrite: small files rewritten in one `replace` snapshot, manifests
//! merged, rows unchanged, and concurrent writers never lose a row.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arrow_array::{Array, Int64Array};
use ldp_catalog::Mode;
use ldp_table::{
    Append, CompactOptions, Error, Overwrite, RetryPolicy, Table, compact, rewrite_manifests,
};

use crate::common::{CATALOG, Warehouse, files_under, ids, rides, write};

/// A table with `appends` appends of `rows` rows each (ids 0..appends·rows).
fn appended(w: &Warehouse, appends: i64, rows: usize) -> Table {
    let mut table = w.create("rides");
    for i in 0..appends {
        let files = write(&table, &[rides(i * rows as i64, rows)]);
        Append::new(files).commit(&w.catalog, &mut table).unwrap();
    }
    table
}

fn apply() -> CompactOptions {
    CompactOptions {
        apply: true,
        ..CompactOptions::default()
    }
}

/// The ids as read, unsorted.
fn in_file_order(batches: &[arrow_array::RecordBatch]) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| {
            b.column_by_name("id")
                .unwrap()
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap()
                .values()
                .to_vec()
        })
        .collect()
}

fn manifest_count(table: &Table) -> usize {
    let snapshot = table.current_snapshot().expect("a snapshot");
    let path = snapshot.manifest_list().to_string();
    let bytes = std::fs::read(path.trim_start_matches("file://")).unwrap();
    iceberg::spec::ManifestList::parse_with_version(&bytes, iceberg::spec::FormatVersion::V2)
        .unwrap()
        .entries()
        .len()
}

#[test]
fn small_files_become_one_file_in_one_replace_snapshot() {
    let w = Warehouse::new();
    let mut table = appended(&w, 20, 10);
    assert_eq!(table.data_files(None).unwrap().len(), 20);
    assert_eq!(manifest_count(&table), 20);
    let before = table.current_snapshot_id().unwrap();

    let plan = compact(&w.catalog, &mut table, &CompactOptions::default()).unwrap();
    assert!(plan.dry_run && !plan.committed);
    assert_eq!((plan.files_before, plan.files_rewritten), (20, 20));
    assert_eq!((plan.files_written, plan.files_after), (1, 1));
    assert_eq!(
        table.current_snapshot_id(),
        Some(before),
        "a dry run commits nothing"
    );

    let report = compact(&w.catalog, &mut table, &apply()).unwrap();
    assert!(report.committed, "{report:?}");
    assert_eq!((report.files_after, report.rows_rewritten), (1, 200));
    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    let current = table.current_snapshot().unwrap();
    assert_eq!(current.summary().operation.as_str(), "replace");
    assert_eq!(current.parent_snapshot_id(), Some(before));
    assert_eq!(table.data_files(None).unwrap().len(), 1);
    assert!(manifest_count(&table) <= 3, "{}", manifest_count(&table));
    assert_eq!(report.manifests_after, manifest_count(&table));
    assert_eq!(
        plan.manifests_after, report.manifests_after,
        "the dry run's estimate"
    );
    // The rows keep the order they were appended in (the regression: newest files first).
    assert_eq!(
        in_file_order(&table.read_all(None).unwrap()),
        (0..200).collect::<Vec<_>>()
    );
    assert_eq!(table.total_records(), 200);
    assert_eq!(
        ids(&table.read_all(None).unwrap()),
        (0..200).collect::<Vec<_>>()
    );
    // The snapshot before the compaction still reads its own files.
    assert_eq!(ids(&table.read_all(Some(before)).unwrap()).len(), 200);

    // Nothing left to compact: no new snapshot.
    let mut table = table;
    let again = compact(&w.catalog, &mut table, &apply()).unwrap();
    assert!(!again.committed && again.files_rewritten == 0, "{again:?}");
}

#[test]
fn sort_by_writes_the_rows_in_order() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    for start in [30, 20, 10, 0] {
        let files = write(&table, &[rides(start, 10)]);
        Append::new(files).commit(&w.catalog, &mut table).unwrap();
    }
    let options = CompactOptions {
        sort_by: vec!["id".to_string()],
        ..apply()
    };
    compact(&w.catalog, &mut table, &options).unwrap();
    let read = in_file_order(&table.read_all(None).unwrap());
    assert_eq!(read, (0..40).collect::<Vec<_>>());

    let unknown = CompactOptions {
        sort_by: vec!["nope".to_string()],
        ..apply()
    };
    let error = compact(&w.catalog, &mut table, &unknown).unwrap_err();
    assert!(matches!(error, Error::Maintenance { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("cannot sort by 'nope': it is not a column of nyc.rides"),
        "{error}"
    );
}

/// Appends per writer thread in [`appends_racing_compactions_are_never_lost`].
const APPENDS_PER_WRITER: usize = 40;

/// Appends running in a loop while compactions run: every appended row is in the table once.
#[test]
fn appends_racing_compactions_are_never_lost() {
    let w = Warehouse::new();
    let table = appended(&w, 5, 10);
    drop(table);
    let next = Arc::new(Mutex::new(1_000i64));
    let writers: Vec<_> = (0..2)
        .map(|_| {
            let catalog = w.open(Mode::ReadWrite);
            let next = next.clone();
            std::thread::spawn(move || {
                let mut table = Table::load(&catalog, CATALOG, "rides").unwrap();
                let mut appended = Vec::new();
                for _ in 0..APPENDS_PER_WRITER {
                    let start = {
                        let mut next = next.lock().unwrap();
                        *next += 10;
                        *next
                    };
                    let files = write(&table, &[rides(start, 10)]);
                    let policy = RetryPolicy {
                        max_attempts: 50,
                        base_delay: Duration::from_millis(5),
                        max_delay: Duration::from_millis(50),
                        ..RetryPolicy::direct_append()
                    };
                    Append::new(files)
                        .retry(policy)
                        .commit(&catalog, &mut table)
                        .unwrap();
                    appended.extend(start..start + 10);
                    std::thread::sleep(Duration::from_millis(5));
                }
                appended
            })
        })
        .collect();
    let catalog = w.open(Mode::ReadWrite);
    let mut compactions = 0;
    while !writers.iter().all(|w| w.is_finished()) {
        std::thread::sleep(Duration::from_millis(20));
        let mut table = Table::load(&catalog, CATALOG, "rides").unwrap();
        if compact(&catalog, &mut table, &apply()).unwrap().committed {
            compactions += 1;
        }
    }
    let mut expected: Vec<i64> = (0..50).collect();
    for writer in writers {
        expected.extend(writer.join().unwrap());
    }
    expected.sort_unstable();
    assert!(compactions > 0);
    let table = Table::load(&catalog, CATALOG, "rides").unwrap();
    let read = ids(&table.read_all(None).unwrap());
    assert_eq!(read.len(), expected.len(), "no row lost or doubled");
    assert_eq!(read, expected);
}

/// An overwrite that removes the files a compaction is rewriting: the compaction gives up, says
/// so, and leaves no file behind.
#[test]
fn a_compaction_whose_files_were_overwritten_gives_up_cleanly() {
    let w = Warehouse::new();
    let mut stale = appended(&w, 4, 10);
    let mut other = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    let files = write(&other, &[rides(500, 3)]);
    Overwrite::new(files)
        .commit(&w.catalog, &mut other)
        .unwrap();
    let before = files_under(&w.location("rides"));

    let error = compact(&w.catalog, &mut stale, &apply()).unwrap_err();
    assert!(
        matches!(error, Error::CompactionConflict { .. }),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("while it was being compacted; nothing was committed"),
        "{error}"
    );
    assert_eq!(
        files_under(&w.location("rides")),
        before,
        "no file left behind"
    );
    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(ids(&table.read_all(None).unwrap()), vec![500, 501, 502]);
}

#[test]
fn manifests_are_merged_without_touching_data_files() {
    let w = Warehouse::new();
    let mut table = appended(&w, 6, 5);
    let files_before = table.data_file_paths(None).unwrap();
    let plan = rewrite_manifests(&w.catalog, &mut table, false).unwrap();
    assert_eq!((plan.manifests_before, plan.manifests_after), (6, 1));
    assert!(!plan.committed);

    let report = rewrite_manifests(&w.catalog, &mut table, true).unwrap();
    assert!(report.committed);
    assert_eq!((report.manifests_after, report.entries), (1, 6));
    assert_eq!(manifest_count(&table), 1);
    let mut after = table.data_file_paths(None).unwrap();
    let mut before = files_before;
    after.sort();
    before.sort();
    assert_eq!(after, before);
    assert_eq!(
        ids(&table.read_all(None).unwrap()),
        (0..30).collect::<Vec<_>>()
    );
    let column = table.read_all(None).unwrap();
    assert_eq!(column.iter().map(|b| b.column(0).len()).sum::<usize>(), 30);

    let again = rewrite_manifests(&w.catalog, &mut table, true).unwrap();
    assert!(!again.committed);
}

/// The files a compaction replaced stop being referenced once the snapshots that read them are
/// expired and the next commit has dropped the compaction's manifest of deleted entries: then
/// orphan removal reclaims them, and the table still reads.
#[test]
fn compacted_files_are_reclaimed_after_expiry() {
    let w = Warehouse::new();
    let mut table = appended(&w, 8, 10);
    let old: Vec<String> = table.data_file_paths(None).unwrap();
    compact(&w.catalog, &mut table, &apply()).unwrap();
    let files = write(&table, &[rides(1_000, 5)]);
    Append::new(files).commit(&w.catalog, &mut table).unwrap();
    let expire = ldp_table::ExpireOptions {
        older_than_days: 0.0,
        retain_last: 1,
        apply: true,
    };
    let now = i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
        + 1_000;
    let expired = ldp_table::expire_snapshots(&w.catalog, &mut table, &expire, now).unwrap();
    assert_eq!(expired.snapshots_after, 1, "{expired:?}");
    let options = ldp_table::OrphanOptions {
        older_than_hours: 0.0,
        keep_metadata_versions: 0,
        apply: true,
        allow_recent: true,
        warehouse: None,
    };
    let report = ldp_table::remove_orphans(&w.catalog, &table, &options, now).unwrap();
    for path in &old {
        assert!(
            report.deleted.contains(path),
            "{path} not reclaimed: {report:?}"
        );
    }
    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    let mut expected: Vec<i64> = (0..80).collect();
    expected.extend(1_000..1_005);
    assert_eq!(ids(&table.read_all(None).unwrap()), expected);
}

/// Two compactions of one table at once: the one that commits second finds its files already
/// rewritten, gives up with the conflict named, and leaves nothing behind; no row is doubled.
#[test]
fn a_second_concurrent_compaction_gives_up_cleanly() {
    let w = Warehouse::new();
    let mut first = appended(&w, 6, 10);
    let mut second = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert!(compact(&w.catalog, &mut first, &apply()).unwrap().committed);
    let before = files_under(&w.location("rides"));
    let error = compact(&w.catalog, &mut second, &apply()).unwrap_err();
    assert!(
        matches!(error, Error::CompactionConflict { .. }),
        "{error:?}"
    );
    assert_eq!(files_under(&w.location("rides")), before);
    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(
        ids(&table.read_all(None).unwrap()),
        (0..60).collect::<Vec<_>>()
    );
}

/// A table written by upserts (copy-on-write: files replaced, no delete files) and an
/// overwrite compacts as an appended one does: the same rows, one key each, in one file.
#[test]
fn upserted_and_overwritten_tables_compact_the_same_way() {
    let w = Warehouse::new();
    let mut table = appended(&w, 4, 10);
    let join = vec!["id".to_string()];
    for start in [5, 15, 35] {
        let batch = [rides(start, 10)];
        ldp_table::Upsert::new("nyc.rides", &batch, &join)
            .unwrap()
            .commit(&w.catalog, &mut table)
            .unwrap();
    }
    let before = table.read_all(None).unwrap();
    assert!(table.data_files(None).unwrap().len() > 1);
    let report = compact(&w.catalog, &mut table, &apply()).unwrap();
    assert!(report.committed && report.files_after == 1, "{report:?}");
    assert_eq!(ids(&table.read_all(None).unwrap()), ids(&before));
    assert_eq!(ids(&before), (0..45).collect::<Vec<_>>());

    let files = write(&table, &[rides(100, 3)]);
    Overwrite::new(files)
        .commit(&w.catalog, &mut table)
        .unwrap();
    for start in [200, 300] {
        let files = write(&table, &[rides(start, 3)]);
        Append::new(files).commit(&w.catalog, &mut table).unwrap();
    }
    let report = compact(&w.catalog, &mut table, &apply()).unwrap();
    assert!(report.committed && report.files_after == 1, "{report:?}");
    assert_eq!(
        ids(&table.read_all(None).unwrap()),
        vec![100, 101, 102, 200, 201, 202, 300, 301, 302]
    );
}
