//! Errors of orchestration: what stops a workflow, backfill or tick from starting. A task that
//! fails does not end up here: it is a [`crate::TaskResult`] with status `failed`.

/// What kind of failure an error is, for the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The workflow, a config it names, or the window is not valid (exit 1).
    Config,
    /// A file (ledger, lock, catalog) could not be read or written (exit 1).
    Io,
}

/// Why a workflow run, backfill or tick could not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The workflow or its window is not valid.
    #[error(transparent)]
    Config(#[from] ldp_config::ConfigError),
    /// The plan found problems: `workflow X is not valid, so no task ran:` and one line each.
    #[error("workflow {workflow} is not valid, so no task ran:\n{}", problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    Invalid {
        /// The workflow's id.
        workflow: String,
        /// The plan's errors.
        problems: Vec<String>,
    },
    /// The states of the windows could not be decided (a table's catalog cannot be read).
    #[error(transparent)]
    Pipeline(#[from] ldp_pipeline::Error),
    /// A file of the orchestration (ledger, lock) could not be used.
    #[error("{what} {}: {source}", path.display())]
    Io {
        /// `cannot write the ledger`.
        what: &'static str,
        /// The file.
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
            Error::Config(_) | Error::Invalid { .. } => ErrorKind::Config,
            Error::Pipeline(e) if e.kind() == ldp_pipeline::ErrorKind::Config => ErrorKind::Config,
            Error::Pipeline(_) | Error::Io { .. } => ErrorKind::Io,
        }
    }

    /// The Python exception name the Python tool reports for it (`ConfigError`, `OSError`).
    pub fn type_name(&self) -> &'static str {
        match self.kind() {
            ErrorKind::Config => "ConfigError",
            ErrorKind::Io => "OSError",
        }
    }
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
