//! Opening a catalog file.

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::schema::{self, SchemaVersion};

/// How long a statement waits for another connection's lock before failing with
/// [`ErrorKind::Busy`](crate::ErrorKind::Busy). Python's `sqlite3` (so pyiceberg through
/// SQLAlchemy) waits 5 s too.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The catalog file of a `local` catalog block: `<warehouse_path>/<identifier>_catalog.db`.
pub fn catalog_file(warehouse_path: &Path, identifier: &str) -> PathBuf {
    warehouse_path.join(format!("{identifier}_catalog.db"))
}

/// How to open a catalog file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The file must exist ([`Error::NoCatalog`] otherwise) and is opened read-only: nothing is
    /// created, and writes fail with [`ErrorKind::ReadOnly`](crate::ErrorKind::ReadOnly). A file
    /// without the catalog tables reads as an empty catalog.
    ReadOnly,
    /// The file must exist ([`Error::NoCatalog`] otherwise); missing catalog tables are created,
    /// like pyiceberg does. For commands that refuse to create a catalog but write to one
    /// (maintenance, dataset pins).
    ReadWrite,
    /// Creates the folder, the file and the catalog tables when missing, like pyiceberg
    /// (`CREATE TABLE IF NOT EXISTS`).
    Create,
}

/// An open catalog: one SQLite connection to one file, scoped to one catalog name (the
/// `catalog_name` column; several catalogs may share a file).
///
/// `Catalog` is `Send` but not `Sync`: give each thread its own (opening is cheap). The file's
/// journal mode is left as it is (pyiceberg leaves SQLite's default, `delete`); writes take the
/// write lock up front (`BEGIN IMMEDIATE`) and every statement waits up to [`BUSY_TIMEOUT`] for a
/// lock.
#[derive(Debug)]
pub struct Catalog {
    pub(crate) conn: Connection,
    pub(crate) file: PathBuf,
    pub(crate) name: String,
    pub(crate) mode: Mode,
    pub(crate) schema: SchemaVersion,
}

impl Catalog {
    /// Opens the catalog file `path` for the catalog named `catalog_name`.
    ///
    /// With [`Mode::ReadOnly`] or [`Mode::ReadWrite`] a missing file is an [`Error::NoCatalog`];
    /// name the table the caller wanted with [`Error::for_table`] to get the message `Iceberg
    /// table ns.t does not exist: there is no catalog at <file>. …`.
    pub fn open(path: impl AsRef<Path>, catalog_name: &str, mode: Mode) -> Result<Catalog> {
        let file = path.as_ref().to_path_buf();
        if catalog_name.is_empty() {
            return Err(Error::InvalidName {
                file,
                what: "catalog name",
                name: String::new(),
                reason: "it is empty",
            });
        }
        let flags = match mode {
            Mode::ReadOnly | Mode::ReadWrite => {
                match std::fs::metadata(&file) {
                    Ok(meta) if meta.is_file() => {}
                    Ok(_) => {
                        return Err(Error::Corrupt {
                            file,
                            reason: "it is not a file".into(),
                        });
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        return Err(Error::NoCatalog { file, table: None });
                    }
                    Err(source) => {
                        return Err(Error::Io {
                            path: file,
                            context: "read the catalog file",
                            source,
                        });
                    }
                }
                if mode == Mode::ReadOnly {
                    OpenFlags::SQLITE_OPEN_READ_ONLY
                } else {
                    // No CREATE: a file deleted since the check above is not silently recreated.
                    OpenFlags::SQLITE_OPEN_READ_WRITE
                }
            }
            Mode::Create => {
                if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent).map_err(|source| Error::Io {
                        path: parent.to_path_buf(),
                        context: "create the catalog folder",
                        source,
                    })?;
                }
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
            }
        };
        let conn = Connection::open_with_flags(&file, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .map_err(|e| {
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::CannotOpen)
                    && mode != Mode::Create
                    && !file.exists()
                {
                    Error::NoCatalog {
                        file: file.clone(),
                        table: None,
                    }
                } else {
                    Error::sqlite(&file, "opening the catalog", e)
                }
            })?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| Error::sqlite(&file, "setting the busy timeout", e))?;
        let schema = match mode {
            Mode::ReadOnly => schema::detect(&conn, &file)?,
            Mode::ReadWrite | Mode::Create => schema::ensure(&conn, &file)?,
        };
        Ok(Catalog {
            conn,
            file,
            name: catalog_name.to_string(),
            mode,
            schema,
        })
    }

    /// The catalog file.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The catalog name (the `catalog_name` column).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How the catalog was opened.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The layout of the file's catalog tables.
    pub fn schema_version(&self) -> SchemaVersion {
        self.schema
    }

    /// The file's SQLite journal mode (`delete` unless some tool changed it); this crate never
    /// changes it.
    pub fn journal_mode(&self) -> Result<String> {
        self.conn
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .map_err(|e| self.sql_err("reading the journal mode", e))
    }

    pub(crate) fn sql_err(&self, context: impl Into<String>, e: rusqlite::Error) -> Error {
        Error::sqlite(&self.file, context, e)
    }

    /// Fails on a read-only catalog.
    pub(crate) fn writable(&self, operation: impl FnOnce() -> String) -> Result<()> {
        match self.mode {
            Mode::ReadOnly => Err(Error::ReadOnly {
                file: self.file.clone(),
                operation: operation(),
            }),
            Mode::ReadWrite | Mode::Create => Ok(()),
        }
    }

    /// Runs `f` in a write transaction that holds SQLite's write lock from its start
    /// (`BEGIN IMMEDIATE`), so a read-then-write cannot deadlock with another writer; commits
    /// when `f` succeeds, rolls back otherwise.
    pub(crate) fn write<T>(
        &self,
        context: &str,
        f: impl FnOnce(&Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(|e| self.sql_err(context, e))?;
        let value = f(&tx)?;
        tx.commit().map_err(|e| self.sql_err(context, e))?;
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_file_is_identifier_catalog_db() {
        assert_eq!(
            catalog_file(Path::new("/w"), "nyc"),
            PathBuf::from("/w/nyc_catalog.db")
        );
    }

    #[test]
    fn empty_catalog_name_is_rejected() {
        let e = Catalog::open("/nonexistent/x.db", "", Mode::ReadOnly).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidName);
    }
}
