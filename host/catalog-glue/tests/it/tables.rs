//! Iceberg tables as Glue tables: create, load, list, drop, rename, and what the Glue record
//! holds.

use ldp_catalog_glue::{ErrorKind, TableDescriptor};
use serde_json::json;

use crate::moto::{OnMoto, boto, shared, unique};

const M0: &str = "file:///lake/t/metadata/00000-a.metadata.json";

#[test]
fn create_load_and_list() {
    let catalog = shared().catalog();
    let ns = unique("tables");
    catalog.create_namespace_if_missing(&ns).unwrap();
    catalog.create_table(&ns, "rides", M0).unwrap();

    let table = catalog.load_table(&ns, "rides").unwrap().unwrap();
    assert_eq!(table.metadata_location, M0);
    assert_eq!(table.previous_metadata_location, None);
    assert!(table.version_id.is_some(), "{table:?}");
    assert!(catalog.table_exists(&ns, "rides").unwrap());

    let again = catalog.create_table(&ns, "rides", M0).unwrap_err();
    assert_eq!(again.kind(), ErrorKind::AlreadyExists, "{again}");
    assert!(
        again.to_string().contains(&format!("{ns}.rides")),
        "{again}"
    );

    // A Glue table of another format is not listed, and loading it says what it is.
    boto(
        shared(),
        &format!(
            "glue.create_table(DatabaseName='{ns}', TableInput={{'Name': 'hive', \
             'TableType': 'EXTERNAL_TABLE', 'Parameters': {{'classification': 'csv'}}}})"
        ),
    );
    assert_eq!(catalog.list_tables(&ns).unwrap(), vec!["rides".to_string()]);
    let hive = catalog.load_table(&ns, "hive").unwrap_err();
    assert_eq!(hive.kind(), ErrorKind::NotIceberg, "{hive}");
    assert!(hive.to_string().contains("Glue catalog 'lake'"), "{hive}");
}

#[test]
fn unknown_tables_and_namespaces() {
    let catalog = shared().catalog();
    let ns = unique("unknown");
    catalog.create_namespace_if_missing(&ns).unwrap();
    assert_eq!(catalog.load_table(&ns, "nope").unwrap(), None);
    assert!(!catalog.table_exists(&ns, "nope").unwrap());
    assert_eq!(catalog.load_table(&unique("no_ns"), "nope").unwrap(), None);

    let commit = catalog.commit(&ns, "nope", M0, "x").unwrap_err();
    assert_eq!(commit.kind(), ErrorKind::NotFound, "{commit}");
    assert!(
        commit.to_string().contains(&format!("{ns}.nope")),
        "{commit}"
    );
    let drop = catalog.drop_table(&ns, "nope").unwrap_err();
    assert_eq!(drop.kind(), ErrorKind::NotFound, "{drop}");

    let no_ns = unique("no_ns");
    let create = catalog.create_table(&no_ns, "t", M0).unwrap_err();
    assert_eq!(create.kind(), ErrorKind::NotFound, "{create}");
    assert!(
        create
            .to_string()
            .contains(&format!("namespace (Glue database) {no_ns}")),
        "{create}"
    );
}

#[test]
fn the_glue_record_is_what_pyiceberg_writes() {
    let catalog = shared().catalog();
    let ns = unique("record");
    catalog.create_namespace_if_missing(&ns).unwrap();
    let metadata = json!({
        "location": "s3://lake/record/t",
        "current-schema-id": 0,
        "properties": {"write.format.default": "parquet"},
        "schemas": [{"schema-id": 0, "type": "struct", "fields": [
            {"id": 1, "name": "id", "required": true, "type": "long"},
            {"id": 2, "name": "at", "required": false, "type": "timestamptz", "doc": "when"}]}]
    });
    let descriptor = TableDescriptor::from_metadata(&metadata);
    catalog
        .create_table_with(&ns, "t", M0, &descriptor)
        .unwrap();
    catalog.commit(&ns, "t", M0, "file:///m1.json").unwrap();

    let glue = boto(
        shared(),
        &format!("result = glue.get_table(DatabaseName='{ns}', Name='t')['Table']"),
    );
    assert_eq!(glue["TableType"], "EXTERNAL_TABLE");
    assert_eq!(
        glue["Parameters"],
        json!({
            "write.format.default": "parquet",
            "table_type": "ICEBERG",
            "metadata_location": "file:///m1.json",
            "previous_metadata_location": M0,
        })
    );
    // A plain commit keeps the columns and the location.
    assert_eq!(glue["StorageDescriptor"]["Location"], "s3://lake/record/t");
    assert_eq!(
        glue["StorageDescriptor"]["Columns"],
        json!([
            {"Name": "id", "Type": "bigint", "Parameters": {"iceberg.field.id": "1",
              "iceberg.field.optional": "false", "iceberg.field.current": "true"}},
            {"Name": "at", "Type": "timestamp", "Comment": "when", "Parameters": {
              "iceberg.field.id": "2", "iceberg.field.optional": "true",
              "iceberg.field.current": "true"}}
        ])
    );
}

#[test]
fn drop_and_rename() {
    let catalog = shared().catalog();
    let ns = unique("moves");
    let other = unique("moves_to");
    catalog.create_namespace_if_missing(&ns).unwrap();
    catalog.create_namespace_if_missing(&other).unwrap();
    catalog.create_table(&ns, "a", M0).unwrap();
    catalog.commit(&ns, "a", M0, "file:///m1.json").unwrap();

    catalog.rename_table(&ns, "a", &other, "b").unwrap();
    assert_eq!(catalog.load_table(&ns, "a").unwrap(), None);
    let moved = catalog.load_table(&other, "b").unwrap().unwrap();
    assert_eq!(moved.metadata_location, "file:///m1.json");
    assert_eq!(moved.previous_metadata_location.as_deref(), Some(M0));

    let dropped = catalog.drop_table(&other, "b").unwrap();
    assert_eq!(dropped.metadata_location, "file:///m1.json");
    assert!(catalog.list_tables(&other).unwrap().is_empty());
}
