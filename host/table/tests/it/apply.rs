//! The pointer-swap commit (`apply_commit`) and creating a table from an Iceberg table creation
//! (`create_table`): requirements, every kind of update, conflicts, and nothing left behind.

use std::collections::HashMap;
use std::path::Path;

use iceberg::spec::{FormatVersion, Schema, UnboundPartitionSpec};
use ldp_catalog::Mode;
use ldp_table::{
    Append, ErrorKind, Table, TableCreation, TableRequirement, TableUpdate, apply_commit,
    create_table,
};
use serde_json::json;

use crate::common::{CATALOG, Warehouse, files_under, rides, write};

fn update(value: serde_json::Value) -> TableUpdate {
    serde_json::from_value(value).expect("an update in the REST shape")
}

fn requirement(value: serde_json::Value) -> TableRequirement {
    serde_json::from_value(value).expect("a requirement in the REST shape")
}

fn schema() -> Schema {
    serde_json::from_value(json!({
        "type": "struct", "schema-id": 0,
        "fields": [
            {"id": 1, "name": "id", "required": true, "type": "long"},
            {"id": 2, "name": "day", "required": false, "type": "date"},
        ]
    }))
    .expect("schema")
}

fn metadata_files(table: &Table) -> usize {
    let dir = table.location().trim_start_matches("file://");
    files_under(Path::new(dir))
        .iter()
        .filter(|f| f.to_string_lossy().ends_with(".metadata.json"))
        .count()
}

/// A table with two appended snapshots.
fn two_snapshots(w: &Warehouse) -> (Table, i64, i64) {
    let mut table = w.create("rides");
    let first = Append::new(write(&table, &[rides(0, 3)]))
        .commit(&w.catalog, &mut table)
        .unwrap();
    let second = Append::new(write(&table, &[rides(3, 3)]))
        .commit(&w.catalog, &mut table)
        .unwrap();
    (table, first.snapshot_id, second.snapshot_id)
}

#[test]
fn a_creation_makes_a_table_at_the_default_location() {
    let w = Warehouse::new();
    w.catalog.create_namespace_if_missing(CATALOG).unwrap();
    let spec: UnboundPartitionSpec = serde_json::from_value(json!({
        "fields": [{"source-id": 2, "name": "day_day", "transform": "day"}]
    }))
    .unwrap();
    let creation = TableCreation::builder()
        .name("events".to_string())
        .schema(schema())
        .partition_spec(spec)
        .properties(HashMap::from([
            ("owner".to_string(), "ann".to_string()),
            ("format-version".to_string(), "1".to_string()),
        ]))
        .build();
    let warehouse = w.root().display().to_string();
    let table = create_table(&w.catalog, CATALOG, creation, &warehouse).unwrap();
    assert_eq!(
        table.location(),
        format!("file://{}", w.location("events").display())
    );
    assert!(table.metadata_location().contains("/metadata/00000-"));
    assert_eq!(table.metadata().format_version(), FormatVersion::V1);
    let properties = table.metadata().properties();
    assert_eq!(properties.get("owner").map(String::as_str), Some("ann"));
    assert!(!properties.contains_key("format-version"));
    assert_eq!(table.partition_columns(), [("day".into(), "day".into())]);
    let loaded = Table::load(&w.catalog, CATALOG, "events").unwrap();
    assert_eq!(loaded.metadata_location(), table.metadata_location());
    assert_eq!(loaded.schema().as_struct(), table.schema().as_struct());

    // The format version is upgraded by a commit.
    let upgraded = apply_commit(
        &w.catalog,
        CATALOG,
        "events",
        &[],
        vec![update(
            json!({"action": "upgrade-format-version", "format-version": 2}),
        )],
    )
    .unwrap();
    assert_eq!(upgraded.metadata().format_version(), FormatVersion::V2);
    let downgrade = vec![update(
        json!({"action": "upgrade-format-version", "format-version": 1}),
    )];
    let e = apply_commit(&w.catalog, CATALOG, "events", &[], downgrade).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest, "{e}");

    // Again: the table exists; nothing more is written.
    let again = TableCreation::builder()
        .name("events".to_string())
        .schema(schema())
        .build();
    let e = create_table(&w.catalog, CATALOG, again, &warehouse).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists);
    assert_eq!(metadata_files(&table), 2);
}

