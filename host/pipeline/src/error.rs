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
    /// A quality check failed with `on_failure: fail`: the data must change (exit 3, never
    /// retried).
    Quality,
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
    /// A write mode other than `overwrite` for a file target, which is always replaced whole.
    /// Nothing was read or written.
    #[error(
        "target {target} is always overwritten; write mode {} only applies to Iceberg targets",
        ldp_config::repr_str(mode.as_str())
    )]
    FileTargetMode {
        /// The target as the Python tool names it: `CSV(name='out', path='/abs/out.csv')`.
        target: String,
        /// The mode asked for (`--mode`).
        mode: ldp_config::WriteMode,
    },
    /// A BigQuery source's credentials or query file are wrong, or its token could not be had
    /// (`transient`: the token endpoint did not answer, or answered with a server error).
    #[error("{message}")]
    BigQuery {
        /// Which file or endpoint, and what to do.
        message: String,
        /// Whether another attempt may succeed.
        transient: bool,
    },
    /// The source file is not there (yet): a workflow retries it, since a drop may land late.
    #[error("{message}")]
    SourceMissing {
        /// Which file, where in the config, and what to do.
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
    /// The source's schema names two columns alike: writing it would keep one and lose the
    /// other. Nothing was written.
    #[error(
        "{what}: columns {first} and {second} are both named '{name}'; every column needs a name \
         of its own, or one of them would be lost: {hint}"
    )]
    DuplicateColumn {
        /// `source rides (CSV /path/rides.csv)`.
        what: String,
        /// The name both columns have.
        name: String,
        /// The 1-based positions of the first two columns with that name.
        first: usize,
        /// See `first`.
        second: usize,
        /// What to do, for the source's format.
        hint: &'static str,
    },
    /// The DuckDB query of a source over `inputs` failed: it does not parse, is not one
    /// read-only query, names a table that is not an input, or an input could not be read.
    #[error("{what}: {source}")]
    Duckdb {
        /// `source revenue (DUCKDB over silver_orders.json)`.
        what: String,
        /// DuckDB's error (its own message for a table that is not an input).
        #[source]
        source: ldp_duckdb::Error,
    },
    /// A sink plugin (a file target's writer) failed.
    #[error("{what}: {source}")]
    Sink {
        /// `target out (CSV /path/out.csv)`.
        what: String,
        /// The plugin runtime's error.
        #[source]
        source: ldp_plugin_runtime::RuntimeError,
    },
    /// A transform plugin failed, broke a sandbox limit or gave batches that do not follow the
    /// schema it declared.
    #[error("{what}: {source}")]
    Transform {
        /// `metadata.transforms[1] (mask.wasm)`.
        what: String,
        /// The plugin runtime's error.
        #[source]
        source: ldp_plugin_runtime::RuntimeError,
    },
    /// The caller's own transform (outside the sandbox) failed.
    #[error("{what}: {source}")]
    External {
        /// `the transform on --pipe-transform`.
        what: String,
        /// Its error.
        #[source]
        source: crate::transform::ExternalError,
    },
    /// A plugin file named in the config cannot be used: missing, unreadable, its sha256 not the
    /// pinned one, or a grant that cannot be given. Nothing was read.
    #[error("{message}")]
    PluginFile {
        /// What, where in the config, and what to do.
        message: String,
    },
    /// A check plugin failed (not a failed check: the plugin itself).
    #[error("{what}: {source}")]
    Check {
        /// `built-in checks` or `quality check #2 (plugin checks/late.wasm)`.
        what: String,
        /// The plugin runtime's error.
        #[source]
        source: ldp_plugin_runtime::RuntimeError,
    },
    /// A gold table does not keep its contract (`metadata.docs`): nothing was written.
    #[error(
        "the contract of gold table {table} is not kept, so nothing was written: {}",
        reasons.join("; ")
    )]
    Contract {
        /// `ns.t`.
        table: String,
        /// One line a reason ([`ldp_config::docs::Contract::gate`]).
        reasons: Vec<String>,
    },
    /// Quality checks failed with `on_failure: fail`: nothing was written.
    #[error("{}", report.failure_message())]
    Quality {
        /// The whole report (passing checks too).
        report: crate::quality::QualityReport,
    },
    /// Object storage failed for an `s3://` source or file target: the URI or the
    /// environment cannot reach it, or a download or an upload failed.
    #[error("{what}: {source}")]
    Storage {
        /// `source rides (CSV)`, `target out (CSV)`.
        what: String,
        /// Whether it was the upload of a target (else the download of a source).
        upload: bool,
        /// The storage error (names the URI, never its credentials).
        #[source]
        source: Box<ldp_storage::Error>,
    },
    /// The catalog failed.
    #[error(transparent)]
    Catalog(#[from] ldp_catalog::Error),
    /// The table layer failed.
    #[error(transparent)]
    Table(#[from] ldp_table::Error),
    /// A REST catalog failed (unreachable, refused the token, rejected a request).
    #[error(transparent)]
    Rest(#[from] ldp_catalog_rest::Error),
    /// The run was interrupted (Ctrl-C) before it committed; nothing was written.
    #[error("interrupted")]
    Interrupted,
    /// The staged publish could not publish within its cycles or deadline: another writer
    /// kept moving `main`. Retryable as the next attempt of the run.
    #[error(
        "CommitConflict: could not publish {mode} to {table} for key '{key}' within {cycles} attempts / {deadline_s}s; \
         retry as attempt {next_attempt}"
    )]
    PublishExhausted {
        /// The write mode.
        mode: String,
        /// `ns.t`.
        table: String,
        /// The idempotency key.
        key: String,
        /// Cycles allowed.
        cycles: u32,
        /// Seconds allowed.
        deadline_s: u64,
        /// The attempt to run next.
        next_attempt: u32,
    },
    /// The key search could not prove the key absent (too deep, or history expired): the run
    /// fails closed rather than risk a second publish of the key.
    #[error("CommitSearchExhausted: {message}")]
    SearchExhausted {
        /// What stopped the search.
        message: String,
    },
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
            Error::Config(_)
            | Error::Unsupported { .. }
            | Error::FileTargetMode { .. }
            | Error::BigQuery {
                transient: false, ..
            }
            | Error::PluginFile { .. } => ErrorKind::Config,
            Error::BigQuery { .. } => ErrorKind::Source,
            Error::Source { .. }
            | Error::DuplicateColumn { .. }
            | Error::SourceMissing { .. }
            | Error::Check { .. }
            | Error::Duckdb { .. }
            | Error::Transform { .. }
            | Error::External { .. } => ErrorKind::Source,
            Error::Sink { .. } => ErrorKind::Write,
            Error::Storage { source, .. } if source.kind().is_config() => ErrorKind::Config,
            Error::Storage { upload: true, .. } => ErrorKind::Write,
            Error::Storage { .. } => ErrorKind::Source,
            Error::Quality { .. } | Error::Contract { .. } => ErrorKind::Quality,
            Error::Interrupted => ErrorKind::Interrupted,
            Error::Catalog(e) if e.kind() == ldp_catalog::ErrorKind::NotFound => {
                ErrorKind::NotFound
            }
            Error::Table(e) if e.kind() == ldp_table::ErrorKind::NotFound => ErrorKind::NotFound,
            Error::Rest(e) if e.kind() == ldp_catalog_rest::ErrorKind::NotFound => {
                ErrorKind::NotFound
            }
            Error::Catalog(_)
            | Error::Table(_)
            | Error::Rest(_)
            | Error::Lock { .. }
            | Error::PublishExhausted { .. }
            | Error::SearchExhausted { .. } => ErrorKind::Write,
        }
    }

    /// The process exit code: 3 when a data gate held the run back, 130 when interrupted,
    /// else 1 (or the plugin error's own code).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Source { source, .. }
            | Error::Check { source, .. }
            | Error::Transform { source, .. }
            | Error::Sink { source, .. } => source.exit_code(),
            Error::Quality { .. } | Error::Contract { .. } => 3,
            Error::Interrupted => 130,
            _ => 1,
        }
    }

    /// The Python exception name the Python tool reports for this error (`DataQualityError`,
    /// `ConfigError`, `SourceError`, `CommitConflict`, ...), as in `run.failed` events.
    pub fn type_name(&self) -> &'static str {
        crate::events::error_type(self)
    }

    /// Whether a workflow retries the task that failed with this error: a lost commit
    /// race, a table lock, and any I/O failure (a file that has not landed yet, a dropped
    /// connection); never a data gate, a bad config, a fenced attempt or a plugin that broke
    /// its limits.
    pub fn may_pass_on_retry(&self) -> bool {
        match self {
            Error::Source { source, .. }
            | Error::Check { source, .. }
            | Error::Transform { source, .. }
            | Error::Sink { source, .. } => source.is_retryable(),
            Error::Lock { .. } | Error::SourceMissing { .. } => true,
            Error::BigQuery { transient, .. } => *transient,
            Error::Storage { source, .. } => source.is_retryable(),
            Error::Table(e) if e.kind() == ldp_table::ErrorKind::Fenced => false,
            _ => self.is_retryable(),
        }
    }

    /// Whether another attempt may succeed (a lost commit race).
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Table(e) => e.is_retryable(),
            Error::Catalog(e) => e.is_retryable(),
            Error::Rest(e) => e.is_retryable(),
            Error::PublishExhausted { .. } => true,
            _ => false,
        }
    }
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
