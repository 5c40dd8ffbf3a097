//! Orphan file removal: what is reported, what is skipped, what applying deletes, and when it
//! refuses.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ldp_table::{
    Append, ErrorKind, ExpireOptions, OrphanOptions, OrphanReport, Overwrite, Table,
    expire_snapshots, normalize_location, referenced_files, remove_orphans,
};

use crate::common::{CATALOG, Warehouse, files_under, rides, row_count, write};

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;

fn now_ms() -> i64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970");
    i64::try_from(since.as_millis()).expect("ms fit i64")
}

fn append(w: &Warehouse, table: &mut Table, start: i64) -> i64 {
    Append::new(write(table, &[rides(start, 10)]))
        .commit(&w.catalog, table)
        .expect("append")
        .snapshot_id
}

fn overwrite(w: &Warehouse, table: &mut Table, start: i64) -> i64 {
    Overwrite::new(write(table, &[rides(start, 5)]))
        .commit(&w.catalog, table)
        .expect("overwrite")
        .snapshot_id
}

/// A table with two appends and an overwrite; the snapshot ids, oldest first.
fn history(w: &Warehouse) -> (Table, Vec<i64>) {
    let mut table = w.create("rides");
    let ids = vec![
        append(w, &mut table, 0),
        append(w, &mut table, 10),
        overwrite(w, &mut table, 100),
    ];
    (table, ids)
}

/// Writes `bytes` at `path` (parent folders created), last modified `hours` ago.
fn stray(path: &Path, bytes: &[u8], hours: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(hours * 3600))
        .unwrap();
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn dry_run() -> OrphanOptions {
    OrphanOptions::default()
}

fn applying() -> OrphanOptions {
    OrphanOptions {
        apply: true,
        ..OrphanOptions::default()
    }
}

fn run(w: &Warehouse, table: &Table, options: &OrphanOptions, now: i64) -> OrphanReport {
    remove_orphans(&w.catalog, table, options, now).expect("remove orphans")
}

fn every_snapshot_reads(table: &Table) {
    for snapshot in table.snapshots() {
        let rows = row_count(&table.read_all(Some(snapshot.snapshot_id)).expect("read"));
        assert_eq!(rows as u64, snapshot.count("total-records"));
    }
}

