//! Snapshot expiry: what is planned, what is kept and why, what a committed expiry leaves.

use std::time::{SystemTime, UNIX_EPOCH};

use ldp_table::expire::{HORIZON_PROPERTY, PROTECTION_REASONS, iso_millis};
use ldp_table::{
    Append, ErrorKind, ExpireOptions, ExpireReport, KeySearch, SearchOutcome, Table, create_branch,
    expire_snapshots, fence, find_keyed,
};

use crate::common::{CATALOG, Warehouse, rides, row_count, write};

const DAY_MS: i64 = 86_400_000;
const ROWS: usize = 10;

fn now_ms() -> i64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970");
    i64::try_from(since.as_millis()).expect("ms fit i64")
}

/// Appends `ROWS` rows (ids from `start`), with an idempotency key when given; the snapshot id.
fn append(w: &Warehouse, table: &mut Table, start: i64, key: Option<&str>) -> i64 {
    let files = write(table, &[rides(start, ROWS)]);
    let mut append = Append::new(files);
    if let Some(key) = key {
        append = append.property("ldp.idempotency-key", key);
    }
    append
        .commit(&w.catalog, table)
        .expect("append")
        .snapshot_id
}

/// `n` appends, the `keyed`-th (0-based) carrying key `k1`; the snapshot ids, oldest first.
fn history(w: &Warehouse, table: &mut Table, n: usize, keyed: Option<usize>) -> Vec<i64> {
    (0..n)
        .map(|i| {
            let key = (keyed == Some(i)).then_some("k1");
            append(w, table, (i * ROWS) as i64, key)
        })
        .collect()
}

fn options(retain_last: usize, apply: bool) -> ExpireOptions {
    ExpireOptions {
        older_than_days: 7.0,
        retain_last,
        apply,
    }
}

fn protected(report: &ExpireReport, reason: &str) -> Vec<i64> {
    report.protected.get(reason).cloned().unwrap_or_default()
}

fn sorted(ids: &[i64]) -> Vec<i64> {
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids
}

fn rows(table: &Table, snapshot: Option<i64>) -> usize {
    row_count(&table.read_all(snapshot).expect("read"))
}

#[test]
fn a_dry_run_reports_the_candidates_and_changes_nothing() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    let ids = history(&w, &mut table, 5, None);
    let location = table.metadata_location().to_string();
    let now = now_ms() + 30 * DAY_MS;

    let report = expire_snapshots(&w.catalog, &mut table, &options(2, false), now).unwrap();
    assert!(report.dry_run && !report.committed);
    assert_eq!(report.expired_snapshot_ids, sorted(&ids[..3]));
    assert_eq!((report.snapshots_before, report.snapshots_after), (5, 2));
    assert_eq!(report.attempts, 1);
    assert_eq!(report.metadata_location, location);
    assert_eq!(report.older_than, now - 7 * DAY_MS);
    assert_eq!(report.protect_keys_since, now - 7 * DAY_MS);
    assert_eq!(protected(&report, "current"), vec![ids[4]]);
    assert_eq!(protected(&report, "refs"), vec![ids[4]]);
    assert_eq!(protected(&report, "retain_last"), sorted(&ids[3..]));
    assert!(protected(&report, "idempotency_key").is_empty());

    let reloaded = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(reloaded.metadata_location(), location);
    assert_eq!(reloaded.snapshots().len(), 5);

    let json = report.to_json();
    assert_eq!(json["table"], "nyc.rides");
    assert_eq!(json["dry_run"], true);
    assert_eq!(json["committed"], false);
    assert_eq!(json["older_than"], iso_millis(now - 7 * DAY_MS).as_str());
    assert_eq!(
        json["protect_keys_since"],
        iso_millis(now - 7 * DAY_MS).as_str()
    );
    assert_eq!(json["retain_last"], 2);
    assert_eq!(json["snapshots_before"], 5);
    assert_eq!(json["snapshots_after"], 2);
    assert_eq!(json["attempts"], 1);
    assert_eq!(json["metadata_location"], location.as_str());
    assert_eq!(
        json["expired_snapshot_ids"],
        serde_json::json!(sorted(&ids[..3]))
    );
    let reasons = json["protected_snapshot_ids"].as_object().unwrap();
    assert_eq!(reasons.len(), PROTECTION_REASONS.len());
    for reason in PROTECTION_REASONS {
        assert!(reasons[reason].is_array(), "{reason}");
    }
    assert_eq!(iso_millis(1_785_542_400_000), "2026-08-01T00:00:00.000Z");
}

