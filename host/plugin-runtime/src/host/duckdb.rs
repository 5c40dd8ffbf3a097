//! `ldp:plugin/duckdb`: one read-only DuckDB query per plugin instance, streamed back as Arrow
//! IPC messages.
//!
//! The runtime owns the sandbox's rules; the query itself is run by a [`DuckdbEngine`] that
//! whoever builds the [`crate::Runtime`] passes in ([`crate::RuntimeOptions::duckdb`]), so the
//! runtime does not link DuckDB. The rules:
//!
//! - the plugin names the file; the host runs the query only when the file lies inside a folder
//!   the sandbox grants (both paths resolved, so `..` and links do not lead out);
//! - the engine gets the sandbox's memory limit as its own, and the call time limit per call
//!   (an epoch deadline cannot interrupt native code, so the engine must);
//! - without an engine, a query fails with a config error that says so.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_plugin_ipc::Encoder;

use crate::ErrorKind;
use crate::bindings::wit;
use crate::bindings::wit_duckdb;
use crate::limits::Sandbox;
use crate::sandbox::HostState;

/// Runs DuckDB queries for plugins of the `duckdb-source-plugin` world.
pub trait DuckdbEngine: Send + Sync {
    /// Opens one read-only query over the DuckDB file `file` (already checked against the
    /// sandbox's grants) within `limits`.
    ///
    /// # Errors
    ///
    /// A [`HostCallError`] the plugin receives as its call's error.
    fn open(
        &self,
        file: &Path,
        sql: &str,
        limits: DuckdbLimits,
    ) -> Result<Box<dyn DuckdbQuery>, HostCallError>;

    /// Opens `table` of the DuckDB file `file` (its folder already checked against the
    /// sandbox's write grant) for `schema`'s batches: `replace` replaces a table of that name,
    /// otherwise the batches are appended to it.
    ///
    /// # Errors
    ///
    /// A [`HostCallError`] the plugin receives as its call's error.
    fn write_table(
        &self,
        file: &Path,
        table: &str,
        replace: bool,
        schema: SchemaRef,
        limits: DuckdbLimits,
    ) -> Result<Box<dyn DuckdbTableWriter>, HostCallError>;
}

/// A table being written for a plugin of the `duckdb-sink-plugin` world.
pub trait DuckdbTableWriter: Send {
    /// Appends one batch.
    ///
    /// # Errors
    ///
    /// A [`HostCallError`] the plugin receives as its call's error.
    fn write(&mut self, batch: RecordBatch) -> Result<(), HostCallError>;

    /// Finishes the table and closes the file; returns the rows written.
    ///
    /// # Errors
    ///
    /// A [`HostCallError`] the plugin receives as its call's error.
    fn close(self: Box<Self>) -> Result<u64, HostCallError>;
}

/// An open query: its schema, then its batches.
pub trait DuckdbQuery: Send {
    /// The result's schema.
    fn schema(&self) -> SchemaRef;

    /// The next batch; `None` at the end.
    ///
    /// # Errors
    ///
    /// A [`HostCallError`] the plugin receives as its call's error.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, HostCallError>;
}

/// The bounds of one query: the instance's sandbox limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DuckdbLimits {
    /// DuckDB's memory limit, in bytes.
    pub memory_bytes: u64,
    /// The longest one call (open, or one batch) may take.
    pub call_time: Duration,
}

impl DuckdbLimits {
    /// The limits of an instance in `sandbox`: its memory limit for DuckDB, its call time limit.
    pub(crate) fn of(sandbox: &Sandbox) -> DuckdbLimits {
        DuckdbLimits {
            memory_bytes: sandbox.limits.max_memory_bytes,
            call_time: sandbox.limits.call_timeout,
        }
    }
}

/// An error a host interface returns to the plugin that called it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HostCallError {
    /// What kind of failure (the plugin sees it as the error's kind).
    pub kind: ErrorKind,
    /// What went wrong, for the user.
    pub message: String,
}

/// The query of one instance, and what it may touch.
pub(crate) struct DuckdbState {
    read_dirs: Vec<PathBuf>,
    limits: DuckdbLimits,
    engine: Option<Arc<dyn DuckdbEngine>>,
    open: Option<(Box<dyn DuckdbQuery>, Encoder)>,
}

impl DuckdbState {
    pub(crate) fn new(sandbox: &Sandbox, engine: Option<Arc<dyn DuckdbEngine>>) -> DuckdbState {
        DuckdbState {
            read_dirs: sandbox.grants.read_dirs.clone(),
            limits: DuckdbLimits::of(sandbox),
            engine,
            open: None,
        }
    }

    /// `path`, when it lies inside a granted folder.
    fn granted(&self, path: &str) -> Result<PathBuf, wit::PluginError> {
        let refused = |why: &str| wit::PluginError {
            kind: wit::ErrorKind::Config,
            message: format!("the DuckDB file {path} {why}"),
        };
        let file = Path::new(path)
            .canonicalize()
            .map_err(|e| refused(&format!("cannot be opened: {e}")))?;
        let inside = self
            .read_dirs
            .iter()
            .any(|dir| dir.canonicalize().is_ok_and(|dir| file.starts_with(&dir)));
        if !inside {
            return Err(refused("is outside the folders granted to the plugin"));
        }
        Ok(file)
    }
}

pub(crate) fn plugin_error(error: HostCallError) -> wit::PluginError {
    let kind = match error.kind {
        ErrorKind::Config | ErrorKind::NotAPlugin => wit::ErrorKind::Config,
        ErrorKind::Data => wit::ErrorKind::Data,
        ErrorKind::Io => wit::ErrorKind::Io,
        ErrorKind::Limit => wit::ErrorKind::Limit,
        ErrorKind::Internal => wit::ErrorKind::Internal,
    };
    wit::PluginError {
        kind,
        message: error.message,
    }
}

fn ipc_error(e: &arrow_schema::ArrowError) -> wit::PluginError {
    wit::PluginError {
        kind: wit::ErrorKind::Internal,
        message: format!("cannot encode DuckDB's result as Arrow IPC: {e}"),
    }
}

impl wit_duckdb::Host for HostState {
    fn query(&mut self, path: String, sql: String) -> Result<Vec<u8>, wit::PluginError> {
        let state = self.duckdb_mut();
        state.open = None;
        let file = state.granted(&path)?;
        let Some(engine) = &state.engine else {
            return Err(wit::PluginError {
                kind: wit::ErrorKind::Config,
                message: "this host runs no DuckDB queries for plugins".to_string(),
            });
        };
        let query = engine
            .open(&file, &sql, state.limits)
            .map_err(plugin_error)?;
        let (encoder, schema) = Encoder::new(&query.schema()).map_err(|e| ipc_error(&e))?;
        state.open = Some((query, encoder));
        Ok(schema)
    }

    fn next(&mut self) -> Result<Option<Vec<u8>>, wit::PluginError> {
        let Some((query, encoder)) = self.duckdb_mut().open.as_mut() else {
            return Err(wit::PluginError {
                kind: wit::ErrorKind::Internal,
                message: "duckdb next was called before a query".to_string(),
            });
        };
        match query.next_batch().map_err(plugin_error)? {
            None => Ok(None),
            Some(batch) => encoder.encode(&batch).map(Some).map_err(|e| ipc_error(&e)),
        }
    }
}
