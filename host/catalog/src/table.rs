//! Table rows: create, load, commit (compare-and-swap), drop, rename.
//!
//! A row only points at the table's current metadata file; the metadata itself lives in the
//! warehouse and is written by the table layer before it commits here.

use crate::backend::Session;
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::ident::{check_table, qualified};
use crate::remote::{NewTable, TableChange};
use crate::schema::{ICEBERG_TYPE_TABLE, SchemaVersion};
use crate::sql;

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
        self.create_table_from(
            namespace,
            name,
            NewTable {
                metadata_location,
                metadata: "",
            },
        )
        .map(drop)
    }

    /// [`Catalog::create_table`] with the first metadata's content, which a remote catalog may
    /// need. Returns the metadata file the catalog holds for the table: `new`'s, or (REST) one
    /// the catalog wrote; the caller then reads that one.
    pub fn create_table_from(
        &self,
        namespace: &str,
        name: &str,
        new: NewTable<'_>,
    ) -> Result<String> {
        check_table(&self.file, namespace, name, true)?;
        let table = qualified(namespace, name);
        self.writable(|| format!("create table {table}"))?;
        if let Some(remote) = self.remote() {
            return remote.create_table(namespace, name, new);
        }
        let metadata_location = new.metadata_location;
        let context = format!("creating table {table}");
        self.write(&context, |s| {
            if !self.namespace_exists_on(s, namespace)? {
                return Err(Error::NamespaceNotFound {
                    file: self.file.clone(),
                    namespace: namespace.to_string(),
                });
            }
            let inserted = match self.schema {
                SchemaVersion::V1 => s.execute(
                    sql::INSERT_TABLE_V1,
                    &[
                        &self.name,
                        namespace,
                        name,
                        metadata_location,
                        ICEBERG_TYPE_TABLE,
                    ],
                ),
                SchemaVersion::V0 | SchemaVersion::Empty => s.execute(
                    sql::INSERT_TABLE_V0,
                    &[&self.name, namespace, name, metadata_location],
                ),
            };
            match inserted {
                Ok(_) => Ok(metadata_location.to_string()),
                Err(e) if e.is_unique_violation() => Err(Error::TableExists {
                    file: self.file.clone(),
                    table: table.clone(),
                }),
                Err(e) => Err(self.db_err(&context, e)),
            }
        })
    }

    /// The table's row, or `None` when there is no such table (views are not tables).
    pub fn load_table(&self, namespace: &str, name: &str) -> Result<Option<TableRecord>> {
        check_table(&self.file, namespace, name, false)?;
        if let Some(remote) = self.remote() {
            return remote.load_table(namespace, name);
        }
        self.read(|s| self.load_on(s, namespace, name))
    }

    /// Whether the table exists.
    pub fn table_exists(&self, namespace: &str, name: &str) -> Result<bool> {
        Ok(self.load_table(namespace, name)?.is_some())
    }

    fn load_on(
        &self,
        s: &mut dyn Session,
        namespace: &str,
        name: &str,
    ) -> Result<Option<TableRecord>> {
        if self.schema == SchemaVersion::Empty {
            return Ok(None);
        }
        let table = qualified(namespace, name);
        let rows = s
            .rows(
                &sql::with_filter(sql::LOAD_TABLE, self.schema),
                &[&self.name, namespace, name],
            )
            .map_err(|e| self.db_err(format!("loading table {table}"), e))?;
        let Some(mut row) = rows.into_iter().next() else {
            return Ok(None);
        };
        let previous_metadata_location = row.pop().flatten();
        match row.pop().flatten() {
            Some(metadata_location) => Ok(Some(TableRecord {
                metadata_location,
                previous_metadata_location,
            })),
            None => Err(Error::Corrupt {
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
        let change = TableChange {
            expected,
            new,
            metadata: "",
            commit: "",
        };
        self.commit_change(namespace, name, change).map(drop)
    }

    /// Commits one write of the table, as every catalog type needs it (see [`TableChange`]):
    /// the SQL catalogs and Glue move the pointer from `change.expected` to `change.new`; a REST
    /// catalog applies `change.commit` and writes a metadata file of its own. Returns the
    /// table's metadata file after the commit. Errors as [`Catalog::commit`].
    pub fn commit_change(
        &self,
        namespace: &str,
        name: &str,
        change: TableChange<'_>,
    ) -> Result<String> {
        check_table(&self.file, namespace, name, false)?;
        let table = qualified(namespace, name);
        self.writable(|| format!("commit to table {table}"))?;
        if let Some(remote) = self.remote() {
            return remote.commit(namespace, name, change);
        }
        let (expected, new) = (change.expected, change.new);
        let context = format!("committing to table {table}");
        self.write(&context, |s| {
            let changed = s
                .execute(
                    &sql::with_filter(sql::COMMIT, self.schema),
                    &[new, expected, &self.name, namespace, name],
                )
                .map_err(|e| self.db_err(&context, e))?;
            if changed == 1 {
                return Ok(new.to_string());
            }
            // Nothing changed: say why (inside the same transaction, so the answer is exact).
            match self.load_on(s, namespace, name)? {
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
        if let Some(remote) = self.remote() {
            return remote.drop_table(namespace, name);
        }
        let context = format!("dropping table {table}");
        self.write(&context, |s| {
            let record = self
                .load_on(s, namespace, name)?
                .ok_or_else(|| Error::TableNotFound {
                    file: self.file.clone(),
                    table: table.clone(),
                })?;
            s.execute(
                &sql::with_filter(sql::DROP_TABLE, self.schema),
                &[&self.name, namespace, name],
            )
            .map_err(|e| self.db_err(&context, e))?;
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
        if let Some(remote) = self.remote() {
            return remote.rename_table((from_namespace, from_name), (to_namespace, to_name));
        }
        let context = format!("renaming table {from} to {to}");
        self.write(&context, |s| {
            if !self.namespace_exists_on(s, to_namespace)? {
                return Err(Error::NamespaceNotFound {
                    file: self.file.clone(),
                    namespace: to_namespace.to_string(),
                });
            }
            match s.execute(
                &sql::with_filter(sql::RENAME_TABLE, self.schema),
                &[to_namespace, to_name, &self.name, from_namespace, from_name],
            ) {
                Ok(0) => Err(Error::TableNotFound {
                    file: self.file.clone(),
                    table: from.clone(),
                }),
                Ok(_) => Ok(()),
                Err(e) if e.is_unique_violation() => Err(Error::TableExists {
                    file: self.file.clone(),
                    table: to.clone(),
                }),
                Err(e) => Err(self.db_err(&context, e)),
            }
        })
    }
}
