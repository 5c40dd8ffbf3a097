//! The PostgreSQL engine: a database shared by a team, as pyiceberg's `SqlCatalog` (and Iceberg's
//! `JdbcCatalog`) use it with a `postgresql://` URI.
//!
//! Locking matches SQLite's: a write transaction first takes
//! `LOCK TABLE iceberg_tables, iceberg_namespace_properties IN SHARE ROW EXCLUSIVE MODE`, which
//! lets readers through and queues every other writer, ours and any other tool's row changes
//! alike, so the read-then-write of a catalog operation sees no interleaved commit. A lock wait
//! longer than [`BUSY_TIMEOUT`] (`lock_timeout`), a deadlock or a serialization failure is
//! [`ErrorKind::Busy`](crate::ErrorKind::Busy). The compare-and-swap itself is the same
//! `UPDATE … WHERE metadata_location = expected` as on SQLite.

use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Client, GenericClient, NoTls};
use std::cell::RefCell;

use super::{DbError, Row, Session};
use crate::address::PostgresAddress;
use crate::catalog::{BUSY_TIMEOUT, Mode};
use crate::error::{Error, Result};
use crate::schema::{ICEBERG_TABLES_DDL, NAMESPACE_PROPERTIES_DDL};

/// Taken by every write transaction before it reads: see the module documentation.
const LOCK_CATALOG: &str =
    "LOCK TABLE iceberg_tables, iceberg_namespace_properties IN SHARE ROW EXCLUSIVE MODE";

/// The transaction-scoped advisory lock that keeps two creators of the catalog tables apart
/// (`CREATE TABLE IF NOT EXISTS` alone can fail when two sessions run it at once). The key is
/// the bytes `ldpcatlg`.
const LOCK_CREATION: &str = "SELECT pg_advisory_xact_lock(7810491225906375783)";

/// What to check when the server cannot be reached.
const UNREACHABLE_HINT: &str = "check the host and port in the catalog's uri and that \
     PostgreSQL runs there and accepts TCP connections";

/// What to check when the server refuses the login.
const LOGIN_HINT: &str = "check the user in the catalog's uri and the password in the \
     environment variable named by the catalog's password_env";

/// A PostgreSQL client, or a transaction on it.
pub(crate) struct PgSession<'a, C: GenericClient>(pub(crate) &'a mut C);

