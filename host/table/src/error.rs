//! Errors of the table layer: one enum, an [`ErrorKind`] for exit codes and retry decisions.

use std::path::PathBuf;

/// What kind of failure an error is; maps to exit codes and retry decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The table (or a file it names) does not exist.
    NotFound,
    /// The table already exists.
    AlreadyExists,
    /// Another writer moved the table first (compare-and-swap lost, or a commit's requirement no
    /// longer holds), or the catalog stayed locked: reload and try again.
    CommitConflict,
    /// A newer attempt of the same run fenced this one: it may not publish. Not retryable.
    Fenced,
    /// The input has no rows and the caller did not allow an empty write.
    EmptyInput,
    /// A batch does not fit the table's schema, or a schema cannot be stored in Iceberg.
    Schema,
    /// The data cannot be written the way asked: an upsert batch without its keys, with null
    /// or repeated keys, or without a column of the table. Fix the data or the config.
    Input,
    /// The config asks for something the data cannot give: a window column that is missing,
    /// not a date or timestamp column, or a date column with a window that does not start and
    /// end at local midnight (the Python tool's `ConfigError`, exit 1). Fix the config.
    Config,
    /// Something this layer does not do (yet): another storage scheme, delete files, ...
    Unsupported,
    /// A commit's updates or a create request are not valid for the table (the metadata
    /// builder refuses them: an unknown schema id, a snapshot that does not fit, ...). Sending
    /// the same request again fails again.
    InvalidRequest,
    /// A metadata, manifest or data file is unreadable or inconsistent.
    Corrupt,
    /// The catalog failed (other than a conflict).
    Catalog,
    /// A file-system operation failed.
    Io,
    /// Writing or reading Parquet failed.
    Parquet,
    /// The Iceberg library reported a failure.
    Iceberg,
}

impl ErrorKind {
    /// The process exit code (the Python tool's table: 1 for every runtime error; 3 is reserved
    /// for a failed data gate, which is not decided here).
    pub fn exit_code(self) -> i32 {
        1
    }

    /// Whether another attempt of the same work may succeed: only commit conflicts.
    pub fn is_retryable(self) -> bool {
        matches!(self, ErrorKind::CommitConflict)
    }
}

