//! Errors of a pipeline run, with the exit code each maps to.

/// What kind of failure an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The config is invalid, or asks for something this build does not run.
    Config,
    /// The source could not be read (missing file, malformed row, plugin failure).
    Source,
    /// Writing or committing failed.
    Write,
    /// The catalog or table does not exist (read-only commands).
    NotFound,
    /// Ctrl-C.
    Interrupted,
}

/// A failed run. The message names the file, table, row or key at fault.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The config file is missing, not JSON or invalid.
    #[error(transparent)]
    Config(#[from] ldp_config::ConfigError),
    /// The config names something this build cannot run (a route, a catalog type).
    #[error("{message}")]
    Unsupported {
        /// What, and what to do instead.
        message: String,
    },
    /// The source plugin failed.
    #[error("{what}: {source}")]
    Source {
        /// `source rides (CSV /path/rides.csv)`.
        what: String,
        /// The plugin runtime's error (names the plugin, file, line and column).
        #[source]
        source: ldp_plugin_runtime::RuntimeError,
    },
    /// The catalog failed.
    #[error(transparent)]
    Catalog(#[from] ldp_catalog::Error),
    /// The table layer failed.
    #[error(transparent)]
    Table(#[from] ldp_table::Error),
    /// The run was interrupted (Ctrl-C) before it committed; nothing was written.
    #[error("interrupted")]
    Interrupted,
    /// The table's write lock could not be taken.
    #[error("cannot lock {table} for writing ({}): {source}", path.display())]
    Lock {
        /// `ns.t`.
        table: String,
        /// The lock file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Config(_) | Error::Unsupported { .. } => ErrorKind::Config,
            Error::Source { .. } => ErrorKind::Source,
            Error::Interrupted => ErrorKind::Interrupted,
            Error::Catalog(e) if e.kind() == ldp_catalog::ErrorKind::NotFound => {
                ErrorKind::NotFound
            }
            Error::Table(e) if e.kind() == ldp_table::ErrorKind::NotFound => ErrorKind::NotFound,
            Error::Catalog(_) | Error::Table(_) | Error::Lock { .. } => ErrorKind::Write,
        }
    }

    /// The process exit code: 130 when interrupted, else 1 (3, the data gate, is decided by
    /// the quality checks).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Source { source, .. } => source.exit_code(),
            Error::Interrupted => 130,
            _ => 1,
        }
    }

    /// Whether another attempt may succeed (a lost commit race).
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Table(e) => e.is_retryable(),
            Error::Catalog(e) => e.is_retryable(),
            _ => false,
        }
    }
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
