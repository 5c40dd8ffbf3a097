//! The SQLite engine: a catalog file, as pyiceberg's `SqlCatalog` keeps it with a `sqlite:///`
//! URI.
//!
//! Writes take SQLite's write lock up front (`BEGIN IMMEDIATE`); every statement waits up to
//! [`BUSY_TIMEOUT`] for another connection's lock. The file's journal mode is never changed.

use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior};
use std::path::Path;

use super::{DbError, Row, Session};
use crate::catalog::{BUSY_TIMEOUT, Mode};
use crate::error::{Error, Result};
use crate::schema::{ICEBERG_TABLES_DDL, NAMESPACE_PROPERTIES_DDL};

/// A SQLite connection, or a transaction on it (which derefs to its connection).
pub(crate) struct SqliteSession<'a>(pub(crate) &'a Connection);

impl Session for SqliteSession<'_> {
    fn rows(&mut self, sql: &str, params: &[&str]) -> Result<Vec<Row>, DbError> {
        let mut stmt = self.0.prepare(sql)?;
        let columns = stmt.column_count();
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params), |row| {
                (0..columns)
                    .map(|i| row.get::<_, Option<String>>(i))
                    .collect()
            })?
            .collect::<rusqlite::Result<Vec<Row>>>()?;
        Ok(rows)
    }

    fn flag(&mut self, sql: &str, params: &[&str]) -> Result<bool, DbError> {
        Ok(self
            .0
            .query_row(sql, rusqlite::params_from_iter(params), |row| row.get(0))?)
    }

    fn execute(&mut self, sql: &str, params: &[&str]) -> Result<u64, DbError> {
        let changed = self.0.execute(sql, rusqlite::params_from_iter(params))?;
        Ok(changed as u64)
    }

    fn has_table(&mut self, table: &str) -> Result<bool, DbError> {
        Ok(self
            .0
            .query_row(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [table],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    fn has_column(&mut self, table: &str, column: &str) -> Result<bool, DbError> {
        Ok(self
            .0
            .query_row(
                "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2",
                [table, column],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }
}

/// Runs `f` in a `BEGIN IMMEDIATE` transaction: it holds the write lock from its start.
pub(super) fn write<T, E>(
    conn: &Connection,
    err: impl Fn(DbError) -> E,
    f: impl FnOnce(&mut dyn Session) -> Result<T, E>,
) -> Result<T, E> {
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
        .map_err(|e| err(e.into()))?;
    let value = f(&mut SqliteSession(&tx))?;
    tx.commit().map_err(|e| err(e.into()))?;
    Ok(value)
}

/// Creates both catalog tables (each only when missing) in one immediate transaction, so two
/// processes opening a new file at once cannot trip on each other.
pub(super) fn create_tables(conn: &Connection) -> Result<(), DbError> {
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    tx.execute_batch(ICEBERG_TABLES_DDL)?;
    tx.execute_batch(NAMESPACE_PROPERTIES_DDL)?;
    tx.commit()?;
    Ok(())
}

/// Whether SQLite refused a row for a constraint (here: a taken primary key).
pub(super) fn is_constraint(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation)
}

/// Opens the catalog file `file` in `mode`: checks that it exists unless creating, creates its
/// folder when creating, and sets the busy timeout.
pub(crate) fn open(file: &Path, mode: Mode) -> Result<Connection> {
    let flags = match mode {
        Mode::ReadOnly | Mode::ReadWrite => {
            must_be_a_file(file)?;
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
    let conn = Connection::open_with_flags(file, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(
        |e| {
            if e.sqlite_error_code() == Some(rusqlite::ErrorCode::CannotOpen)
                && mode != Mode::Create
                && !file.exists()
            {
                Error::NoCatalog {
                    file: file.to_path_buf(),
                    table: None,
                }
            } else {
                Error::sqlite(file, "opening the catalog", e)
            }
        },
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| Error::sqlite(file, "setting the busy timeout", e))?;
    Ok(conn)
}

/// A catalog opened without [`Mode::Create`] must be an existing file.
fn must_be_a_file(file: &Path) -> Result<()> {
    match std::fs::metadata(file) {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(_) => Err(Error::Corrupt {
            file: file.to_path_buf(),
            reason: "it is not a file".into(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::NoCatalog {
            file: file.to_path_buf(),
            table: None,
        }),
        Err(source) => Err(Error::Io {
            path: file.to_path_buf(),
            context: "read the catalog file",
            source,
        }),
    }
}

/// The file's journal mode (`delete` unless some tool changed it).
pub(crate) fn journal_mode(conn: &Connection) -> rusqlite::Result<String> {
    conn.query_row("PRAGMA journal_mode", [], |row| row.get(0))
}