#[test]
fn applying_removes_the_expired_snapshots_and_the_table_still_reads() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    let ids = history(&w, &mut table, 5, None);
    let before = table.metadata_location().to_string();
    let now = now_ms() + 30 * DAY_MS;

    let report = expire_snapshots(&w.catalog, &mut table, &options(2, true), now).unwrap();
    assert!(!report.dry_run && report.committed);
    assert_eq!(report.expired_snapshot_ids, sorted(&ids[..3]));
    assert_eq!((report.snapshots_before, report.snapshots_after), (5, 2));
    assert_ne!(report.metadata_location, before);
    assert_eq!(report.metadata_location, table.metadata_location());

    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(table.metadata_location(), report.metadata_location);
    let kept: Vec<i64> = table.snapshots().iter().map(|s| s.snapshot_id).collect();
    assert_eq!(kept, ids[3..].to_vec());
    assert_eq!(table.current_snapshot_id(), Some(ids[4]));
    assert_eq!(rows(&table, None), 5 * ROWS);
    assert_eq!(rows(&table, Some(ids[3])), 4 * ROWS);
    assert_eq!(table.total_records(), (5 * ROWS) as u64);
    // The oldest kept snapshot lost its expired parent, as pyiceberg writes it.
    assert_eq!(table.snapshot(ids[3]).unwrap().parent_snapshot_id, None);
    assert_eq!(
        table.snapshot(ids[4]).unwrap().parent_snapshot_id,
        Some(ids[3])
    );
    let log: Vec<i64> = table
        .metadata()
        .history()
        .iter()
        .map(|entry| entry.snapshot_id)
        .collect();
    assert_eq!(log, ids[3..].to_vec());

    // Nothing more to expire: no commit.
    let mut table = table;
    let again = expire_snapshots(&w.catalog, &mut table, &options(2, true), now).unwrap();
    assert!(!again.committed && again.expired_snapshot_ids.is_empty());
    assert_eq!(again.metadata_location, report.metadata_location);
}

#[test]
fn recent_snapshots_do_not_expire() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    history(&w, &mut table, 3, None);
    let location = table.metadata_location().to_string();

    let report = expire_snapshots(&w.catalog, &mut table, &options(1, true), now_ms()).unwrap();
    assert!(report.expired_snapshot_ids.is_empty());
    assert!(!report.committed);
    assert_eq!(report.snapshots_after, 3);
    assert_eq!(table.metadata_location(), location);
}

#[test]
fn retain_last_keeps_the_newest_snapshots_of_main() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    let ids = history(&w, &mut table, 4, None);
    let now = now_ms() + 30 * DAY_MS;

    let report = expire_snapshots(&w.catalog, &mut table, &ExpireOptions::default(), now).unwrap();
    assert_eq!(report.retain_last, 20);
    assert!(report.expired_snapshot_ids.is_empty());
    assert_eq!(protected(&report, "retain_last"), sorted(&ids));

    let report = expire_snapshots(&w.catalog, &mut table, &options(3, true), now).unwrap();
    assert_eq!(report.expired_snapshot_ids, vec![ids[0]]);
    assert_eq!(protected(&report, "retain_last"), sorted(&ids[1..]));
    assert_eq!(table.snapshots().len(), 3);
}

#[test]
fn a_keyed_snapshot_within_the_horizon_and_its_descendants_on_main_are_kept() {
    let w = Warehouse::new();
    let mut table = Table::create_with_properties(
        &w.catalog,
        CATALOG,
        "rides",
        &rides(0, 1).schema(),
        &[],
        &w.location("rides"),
        &[(HORIZON_PROPERTY, "365")],
    )
    .unwrap();
    let ids = history(&w, &mut table, 5, Some(1));
    let now = now_ms() + 30 * DAY_MS;

    let report = expire_snapshots(&w.catalog, &mut table, &options(1, true), now).unwrap();
    assert_eq!(report.protect_keys_since, now - 365 * DAY_MS);
    assert_eq!(protected(&report, "idempotency_key"), vec![ids[1]]);
    assert_eq!(protected(&report, "key_ancestry"), sorted(&ids[1..]));
    assert_eq!(protected(&report, "retain_last"), vec![ids[4]]);
    assert_eq!(report.expired_snapshot_ids, vec![ids[0]]);
    assert!(report.committed);

    // The key is still found by the bounded walk of main.
    let found = find_keyed(
        &table,
        &KeySearch {
            key: "k1",
            since_ms: Some(report.protect_keys_since),
            max_depth: Some(100),
        },
    );
    match found {
        SearchOutcome::Found(snapshot) => assert_eq!(snapshot.snapshot_id, ids[1]),
        other => panic!("expected the keyed snapshot, got {other:?}"),
    }
    assert_eq!(table.snapshot(ids[1]).unwrap().parent_snapshot_id, None);
    assert_eq!(rows(&table, None), 5 * ROWS);
}

#[test]
fn a_keyed_snapshot_older_than_the_horizon_expires() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    let ids = history(&w, &mut table, 4, Some(1));
    let now = now_ms() + 30 * DAY_MS;

    let report = expire_snapshots(&w.catalog, &mut table, &options(1, false), now).unwrap();
    assert!(protected(&report, "idempotency_key").is_empty());
    assert!(protected(&report, "key_ancestry").is_empty());
    assert_eq!(report.expired_snapshot_ids, sorted(&ids[..3]));
}