#[test]
fn a_table_with_appends_and_an_overwrite_has_no_orphans() {
    let w = Warehouse::new();
    let (table, _) = history(&w);
    let location = w.location("rides");
    let files = files_under(&location);

    let report = run(&w, &table, &dry_run(), now_ms() + 30 * DAY_MS);
    assert!(report.orphans.is_empty(), "{:?}", report.orphans);
    assert_eq!(report.stats.listed, files.len());
    assert_eq!(report.stats.referenced, files.len());
    assert_eq!(
        report.stats.metadata_versions_read,
        1 + table.metadata().metadata_log().len()
    );
    assert_eq!(report.stats.rechecks, 0);
    assert!(report.dry_run && report.deleted.is_empty());
    assert_eq!(files_under(&location), files);

    let referenced = referenced_files(&table, 50).unwrap();
    for file in &files {
        assert!(
            referenced.contains(&normalize_location(&uri(file))),
            "{}",
            file.display()
        );
    }

    let json = report.to_json();
    let keys: BTreeSet<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let expected = [
        "table",
        "location",
        "dry_run",
        "older_than_hours",
        "keep_metadata_versions",
        "orphans",
        "orphan_bytes",
        "deleted",
        "missing",
        "failed",
        "stats",
    ];
    assert_eq!(keys, expected.into_iter().collect());
    assert_eq!(json["table"], "nyc.rides");
    assert_eq!(json["location"], table.location());
    assert!(json["older_than_hours"].is_f64());
    assert_eq!(json["older_than_hours"], 72.0);
    assert_eq!(json["keep_metadata_versions"], 50);
    let stats: BTreeSet<&str> = json["stats"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let expected = [
        "listed",
        "referenced",
        "recent",
        "hidden",
        "other_tables",
        "metadata_versions_read",
        "rechecks",
    ];
    assert_eq!(stats, expected.into_iter().collect());
}

/// Strays under `location`: (path, reported as an orphan).
fn strays(location: &Path) -> Vec<(PathBuf, bool)> {
    let nested_metadata = format!(
        "nested/metadata/00000-{}.metadata.json",
        "6b8f2ad4-7e0b-4a3c-9a53-8f4e1b2c3d4e"
    );
    let old = [
        ("data/stray-old.parquet", true),
        ("data/_vendor=1/old.parquet", true),
        ("data/.stray-old.parquet.crc", false),
        ("_temporary/0/part-0.parquet", false),
        ("data/_SUCCESS", false),
        (nested_metadata.as_str(), false),
        ("nested/data/x.parquet", false),
    ];
    old.iter()
        .map(|(rel, orphan)| {
            let path = location.join(rel);
            stray(&path, b"PAR1 stray PAR1", 100);
            (path, *orphan)
        })
        .collect()
}

#[test]
fn old_unreferenced_files_are_orphans_and_hidden_young_or_nested_ones_are_not() {
    let w = Warehouse::new();
    let (table, _) = history(&w);
    let location = w.location("rides");
    let strays = strays(&location);
    let young = location.join("data/stray-young.parquet");
    std::fs::write(&young, b"PAR1 young PAR1").unwrap();
    let listed = files_under(&location).len();

    let report = run(&w, &table, &dry_run(), now_ms());
    let expected: Vec<String> = strays
        .iter()
        .filter(|(_, orphan)| *orphan)
        .map(|(path, _)| uri(path))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(report.orphans, expected);
    assert_eq!(report.orphan_bytes, 2 * b"PAR1 stray PAR1".len() as u64);
    let stats = &report.stats;
    assert_eq!(stats.listed, listed);
    assert_eq!((stats.recent, stats.hidden, stats.other_tables), (1, 3, 2));
    assert_eq!(stats.referenced, listed - 1 - 3 - 2 - 2);
    assert!(young.exists());
    for (path, _) in &strays {
        assert!(path.exists(), "a dry run deleted {}", path.display());
    }

    // A half-hour cut still counts the young stray as recent: it is seconds old.
    let short = OrphanOptions {
        older_than_hours: 0.5,
        ..dry_run()
    };
    assert_eq!(run(&w, &table, &short, now_ms()).stats.recent, 1);
}

#[test]
fn applying_deletes_only_the_orphans_and_every_snapshot_still_reads() {
    let w = Warehouse::new();
    let (mut table, _) = history(&w);
    let location = w.location("rides");
    let strays = strays(&location);
    let young = location.join("data/stray-young.parquet");
    std::fs::write(&young, b"PAR1 young PAR1").unwrap();
    let before = files_under(&location);

    let report = run(&w, &table, &applying(), now_ms());
    assert!(!report.dry_run);
    assert_eq!(report.orphans.len(), 2);
    assert_eq!(report.deleted, report.orphans);
    assert!(report.missing.is_empty() && report.failed.is_empty());
    let gone: BTreeSet<PathBuf> = strays
        .iter()
        .filter(|(_, orphan)| *orphan)
        .map(|(path, _)| path.clone())
        .collect();
    let after = files_under(&location);
    assert_eq!(after, before.difference(&gone).cloned().collect());
    assert!(young.exists());

    table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    every_snapshot_reads(&table);
    assert_eq!(table.snapshots().len(), 3);

    // Nothing left to delete.
    let again = run(&w, &table, &applying(), now_ms());
    assert!(again.orphans.is_empty() && again.deleted.is_empty());
}

#[test]
fn files_only_an_older_metadata_version_references_are_kept() {
    let w = Warehouse::new();
    let (mut table, ids) = history(&w);
    let later = now_ms() + 30 * DAY_MS;
    let lists: Vec<String> = ids[..2]
        .iter()
        .map(|id| table.snapshot(*id).unwrap().manifest_list)
        .collect();
    let expiry = ExpireOptions {
        older_than_days: 7.0,
        retain_last: 1,
        apply: true,
    };
    let expired = expire_snapshots(&w.catalog, &mut table, &expiry, later).unwrap();
    assert_eq!(expired.expired_snapshot_ids.len(), 2);
    assert_eq!(table.snapshots().len(), 1);

    // The previous metadata versions still reference the expired snapshots' files.
    let kept = run(&w, &table, &dry_run(), later);
    assert!(kept.orphans.is_empty(), "{:?}", kept.orphans);
    assert!(kept.stats.metadata_versions_read > 1);
    let referenced = referenced_files(&table, 50).unwrap();
    for list in &lists {
        assert!(referenced.contains(&normalize_location(list)), "{list}");
    }

    // Without them, the expired snapshots' manifest lists and manifests are orphans; their data
    // files are not: the overwrite's manifest still names them in deleted entries.
    let current_only = OrphanOptions {
        keep_metadata_versions: 0,
        ..dry_run()
    };
    let report = run(&w, &table, &current_only, later);
    assert_eq!(report.stats.metadata_versions_read, 1);
    for list in &lists {
        assert!(
            report.orphans.contains(list),
            "{list}: {:?}",
            report.orphans
        );
    }
    for orphan in &report.orphans {
        assert!(
            orphan.ends_with(".avro") && orphan.contains("/metadata/"),
            "{orphan}"
        );
    }
    assert!(report.orphans.len() > lists.len(), "{:?}", report.orphans);

    // An older version's manifest list that is gone is skipped, not an error.
    std::fs::remove_file(lists[0].strip_prefix("file://").unwrap()).unwrap();
    let skipped = run(&w, &table, &dry_run(), later);
    assert!(skipped.orphans.is_empty(), "{:?}", skipped.orphans);

    let applied = OrphanOptions {
        apply: true,
        ..current_only
    };
    let report = run(&w, &table, &applied, later);
    assert_eq!(report.deleted, report.orphans);
    every_snapshot_reads(&Table::load(&w.catalog, CATALOG, "rides").unwrap());
}

#[test]
fn deleting_young_files_is_refused_unless_allowed() {
    let w = Warehouse::new();
    let (table, _) = history(&w);
    let stray_file = w.location("rides").join("data/stray.parquet");
    stray(&stray_file, b"PAR1 stray PAR1", 2);

    let hasty = OrphanOptions {
        older_than_hours: 1.0,
        apply: true,
        ..OrphanOptions::default()
    };
    let error = remove_orphans(&w.catalog, &table, &hasty, now_ms()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config);
    assert_eq!(
        error.to_string(),
        "refusing to delete files younger than 24 hours (older_than_hours=1): they may belong to a \
         write in progress. Pass --allow-recent to override."
    );
    assert!(stray_file.exists());

    // A dry run with a short cut is fine, and so is applying with allow_recent.
    let dry = OrphanOptions {
        apply: false,
        ..hasty.clone()
    };
    assert_eq!(run(&w, &table, &dry, now_ms()).orphans, [uri(&stray_file)]);
    let allowed = OrphanOptions {
        allow_recent: true,
        ..hasty
    };
    let report = run(&w, &table, &allowed, now_ms());
    assert_eq!(report.deleted, [uri(&stray_file)]);
    assert!(!stray_file.exists());

    for (hours, text) in [(0.5, "0.5"), (0.00001, "1e-05"), (12.3456789, "12.3457")] {
        let hasty = OrphanOptions {
            older_than_hours: hours,
            apply: true,
            ..OrphanOptions::default()
        };
        let error = remove_orphans(&w.catalog, &table, &hasty, now_ms()).unwrap_err();
        assert!(
            error
                .to_string()
                .contains(&format!("(older_than_hours={text})")),
            "{error}"
        );
    }

    let negative = OrphanOptions {
        older_than_hours: -1.0,
        ..OrphanOptions::default()
    };
    let error = remove_orphans(&w.catalog, &table, &negative, now_ms()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "older_than_hours must be a non-negative number, got -1.0"
    );
}

#[test]
fn a_missing_current_manifest_or_manifest_list_fails_closed() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    let snapshot_id = append(&w, &mut table, 0);
    let metadata = w.location("rides").join("metadata");
    let avro: Vec<PathBuf> = files_under(&metadata)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "avro"))
        .collect();
    let (lists, manifests): (Vec<&PathBuf>, Vec<&PathBuf>) = avro.iter().partition(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("snap-"))
    });
    assert_eq!((lists.len(), manifests.len()), (1, 1));
    let stray_file = w.location("rides").join("data/stray.parquet");
    stray(&stray_file, b"PAR1 stray PAR1", 100);

    std::fs::remove_file(manifests[0]).unwrap();
    let error = remove_orphans(&w.catalog, &table, &applying(), now_ms()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config);
    assert_eq!(
        error.to_string(),
        format!(
            "manifest {} is missing; refusing to look for orphans in nyc.rides",
            uri(manifests[0])
        )
    );
    assert!(stray_file.exists());

    std::fs::remove_file(lists[0]).unwrap();
    let error = remove_orphans(&w.catalog, &table, &applying(), now_ms()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "manifest list {} of snapshot {snapshot_id} is missing; refusing to look for orphans in nyc.rides",
            uri(lists[0])
        )
    );
    assert!(stray_file.exists());
}

