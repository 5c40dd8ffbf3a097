//! Commits of metadata-only updates, and the errors of a stale requirement and a missing table.
//! (Snapshots, with real data files, are in `pyiceberg`.)

use std::collections::HashMap;

use iceberg::spec::{NestedField, PrimitiveType, Schema, Type};
use ldp_catalog_rest::{ErrorKind, TableRequirement, TableUpdate};

use crate::common::{local_path, table};
use crate::lossy_proxy::LossyProxy;
use crate::server::Clients as _;
use crate::server::Rustberg;

fn set_property(key: &str, value: &str) -> TableUpdate {
    TableUpdate::SetProperties {
        updates: HashMap::from([(key.to_string(), value.to_string())]),
    }
}

#[test]
fn a_commit_writes_new_metadata_and_answers_with_it() {
    let server = Rustberg::start();
    let catalog = server.catalog();
    let created = table(&catalog, "nyc", "rides");
    let requirements = [TableRequirement::UuidMatch {
        uuid: created.metadata.uuid(),
    }];
    let committed = catalog
        .commit_table(
            "nyc",
            "rides",
            &requirements,
            &[set_property("ldp.run", "1")],
        )
        .unwrap_or_else(|error| panic!("{error}"));
    assert_ne!(committed.metadata_location, created.metadata_location);
    assert!(local_path(&committed.metadata_location).is_file());
    assert_eq!(committed.metadata.properties()["ldp.run"], "1");

    let loaded = catalog.load_table("nyc", "rides").unwrap();
    assert_eq!(loaded.metadata_location, committed.metadata_location);
    assert_eq!(loaded.metadata.properties()["ldp.run"], "1");
}

#[test]
fn a_schema_change_is_committed_with_its_requirements() {
    let server = Rustberg::start();
    let catalog = server.catalog();
    let created = table(&catalog, "nyc", "rides");
    let current = created.metadata.current_schema();
    let mut fields: Vec<_> = current.as_struct().fields().to_vec();
    fields.push(NestedField::optional(3, "fare", Type::Primitive(PrimitiveType::Double)).into());
    let next = Schema::builder()
        .with_schema_id(current.schema_id() + 1)
        .with_fields(fields)
        .build()
        .unwrap();
    let requirements = [
        TableRequirement::CurrentSchemaIdMatch {
            current_schema_id: current.schema_id(),
        },
        TableRequirement::LastAssignedFieldIdMatch {
            last_assigned_field_id: created.metadata.last_column_id(),
        },
    ];
    let updates = [
        TableUpdate::AddSchema { schema: next },
        TableUpdate::SetCurrentSchema { schema_id: -1 },
    ];
    let committed = catalog
        .commit_table("nyc", "rides", &requirements, &updates)
        .unwrap_or_else(|error| panic!("{error}"));
    let schema = committed.metadata.current_schema();
    assert_eq!(schema.schema_id(), current.schema_id() + 1);
    assert!(schema.field_by_name("fare").is_some());
    assert_eq!(committed.metadata.last_column_id(), 3);

    // The same commit again: its requirements describe the table before the change.
    let error = catalog
        .commit_table("nyc", "rides", &requirements, &updates)
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conflict, "{error}");
    assert!(error.is_retryable());
    let message = error.to_string();
    assert!(message.starts_with("commit to Iceberg table nyc.rides lost a race in the Iceberg REST catalog 'lake' at http://127.0.0.1:"), "{message}");
    assert!(message.ends_with("reload the table and retry"), "{message}");
    // Nothing changed.
    let loaded = catalog.load_table("nyc", "rides").unwrap();
    assert_eq!(loaded.metadata_location, committed.metadata_location);
}

#[test]
fn a_stale_requirement_loses_to_the_writer_that_committed_first() {
    let server = Rustberg::start();
    let catalog = server.catalog();
    let created = table(&catalog, "nyc", "rides");
    // Two writers read the same metadata; each asserts the schema it read.
    let requirement = [TableRequirement::CurrentSchemaIdMatch {
        current_schema_id: created.metadata.current_schema_id(),
    }];
    let mut fields: Vec<_> = created
        .metadata
        .current_schema()
        .as_struct()
        .fields()
        .to_vec();
    fields.push(NestedField::optional(3, "tip", Type::Primitive(PrimitiveType::Double)).into());
    let wider = Schema::builder().with_fields(fields).build().unwrap();
    catalog
        .commit_table(
            "nyc",
            "rides",
            &requirement,
            &[
                TableUpdate::AddSchema { schema: wider },
                TableUpdate::SetCurrentSchema { schema_id: -1 },
            ],
        )
        .unwrap_or_else(|error| panic!("{error}"));
    let error = catalog
        .commit_table("nyc", "rides", &requirement, &[set_property("late", "yes")])
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conflict, "{error}");
    assert!(error.is_retryable());
    assert!(
        !catalog
            .load_table("nyc", "rides")
            .unwrap()
            .metadata
            .properties()
            .contains_key("late")
    );
}