#[test]
fn a_creation_needs_the_namespace_and_a_usable_request() {
    let w = Warehouse::new();
    let warehouse = w.root().display().to_string();
    let creation = || {
        TableCreation::builder()
            .name("t".to_string())
            .schema(schema())
            .build()
    };
    let e = create_table(&w.catalog, "nope", creation(), &warehouse).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    w.catalog.create_namespace_if_missing(CATALOG).unwrap();
    let bad_version = TableCreation {
        properties: HashMap::from([("format-version".to_string(), "9".to_string())]),
        ..creation()
    };
    let e = create_table(&w.catalog, CATALOG, bad_version, &warehouse).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest, "{e}");
    let relative = TableCreation {
        location: Some("relative/t".to_string()),
        ..creation()
    };
    let e = create_table(&w.catalog, CATALOG, relative, &warehouse).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(
        files_under(&w.root())
            .iter()
            .all(|f| f.ends_with("nyc_catalog.db"))
    );
    let elsewhere = w.dir.path().join("elsewhere");
    let placed = TableCreation {
        location: Some(elsewhere.display().to_string()),
        ..creation()
    };
    let table = create_table(&w.catalog, CATALOG, placed, &warehouse).unwrap();
    assert_eq!(table.location(), format!("file://{}", elsewhere.display()));
}

