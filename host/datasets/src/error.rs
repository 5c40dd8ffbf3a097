//! Errors of the datasets layer: one enum, an [`ErrorKind`] for exit codes.

use std::path::PathBuf;

/// What kind of failure an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is invalid: a dataset name, a row filter, a column list, a `--property`, an
    /// export format, or no warehouse to keep the manifests in (the Python tool's `ConfigError`).
    Config,
    /// A dataset, a version or a snapshot does not exist, or a version no longer reads the rows
    /// it pinned (the Python tool's `DatasetError`).
    Dataset,
    /// The table layer failed (catalog, metadata, commit).
    Table,
    /// The SQL layer failed while reading the rows.
    Sql,
    /// A file-system operation failed.
    Io,
    /// Writing Parquet failed.
    Parquet,
    /// Object storage failed for an `s3://` destination: a store unreachable, an upload
    /// refused.
    Storage,
}

impl ErrorKind {
    /// The process exit code: 1 for every kind.
    pub fn exit_code(self) -> i32 {
        1
    }
}

/// A datasets error. Messages name the dataset (`name@vN`), the table and the file at fault.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An invalid request (see [`ErrorKind::Config`]).
    #[error("{message}")]
    Config {
        /// What is wrong and what to do.
        message: String,
    },
    /// A missing dataset or version, or a version that no longer reads its rows.
    #[error("{message}")]
    Dataset {
        /// What is wrong, naming the dataset.
        message: String,
    },
    /// The table layer failed.
    #[error(transparent)]
    Table(#[from] ldp_table::Error),
    /// The catalog failed.
    #[error(transparent)]
    Catalog(#[from] ldp_catalog::Error),
    /// Reading the rows failed.
    #[error("{context}: {source}")]
    Sql {
        /// What was being read.
        context: String,
        /// The SQL layer's error.
        #[source]
        source: ldp_sql::Error,
    },
    /// A file-system operation failed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// `read`, `write`, `create`, ...
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// Writing a Parquet file failed.
    #[error("cannot write the Parquet file {}: {source}", path.display())]
    Parquet {
        /// The file.
        path: PathBuf,
        /// Parquet's error.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// Exporting to object storage failed: the URI cannot name an object, the environment
    /// does not configure a store, or the upload failed (nothing was uploaded).
    #[error("dataset {dataset}: {source}")]
    Storage {
        /// `name@vN`.
        dataset: String,
        /// The storage error (names the URI, never its credentials).
        #[source]
        source: Box<ldp_storage::Error>,
    },
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Config { .. } => ErrorKind::Config,
            Error::Dataset { .. } => ErrorKind::Dataset,
            Error::Table(_) | Error::Catalog(_) => ErrorKind::Table,
            Error::Sql { .. } => ErrorKind::Sql,
            Error::Io { .. } => ErrorKind::Io,
            Error::Parquet { .. } => ErrorKind::Parquet,
            Error::Storage { source, .. } if source.kind().is_config() => ErrorKind::Config,
            Error::Storage { .. } => ErrorKind::Storage,
        }
    }

    /// The process exit code (1).
    pub fn exit_code(&self) -> i32 {
        self.kind().exit_code()
    }

    pub(crate) fn config(message: impl Into<String>) -> Error {
        Error::Config {
            message: message.into(),
        }
    }

    pub(crate) fn dataset(message: impl Into<String>) -> Error {
        Error::Dataset {
            message: message.into(),
        }
    }

    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Error {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
