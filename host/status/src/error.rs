//! The errors of gathering a table's status: each wraps the error of the layer that failed,
//! which stays in the error's chain (so a caller still finds its exit code and kind there).

/// A result of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A config or its target could not be used, or a folder could not be listed.
    #[error("{0}")]
    Pipeline(#[from] ldp_pipeline::Error),
    /// A catalog could not be read.
    #[error("{0}")]
    Catalog(#[from] ldp_catalog::Error),
    /// A table's metadata or files could not be read.
    #[error("{0}")]
    Table(#[from] ldp_table::Error),
    /// A run events file or `_ldp.runs` could not be read.
    #[error("{0}")]
    Events(#[from] ldp_events::EventsError),
}

/// The kind of an [`Error`], for exit codes and HTTP statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The config is not usable.
    Config,
    /// A table, catalog or file does not exist.
    NotFound,
    /// Anything else: storage, a corrupt file.
    Read,
}

impl Error {
    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Pipeline(e) => match e.kind() {
                ldp_pipeline::ErrorKind::Config => ErrorKind::Config,
                ldp_pipeline::ErrorKind::NotFound => ErrorKind::NotFound,
                _ => ErrorKind::Read,
            },
            Error::Catalog(e) if e.kind() == ldp_catalog::ErrorKind::NotFound => {
                ErrorKind::NotFound
            }
            Error::Table(e) if e.kind() == ldp_table::ErrorKind::NotFound => ErrorKind::NotFound,
            _ => ErrorKind::Read,
        }
    }

    /// Whether trying again may succeed (a catalog busy with a writer).
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Pipeline(e) => e.is_retryable(),
            Error::Catalog(e) => e.is_retryable(),
            Error::Table(e) => e.is_retryable(),
            Error::Events(_) => false,
        }
    }
}
