//! The two catalog tables, exactly as pyiceberg 0.12's `SqlCatalog` creates them (SQLAlchemy's
//! DDL text, byte for byte, so SQLite's `sqlite_master` is identical; SQLAlchemy emits the same
//! text for PostgreSQL, which stores the columns as `character varying(N)` and names the primary
//! keys `<table>_pkey`), and detection of an existing catalog's schema version.
//!
//! pyiceberg 0.12 creates the *v1* schema, which is Iceberg's `JdbcCatalog` V1 schema: it has an
//! `iceberg_type` column (`TABLE`, or `VIEW` for views other engines write; NULL on rows from
//! older writers). Catalogs made by older pyiceberg or by `JdbcCatalog` in its default V0 mode lack
//! the column; like pyiceberg, this crate uses them as they are and never migrates them.

use std::path::Path;

use crate::backend::{Backend, Session};
use crate::error::{Error, Result};

/// `iceberg_tables`, as pyiceberg 0.12 creates it (plus `IF NOT EXISTS`, which SQLite drops from
/// the text it keeps in `sqlite_master`). Both engines take this text.
pub const ICEBERG_TABLES_DDL: &str = "CREATE TABLE IF NOT EXISTS iceberg_tables (\n\
     \tcatalog_name VARCHAR(255) NOT NULL, \n\
     \ttable_namespace VARCHAR(255) NOT NULL, \n\
     \ttable_name VARCHAR(255) NOT NULL, \n\
     \tmetadata_location VARCHAR(1000), \n\
     \tprevious_metadata_location VARCHAR(1000), \n\
     \ticeberg_type VARCHAR(5), \n\
     \tPRIMARY KEY (catalog_name, table_namespace, table_name)\n)";

/// `iceberg_namespace_properties`, as pyiceberg 0.12 creates it.
pub const NAMESPACE_PROPERTIES_DDL: &str = "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties (\n\
     \tcatalog_name VARCHAR(255) NOT NULL, \n\
     \tnamespace VARCHAR(255) NOT NULL, \n\
     \tproperty_key VARCHAR(255) NOT NULL, \n\
     \tproperty_value VARCHAR(1000) NOT NULL, \n\
     \tPRIMARY KEY (catalog_name, namespace, property_key)\n)";

/// The value pyiceberg and `JdbcCatalog` V1 write in `iceberg_type` for a table.
pub const ICEBERG_TYPE_TABLE: &str = "TABLE";

/// Which layout an opened catalog file has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaVersion {
    /// No `iceberg_type` column (older pyiceberg; `JdbcCatalog` V0).
    V0,
    /// With `iceberg_type` (pyiceberg 0.12, `JdbcCatalog` V1); rows this crate writes get `TABLE`.
    V1,
    /// Neither table exists: only for a catalog opened read-only, which then reads as an empty
    /// catalog (pyiceberg would have created the tables).
    Empty,
}

impl SchemaVersion {
    /// The SQL condition that keeps table rows (and skips views) on a v1 schema, like pyiceberg:
    /// `iceberg_type = 'TABLE' OR iceberg_type IS NULL`. `TRUE` on v0 (a boolean, as PostgreSQL
    /// wants after `AND`; SQLite reads it as 1).
    pub(crate) fn table_filter(self) -> &'static str {
        match self {
            SchemaVersion::V1 => "(iceberg_type = 'TABLE' OR iceberg_type IS NULL)",
            SchemaVersion::V0 | SchemaVersion::Empty => "TRUE",
        }
    }
}

struct Found {
    tables: bool,
    properties: bool,
}

fn find(backend: &Backend, file: &Path) -> Result<Found> {
    backend
        .read(|s: &mut dyn Session| {
            Ok(Found {
                tables: s.has_table("iceberg_tables")?,
                properties: s.has_table("iceberg_namespace_properties")?,
            })
        })
        .map_err(|e| Error::db(file, "reading the catalog's schema", e))
}

/// pyiceberg's probe: the `iceberg_type` column makes a v1 schema.
fn version(backend: &Backend, file: &Path) -> Result<SchemaVersion> {
    let has_type = backend
        .read(|s: &mut dyn Session| s.has_column("iceberg_tables", "iceberg_type"))
        .map_err(|e| Error::db(file, "reading the columns of iceberg_tables", e))?;
    Ok(if has_type {
        SchemaVersion::V1
    } else {
        SchemaVersion::V0
    })
}

/// Reads the schema of a catalog opened read-only; both tables or neither must exist.
pub(crate) fn detect(backend: &Backend, file: &Path) -> Result<SchemaVersion> {
    match find(backend, file)? {
        Found {
            tables: true,
            properties: true,
        } => version(backend, file),
        Found {
            tables: false,
            properties: false,
        } => Ok(SchemaVersion::Empty),
        Found { tables, .. } => {
            let (has, lacks) = if tables {
                ("iceberg_tables", "iceberg_namespace_properties")
            } else {
                ("iceberg_namespace_properties", "iceberg_tables")
            };
            Err(Error::Corrupt {
                file: file.to_path_buf(),
                reason: format!("it has table {has} but not {lacks}"),
            })
        }
    }
}

/// Creates whichever catalog table is missing (under the engine's lock, so two processes opening
/// a new catalog at once cannot trip on each other), then reads the schema version. When the
/// creation fails but both tables exist afterwards, another writer created them: that is fine.
pub(crate) fn ensure(backend: &Backend, file: &Path) -> Result<SchemaVersion> {
    let found = find(backend, file)?;
    if !(found.tables && found.properties)
        && let Err(e) = backend.create_tables()
    {
        let now = find(backend, file)?;
        if !(now.tables && now.properties) {
            return Err(Error::db(file, "creating the catalog tables", e));
        }
    }
    version(backend, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_memory() -> Backend {
        Backend::Sqlite(rusqlite::Connection::open_in_memory().unwrap())
    }

    #[test]
    fn creates_v1_and_is_idempotent() {
        let db = in_memory();
        let f = Path::new(":memory:");
        assert_eq!(detect(&db, f).unwrap(), SchemaVersion::Empty);
        assert_eq!(ensure(&db, f).unwrap(), SchemaVersion::V1);
        assert_eq!(ensure(&db, f).unwrap(), SchemaVersion::V1);
        assert_eq!(detect(&db, f).unwrap(), SchemaVersion::V1);
    }

    #[test]
    fn half_a_catalog_is_corrupt_when_read_only() {
        let db = in_memory();
        db.read(|s| s.execute(NAMESPACE_PROPERTIES_DDL, &[]))
            .unwrap();
        let e = detect(&db, Path::new("x.db")).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Corrupt);
        assert!(e.to_string().contains("not iceberg_tables"), "{e}");
    }
}
