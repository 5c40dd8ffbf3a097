//! What can go wrong running a query over a DuckDB file.

use std::time::Duration;

/// The crate's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error of a DuckDB query.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No usable `libduckdb` (the message says where ldp looked and how to get one).
    #[error("{message}")]
    Library {
        /// What went wrong, and what to do.
        message: String,
    },
    /// The database file did not open (missing, not a DuckDB file, locked by a writer).
    #[error("cannot open the DuckDB file {path}: {message}")]
    Open {
        /// The file.
        path: String,
        /// DuckDB's first line.
        message: String,
    },
    /// The SQL is not exactly one read-only SELECT or WITH query.
    #[error("{message}")]
    Rejected {
        /// The guard's message (the Python tool's wording).
        message: String,
    },
    /// A table, view or schema the query names does not exist.
    #[error("{message}")]
    Catalog {
        /// DuckDB's first line.
        message: String,
    },
    /// The query did not run (parse, bind or run-time error).
    #[error("{message}")]
    Query {
        /// DuckDB's first line.
        message: String,
    },
    /// The query ran past its time limit and was interrupted.
    #[error("the DuckDB query ran longer than its time limit of {}s and was interrupted", limit.as_secs_f64())]
    TimedOut {
        /// The limit.
        limit: Duration,
    },
    /// A result chunk did not convert to Arrow.
    #[error("DuckDB's result did not convert to Arrow: {message}")]
    Arrow {
        /// What failed.
        message: String,
    },
}

/// What kind of error, for the plugin contract's error kinds and exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The config or the query is wrong (or the library is missing): fix and run again.
    Config,
    /// The file could not be read.
    Io,
    /// A limit was broken.
    Limit,
    /// A bug on one side of the boundary.
    Internal,
}

impl Error {
    /// The error's kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Library { .. }
            | Error::Rejected { .. }
            | Error::Catalog { .. }
            | Error::Query { .. } => ErrorKind::Config,
            Error::Open { .. } => ErrorKind::Io,
            Error::TimedOut { .. } => ErrorKind::Limit,
            Error::Arrow { .. } => ErrorKind::Internal,
        }
    }
}

/// The first line of a DuckDB error text (its messages go on with context lines and carets).
pub(crate) fn first_line(text: &str) -> String {
    let text = text.trim();
    text.lines()
        .next()
        .unwrap_or("unknown DuckDB error")
        .to_string()
}
