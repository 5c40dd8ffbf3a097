//! Commits: a compare-and-swap on `metadata_location`, guarded by Glue's `VersionId` lock.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use ldp_catalog_glue::{ErrorKind, GlueCatalog};
use serde_json::Value;

use crate::moto::{Mode, Moto, OnMoto, boto, shared, unique};

const M0: &str = "file:///lake/t/metadata/00000-a.metadata.json";
const M1: &str = "file:///lake/t/metadata/00001-b.metadata.json";
const M2: &str = "file:///lake/t/metadata/00002-c.metadata.json";

#[test]
fn a_commit_swaps_the_pointer_and_keeps_the_previous_one() {
    let catalog = shared().catalog();
    let ns = unique("cas");
    catalog.create_namespace_if_missing(&ns).unwrap();
    catalog.create_table(&ns, "t", M0).unwrap();
    let before = catalog.load_table(&ns, "t").unwrap().unwrap();

    catalog.commit(&ns, "t", M0, M1).unwrap();
    let after = catalog.load_table(&ns, "t").unwrap().unwrap();
    assert_eq!(after.metadata_location, M1);
    assert_eq!(after.previous_metadata_location.as_deref(), Some(M0));
    assert_ne!(after.version_id, before.version_id);
}

#[test]
fn a_stale_commit_is_a_retryable_conflict() {
    let catalog = shared().catalog();
    let ns = unique("stale");
    catalog.create_namespace_if_missing(&ns).unwrap();
    catalog.create_table(&ns, "t", M0).unwrap();
    catalog.commit(&ns, "t", M0, M1).unwrap();

    let stale = catalog.commit(&ns, "t", M0, M2).unwrap_err();
    assert_eq!(stale.kind(), ErrorKind::Conflict, "{stale}");
    assert!(stale.is_retryable());
    let message = stale.to_string();
    for part in [M0, M1, "reload the table and retry", "Glue catalog 'lake'"] {
        assert!(message.contains(part), "{message} lacks {part}");
    }
    let table = catalog.load_table(&ns, "t").unwrap().unwrap();
    assert_eq!(
        table.metadata_location, M1,
        "the stale commit changed nothing"
    );
}

/// 8 threads commit 4 times each to one table, reloading and retrying on every conflict. Glue
/// keeps every version (moto ignores `SkipArchive`), so the test reads the whole history: each
/// version's `previous_metadata_location` is the version before's `metadata_location`, and
/// every commit's new location is in it exactly once.
#[test]
fn racing_commits_lose_nothing() {
    const THREADS: usize = 8;
    const COMMITS: usize = 4;
    let catalog = shared().catalog();
    let ns = unique("race");
    catalog.create_namespace_if_missing(&ns).unwrap();
    catalog.create_table(&ns, "t", M0).unwrap();
    let ours = AtomicUsize::new(0);
    let glue_lock = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let (catalog, ns, ours, glue_lock) = (&catalog, &ns, &ours, &glue_lock);
            scope.spawn(move || {
                for i in 0..COMMITS {
                    let new = format!("file:///lake/t/metadata/t{thread}-{i}.metadata.json");
                    commit_until_done(catalog, ns, &new, ours, glue_lock);
                }
            });
        }
    });
    eprintln!(
        "conflicts: {} seen by the metadata_location check, {} by Glue's VersionId lock",
        ours.load(Ordering::Relaxed),
        glue_lock.load(Ordering::Relaxed)
    );
    let versions = boto(
        shared(),
        &format!(
            "v = glue.get_table_versions(DatabaseName='{ns}', TableName='t')['TableVersions']\n\
             result = sorted(([int(x['VersionId']), x['Table']['Parameters']] for x in v))"
        ),
    );
    let versions = versions.as_array().unwrap();
    assert_eq!(versions.len(), 1 + THREADS * COMMITS, "{versions:?}");
    let param = |v: &Value, key: &str| v[1][key].as_str().map(str::to_string);
    assert_eq!(
        param(&versions[0], "metadata_location").as_deref(),
        Some(M0)
    );
    let mut seen = BTreeSet::new();
    for pair in versions.windows(2) {
        assert_eq!(
            param(&pair[1], "previous_metadata_location"),
            param(&pair[0], "metadata_location"),
            "a commit was lost between versions {} and {}",
            pair[0][0],
            pair[1][0]
        );
        assert!(seen.insert(param(&pair[1], "metadata_location").unwrap()));
    }
    let expected: BTreeSet<String> = (0..THREADS)
        .flat_map(|t| {
            (0..COMMITS).map(move |i| format!("file:///lake/t/metadata/t{t}-{i}.metadata.json"))
        })
        .collect();
    assert_eq!(seen, expected);
}

fn commit_until_done(
    catalog: &GlueCatalog,
    ns: &str,
    new: &str,
    ours: &AtomicUsize,
    glue_lock: &AtomicUsize,
) {
    for _ in 0..1000 {
        let current = catalog.load_table(ns, "t").unwrap().unwrap();
        match catalog.commit(ns, "t", &current.metadata_location, new) {
            Ok(()) => return,
            Err(e) if e.kind() == ErrorKind::Conflict && e.is_retryable() => {
                let counter = if e.to_string().contains("optimistic lock") {
                    glue_lock
                } else {
                    ours
                };
                counter.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => panic!("commit of {new} failed: {e}"),
        }
    }
    panic!("commit of {new} lost 1000 races");
}

/// What moto itself does with Glue's optimistic lock: nothing. `UpdateTable` with a stale
/// `VersionId` succeeds, which is why the shared server runs with the lock patched in (see
/// `moto::ENFORCE_VERSION`). Sequential commits still see each other through the
/// `metadata_location` check.
#[test]
fn moto_alone_ignores_version_id() {
    let moto = Moto::start(Mode::Plain);
    let catalog = moto.catalog();
    catalog.create_namespace_if_missing("db").unwrap();
    catalog.create_table("db", "t", M0).unwrap();
    catalog.commit("db", "t", M0, M1).unwrap();
    let stale = catalog.commit("db", "t", M0, M2).unwrap_err();
    assert_eq!(stale.kind(), ErrorKind::Conflict, "{stale}");

    let version = boto(
        &moto,
        "t = {'Name': 't', 'TableType': 'EXTERNAL_TABLE', 'Parameters': {'table_type': 'ICEBERG', 'metadata_location': 'x'}}\n\
         glue.update_table(DatabaseName='db', TableInput=t, VersionId='1')\n\
         glue.update_table(DatabaseName='db', TableInput=t, VersionId='1')\n\
         result = glue.get_table(DatabaseName='db', Name='t')['Table']['VersionId']",
    );
    assert_eq!(
        version, "4",
        "moto accepted both updates naming the stale version 1"
    );
}
