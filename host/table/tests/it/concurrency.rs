//! Writes that race: the loser of the compare-and-swap rebuilds on the new head and retries.

use std::time::Duration;

use ldp_catalog::Mode;
use ldp_table::{Append, ErrorKind, Overwrite, RetryPolicy, Table};

use crate::common::{CATALOG, Warehouse, files_under, ids, rides, write};

fn quick_retries() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 20,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(50),
        ..RetryPolicy::direct_append()
    }
}

#[test]
fn a_stale_append_is_rebuilt_on_the_new_head() {
    let w = Warehouse::new();
    let mut first = w.create("rides");
    let mut stale = Table::load(&w.catalog, CATALOG, "rides").unwrap();

    let won = Append::new(write(&first, &[rides(0, 10)]))
        .commit(&w.catalog, &mut first)
        .unwrap();
    let files = write(&stale, &[rides(10, 10)]);
    let paths = files.paths();
    let retried = Append::new(files)
        .retry(quick_retries())
        .commit(&w.catalog, &mut stale)
        .unwrap();
    assert_eq!(retried.attempts, 2);
    assert_eq!((retried.rows_before, retried.rows_after), (10, 20));

    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    let snapshots = table.snapshots();
    assert_eq!(snapshots.len(), 2);
    assert_eq!(snapshots[1].parent_snapshot_id, Some(won.snapshot_id));
    assert_eq!(
        snapshots[1]
            .summary
            .get("total-records")
            .map(String::as_str),
        Some("20")
    );
    assert_eq!(
        ids(&table.read_all(None).unwrap()),
        (0..20).collect::<Vec<_>>()
    );
    // The data files written before the conflict are the ones committed.
    let mut committed = table.data_file_paths(None).unwrap();
    committed.retain(|p| paths.contains(p));
    assert_eq!(committed, paths);
    // The first attempt's manifest, manifest list and metadata file are gone: 2 data files,
    // 2 manifests, 2 manifest lists, 3 metadata files.
    assert_eq!(files_under(&w.location("rides")).len(), 9);
}

/// Hostile-input finding: an overwrite racing appends failed every time with the catalog's raw
/// conflict, naming neither the table nor what to do. It is now rebuilt on the new head: the
/// result is the append followed by the overwrite.
#[test]
fn an_overwrite_that_lost_to_an_append_replaces_its_rows_too() {
    let w = Warehouse::new();
    let mut first = w.create("rides");
    Append::new(write(&first, &[rides(0, 10)]))
        .commit(&w.catalog, &mut first)
        .unwrap();
    let mut stale = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    let appended = Append::new(write(&first, &[rides(10, 10)]))
        .commit(&w.catalog, &mut first)
        .unwrap();
    let replaced = Overwrite::new(write(&stale, &[rides(100, 5)]))
        .retry(quick_retries())
        .commit(&w.catalog, &mut stale)
        .unwrap();
    assert_eq!(replaced.attempts, 2);
    assert_eq!((replaced.rows_before, replaced.rows_after), (20, 5));
    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    let snapshots = table.snapshots();
    assert_eq!(snapshots.len(), 3);
    assert_eq!(snapshots[2].parent_snapshot_id, Some(appended.snapshot_id));
    assert_eq!(
        ids(&table.read_all(None).unwrap()),
        (100..105).collect::<Vec<_>>()
    );
}

#[test]
fn without_retries_a_stale_append_reports_the_conflict() {
    let w = Warehouse::new();
    let mut first = w.create("rides");
    let mut stale = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    Append::new(write(&first, &[rides(0, 10)]))
        .commit(&w.catalog, &mut first)
        .unwrap();
    let before = files_under(&w.location("rides"));
    let error = Append::new(write(&stale, &[rides(10, 10)]))
        .retry(RetryPolicy::no_retry())
        .commit(&w.catalog, &mut stale)
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::CommitConflict);
    assert_eq!(files_under(&w.location("rides")), before);
}

#[test]
fn two_threads_appending_at_once_both_land() {
    const PER_THREAD: i64 = 6;
    const ROWS: usize = 25;
    let w = Warehouse::new();
    w.create("rides");
    let attempts: Vec<u32> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2i64)
            .map(|thread| {
                let catalog = w.open(Mode::ReadWrite);
                scope.spawn(move || {
                    let mut table = Table::load(&catalog, CATALOG, "rides").unwrap();
                    let mut attempts = Vec::new();
                    for round in 0..PER_THREAD {
                        let start = (thread * PER_THREAD + round) * ROWS as i64;
                        let files = write(&table, &[rides(start, ROWS)]);
                        let result = Append::new(files)
                            .retry(quick_retries())
                            .commit(&catalog, &mut table)
                            .unwrap();
                        attempts.push(result.attempts);
                    }
                    attempts
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(attempts.len(), 2 * PER_THREAD as usize);
    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    let total = 2 * PER_THREAD as usize * ROWS;
    assert_eq!(table.total_records(), total as u64);
    assert_eq!(table.snapshots().len(), 2 * PER_THREAD as usize);
    assert_eq!(
        ids(&table.read_all(None).unwrap()),
        (0..total as i64).collect::<Vec<_>>()
    );
    eprintln!("attempts per append: {attempts:?}");
}

/// Pins a bug the concurrent-writers torture suite found: the winner of a staged window
/// removed a loser's staging branch but kept the snapshot on it, whose data files the loser
/// then deleted, so the table named files that no longer existed.
#[test]
fn a_fenced_staging_branch_takes_the_snapshots_only_it_holds() {
    use ldp_table::refs::{create_branch, fence};

    let w = Warehouse::new();
    let mut table = w.create("rides");
    Append::new(write(&table, &[rides(0, 10)]))
        .commit(&w.catalog, &mut table)
        .unwrap();
    let base = table.current_snapshot_id().unwrap();
    create_branch(
        &w.catalog,
        &mut table,
        "ldp_r1_a1_0",
        base,
        "ldp_fence_r1_a1",
    )
    .unwrap();
    let mut staged = table.clone().on_branch("ldp_r1_a1_0");
    Append::new(write(&staged, &[rides(10, 5)]))
        .commit(&w.catalog, &mut staged)
        .unwrap();
    let loser = staged.current_snapshot_id().unwrap();
    assert_ne!(loser, base);

    fence(
        &w.catalog,
        &mut table,
        &[("ldp_r1_a1_0".to_string(), loser)],
        &[],
    )
    .unwrap();
    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    let ids: Vec<i64> = table.snapshots().iter().map(|s| s.snapshot_id).collect();
    assert_eq!(ids, vec![base], "the branch's snapshot outlived it");
    assert!(table.ref_snapshot_id("ldp_r1_a1_0").is_none());
}
