//! Helpers the test modules share.

use std::collections::BTreeMap;

use iceberg::spec::{NestedField, PrimitiveType, Schema, Type};
use ldp_catalog_rest::{CreateTable, LoadedTable, RestCatalog};

/// `id long not null, name string`.
pub fn schema() -> Schema {
    Schema::builder()
        .with_fields(vec![
            NestedField::required(1, "id", Type::Primitive(PrimitiveType::Long)).into(),
            NestedField::optional(2, "name", Type::Primitive(PrimitiveType::String)).into(),
        ])
        .build()
        .expect("a valid schema")
}

/// Creates namespace `ns` and table `ns.name` with [`schema`].
pub fn table(catalog: &RestCatalog, ns: &str, name: &str) -> LoadedTable {
    if !catalog.namespace_exists(ns).expect("namespace lookup") {
        catalog
            .create_namespace(ns, &BTreeMap::new())
            .expect("create namespace");
    }
    catalog
        .create_table(ns, name, &CreateTable::new(schema()))
        .unwrap_or_else(|error| panic!("{error}"))
}

/// `file://...` (or a bare path) as a path.
pub fn local_path(location: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(location.strip_prefix("file://").unwrap_or(location))
}