fn bind<'a>(params: &'a [&'a str]) -> Vec<&'a (dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

impl<C: GenericClient> Session for PgSession<'_, C> {
    fn rows(&mut self, sql: &str, params: &[&str]) -> Result<Vec<Row>, DbError> {
        self.0
            .query(sql, &bind(params))?
            .iter()
            .map(|row| {
                (0..row.len())
                    .map(|i| row.try_get::<_, Option<String>>(i).map_err(DbError::from))
                    .collect()
            })
            .collect()
    }

    fn flag(&mut self, sql: &str, params: &[&str]) -> Result<bool, DbError> {
        Ok(self.0.query_one(sql, &bind(params))?.try_get(0)?)
    }

    fn execute(&mut self, sql: &str, params: &[&str]) -> Result<u64, DbError> {
        Ok(self.0.execute(sql, &bind(params))?)
    }

    fn has_table(&mut self, table: &str) -> Result<bool, DbError> {
        self.flag("SELECT to_regclass($1) IS NOT NULL", &[table])
    }

    fn has_column(&mut self, table: &str, column: &str) -> Result<bool, DbError> {
        self.flag(
            "SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) \
             AND attname = $2 AND attnum > 0 AND NOT attisdropped)",
            &[table, column],
        )
    }
}

/// Connects to the catalog's database. The session waits at most [`BUSY_TIMEOUT`] for a lock,
/// and a [`Mode::ReadOnly`] session is read-only on the server too.
pub(crate) fn connect(address: &PostgresAddress, mode: Mode) -> Result<RefCell<Client>> {
    let mut client = address
        .config()
        .connect(NoTls)
        .map_err(|e| connect_error(address, e))?;
    let mut settings = format!("SET lock_timeout = '{}ms'", BUSY_TIMEOUT.as_millis());
    if mode == Mode::ReadOnly {
        settings.push_str("; SET default_transaction_read_only = on");
    }
    client.batch_execute(&settings).map_err(|e| {
        Error::db(
            address.redacted().as_ref(),
            "setting up the session",
            e.into(),
        )
    })?;
    Ok(RefCell::new(client))
}

/// Names a failed connection after the catalog, with what to check.
fn connect_error(address: &PostgresAddress, source: postgres::Error) -> Error {
    let file = address.redacted().into();
    let refused_login = [
        SqlState::INVALID_PASSWORD,
        SqlState::INVALID_AUTHORIZATION_SPECIFICATION,
    ];
    let (problem, hint) = match source.as_db_error() {
        Some(db) if refused_login.contains(db.code()) => (
            format!("PostgreSQL refused the login: {}", db.message()),
            LOGIN_HINT,
        ),
        Some(db) if db.code() == &SqlState::INVALID_CATALOG_NAME => (
            db.message().to_string(),
            "create the database, or check the database name in the catalog's uri",
        ),
        Some(db) => (
            db.message().to_string(),
            "check that PostgreSQL runs and accepts connections",
        ),
        // The server asked for a password and none was given.
        None if describe(&source).contains("password missing") => (
            "the server asks for a password and none was given".to_string(),
            LOGIN_HINT,
        ),
        None => (describe(&source), UNREACHABLE_HINT),
    };
    Error::Connect {
        file,
        problem,
        hint,
        source,
    }
}

/// Runs `f` in a transaction that first takes the catalog's write lock.
pub(super) fn write<T, E>(
    client: &RefCell<Client>,
    err: impl Fn(DbError) -> E,
    f: impl FnOnce(&mut dyn Session) -> Result<T, E>,
) -> Result<T, E> {
    let mut client = client.borrow_mut();
    let mut tx = client.transaction().map_err(|e| err(e.into()))?;
    tx.batch_execute(LOCK_CATALOG).map_err(|e| err(e.into()))?;
    // An error leaves `tx` to its drop, which rolls back.
    let value = f(&mut PgSession(&mut tx))?;
    tx.commit().map_err(|e| err(e.into()))?;
    Ok(value)
}

/// Runs `f` on the client outside any explicit transaction.
pub(super) fn read<T, E>(
    client: &RefCell<Client>,
    f: impl FnOnce(&mut dyn Session) -> Result<T, E>,
) -> Result<T, E> {
    f(&mut PgSession(&mut *client.borrow_mut()))
}

/// Creates both catalog tables (each only when missing) under [`LOCK_CREATION`].
pub(super) fn create_tables(client: &RefCell<Client>) -> Result<(), DbError> {
    let mut client = client.borrow_mut();
    let mut tx = client.transaction()?;
    tx.batch_execute(LOCK_CREATION)?;
    tx.batch_execute(ICEBERG_TABLES_DDL)?;
    tx.batch_execute(NAMESPACE_PROPERTIES_DDL)?;
    tx.commit()?;
    Ok(())
}

/// The client's error with its causes, `: `-separated: its own text is only the kind of failure
/// (`db error`, `error connecting to server`), the causes say what happened.
pub(crate) fn describe(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// Whether the statement broke a unique constraint (here: a taken primary key).
pub(super) fn is_unique_violation(e: &postgres::Error) -> bool {
    e.code() == Some(&SqlState::UNIQUE_VIOLATION)
}

/// Whether another session's lock made the statement fail, so that a retry may succeed.
pub(crate) fn is_busy(e: &postgres::Error) -> bool {
    [
        SqlState::LOCK_NOT_AVAILABLE,
        SqlState::T_R_DEADLOCK_DETECTED,
        SqlState::T_R_SERIALIZATION_FAILURE,
    ]
    .iter()
    .any(|code| e.code() == Some(code))
}
