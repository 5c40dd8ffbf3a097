//! The two catalog tables, exactly as pyiceberg 0.12's `SqlCatalog` creates them (SQLAlchemy's
//! DDL text, byte for byte, so `sqlite_master` is identical), and detection of an existing
//! catalog's schema version.
//!
//! pyiceberg 0.12 creates the *v1* schema, which is Iceberg's `JdbcCatalog` V1 schema: it has an
//! `iceberg_type` column (`TABLE`, or `VIEW` for views other engines write; NULL on rows from
//! older writers). Catalogs made by older pyiceberg or by `JdbcCatalog` in its default V0 mode lack
//! the column; like pyiceberg, this crate uses them as they are and never migrates them.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};
use std::path::Path;

use crate::error::{Error, Result};

/// `iceberg_tables`, as pyiceberg 0.12 creates it (plus `IF NOT EXISTS`, which SQLite drops from
/// the text it keeps in `sqlite_master`).
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
    /// Neither table exists: only for a file opened read-only, which then reads as an empty
    /// catalog (pyiceberg would have created the tables).
    Empty,
}

impl SchemaVersion {
    /// The SQL condition that keeps table rows (and skips views) on a v1 schema, like pyiceberg:
    /// `iceberg_type = 'TABLE' OR iceberg_type IS NULL`. `TRUE` on v0.
    pub(crate) fn table_filter(self) -> &'static str {
        match self {
            SchemaVersion::V1 => "(iceberg_type = 'TABLE' OR iceberg_type IS NULL)",
            SchemaVersion::V0 | SchemaVersion::Empty => "1",
        }
    }
}

struct Found {
    tables: bool,
    properties: bool,
}

fn find(conn: &Connection, file: &Path) -> Result<Found> {
    let exists = |name: &str| -> Result<bool> {
        conn.query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [name],
            |_| Ok(()),
        )
        .optional()
        .map(|row| row.is_some())
        .map_err(|e| Error::sqlite(file, "reading the catalog's schema", e))
    };
    Ok(Found {
        tables: exists("iceberg_tables")?,
        properties: exists("iceberg_namespace_properties")?,
    })
}

fn version(conn: &Connection, file: &Path) -> Result<SchemaVersion> {
    let has_type = conn
        .query_row(
            "SELECT 1 FROM pragma_table_info('iceberg_tables') WHERE name = 'iceberg_type'",
            [],
            |_| Ok(()),
        )
        .optional()
        .map_err(|e| Error::sqlite(file, "reading the columns of iceberg_tables", e))?
        .is_some();
    Ok(if has_type {
        SchemaVersion::V1
    } else {
        SchemaVersion::V0
    })
}

/// Reads the schema of a catalog opened read-only; both tables or neither must exist.
pub(crate) fn detect(conn: &Connection, file: &Path) -> Result<SchemaVersion> {
    match find(conn, file)? {
        Found {
            tables: true,
            properties: true,
        } => version(conn, file),
        Found {
            tables: false,
            properties: false,
        } => Ok(SchemaVersion::Empty),
        Found { tables, .. } => Err(Error::Corrupt {
            file: file.to_path_buf(),
            reason: format!(
                "it has table {} but not {}",
                if tables {
                    "iceberg_tables"
                } else {
                    "iceberg_namespace_properties"
                },
                if tables {
                    "iceberg_namespace_properties"
                } else {
                    "iceberg_tables"
                }
            ),
        }),
    }
}

/// Creates whichever catalog table is missing (in one immediate transaction, so two processes
/// opening a new file at once cannot trip on each other), then reads the schema version.
pub(crate) fn ensure(conn: &Connection, file: &Path) -> Result<SchemaVersion> {
    let found = find(conn, file)?;
    if !(found.tables && found.properties) {
        let create = || -> rusqlite::Result<()> {
            let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
            tx.execute_batch(ICEBERG_TABLES_DDL)?;
            tx.execute_batch(NAMESPACE_PROPERTIES_DDL)?;
            tx.commit()
        };
        create().map_err(|e| Error::sqlite(file, "creating the catalog tables", e))?;
    }
    version(conn, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_v1_and_is_idempotent() {
        let conn = Connection::open_in_memory().unwrap();
        let f = Path::new(":memory:");
        assert_eq!(detect(&conn, f).unwrap(), SchemaVersion::Empty);
        assert_eq!(ensure(&conn, f).unwrap(), SchemaVersion::V1);
        assert_eq!(ensure(&conn, f).unwrap(), SchemaVersion::V1);
        assert_eq!(detect(&conn, f).unwrap(), SchemaVersion::V1);
    }

    #[test]
    fn half_a_catalog_is_corrupt_when_read_only() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(NAMESPACE_PROPERTIES_DDL).unwrap();
        let e = detect(&conn, Path::new("x.db")).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Corrupt);
        assert!(e.to_string().contains("not iceberg_tables"), "{e}");
    }
}