#[test]
fn properties_refs_and_snapshots_are_committed_by_pointer_swap() {
    let w = Warehouse::new();
    let (table, first, second) = two_snapshots(&w);
    let main_is = |id: i64| {
        requirement(json!({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": id}))
    };

    let set = apply_commit(
        &w.catalog,
        CATALOG,
        "rides",
        &[main_is(second)],
        vec![
            update(json!({"action": "set-properties", "updates": {"a": "1", "b": "2"}})),
            update(json!({"action": "remove-properties", "removals": ["b"]})),
            update(json!({"action": "set-snapshot-ref", "ref-name": "v1", "type": "tag", "snapshot-id": first})),
        ],
    )
    .unwrap();
    assert!(
        set.metadata_location().contains("/metadata/00003-"),
        "{}",
        set.metadata_location()
    );
    let loaded = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(loaded.metadata_location(), set.metadata_location());
    assert_eq!(
        loaded.metadata().properties().get("a").map(String::as_str),
        Some("1")
    );
    assert!(!loaded.metadata().properties().contains_key("b"));
    assert_eq!(loaded.ref_snapshot_id("v1"), Some(first));
    assert_eq!(
        loaded
            .metadata()
            .metadata_log()
            .last()
            .map(|l| l.metadata_file.as_str()),
        Some(table.metadata_location())
    );

    // The tag goes, then the first snapshot: main keeps the second one and its rows.
    apply_commit(
        &w.catalog,
        CATALOG,
        "rides",
        &[],
        vec![
            update(json!({"action": "remove-snapshot-ref", "ref-name": "v1"})),
            update(json!({"action": "remove-snapshots", "snapshot-ids": [first]})),
        ],
    )
    .unwrap();
    let loaded = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(loaded.snapshots().len(), 1);
    assert_eq!(loaded.current_snapshot_id(), Some(second));
    assert_eq!(loaded.ref_snapshot_id("v1"), None);
    let rows: usize = loaded
        .read_all(None)
        .unwrap()
        .iter()
        .map(|b| b.num_rows())
        .sum();
    assert_eq!(rows, 6);

    // No update writes nothing (requirements are still checked).
    let before = metadata_files(&loaded);
    let same = apply_commit(&w.catalog, CATALOG, "rides", &[main_is(second)], vec![]).unwrap();
    assert_eq!(same.metadata_location(), loaded.metadata_location());
    assert_eq!(metadata_files(&loaded), before);
}

#[test]
fn schemas_specs_uuid_and_location_are_committed() {
    let w = Warehouse::new();
    let (table, _, _) = two_snapshots(&w);
    let mut fields = serde_json::to_value(table.schema().as_ref()).unwrap();
    let last_id = table.metadata().last_column_id();
    fields["fields"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": last_id + 1, "name": "note", "required": false, "type": "string"}));
    fields["schema-id"] = json!(1);
    let uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
    let moved = w.dir.path().join("moved");
    let committed = apply_commit(
        &w.catalog,
        CATALOG,
        "rides",
        &[
            requirement(json!({"type": "assert-current-schema-id", "current-schema-id": 0})),
            requirement(json!({"type": "assert-last-assigned-field-id", "last-assigned-field-id": last_id})),
            requirement(json!({"type": "assert-table-uuid", "uuid": table.metadata().uuid()})),
        ],
        vec![
            update(json!({"action": "add-schema", "schema": fields, "last-column-id": last_id + 1})),
            update(json!({"action": "set-current-schema", "schema-id": -1})),
            update(json!({"action": "add-spec", "spec": {"fields": [{"source-id": 1, "name": "id_bucket", "transform": "bucket[4]"}]}})),
            update(json!({"action": "set-default-spec", "spec-id": -1})),
            update(json!({"action": "assign-uuid", "uuid": uuid})),
            update(json!({"action": "set-location", "location": format!("file://{}", moved.display())})),
        ],
    )
    .unwrap();
    assert!(
        committed
            .metadata_location()
            .starts_with(&format!("file://{}/metadata/00003-", moved.display()))
    );
    let loaded = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(loaded.schema().schema_id(), 1);
    assert!(loaded.schema().field_by_name("note").is_some());
    assert_eq!(loaded.metadata().uuid().to_string(), uuid);
    assert_eq!(
        loaded.partition_columns(),
        [("id".into(), "bucket[4]".into())]
    );
    // Old rows read through the new schema (the new column is null).
    let rows: usize = loaded
        .read_all(None)
        .unwrap()
        .iter()
        .map(|b| b.num_rows())
        .sum();
    assert_eq!(rows, 6);
}

#[test]
fn a_failed_requirement_or_update_changes_nothing_and_leaves_no_file() {
    let w = Warehouse::new();
    let (table, first, _) = two_snapshots(&w);
    let files = files_under(&w.root());

    let stale = apply_commit(
        &w.catalog,
        CATALOG,
        "rides",
        &[requirement(
            json!({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": first}),
        )],
        vec![update(
            json!({"action": "set-properties", "updates": {"a": "1"}}),
        )],
    )
    .unwrap_err();
    assert_eq!(stale.kind(), ErrorKind::CommitConflict);
    assert!(stale.is_retryable());
    assert!(stale.to_string().contains("main"), "{stale}");

    let created = apply_commit(
        &w.catalog,
        CATALOG,
        "rides",
        &[requirement(json!({"type": "assert-create"}))],
        vec![],
    )
    .unwrap_err();
    assert_eq!(created.kind(), ErrorKind::CommitConflict);

    let invalid = apply_commit(
        &w.catalog,
        CATALOG,
        "rides",
        &[],
        vec![update(
            json!({"action": "set-current-schema", "schema-id": 99}),
        )],
    )
    .unwrap_err();
    assert_eq!(invalid.kind(), ErrorKind::InvalidRequest, "{invalid}");
    assert!(!invalid.is_retryable());

    let missing = apply_commit(&w.catalog, CATALOG, "nope", &[], vec![]).unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound);

    assert_eq!(files_under(&w.root()), files);
    let loaded = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(loaded.metadata_location(), table.metadata_location());
}

/// Eight threads set one property each, retrying lost swaps: every property lands, and every
/// metadata file written by a loser is gone.
#[test]
fn racing_commits_lose_nothing() {
    let w = Warehouse::new();
    let table = w.create("rides");
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let catalog = w.open(Mode::ReadWrite);
            std::thread::spawn(move || {
                let mut conflicts = 0;
                loop {
                    let updates = vec![update(json!({
                        "action": "set-properties", "updates": {format!("k{i}"): "v"}
                    }))];
                    match apply_commit(&catalog, CATALOG, "rides", &[], updates) {
                        Ok(_) => return conflicts,
                        Err(e) if e.is_retryable() => conflicts += 1,
                        Err(e) => panic!("{e}"),
                    }
                }
            })
        })
        .collect();
    let conflicts: u32 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    let loaded = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    for i in 0..8 {
        assert!(
            loaded
                .metadata()
                .properties()
                .contains_key(&format!("k{i}"))
        );
    }
    // One file per successful commit, plus the first.
    assert_eq!(metadata_files(&table), 9, "{conflicts} conflicts");
}

/// A staged create writes nothing; the commit with `assert-create` creates the table from its
/// updates, once.
#[test]
fn a_staged_create_is_completed_by_its_commit() {
    let w = Warehouse::new();
    w.catalog.create_namespace_if_missing(CATALOG).unwrap();
    let warehouse = w.root().display().to_string();
    let creation = TableCreation::builder()
        .name("staged".to_string())
        .schema(schema())
        .build();
    let staged = ldp_table::stage_table(&w.catalog, CATALOG, creation, &warehouse).unwrap();
    assert!(!w.catalog.table_exists(CATALOG, "staged").unwrap());
    assert!(
        files_under(&w.root())
            .iter()
            .all(|f| f.ends_with("nyc_catalog.db"))
    );

    let json = ldp_table::metadata_to_json("nyc.staged", &staged).unwrap();
    let updates = || {
        vec![
            update(json!({"action": "assign-uuid", "uuid": staged.uuid()})),
            update(json!({"action": "upgrade-format-version", "format-version": 2})),
            update(json!({"action": "add-schema", "schema": json["schemas"][0]})),
            update(json!({"action": "set-current-schema", "schema-id": -1})),
            update(json!({"action": "add-spec", "spec": {"spec-id": 0, "fields": []}})),
            update(json!({"action": "set-default-spec", "spec-id": -1})),
            update(
                json!({"action": "add-sort-order", "sort-order": {"order-id": 0, "fields": []}}),
            ),
            update(json!({"action": "set-default-sort-order", "sort-order-id": -1})),
            update(json!({"action": "set-location", "location": staged.location()})),
            update(json!({"action": "set-properties", "updates": {"made": "staged"}})),
        ]
    };
    let create = [requirement(json!({"type": "assert-create"}))];
    let table = ldp_table::create_from_updates(
        &w.catalog,
        CATALOG,
        "staged",
        &create,
        updates(),
        &warehouse,
    )
    .unwrap();
    assert_eq!(table.metadata().uuid(), staged.uuid());
    assert_eq!(table.location(), staged.location());
    assert_eq!(
        table.schema().as_struct(),
        staged.current_schema().as_struct()
    );
    let loaded = Table::load(&w.catalog, CATALOG, "staged").unwrap();
    assert_eq!(
        loaded
            .metadata()
            .properties()
            .get("made")
            .map(String::as_str),
        Some("staged")
    );

    let again = ldp_table::create_from_updates(
        &w.catalog,
        CATALOG,
        "staged",
        &create,
        updates(),
        &warehouse,
    )
    .unwrap_err();
    assert_eq!(again.kind(), ErrorKind::CommitConflict, "{again}");
    let uuid = [requirement(
        json!({"type": "assert-table-uuid", "uuid": staged.uuid()}),
    )];
    let missing =
        ldp_table::create_from_updates(&w.catalog, CATALOG, "other", &uuid, updates(), &warehouse)
            .unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound, "{missing}");
    let no_schema =
        ldp_table::create_from_updates(&w.catalog, CATALOG, "other", &create, vec![], &warehouse)
            .unwrap_err();
    assert_eq!(no_schema.kind(), ErrorKind::InvalidRequest, "{no_schema}");
    assert_eq!(metadata_files(&loaded), 1);
}
