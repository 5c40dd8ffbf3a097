//! Errors of the catalog: one enum, a [`ErrorKind`] for exit codes and retry decisions.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::backend::DbError;

/// What kind of failure an error is; maps to exit codes and retry decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The catalog file, a namespace or a table does not exist.
    NotFound,
    /// A namespace or a table already exists.
    AlreadyExists,
    /// A namespace still holds tables.
    NotEmpty,
    /// A compare-and-swap commit found another metadata location than the one it expected:
    /// reload the table and try again.
    CommitConflict,
    /// The catalog stayed locked by another connection for longer than the busy timeout
    /// (PostgreSQL: also a deadlock or a serialization failure).
    Busy,
    /// A namespace, table or catalog name is not valid.
    InvalidName,
    /// A write was attempted on a catalog opened with [`Mode::ReadOnly`](crate::Mode::ReadOnly).
    ReadOnly,
    /// The file is not a SQLite database, or not an Iceberg SQL catalog, or a row is unusable.
    Corrupt,
    /// Any other SQLite failure.
    Sqlite,
    /// A file-system operation failed.
    Io,
    /// A PostgreSQL catalog's URI is not usable (wrong scheme, embedded password, bad syntax).
    InvalidUri,
    /// The PostgreSQL server could not be reached, or refused the login or the database.
    Connect,
    /// Any other PostgreSQL failure.
    Postgres,
    /// A remote catalog (REST, Glue) could not be reached, or answered that it is busy or
    /// throttling: retry later.
    Unavailable,
    /// A remote catalog may or may not have applied a commit (the connection broke, or it
    /// answered 5xx, after the request was sent): reload the table before trying again.
    CommitStateUnknown,
    /// A remote catalog refused the credentials or the operation.
    Unauthorized,
    /// Any other failure of a remote catalog.
    Remote,
}

impl ErrorKind {
    /// The process exit code for this kind (the Python tool's table: 1 for every runtime error;
    /// 3 is reserved for a failed data gate).
    pub fn exit_code(self) -> i32 {
        1
    }

    /// Whether another attempt of the same work may succeed: only commit conflicts, a busy
    /// (locked) database and an unavailable remote catalog.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            ErrorKind::CommitConflict | ErrorKind::Busy | ErrorKind::Unavailable
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::NotFound => "not found",
            ErrorKind::AlreadyExists => "already exists",
            ErrorKind::NotEmpty => "not empty",
            ErrorKind::CommitConflict => "commit conflict",
            ErrorKind::Busy => "busy",
            ErrorKind::InvalidName => "invalid name",
            ErrorKind::ReadOnly => "read-only",
            ErrorKind::Corrupt => "corrupt",
            ErrorKind::Sqlite => "sqlite",
            ErrorKind::Io => "io",
            ErrorKind::InvalidUri => "invalid uri",
            ErrorKind::Connect => "connect",
            ErrorKind::Postgres => "postgres",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::CommitStateUnknown => "commit state unknown",
            ErrorKind::Unauthorized => "unauthorized",
            ErrorKind::Remote => "remote",
        })
    }
}

