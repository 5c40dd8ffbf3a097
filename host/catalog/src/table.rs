//! Table rows: create, load, commit (compare-and-swap), drop, rename.
//!
//! A row only points at the table's current metadata file; the metadata itself lives in the
//! warehouse and is written by the table layer before it commits here.

use rusqlite::{Connection, OptionalExtension, params};

use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::ident::{check_table, qualified};
use crate::schema::{ICEBERG_TYPE_TABLE, SchemaVersion};

/// A table's row in `iceberg_tables`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRecord {
    /// The current metadata file (`file:///…/metadata/00001-<uuid>.metadata.json`).
    pub metadata_location: String,
    /// The metadata file before the last commit; `None` for a table never committed to.
    pub previous_metadata_location: Option<String>,
}

impl Catalog {
    /// Registers a new table whose metadata file is `metadata_location`. The namespace must
    /// exist (pyiceberg's rule; see [`Catalog::create_namespace_if_missing`]); a table of that
    /// name must not.
    pub fn create_table(&self, namespace: &str, name: &str, metadata_location: &str) -> Result<()> {
        check_table(&self.file, namespace, name, true)?;
        let table = qualified(namespace, name);
        self.writable(|| format!("create table {table}"))?;
        let context = format!("creating table {table}");
        self.write(&context, |tx| {
            if !self.namespace_exists_on(tx, namespace)? {
                return Err(Error::NamespaceNotFound {
                    file: self.file.clone(),
                    namespace: namespace.to_string(),
                });
            }
            let inserted = match self.schema {
                SchemaVersion::V1 => tx.execute(
                    "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, \
                     metadata_location, previous_metadata_location, iceberg_type) \
                     VALUES (?1, ?2, ?3, ?4, NULL, ?5)",
                    params![
                        self.name,
                        namespace,
                        name,
                        metadata_location,
                        ICEBERG_TYPE_TABLE
                    ],
                ),
                SchemaVersion::V0 | SchemaVersion::Empty => tx.execute(
                    "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, \
                     metadata_location, previous_metadata_location) VALUES (?1, ?2, ?3, ?4, NULL)",
                    params![self.name, namespace, name, metadata_location],
                ),
            };
            match inserted {
                Ok(_) => Ok(()),
                Err(e) if is_constraint(&e) => Err(Error::TableExists {
                    file: self.file.clone(),
                    table: table.clone(),
                }),
                Err(e) => Err(self.sql_err(&context, e)),
            }
        })
    }

    /// The table's row, or `None` when there is no such table (views are not tables).
    pub fn load_table(&self, namespace: &str, name: &str) -> Result<Option<TableRecord>> {
        check_table(&self.file, namespace, name, false)?;
        self.load_on(&self.conn, namespace, name)
    }

    /// Whether the table exists.
    pub fn table_exists(&self, namespace: &str, name: &str) -> Result<bool> {
        Ok(self.load_table(namespace, name)?.is_some())
    }

    fn load_on(
        &self,
        conn: &Connection,
        namespace: &str,
        name: &str,
    ) -> Result<Option<TableRecord>> {
        if self.schema == SchemaVersion::Empty {
            return Ok(None);
        }
        let table = qualified(namespace, name);
        let sql = format!(
            "SELECT metadata_location, previous_metadata_location FROM iceberg_tables \
             WHERE catalog_name = ?1 AND table_namespace = ?2 AND table_name = ?3 AND {}",
            self.schema.table_filter()
        );
        let row = conn
            .query_row(&sql, params![self.name, namespace, name], |row| {
                Ok((
                    row.get::<_, Option<String>>(0)?,
                    row.get::<_, Option<String>>(1)?,
                ))
            })
            .optional()
            .map_err(|e| self.sql_err(format!("loading table {table}"), e))?;
        match row {
            None => Ok(None),
            Some((Some(metadata_location), previous_metadata_location)) => Ok(Some(TableRecord {
                metadata_location,
                previous_metadata_location,
            })),
            Some((None, _)) => Err(Error::Corrupt {
                file: self.file.clone(),
                reason: format!("the row of table {table} has no metadata_location"),
            }),
        }
    }