#[test]
fn a_location_holding_the_warehouse_is_refused() {
    let w = Warehouse::new();
    let (table, _) = history(&w);
    let location = w.location("rides");
    let inner = location.join("inner");
    stray(&inner.join("x.parquet"), b"PAR1", 100);

    let options = OrphanOptions {
        warehouse: Some(inner.display().to_string()),
        ..applying()
    };
    let error = remove_orphans(&w.catalog, &table, &options, now_ms()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config);
    assert_eq!(
        error.to_string(),
        format!(
            "table location {} contains the catalog warehouse {}; refusing to look for orphans",
            table.location(),
            inner.display()
        )
    );
    assert!(inner.join("x.parquet").exists());

    // The table's own warehouse, above its location, is fine.
    let options = OrphanOptions {
        warehouse: Some(uri(&w.root())),
        ..dry_run()
    };
    assert_eq!(
        run(&w, &table, &options, now_ms()).orphans,
        [uri(&inner.join("x.parquet"))]
    );
}

#[test]
fn a_commit_during_the_scan_adds_its_references() {
    let w = Warehouse::new();
    let (mut table, _) = history(&w);
    let stale = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    append(&w, &mut table, 200);

    let report = run(&w, &stale, &dry_run(), now_ms() + 30 * DAY_MS);
    assert!(report.orphans.is_empty(), "{:?}", report.orphans);
    assert_eq!(report.stats.rechecks, 1);
    assert_eq!(report.stats.referenced, report.stats.listed);
}

#[test]
fn locations_compare_as_the_python_tool_compares_them() {
    let dir = tempfile::tempdir().unwrap();
    let real = std::fs::canonicalize(dir.path()).unwrap();
    let file = real.join("data").join("x.parquet");
    let key = format!("file:{}", file.display());
    for location in [
        format!("file:{}", file.display()),
        format!("file://{}", file.display()),
        file.display().to_string(),
        format!("{}/./sub/../data/x.parquet", real.display()),
    ] {
        assert_eq!(normalize_location(&location), key, "{location}");
    }
    #[cfg(unix)]
    {
        // A link resolves to its target, even for a file that does not exist.
        std::fs::create_dir(real.join("data")).unwrap();
        std::os::unix::fs::symlink(real.join("data"), real.join("link")).unwrap();
        assert_eq!(
            normalize_location(&real.join("link/x.parquet").display().to_string()),
            key
        );
    }
    assert_eq!(normalize_location("s3a://lake/wh/t/x"), "s3://lake/wh/t/x");
    assert_eq!(normalize_location("S3N://lake/wh/t/x"), "s3://lake/wh/t/x");
    assert_eq!(normalize_location("s3://lake/wh/t/x"), "s3://lake/wh/t/x");
}