#[test]
fn an_invalid_horizon_is_an_error_and_changes_nothing() {
    for value in ["soon", "-1", "nan"] {
        let w = Warehouse::new();
        let mut table = Table::create_with_properties(
            &w.catalog,
            CATALOG,
            "rides",
            &rides(0, 1).schema(),
            &[],
            &w.location("rides"),
            &[(HORIZON_PROPERTY, value)],
        )
        .unwrap();
        history(&w, &mut table, 3, None);
        let location = table.metadata_location().to_string();

        for apply in [false, true] {
            let error = expire_snapshots(
                &w.catalog,
                &mut table,
                &options(1, apply),
                now_ms() + 30 * DAY_MS,
            )
            .unwrap_err();
            assert_eq!(error.kind(), ErrorKind::Config);
            assert_eq!(
                error.to_string(),
                format!(
                    "table property ldp.idempotency.horizon-days='{value}' is not a non-negative number of days"
                )
            );
        }
        let reloaded = Table::load(&w.catalog, CATALOG, "rides").unwrap();
        assert_eq!(reloaded.metadata_location(), location);
        assert_eq!(reloaded.snapshots().len(), 3);
    }
}

#[test]
fn invalid_options_are_errors() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    history(&w, &mut table, 1, None);
    let zero = expire_snapshots(&w.catalog, &mut table, &options(0, true), now_ms()).unwrap_err();
    assert_eq!(zero.kind(), ErrorKind::Config);
    assert_eq!(zero.to_string(), "retain_last must be at least 1, got 0");
    let negative = ExpireOptions {
        older_than_days: -1.0,
        ..options(1, true)
    };
    let error = expire_snapshots(&w.catalog, &mut table, &negative, now_ms()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config);
}

#[test]
fn branch_and_tag_heads_are_kept() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    let s1 = append(&w, &mut table, 0, None);
    create_branch(&w.catalog, &mut table, "stage", s1, "fence-a").unwrap();
    let s2 = append(&w, &mut table, 10, None);
    fence(&w.catalog, &mut table, &[], &["fence-b".to_string()]).unwrap();
    let s3 = append(&w, &mut table, 20, None);
    let s4 = append(&w, &mut table, 30, None);
    let now = now_ms() + 30 * DAY_MS;

    let report = expire_snapshots(&w.catalog, &mut table, &options(1, true), now).unwrap();
    assert_eq!(protected(&report, "refs"), sorted(&[s1, s2, s4]));
    assert_eq!(protected(&report, "branch_min_snapshots"), vec![s1]);
    assert_eq!(protected(&report, "current"), vec![s4]);
    assert_eq!(report.expired_snapshot_ids, vec![s3]);
    assert!(report.committed);

    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(table.ref_snapshot_id("stage"), Some(s1));
    assert_eq!(table.ref_snapshot_id("fence-b"), Some(s2));
    assert_eq!(table.current_snapshot_id(), Some(s4));
    assert_eq!(table.snapshot(s4).unwrap().parent_snapshot_id, None);
    assert_eq!(rows(&table, None), 4 * ROWS);
    assert_eq!(rows(&table, Some(s1)), ROWS);
    assert!(table.snapshot(s3).is_err());
}

const READ_SCRIPT: &str = r#"
import json, sys
from pyiceberg.catalog.sql import SqlCatalog

db, warehouse = sys.argv[1], sys.argv[2]
catalog = SqlCatalog("nyc", uri=f"sqlite:///{db}", warehouse=f"file://{warehouse}")
table = catalog.load_table(("nyc", "rides"))
print(json.dumps({
    "rows": table.scan().to_arrow().num_rows,
    "snapshots": [[s.snapshot_id, s.parent_snapshot_id] for s in table.snapshots()],
    "log": [entry.snapshot_id for entry in table.metadata.snapshot_log],
    "refs": {name: ref.snapshot_id for name, ref in table.metadata.refs.items()},
}))
"#;

#[test]
fn pyiceberg_reads_an_expired_table() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    let ids = history(&w, &mut table, 4, None);
    let now = now_ms() + 30 * DAY_MS;
    let report = expire_snapshots(&w.catalog, &mut table, &options(2, true), now).unwrap();
    assert_eq!(report.expired_snapshot_ids, sorted(&ids[..2]));

    let python = crate::pyiceberg::python();
    let output = std::process::Command::new(&python)
        .arg("-c")
        .arg(READ_SCRIPT)
        .arg(w.catalog_file())
        .arg(w.root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "pyiceberg failed:\n{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: serde_json::Value = serde_json::from_str(stdout.trim()).expect("json");
    assert_eq!(seen["rows"], 4 * ROWS);
    assert_eq!(
        seen["snapshots"],
        serde_json::json!([[ids[2], null], [ids[3], ids[2]]])
    );
    assert_eq!(seen["log"], serde_json::json!([ids[2], ids[3]]));
    assert_eq!(seen["refs"], serde_json::json!({"main": ids[3]}));
}