/// A catalog error. Every message names the catalog, and the table (`ns.name`) or namespace at
/// fault.
///
/// The catalog is named by the `file` field: a SQLite catalog's file, or a PostgreSQL catalog's
/// URI without password ([`PostgresAddress::redacted`](crate::PostgresAddress::redacted), e.g.
/// `postgresql://ldp@127.0.0.1:54329/lake`), held as a path so the field keeps one type.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The catalog file does not exist and the catalog was not opened with
    /// [`Mode::Create`](crate::Mode::Create). Build it with [`no_catalog`] to name the table.
    #[error("{}", no_catalog_message(file, table.as_deref()))]
    NoCatalog {
        /// The missing catalog file.
        file: PathBuf,
        /// The table (`ns.name`) the caller wanted, when it wanted one.
        table: Option<String>,
    },
    /// The namespace does not exist.
    #[error("namespace {namespace} does not exist in the catalog at {}", file.display())]
    NamespaceNotFound {
        /// The catalog file.
        file: PathBuf,
        /// The namespace, dotted (`a.b`).
        namespace: String,
    },
    /// The table does not exist.
    #[error("Iceberg table {table} does not exist in the catalog at {}", file.display())]
    TableNotFound {
        /// The catalog file.
        file: PathBuf,
        /// `ns.name`.
        table: String,
    },
    /// The namespace already exists.
    #[error("namespace {namespace} already exists in the catalog at {}", file.display())]
    NamespaceExists {
        /// The catalog file.
        file: PathBuf,
        /// The namespace.
        namespace: String,
    },
    /// The table already exists.
    #[error("Iceberg table {table} already exists in the catalog at {}", file.display())]
    TableExists {
        /// The catalog file.
        file: PathBuf,
        /// `ns.name`.
        table: String,
    },
    /// The namespace still holds tables.
    #[error(
        "namespace {namespace} in the catalog at {} is not empty: it holds {tables} table(s); drop them first",
        file.display()
    )]
    NamespaceNotEmpty {
        /// The catalog file.
        file: PathBuf,
        /// The namespace.
        namespace: String,
        /// How many tables it holds.
        tables: usize,
    },
    /// The compare-and-swap found another metadata location than expected.
    #[error(
        "commit to Iceberg table {table} lost a race in the catalog at {}: it expected metadata {expected}, \
         the catalog holds {actual}; reload the table and retry",
        file.display()
    )]
    CommitConflict {
        /// The catalog file.
        file: PathBuf,
        /// `ns.name`.
        table: String,
        /// The metadata location the commit was based on.
        expected: String,
        /// The metadata location the catalog held when the commit failed.
        actual: String,
    },
    /// A name is not valid.
    #[error("invalid {what} {name:?} for the catalog at {}: {reason}", file.display())]
    InvalidName {
        /// The catalog file.
        file: PathBuf,
        /// What the name is for: `namespace`, `table name`, `catalog name`.
        what: &'static str,
        /// The name as given.
        name: String,
        /// Why it is rejected.
        reason: &'static str,
    },
    /// A write on a read-only catalog.
    #[error("the catalog at {} is open read-only: cannot {operation}", file.display())]
    ReadOnly {
        /// The catalog file.
        file: PathBuf,
        /// What was attempted, e.g. `create table ns.t`.
        operation: String,
    },
    /// The file is not an Iceberg SQL catalog, or holds an unusable row.
    #[error("{} is not a usable Iceberg SQL catalog: {reason}", file.display())]
    Corrupt {
        /// The catalog file.
        file: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The catalog stayed locked for longer than the busy timeout (PostgreSQL: or a deadlock,
    /// or a serialization failure, ended the transaction).
    #[error(
        "the catalog at {} stayed locked by another process while {context}; retry later",
        file.display()
    )]
    Busy {
        /// The catalog file.
        file: PathBuf,
        /// What was being done, naming the table when there is one.
        context: String,
        /// The engine's error (`rusqlite::Error` or `postgres::Error`).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Another SQLite failure.
    #[error("SQLite failed on the catalog at {} while {context}: {source}", file.display())]
    Sqlite {
        /// The catalog file.
        file: PathBuf,
        /// What was being done, naming the table when there is one.
        context: String,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A PostgreSQL catalog's URI is not usable.
    #[error("invalid PostgreSQL catalog uri {uri}: {reason}")]
    InvalidUri {
        /// The URI without password.
        uri: String,
        /// What is wrong.
        reason: String,
    },
    /// The PostgreSQL server could not be reached, or refused the login or the database.
    #[error("cannot connect to the catalog at {}: {problem}; {hint}", file.display())]
    Connect {
        /// The catalog's URI without password.
        file: PathBuf,
        /// What went wrong, e.g. `PostgreSQL refused the login: password authentication failed
        /// for user "ldp"`.
        problem: String,
        /// What to check.
        hint: &'static str,
        /// The client's error.
        #[source]
        source: postgres::Error,
    },
    /// Another PostgreSQL failure.
    #[error(
        "PostgreSQL failed on the catalog at {} while {context}: {}",
        file.display(),
        crate::backend::postgres::describe(source)
    )]
    Postgres {
        /// The catalog's URI without password.
        file: PathBuf,
        /// What was being done, naming the table when there is one.
        context: String,
        /// The client's error.
        #[source]
        source: postgres::Error,
    },
    /// A remote catalog (REST, Glue) failed; `message` is its client's error, which names the
    /// catalog and never holds a secret.
    #[error("{message}")]
    Remote {
        /// The catalog as messages name it.
        file: PathBuf,
        /// [`ErrorKind::Unavailable`], [`ErrorKind::CommitStateUnknown`],
        /// [`ErrorKind::Unauthorized`], [`ErrorKind::ReadOnly`] or [`ErrorKind::Remote`].
        kind: ErrorKind,
        /// The client's message.
        message: String,
    },
    /// A file-system operation failed.
    #[error("cannot {context} {}: {source}", path.display())]
    Io {
        /// The path at fault.
        path: PathBuf,
        /// What was being done, e.g. `create the catalog folder`.
        context: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NoCatalog { .. }
            | Error::NamespaceNotFound { .. }
            | Error::TableNotFound { .. } => ErrorKind::NotFound,
            Error::NamespaceExists { .. } | Error::TableExists { .. } => ErrorKind::AlreadyExists,
            Error::NamespaceNotEmpty { .. } => ErrorKind::NotEmpty,
            Error::CommitConflict { .. } => ErrorKind::CommitConflict,
            Error::InvalidName { .. } => ErrorKind::InvalidName,
            Error::ReadOnly { .. } => ErrorKind::ReadOnly,
            Error::Corrupt { .. } => ErrorKind::Corrupt,
            Error::Busy { .. } => ErrorKind::Busy,
            Error::Sqlite { .. } => ErrorKind::Sqlite,
            Error::Io { .. } => ErrorKind::Io,
            Error::InvalidUri { .. } => ErrorKind::InvalidUri,
            Error::Connect { .. } => ErrorKind::Connect,
            Error::Postgres { .. } => ErrorKind::Postgres,
            Error::Remote { kind, .. } => *kind,
        }
    }

    /// Whether another attempt may succeed: true only for commit conflicts and a locked catalog
    /// ([`ErrorKind::Busy`]).
    pub fn is_retryable(&self) -> bool {
        self.kind().is_retryable()
    }

    /// Names the table the caller wanted in a [`Error::NoCatalog`] (so its message becomes the
    /// Python tool's `Iceberg table ns.t does not exist: there is no catalog at …`); other errors
    /// are returned unchanged.
    pub fn for_table(self, table: &str) -> Error {
        match self {
            Error::NoCatalog { file, .. } => no_catalog(&file, table),
            other => other,
        }
    }

    /// Maps an engine's error (see [`Error::sqlite`] and [`Error::postgres`]).
    pub(crate) fn db(file: &Path, context: impl Into<String>, source: DbError) -> Error {
        match source {
            DbError::Sqlite(e) => Error::sqlite(file, context, e),
            DbError::Postgres(e) => Error::postgres(file, context, e),
        }
    }

    /// Maps a PostgreSQL error: a lock timeout, deadlock or serialization failure to
    /// [`Error::Busy`], anything else to [`Error::Postgres`].
    pub(crate) fn postgres(
        file: &Path,
        context: impl Into<String>,
        source: postgres::Error,
    ) -> Error {
        let file = file.to_path_buf();
        let context = context.into();
        if crate::backend::postgres::is_busy(&source) {
            Error::Busy {
                file,
                context,
                source: Box::new(source),
            }
        } else {
            Error::Postgres {
                file,
                context,
                source,
            }
        }
    }

    /// Maps a SQLite error: busy/locked to [`Error::Busy`], "not a database" to
    /// [`Error::Corrupt`], anything else to [`Error::Sqlite`].
    pub(crate) fn sqlite(
        file: &Path,
        context: impl Into<String>,
        source: rusqlite::Error,
    ) -> Error {
        use rusqlite::ErrorCode;
        let file = file.to_path_buf();
        let context = context.into();
        match source.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Error::Busy {
                file,
                context,
                source: Box::new(source),
            },
            Some(ErrorCode::NotADatabase) => Error::Corrupt {
                file,
                reason: format!("it is not a SQLite database ({source})"),
            },
            _ => Error::Sqlite {
                file,
                context,
                source,
            },
        }
    }
}

