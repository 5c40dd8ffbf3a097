//! The commit interface: every write's updates and requirements, replayed on the metadata the
//! write was built on, give the metadata the write committed, so a REST catalog that applies
//! them gets the same table as a pointer-swap catalog.

use std::time::{SystemTime, UNIX_EPOCH};

use iceberg::TableRequirement;
use ldp_table::refs::{Publish, create_branch, fence, publish_branch};
use ldp_table::{Append, ExpireOptions, Overwrite, Table, Upsert, expire_snapshots};
use serde_json::Value;

use crate::common::{Warehouse, rides, write};

/// Runs `write` on `table`, then replays its commit on the version before and compares.
fn replayed(table: &mut Table, write: impl FnOnce(&mut Table)) -> Vec<TableRequirement> {
    let base = table.metadata().clone();
    let base_location = table.metadata_location().to_string();
    write(table);
    let commit = table.last_commit().expect("the write committed").clone();
    let body = commit.request_body(table.namespace(), table.name());
    assert_eq!(body["identifier"]["name"], table.name());
    let replay = commit.apply(&base, &base_location).expect("replays");
    let (replay, committed) = (comparable(&replay), comparable(table.metadata()));
    let differ: Vec<(&String, &Value, &Value)> = committed
        .as_object()
        .expect("object")
        .iter()
        .filter(|(key, value)| replay.get(key.as_str()) != Some(*value))
        .map(|(key, value)| (key, &replay[key.as_str()], value))
        .collect();
    assert!(differ.is_empty(), "replayed vs committed: {differ:#?}");
    commit.requirements
}

/// The metadata as JSON without the times a replay takes from its own clock (when the table
/// changed, when `main` moved to a snapshot that already existed), its snapshots in id order
/// (the metadata keeps them in a hash map).
fn comparable(metadata: &iceberg::spec::TableMetadata) -> Value {
    let mut value = serde_json::to_value(metadata).expect("json");
    let object = value.as_object_mut().expect("object");
    object.remove("last-updated-ms");
    if let Some(Value::Array(log)) = object.get_mut("snapshot-log") {
        for entry in log {
            entry.as_object_mut().map(|e| e.remove("timestamp-ms"));
        }
    }
    if let Some(Value::Array(snapshots)) = object.get_mut("snapshots") {
        snapshots.sort_by_key(|s| s["snapshot-id"].as_i64());
    }
    value
}

#[test]
fn every_write_replays_to_the_metadata_it_committed() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    let requirements = replayed(&mut table, |t| {
        Append::new(write(t, &[rides(0, 10)]))
            .commit(&w.catalog, t)
            .expect("append");
    });
    assert!(
        requirements.contains(&TableRequirement::RefSnapshotIdMatch {
            r#ref: "main".into(),
            snapshot_id: None
        })
    );
    let first = table.current_snapshot_id().expect("a snapshot");
    replayed(&mut table, |t| {
        Overwrite::new(write(t, &[rides(0, 5)]))
            .commit(&w.catalog, t)
            .expect("overwrite");
    });
    replayed(&mut table, |t| {
        Upsert::new("nyc.rides", &[rides(3, 5)], &["id".to_string()])
            .expect("keys")
            .commit(&w.catalog, t)
            .expect("upsert");
    });

    // The staged publish: a branch, a snapshot on it, main moved to it, a fence tag.
    let base = table.current_snapshot_id().expect("head");
    replayed(&mut table, |t| {
        create_branch(&w.catalog, t, "ldp_r1_a1_0", base, "ldp_fence_r1_a1").expect("branch");
    });
    let mut staged = table.clone().on_branch("ldp_r1_a1_0");
    replayed(&mut staged, |t| {
        Append::new(write(t, &[rides(100, 3)]))
            .commit(&w.catalog, t)
            .expect("append to the branch");
    });
    table.refresh(&w.catalog).expect("refresh");
    let publish = Publish {
        branch: "ldp_r1_a1_0",
        base,
        staged: staged.current_snapshot_id().expect("staged"),
        schema_id: table.metadata().current_schema_id(),
        fence_tag: "ldp_fence_r1_a2",
    };
    replayed(&mut table, |t| {
        publish_branch(&w.catalog, t, &publish).expect("publish")
    });
    replayed(&mut table, |t| {
        fence(&w.catalog, t, &[], &["ldp_fence_r1_a3".to_string()]).expect("fence")
    });
    replayed(&mut table, |t| {
        ldp_table::refs::create_tag(&w.catalog, t, "ldp_ds_rides_v1", first).expect("tag")
    });

    // Expiry removes snapshots; a pointer-swap catalog also unlinks them from their children,
    // which the updates cannot say, so only the snapshots are compared.
    let base = table.metadata().clone();
    let base_location = table.metadata_location().to_string();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let options = ExpireOptions {
        older_than_days: 0.0,
        retain_last: 1,
        apply: true,
    };
    let report = expire_snapshots(&w.catalog, &mut table, &options, now + 1000).expect("expire");
    assert!(!report.expired_snapshot_ids.is_empty(), "{report:?}");
    let commit = table.last_commit().expect("expiry committed");
    let replay = commit.apply(&base, &base_location).expect("replays");
    let ids = |m: &iceberg::spec::TableMetadata| {
        let mut ids: Vec<i64> = m.snapshots().map(|s| s.snapshot_id()).collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(&replay), ids(table.metadata()));
}

/// A requirement the table no longer meets fails the replay, as a REST server refuses it.
#[test]
fn a_stale_commit_does_not_replay() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    Append::new(write(&table, &[rides(0, 2)]))
        .commit(&w.catalog, &mut table)
        .expect("first");
    let base = table.metadata().clone();
    let base_location = table.metadata_location().to_string();
    Append::new(write(&table, &[rides(10, 2)]))
        .commit(&w.catalog, &mut table)
        .expect("second");
    let commit = table.last_commit().expect("commit").clone();
    commit
        .apply(&base, &base_location)
        .expect("replays on its base");
    // Replayed again on the table it made, `main` is no longer where the commit requires.
    let error = commit
        .apply(table.metadata(), table.metadata_location())
        .expect_err("stale");
    assert!(error.to_string().contains("main"), "{error}");
}
