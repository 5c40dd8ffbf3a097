//! The database engines a catalog can live in, behind one small interface.
//!
//! Every statement of the catalog binds only text parameters and reads only text or boolean
//! columns, so a [`Session`] is all the catalog logic needs: it runs the shared SQL of
//! [`crate::sql`] on either engine. What differs per engine lives in its module: how to open or
//! connect, how to find the catalog tables, how a write transaction takes its lock, and which
//! errors mean "locked" or "duplicate key".

pub(crate) mod postgres;
pub(crate) mod sqlite;

use std::cell::RefCell;
use std::fmt;

/// One row of text columns; SQL NULL is `None`.
pub(crate) type Row = Vec<Option<String>>;

/// A connection or an open transaction on one engine.
pub(crate) trait Session {
    /// Runs a query whose columns are all text.
    fn rows(&mut self, sql: &str, params: &[&str]) -> Result<Vec<Row>, DbError>;

    /// Runs a query returning one boolean.
    fn flag(&mut self, sql: &str, params: &[&str]) -> Result<bool, DbError>;

    /// Runs a statement; returns how many rows it changed.
    fn execute(&mut self, sql: &str, params: &[&str]) -> Result<u64, DbError>;

    /// Whether the table `table` exists (where an unqualified name would find it).
    fn has_table(&mut self, table: &str) -> Result<bool, DbError>;

    /// Whether the table `table` has the column `column`.
    fn has_column(&mut self, table: &str, column: &str) -> Result<bool, DbError>;
}

/// An engine's own error, before it is named after the catalog and the operation.
#[derive(Debug)]
pub(crate) enum DbError {
    Sqlite(rusqlite::Error),
    Postgres(::postgres::Error),
}

impl DbError {
    /// Whether the statement broke a primary key (a row of that key exists).
    pub(crate) fn is_unique_violation(&self) -> bool {
        match self {
            DbError::Sqlite(e) => sqlite::is_constraint(e),
            DbError::Postgres(e) => postgres::is_unique_violation(e),
        }
    }
}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError::Sqlite(e)
    }
}

impl From<::postgres::Error> for DbError {
    fn from(e: ::postgres::Error) -> Self {
        DbError::Postgres(e)
    }
}

/// The open connection of a catalog.
pub(crate) enum Backend {
    Sqlite(rusqlite::Connection),
    /// A `RefCell`: the client needs `&mut` for every statement, the catalog's methods take
    /// `&self` (a `Catalog` is `Send`, not `Sync`).
    Postgres(RefCell<::postgres::Client>),
}

impl fmt::Debug for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Backend::Sqlite(conn) => f.debug_tuple("Sqlite").field(conn).finish(),
            Backend::Postgres(_) => f.write_str("Postgres"),
        }
    }
}

impl Backend {
    /// Runs `f` outside any explicit transaction: each statement sees the latest commits.
    pub(crate) fn read<T, E>(
        &self,
        f: impl FnOnce(&mut dyn Session) -> Result<T, E>,
    ) -> Result<T, E> {
        match self {
            Backend::Sqlite(conn) => f(&mut sqlite::SqliteSession(conn)),
            Backend::Postgres(client) => postgres::read(client, f),
        }
    }

    /// Runs `f` in a transaction that holds the catalog's write lock from its start, so a
    /// read-then-write cannot interleave with another writer; commits when `f` succeeds, rolls
    /// back otherwise. `err` names an engine error of the begin or the commit.
    pub(crate) fn write<T, E>(
        &self,
        err: impl Fn(DbError) -> E,
        f: impl FnOnce(&mut dyn Session) -> Result<T, E>,
    ) -> Result<T, E> {
        match self {
            Backend::Sqlite(conn) => sqlite::write(conn, err, f),
            Backend::Postgres(client) => postgres::write(client, err, f),
        }
    }

    /// Creates whichever catalog table is missing, under a lock that keeps two creators apart.
    pub(crate) fn create_tables(&self) -> Result<(), DbError> {
        match self {
            Backend::Sqlite(conn) => sqlite::create_tables(conn),
            Backend::Postgres(client) => postgres::create_tables(client),
        }
    }
}