/// A table-layer error. Messages name the table (`ns.t`) and the file at fault.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The catalog failed; `table` is `ns.t` when known.
    #[error("{source}")]
    Catalog {
        /// The catalog's error (its message already names the catalog file and table).
        #[source]
        source: Box<ldp_catalog::Error>,
    },
    /// The compare-and-swap commit lost against another writer on every try.
    #[error(
        "CommitConflict: {operation} to {table} lost the commit race on every try, after {attempts} attempts; \
         another writer keeps committing to this table; run again"
    )]
    RetriesExhausted {
        /// `ns.t`.
        table: String,
        /// `direct append`, `overwrite`, ...
        operation: String,
        /// Tries used.
        attempts: u32,
        /// The last conflict.
        #[source]
        source: Box<Error>,
    },
    /// A requirement of a commit does not hold on the table's current metadata (another writer
    /// committed first): reload the table and try again.
    #[error("CommitConflict: a requirement of the commit to {table} does not hold: {message}")]
    RequirementFailed {
        /// `ns.t`.
        table: String,
        /// Which requirement failed, with the expected and the found value.
        message: String,
    },
    /// The updates of a commit, or a create request, cannot apply to the table.
    #[error("{table}: {message}")]
    InvalidRequest {
        /// `ns.t`.
        table: String,
        /// What the metadata builder refused.
        message: String,
    },
    /// The snapshot does not exist in the table.
    #[error("snapshot {snapshot_id} does not exist in Iceberg table {table}")]
    SnapshotNotFound {
        /// `ns.t`.
        table: String,
        /// The id asked for.
        snapshot_id: i64,
    },
    /// `--as-of` is older than every snapshot the table keeps.
    #[error(
        "Iceberg table {table} has no snapshot committed at or before {as_of}; its oldest snapshot was committed at {oldest}"
    )]
    NoSnapshotAsOf {
        /// `ns.t`.
        table: String,
        /// The time asked for, `YYYY-MM-DD HH:MM:SS.fff UTC`.
        as_of: String,
        /// The oldest snapshot's commit time, same format.
        oldest: String,
    },
    /// `--as-of` on a table without snapshots.
    #[error("Iceberg table {table} has no snapshots")]
    NoSnapshots {
        /// `ns.t`.
        table: String,
    },
    /// The input had no rows.
    #[error(
        "No data to write: the table has 0 rows (the source gave none, so nothing was written; check the source's path, window or filter)"
    )]
    EmptyInput,
    /// A batch or schema does not fit.
    #[error("{table}: {message}")]
    Schema {
        /// `ns.t` (or the table being created).
        table: String,
        /// What does not fit, naming the column.
        message: String,
    },
    /// Join columns of an upsert are not columns of the data.
    #[error(
        "join_cols {} are not columns of the data written to {table}",
        ldp_pyrepr::repr_list(columns)
    )]
    UpsertKeysMissing {
        /// `ns.t`.
        table: String,
        /// The join columns missing from the data.
        columns: Vec<String>,
    },
    /// A join column of an upsert has nulls.
    #[error(
        "join column {} has null values; upsert keys must be non-null",
        ldp_pyrepr::repr_str(column)
    )]
    UpsertNullKeys {
        /// `ns.t`.
        table: String,
        /// The join column.
        column: String,
    },
    /// Rows of an upsert batch share a key.
    #[error(
        "upsert data for {table} has {duplicates} duplicate rows on join_cols {}; keys must be unique",
        ldp_pyrepr::repr_list(join_cols)
    )]
    UpsertDuplicateKeys {
        /// `ns.t`.
        table: String,
        /// Rows minus distinct keys.
        duplicates: usize,
        /// The join columns.
        join_cols: Vec<String>,
    },
    /// An upsert batch lacks columns of the table.
    #[error(
        "upsert data for {table} is missing columns {} of the table; an upsert replaces whole rows, \
         so the batch needs every column (read the current rows and update them, or use mode 'append')",
        ldp_pyrepr::repr_list(columns)
    )]
    UpsertMissingColumns {
        /// `ns.t`.
        table: String,
        /// The table's columns missing from the batch.
        columns: Vec<String>,
    },
    /// `metadata.window.column` is not a column of the rows it selects.
    #[error(
        "metadata.window.column {} is not a column of {} (columns: {}){}",
        ldp_pyrepr::repr_str(column),
        rows.describe(),
        columns.join(", "),
        rows.hint()
    )]
    WindowColumnMissing {
        /// The window column.
        column: String,
        /// The columns there are.
        columns: Vec<String>,
        /// Which rows (the source, the data to write, the table).
        rows: crate::window::WindowRows,
    },
    /// `metadata.window.column` is not a date or timestamp column.
    #[error(
        "metadata.window.column {} must be a date or timestamp column, but it is {column_type}",
        ldp_pyrepr::repr_str(column)
    )]
    WindowColumnType {
        /// The window column.
        column: String,
        /// Its type as pyarrow names it (`int64`, `string`, ...).
        column_type: String,
    },
    /// A date window column with a window whose bounds are not at local midnight.
    #[error(
        "metadata.window.column {} is a date column, so a window must start and end at midnight in {time_zone}, got {start}/{end}",
        ldp_pyrepr::repr_str(column)
    )]
    WindowNotMidnight {
        /// The window column.
        column: String,
        /// The window's time zone (`Europe/Paris`; `UTC` for a zone without a name).
        time_zone: String,
        /// The start, as Python's `isoformat()` of the UTC instant.
        start: String,
        /// The end, same format.
        end: String,
    },
    /// Something unsupported.
    #[error("{table}: {message}")]
    Unsupported {
        /// `ns.t`.
        table: String,
        /// What and why.
        message: String,
    },
    /// A file that should be readable is not, or metadata is inconsistent.
    #[error("{table}: {message}")]
    Corrupt {
        /// `ns.t`.
        table: String,
        /// What is wrong, naming the file.
        message: String,
    },
    /// A file-system operation failed.
    #[error("{table}: cannot {action} {}: {source}", path.display())]
    Io {
        /// `ns.t`.
        table: String,
        /// `read`, `write`, `create`, ...
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// Parquet failed on a file.
    #[error("{table}: Parquet {action} failed for {path}: {source}")]
    Parquet {
        /// `ns.t`.
        table: String,
        /// `read`, `write`, ...
        action: &'static str,
        /// The file (URI or path).
        path: String,
        /// Parquet's error.
        #[source]
        source: Box<parquet::errors::ParquetError>,
    },
    /// A branch or tag operation found the table other than it requires (another writer
    /// published first, a branch moved): reload and decide again.
    #[error("CommitConflict: {operation} on {table}: {message}")]
    RefConflict {
        /// `ns.t`.
        table: String,
        /// `publish branch …`, `create branch …`, ...
        operation: String,
        /// What did not hold.
        message: String,
    },
    /// A newer attempt of this run fenced this one (its fence tag exists): this attempt may not
    /// stage or publish. Never retryable.
    #[error(
        "CommitConflict: this attempt of the run was fenced by a newer attempt (tag {tag} on {table}); \
         nothing was published by it"
    )]
    Fenced {
        /// `ns.t`.
        table: String,
        /// The fence tag.
        tag: String,
    },
    /// Maintenance cannot prove an operation is safe, or was asked for something it cannot do
    /// (an invalid `ldp.idempotency.horizon-days` table property, a negative age,
    /// `retain_last` 0), so it changed nothing (the Python tool's `MaintenanceError`).
    #[error("{message}")]
    Maintenance {
        /// `ns.t`.
        table: String,
        /// What is wrong, as the Python tool words it.
        message: String,
    },
    /// Snapshot expiry lost to concurrent commits on every try; nothing was expired.
    #[error(
        "snapshot expiry of {table} conflicted with concurrent commits {attempts} times; nothing was expired"
    )]
    ExpiryConflict {
        /// `ns.t`.
        table: String,
        /// Tries used.
        attempts: u32,
    },
    /// A file being compacted was removed by another writer (an overwrite or upsert) before
    /// the compaction committed; nothing was committed and its files are deleted.
    #[error(
        "another writer replaced {file} of {table} while it was being compacted; nothing was \
         committed: run the compaction again"
    )]
    CompactionConflict {
        /// `ns.t`.
        table: String,
        /// A compacted file no longer live.
        file: String,
    },
    /// The Iceberg library failed.
    #[error("{table}: {context}: {source}")]
    Iceberg {
        /// `ns.t`.
        table: String,
        /// What this layer was doing, naming the file.
        context: String,
        /// iceberg-rust's error.
        #[source]
        source: Box<iceberg::Error>,
    },
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Catalog { source } => match source.kind() {
                ldp_catalog::ErrorKind::NotFound => ErrorKind::NotFound,
                ldp_catalog::ErrorKind::AlreadyExists => ErrorKind::AlreadyExists,
                ldp_catalog::ErrorKind::CommitConflict | ldp_catalog::ErrorKind::Busy => {
                    ErrorKind::CommitConflict
                }
                _ => ErrorKind::Catalog,
            },
            Error::RetriesExhausted { .. }
            | Error::RequirementFailed { .. }
            | Error::RefConflict { .. }
            | Error::ExpiryConflict { .. }
            | Error::CompactionConflict { .. } => ErrorKind::CommitConflict,
            Error::Fenced { .. } => ErrorKind::Fenced,
            Error::SnapshotNotFound { .. }
            | Error::NoSnapshotAsOf { .. }
            | Error::NoSnapshots { .. } => ErrorKind::NotFound,
            Error::EmptyInput => ErrorKind::EmptyInput,
            Error::Schema { .. } => ErrorKind::Schema,
            Error::UpsertKeysMissing { .. }
            | Error::UpsertNullKeys { .. }
            | Error::UpsertDuplicateKeys { .. }
            | Error::UpsertMissingColumns { .. } => ErrorKind::Input,
            Error::WindowColumnMissing { .. }
            | Error::WindowColumnType { .. }
            | Error::WindowNotMidnight { .. }
            | Error::Maintenance { .. } => ErrorKind::Config,
            Error::Unsupported { .. } => ErrorKind::Unsupported,
            Error::InvalidRequest { .. } => ErrorKind::InvalidRequest,
            Error::Corrupt { .. } => ErrorKind::Corrupt,
            Error::Io { .. } => ErrorKind::Io,
            Error::Parquet { .. } => ErrorKind::Parquet,
            Error::Iceberg { .. } => ErrorKind::Iceberg,
        }
    }

    /// Whether another attempt may succeed: a lost compare-and-swap or a locked catalog.
    /// [`Error::RetriesExhausted`] is not: this layer already retried.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Catalog { source } => source.is_retryable(),
            Error::RefConflict { .. } | Error::RequirementFailed { .. } => true,
            _ => false,
        }
    }

    /// The process exit code (1).
    pub fn exit_code(&self) -> i32 {
        self.kind().exit_code()
    }

    pub(crate) fn iceberg(
        table: &str,
        context: impl Into<String>,
        source: iceberg::Error,
    ) -> Error {
        Error::Iceberg {
            table: table.to_string(),
            context: context.into(),
            source: Box::new(source),
        }
    }

    pub(crate) fn io(
        table: &str,
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Error {
        Error::Io {
            table: table.to_string(),
            action,
            path: path.into(),
            source,
        }
    }

    pub(crate) fn schema(table: &str, message: impl Into<String>) -> Error {
        Error::Schema {
            table: table.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn corrupt(table: &str, message: impl Into<String>) -> Error {
        Error::Corrupt {
            table: table.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn invalid_request(table: &str, message: impl Into<String>) -> Error {
        Error::InvalidRequest {
            table: table.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn unsupported(table: &str, message: impl Into<String>) -> Error {
        Error::Unsupported {
            table: table.to_string(),
            message: message.into(),
        }
    }
}

impl From<ldp_catalog::Error> for Error {
    fn from(source: ldp_catalog::Error) -> Error {
        Error::Catalog {
            source: Box::new(source),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_input_message_is_the_reference_one() {
        let error = Error::EmptyInput;
        assert_eq!(
            error.to_string(),
            "No data to write: the table has 0 rows (the source gave none, so nothing was written; check the source's path, window or filter)"
        );
        assert_eq!(error.kind(), ErrorKind::EmptyInput);
        assert_eq!(error.exit_code(), 1);
        assert!(!error.is_retryable());
    }
}