    /// Moves the table from metadata `expected` to `new` in one compare-and-swap:
    /// `UPDATE … SET metadata_location = new, previous_metadata_location = expected WHERE … AND
    /// metadata_location = expected`. When another writer committed first, fails with a
    /// retryable [`Error::CommitConflict`] (reload the table, re-apply, commit again); when the
    /// table is gone, with [`Error::TableNotFound`].
    pub fn commit(&self, namespace: &str, name: &str, expected: &str, new: &str) -> Result<()> {
        check_table(&self.file, namespace, name, false)?;
        let table = qualified(namespace, name);
        self.writable(|| format!("commit to table {table}"))?;
        let context = format!("committing to table {table}");
        self.write(&context, |tx| {
            let sql = format!(
                "UPDATE iceberg_tables SET metadata_location = ?1, previous_metadata_location = ?2 \
                 WHERE catalog_name = ?3 AND table_namespace = ?4 AND table_name = ?5 \
                 AND metadata_location = ?2 AND {}",
                self.schema.table_filter()
            );
            let changed = tx
                .execute(&sql, params![new, expected, self.name, namespace, name])
                .map_err(|e| self.sql_err(&context, e))?;
            if changed == 1 {
                return Ok(());
            }
            // Nothing changed: say why (inside the same transaction, so the answer is exact).
            match self.load_on(tx, namespace, name)? {
                None => Err(Error::TableNotFound {
                    file: self.file.clone(),
                    table: table.clone(),
                }),
                Some(current) => Err(Error::CommitConflict {
                    file: self.file.clone(),
                    table: table.clone(),
                    expected: expected.to_string(),
                    actual: current.metadata_location,
                }),
            }
        })
    }

    /// Removes the table's row (not its files) and returns it.
    pub fn drop_table(&self, namespace: &str, name: &str) -> Result<TableRecord> {
        check_table(&self.file, namespace, name, false)?;
        let table = qualified(namespace, name);
        self.writable(|| format!("drop table {table}"))?;
        let context = format!("dropping table {table}");
        self.write(&context, |tx| {
            let record =
                self.load_on(tx, namespace, name)?
                    .ok_or_else(|| Error::TableNotFound {
                        file: self.file.clone(),
                        table: table.clone(),
                    })?;
            let sql = format!(
                "DELETE FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 \
                 AND table_name = ?3 AND {}",
                self.schema.table_filter()
            );
            tx.execute(&sql, params![self.name, namespace, name])
                .map_err(|e| self.sql_err(&context, e))?;
            Ok(record)
        })
    }

    /// Renames a table (its row only; files stay where they are, as with pyiceberg). The target
    /// namespace must exist and the target name must be free.
    pub fn rename_table(
        &self,
        from_namespace: &str,
        from_name: &str,
        to_namespace: &str,
        to_name: &str,
    ) -> Result<()> {
        check_table(&self.file, from_namespace, from_name, false)?;
        check_table(&self.file, to_namespace, to_name, true)?;
        let from = qualified(from_namespace, from_name);
        let to = qualified(to_namespace, to_name);
        self.writable(|| format!("rename table {from} to {to}"))?;
        let context = format!("renaming table {from} to {to}");
        self.write(&context, |tx| {
            if !self.namespace_exists_on(tx, to_namespace)? {
                return Err(Error::NamespaceNotFound {
                    file: self.file.clone(),
                    namespace: to_namespace.to_string(),
                });
            }
            let sql = format!(
                "UPDATE iceberg_tables SET table_namespace = ?1, table_name = ?2 \
                 WHERE catalog_name = ?3 AND table_namespace = ?4 AND table_name = ?5 AND {}",
                self.schema.table_filter()
            );
            match tx.execute(
                &sql,
                params![to_namespace, to_name, self.name, from_namespace, from_name],
            ) {
                Ok(0) => Err(Error::TableNotFound {
                    file: self.file.clone(),
                    table: from.clone(),
                }),
                Ok(_) => Ok(()),
                Err(e) if is_constraint(&e) => Err(Error::TableExists {
                    file: self.file.clone(),
                    table: to.clone(),
                }),
                Err(e) => Err(self.sql_err(&context, e)),
            }
        })
    }
}

fn is_constraint(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation)
}
