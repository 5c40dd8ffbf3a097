//! Helpers shared by the tests.

use ldp_catalog::{Catalog, Mode};
use std::path::PathBuf;

/// A fresh catalog file in a temporary folder (kept alive by the returned guard).
pub fn new_catalog(name: &str) -> (tempfile::TempDir, PathBuf, Catalog) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = ldp_catalog::catalog_file(&dir.path().join("warehouse"), name);
    let catalog = Catalog::open(&file, name, Mode::Create).expect("create catalog");
    (dir, file, catalog)
}

/// The rows of `iceberg_tables`, as pyiceberg would see them.
pub fn table_rows(file: &std::path::Path) -> Vec<[Option<String>; 6]> {
    let conn = rusqlite::Connection::open(file).expect("open");
    let mut stmt = conn
        .prepare(
            "SELECT catalog_name, table_namespace, table_name, metadata_location, \
             previous_metadata_location, iceberg_type FROM iceberg_tables \
             ORDER BY catalog_name, table_namespace, table_name",
        )
        .expect("prepare");
    stmt.query_map([], |r| {
        Ok([
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
        ])
    })
    .expect("query")
    .collect::<Result<_, _>>()
    .expect("rows")
}

/// The rows of `iceberg_namespace_properties`.
pub fn property_rows(file: &std::path::Path) -> Vec<[String; 4]> {
    let conn = rusqlite::Connection::open(file).expect("open");
    let mut stmt = conn
        .prepare(
            "SELECT catalog_name, namespace, property_key, property_value \
             FROM iceberg_namespace_properties ORDER BY 1, 2, 3",
        )
        .expect("prepare");
    stmt.query_map([], |r| Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?]))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}
