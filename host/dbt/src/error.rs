//! What can go wrong running a dbt project over the lake.

use std::path::PathBuf;

/// An error of `ldp dbt`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The project or its settings are not usable.
    #[error("{message}")]
    Project {
        /// What, where, and what to do.
        message: String,
    },
    /// The `dbt` executable could not be started.
    #[error(
        "cannot run dbt ({program}): {source}; ldp dbt runs your dbt: install it with `pip install dbt-core dbt-duckdb`, or set LDP_DBT to the dbt executable"
    )]
    DbtMissing {
        /// What was started.
        program: String,
        /// Why it did not start.
        #[source]
        source: std::io::Error,
    },
    /// A file of the project could not be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    File {
        /// `read`, `write`, `create`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// dbt's manifest or run results are not what dbt writes.
    #[error("{} is not a dbt artifact ldp can read: {message}", path.display())]
    Artifact {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A model to publish does not keep its gold contract: nothing was published.
    #[error(
        "model {model} is published to {table}, a gold table whose contract is not kept, so nothing was published: {}",
        reasons.join("; ")
    )]
    Contract {
        /// The model.
        model: String,
        /// `ns.t`.
        table: String,
        /// One line a reason.
        reasons: Vec<String>,
    },
    /// Copying a source table into the project's DuckDB file failed.
    #[error("registering the source tables in {}: {source}", file.display())]
    Register {
        /// The DuckDB file.
        file: PathBuf,
        /// DuckDB's error.
        #[source]
        source: ldp_duckdb::Error,
    },
    /// A config, table or publish failed.
    #[error(transparent)]
    Pipeline(#[from] ldp_pipeline::Error),
}

impl Error {
    /// The process exit code: 3 for a contract not kept or a publish a gate held back, else 1.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Contract { .. } => 3,
            Error::Pipeline(e) => e.exit_code(),
            _ => 1,
        }
    }

    pub(crate) fn file(
        action: &'static str,
        path: &std::path::Path,
        source: std::io::Error,
    ) -> Error {
        Error::File {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
