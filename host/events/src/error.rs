//! The crate's error types: [`EventsError`] for reading and converting events, [`SinkError`]
//! for a sink that could not record one.

use std::path::PathBuf;

/// What can go wrong reading events back or turning them into rows. Every variant is an
/// ordinary error: exit code 1.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EventsError {
    /// A JSON text is not a run event (a required key is missing, a value has the wrong type).
    #[error("not a run event: {message}")]
    Invalid {
        /// What is wrong, e.g. `run event is missing ['ts']`.
        message: String,
    },
    /// An events file could not be read.
    #[error("could not read events file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Arrow refused a batch of system-table rows (a bug: the columns follow the schema).
    #[error("could not build the rows of {table}: {source}")]
    Arrow {
        /// `_ldp.runs` or `_ldp.quality_results`.
        table: &'static str,
        /// Why.
        #[source]
        source: arrow_schema::ArrowError,
    },
    /// A batch read from `_ldp.runs` lacks a column or has one of an unexpected type.
    #[error("{table} has no usable column '{column}': {message}")]
    Column {
        /// The table read.
        table: &'static str,
        /// The column.
        column: &'static str,
        /// What is wrong with it.
        message: String,
    },
}

impl EventsError {
    /// The process exit code for this error: 1 for every variant.
    pub fn exit_code(&self) -> i32 {
        1
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid {
            message: message.into(),
        }
    }
}

/// Why a sink could not record an event or close. A run never fails because of one: the
/// emitter logs it as a warning.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SinkError {
    /// Writing a file failed.
    #[error("could not write {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Any other failure (a plugin's error, a catalog commit), as text.
    #[error("{message}")]
    Failed {
        /// What went wrong.
        message: String,
    },
}

impl SinkError {
    /// A failure described by `message`.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::Failed {
            message: message.into(),
        }
    }
}