/// The Python tool's error for a read-only command whose SQLite catalog file is missing:
/// `Iceberg table ns.t does not exist: there is no catalog at <file>. Run 'ldp run CONFIG' first,
/// or check the catalog's warehouse_path or uri.` `table` is `ns.name`.
pub fn no_catalog(file: &Path, table: &str) -> Error {
    Error::NoCatalog {
        file: file.to_path_buf(),
        table: Some(table.to_string()),
    }
}

fn no_catalog_message(file: &Path, table: Option<&str>) -> String {
    let tail = format!(
        "there is no catalog at {}. Run 'ldp run CONFIG' first, or check the catalog's warehouse_path or uri.",
        file.display()
    );
    match table {
        Some(table) => format!("Iceberg table {table} does not exist: {tail}"),
        None => tail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_catalog_message_is_the_reference_text() {
        let e = no_catalog(Path::new("/w/nyc_catalog.db"), "nyc.rides");
        assert_eq!(
            e.to_string(),
            "Iceberg table nyc.rides does not exist: there is no catalog at /w/nyc_catalog.db. \
             Run 'ldp run CONFIG' first, or check the catalog's warehouse_path or uri."
        );
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert!(!e.is_retryable());
    }

    #[test]
    fn for_table_fills_in_the_table() {
        let e = Error::NoCatalog {
            file: PathBuf::from("/w/c.db"),
            table: None,
        };
        assert!(e.to_string().starts_with("there is no catalog at /w/c.db."));
        assert!(
            e.for_table("a.b")
                .to_string()
                .starts_with("Iceberg table a.b does not exist: ")
        );
    }

    #[test]
    fn only_conflicts_and_busy_are_retryable() {
        let conflict = Error::CommitConflict {
            file: PathBuf::from("c.db"),
            table: "a.b".into(),
            expected: "x".into(),
            actual: "y".into(),
        };
        assert!(conflict.is_retryable());
        let busy = Error::sqlite(
            Path::new("c.db"),
            "committing a.b",
            rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                None,
            ),
        );
        assert_eq!(busy.kind(), ErrorKind::Busy);
        assert!(busy.is_retryable());
        let other = Error::sqlite(
            Path::new("c.db"),
            "committing a.b",
            rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_IOERR),
                None,
            ),
        );
        assert_eq!(other.kind(), ErrorKind::Sqlite);
        assert!(!other.is_retryable());
        assert!(other.to_string().contains("while committing a.b"));
    }
}
