//! Errors of the cluster layer.

/// What kind of failure an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A cluster URL or a server setting that cannot work.
    Usage,
    /// The scheduler cannot be reached, or has no executor.
    Unreachable,
    /// The query failed: its SQL, a table, or its run on the cluster.
    Query,
    /// A scheduler or executor failed to start or stopped on an error.
    Server,
}

/// A cluster command or query that failed. Every kind maps to exit code 1.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--cluster` or `--scheduler` is not `df://HOST:PORT`.
    #[error(
        "'{url}' is not a cluster URL: {reason}; give df://HOST:PORT, such as df://127.0.0.1:50050"
    )]
    Url {
        /// As given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A server setting that cannot work.
    #[error("{0}")]
    Settings(String),
    /// Nothing answers at the scheduler's address.
    #[error(
        "cannot reach the scheduler at {url}: {reason}; start one with 'ldp cluster scheduler --bind HOST:PORT'"
    )]
    Unreachable {
        /// The scheduler's URL.
        url: String,
        /// The connection's error.
        reason: String,
    },
    /// The scheduler runs but no executor has registered with it.
    #[error(
        "the scheduler at {url} has no executor, so nothing would run the query; start one with 'ldp cluster executor --scheduler {url}'"
    )]
    NoExecutor {
        /// The scheduler's URL.
        url: String,
    },
    /// The SQL, a table or the query's run (the SQL layer's errors and messages).
    #[error(transparent)]
    Sql(#[from] ldp_sql::Error),
    /// A scheduler or executor failed.
    #[error("the {role} stopped: {message}")]
    Server {
        /// `scheduler` or `executor`.
        role: &'static str,
        /// Ballista's message.
        message: String,
    },
    /// The async runtime could not start.
    #[error("cannot start the cluster runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

impl Error {
    /// The error's kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Url { .. } | Error::Settings(_) => ErrorKind::Usage,
            Error::Unreachable { .. } | Error::NoExecutor { .. } => ErrorKind::Unreachable,
            Error::Sql(_) => ErrorKind::Query,
            Error::Server { .. } | Error::Runtime(_) => ErrorKind::Server,
        }
    }

    /// The process exit code: always 1 (ldp's code for an error that is not a data gate).
    pub fn exit_code(&self) -> i32 {
        1
    }
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
