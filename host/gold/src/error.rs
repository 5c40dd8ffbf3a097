//! What can go wrong building or releasing gold tables.

use std::path::PathBuf;

/// What kind of failure an error is, for exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The folder or a config in it is wrong (a cycle, tables in two namespaces): fix it.
    Config,
    /// A release or the table it names is not there.
    NotFound,
    /// Reading or writing a release file, or a table, failed.
    Io,
}

/// An error of `ldp gold build` or `ldp gold releases` (a table that a gate blocks is not one:
/// the build reports it).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The inputs of the gold configs go round in a circle.
    #[error(
        "the gold configs of {folder} read each other in a cycle: {}; nothing was built",
        cycle.join(" -> ")
    )]
    Cycle {
        /// The folder.
        folder: PathBuf,
        /// The config files of the cycle, the first again at the end.
        cycle: Vec<String>,
    },
    /// The folder holds no gold config.
    #[error(
        "{} holds no gold config (a dataset config whose metadata.docs.layer is 'gold'); docs/gold.md shows one",
        folder.display()
    )]
    NoGold {
        /// The folder.
        folder: PathBuf,
    },
    /// The gold tables of a folder are not in one namespace of one local warehouse, so no
    /// release can hold them.
    #[error("{message}")]
    ReleaseScope {
        /// Which tables are where, and what to do.
        message: String,
    },
    /// No release of that name.
    #[error("{message}")]
    NoRelease {
        /// Which release, where, and which there are.
        message: String,
    },
    /// A release file is not a release.
    #[error("the release file {} is not valid: {message}", path.display())]
    BadRelease {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A file of the warehouse could not be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    File {
        /// `read`, `write`, `list`.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A config, a table or a catalog failed.
    #[error(transparent)]
    Pipeline(#[from] ldp_pipeline::Error),
    /// Pinning a released snapshot failed.
    #[error(transparent)]
    Dataset(#[from] ldp_datasets::Error),
}

impl Error {
    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Cycle { .. } | Error::ReleaseScope { .. } | Error::NoGold { .. } => {
                ErrorKind::Config
            }
            Error::NoRelease { .. } => ErrorKind::NotFound,
            Error::BadRelease { .. } | Error::File { .. } | Error::Dataset(_) => ErrorKind::Io,
            Error::Pipeline(e) => match e.kind() {
                ldp_pipeline::ErrorKind::Config => ErrorKind::Config,
                ldp_pipeline::ErrorKind::NotFound => ErrorKind::NotFound,
                _ => ErrorKind::Io,
            },
        }
    }

    /// The process exit code: 1 (a gate that blocks a table is a build outcome with exit 3,
    /// not an error).
    pub fn exit_code(&self) -> i32 {
        match self {
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