#[test]
fn a_commit_to_a_missing_table_is_not_found() {
    let server = Rustberg::start();
    let catalog = server.catalog();
    table(&catalog, "nyc", "rides");
    let error = catalog
        .commit_table("nyc", "ghost", &[], &[set_property("a", "b")])
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound, "{error}");
    assert!(
        error
            .to_string()
            .starts_with("Iceberg table nyc.ghost does not exist"),
        "{error}"
    );
}

#[test]
fn racing_writers_each_commit_once_after_reloading() {
    // Four writers each add one column, asserting the last column id they loaded; a loser
    // reloads and tries again, as ldp's writers do after a lost compare-and-swap.
    const WRITERS: i32 = 4;
    let server = Rustberg::start();
    table(&server.catalog(), "nyc", "rides");
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..WRITERS)
            .map(|writer| {
                let catalog = server.catalog();
                scope.spawn(move || {
                    let mut conflicts = 0;
                    loop {
                        let loaded = catalog.load_table("nyc", "rides").unwrap();
                        let last = loaded.metadata.last_column_id();
                        let current = loaded.metadata.current_schema();
                        let mut fields: Vec<_> = current.as_struct().fields().to_vec();
                        fields.push(
                            NestedField::optional(
                                last + 1,
                                format!("w{writer}"),
                                Type::Primitive(PrimitiveType::Int),
                            )
                            .into(),
                        );
                        let schema = Schema::builder().with_fields(fields).build().unwrap();
                        let requirements = [TableRequirement::LastAssignedFieldIdMatch {
                            last_assigned_field_id: last,
                        }];
                        let updates = [
                            TableUpdate::AddSchema { schema },
                            TableUpdate::SetCurrentSchema { schema_id: -1 },
                        ];
                        match catalog.commit_table("nyc", "rides", &requirements, &updates) {
                            Ok(_) => return,
                            Err(error) if error.is_retryable() => conflicts += 1,
                            Err(error) => panic!("{error}"),
                        }
                        assert!(conflicts < 50, "writer {writer} never won");
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
    });
    let loaded = server.catalog().load_table("nyc", "rides").unwrap();
    assert_eq!(loaded.metadata.last_column_id(), 2 + WRITERS);
    let schema = loaded.metadata.current_schema();
    for writer in 0..WRITERS {
        assert!(
            schema.field_by_name(&format!("w{writer}")).is_some(),
            "{schema:?}"
        );
    }
}

/// Connects through a [`LossyProxy`] that loses the answers to the first `lose` commits.
fn through_lossy_proxy(
    server: &Rustberg,
    lose: usize,
) -> (ldp_catalog_rest::RestCatalog, LossyProxy) {
    let port = server.uri.rsplit(':').next().unwrap().parse().unwrap();
    let proxy = LossyProxy::start(port, lose);
    let mut settings = server.settings();
    settings.uri = proxy.uri.clone();
    let catalog = ldp_catalog_rest::RestCatalog::connect(settings).unwrap();
    (catalog, proxy)
}

#[test]
fn a_lost_commit_answer_is_resent_with_the_same_idempotency_key() {
    // rustberg's config has idempotency-key-lifetime: it applies a keyed commit once and
    // answers a resend with the first outcome.
    let server = Rustberg::start();
    let created = table(&server.catalog(), "nyc", "rides");
    let (catalog, proxy) = through_lossy_proxy(&server, 1);
    let requirements = [TableRequirement::CurrentSchemaIdMatch {
        current_schema_id: created.metadata.current_schema_id(),
    }];
    let committed = catalog
        .commit_table(
            "nyc",
            "rides",
            &requirements,
            &[set_property("ldp.run", "1")],
        )
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(committed.metadata.properties()["ldp.run"], "1");
    let keys = proxy.commit_keys.lock().unwrap().clone();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(!keys[0].is_empty() && keys[0] == keys[1], "{keys:?}");
    // Applied once: one metadata file after the first.
    let loaded = server.catalog().load_table("nyc", "rides").unwrap();
    assert_eq!(loaded.metadata_location, committed.metadata_location);
    assert_eq!(loaded.metadata.metadata_log().len(), 1);
}

#[test]
fn answers_lost_every_time_leave_the_commit_state_unknown() {
    let server = Rustberg::start();
    table(&server.catalog(), "nyc", "rides");
    let (catalog, proxy) = through_lossy_proxy(&server, usize::MAX);
    let error = catalog
        .commit_table("nyc", "rides", &[], &[set_property("ldp.run", "1")])
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::CommitStateUnknown, "{error}");
    assert!(!error.is_retryable());
    let message = error.to_string();
    assert!(message.starts_with(&format!("commit to Iceberg table nyc.rides in the Iceberg REST catalog 'lake' at {} has an unknown outcome", proxy.uri)), "{message}");
    assert!(
        message.ends_with("look for the commit's snapshot before retrying"),
        "{message}"
    );
    assert_eq!(proxy.commit_keys.lock().unwrap().len(), 3);
    // It was applied, once.
    let loaded = server.catalog().load_table("nyc", "rides").unwrap();
    assert_eq!(loaded.metadata.properties()["ldp.run"], "1");
    assert_eq!(loaded.metadata.metadata_log().len(), 1);
}
