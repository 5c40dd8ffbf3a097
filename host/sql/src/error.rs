//! Errors of the SQL layer.

/// A query that could not run. Every variant maps to exit code 1.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading the table's metadata failed.
    #[error(transparent)]
    Table(#[from] ldp_table::Error),
    /// The SQL does not parse, names an unknown table or column, or is not a query.
    #[error("SQL error: {message}")]
    Sql {
        /// DataFusion's message.
        message: String,
    },
    /// The query failed while running (a file unreadable, a cast that failed, ...).
    #[error("query failed: {message}")]
    Execution {
        /// DataFusion's message.
        message: String,
    },
    /// The query ran longer than its time limit and was stopped.
    #[error("the query ran longer than its time limit of {seconds} s and was stopped")]
    Timeout {
        /// The limit.
        seconds: f64,
    },
    /// The SQL is not one read-only query ([`crate::check_read_only`]), or nests past the
    /// limits of [`crate::check_nesting`].
    #[error("{message}")]
    Rejected {
        /// Why (the Python tool's words for its own rules), and what to do.
        message: String,
    },
    /// The result could not be written where it goes (a closed pipe, a full disk); the query
    /// was stopped.
    #[error("cannot write the query's result: {source}")]
    Output {
        /// The write's error.
        #[source]
        source: std::io::Error,
    },
    /// The async runtime could not start.
    #[error("cannot start the query runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

impl Error {
    /// The process exit code: always 1.
    pub fn exit_code(&self) -> i32 {
        1
    }

    pub(crate) fn sql(e: datafusion::error::DataFusionError) -> Error {
        Error::Sql {
            message: strip_context(&e),
        }
    }

    pub(crate) fn execution(e: datafusion::error::DataFusionError) -> Error {
        Error::Execution {
            message: strip_context(&e),
        }
    }
}

/// DataFusion's message without its backtrace and with the innermost error first.
fn strip_context(e: &datafusion::error::DataFusionError) -> String {
    e.find_root().to_string()
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
