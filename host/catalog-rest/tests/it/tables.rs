//! Tables: create, load, list, exists, drop, rename, and the errors of unknown and existing ones.

use std::collections::BTreeMap;

use iceberg::spec::{Transform, UnboundPartitionSpec};
use ldp_catalog_rest::{CreateTable, ErrorKind};

use crate::common::{local_path, schema, table};
use crate::server::Clients as _;
use crate::server::Rustberg;

#[test]
fn create_then_load_a_table() {
    let server = Rustberg::start();
    let catalog = server.catalog();
    catalog.create_namespace("nyc", &BTreeMap::new()).unwrap();
    let mut create = CreateTable::new(schema());
    create.properties.insert("ldp.owner".into(), "ops".into());
    create.partition_spec = Some(
        UnboundPartitionSpec::builder()
            .add_partition_field(1, "id_bucket", Transform::Bucket(4))
            .unwrap()
            .build(),
    );
    let created = catalog.create_table("nyc", "rides", &create).unwrap();
    // The catalog wrote the first metadata file, in the warehouse.
    assert!(
        local_path(&created.metadata_location).is_file(),
        "{}",
        created.metadata_location
    );
    assert!(
        created.metadata.location().contains("nyc"),
        "{}",
        created.metadata.location()
    );

    let loaded = catalog.load_table("nyc", "rides").unwrap();
    assert_eq!(loaded.metadata_location, created.metadata_location);
    assert_eq!(loaded.metadata.uuid(), created.metadata.uuid());
    assert_eq!(
        loaded
            .metadata
            .properties()
            .get("ldp.owner")
            .map(String::as_str),
        Some("ops")
    );
    let fields: Vec<&str> = loaded
        .metadata
        .current_schema()
        .as_struct()
        .fields()
        .iter()
        .map(|field| field.name.as_str())
        .collect();
    assert_eq!(fields, ["id", "name"]);
    let spec = loaded.metadata.default_partition_spec();
    assert_eq!(spec.fields().len(), 1);
    assert_eq!(spec.fields()[0].transform, Transform::Bucket(4));
    assert!(loaded.metadata.current_snapshot().is_none());
}

#[test]
fn list_look_up_rename_and_drop() {
    let server = Rustberg::start();
    let catalog = server.catalog();
    table(&catalog, "nyc", "rides");
    table(&catalog, "nyc", "fares");
    assert_eq!(catalog.list_tables("nyc").unwrap(), ["fares", "rides"]);
    assert!(catalog.table_exists("nyc", "rides").unwrap());
    assert!(!catalog.table_exists("nyc", "trips").unwrap());

    catalog
        .rename_table("nyc", "rides", "nyc", "trips")
        .unwrap();
    assert_eq!(catalog.list_tables("nyc").unwrap(), ["fares", "trips"]);

    catalog.drop_table("nyc", "fares").unwrap();
    assert_eq!(catalog.list_tables("nyc").unwrap(), ["trips"]);
    assert!(!catalog.table_exists("nyc", "fares").unwrap());
}

#[test]
fn an_unknown_table_is_not_found() {
    let server = Rustberg::start();
    let catalog = server.catalog();
    catalog.create_namespace("nyc", &BTreeMap::new()).unwrap();
    let error = catalog.load_table("nyc", "ghost").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound, "{error}");
    assert!(!error.is_retryable());
    let message = error.to_string();
    assert!(message.starts_with("Iceberg table nyc.ghost does not exist in the Iceberg REST catalog 'lake' at http://127.0.0.1:"), "{message}");

    let error = catalog.drop_table("nyc", "ghost").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound, "{error}");
    let error = catalog
        .rename_table("nyc", "ghost", "nyc", "spirit")
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound, "{error}");
}

#[test]
fn creating_an_existing_table_is_already_exists() {
    let server = Rustberg::start();
    let catalog = server.catalog();
    table(&catalog, "nyc", "rides");
    table(&catalog, "nyc", "fares");
    let error = catalog
        .create_table("nyc", "rides", &CreateTable::new(schema()))
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::AlreadyExists, "{error}");
    assert!(
        error
            .to_string()
            .starts_with("Iceberg table nyc.rides already exists"),
        "{error}"
    );

    let error = catalog
        .rename_table("nyc", "fares", "nyc", "rides")
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::AlreadyExists, "{error}");
    assert!(
        error
            .to_string()
            .starts_with("Iceberg table nyc.rides already exists"),
        "{error}"
    );
}

#[test]
fn a_table_in_a_missing_namespace_is_not_found() {
    let server = Rustberg::start();
    let error = server
        .catalog()
        .create_table("nowhere", "rides", &CreateTable::new(schema()))
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound, "{error}");
    assert!(
        error
            .to_string()
            .starts_with("namespace nowhere does not exist"),
        "{error}"
    );
}
