//! The host's side of `ldp:plugin/duckdb`: one read-only DuckDB query per plugin instance,
//! answered with [`ldp_duckdb`] and streamed back as Arrow IPC messages.
//!
//! The plugin names the file; the host runs the query only when the file lies inside a folder
//! the sandbox grants, with the sandbox's memory limit as DuckDB's and its call time limit per
//! call (a watchdog interrupts DuckDB, which an epoch deadline cannot reach).

use std::path::{Path, PathBuf};

use ldp_duckdb::{ErrorKind as DuckKind, Query, QueryOptions};
use ldp_plugin_ipc::Encoder;

use crate::bindings::wit;
use crate::bindings::wit_duckdb;
use crate::limits::Sandbox;
use crate::sandbox::HostState;

/// The query of one instance, and what it may touch.
pub(crate) struct DuckdbState {
    read_dirs: Vec<PathBuf>,
    options: QueryOptions,
    open: Option<(Query, Encoder)>,
}

impl DuckdbState {
    pub(crate) fn new(sandbox: &Sandbox) -> DuckdbState {
        DuckdbState {
            read_dirs: sandbox.grants.read_dirs.clone(),
            options: QueryOptions {
                memory_limit: Some(sandbox.limits.max_memory_bytes),
                time_limit: Some(sandbox.limits.call_timeout),
                ..QueryOptions::default()
            },
            open: None,
        }
    }

    /// `path`, when it lies inside a granted folder (both resolved, so `..` and links do not
    /// lead out).
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

fn plugin_error(error: &ldp_duckdb::Error) -> wit::PluginError {
    let kind = match error.kind() {
        DuckKind::Config => wit::ErrorKind::Config,
        DuckKind::Io => wit::ErrorKind::Io,
        DuckKind::Limit => wit::ErrorKind::Limit,
        DuckKind::Internal => wit::ErrorKind::Internal,
    };
    wit::PluginError {
        kind,
        message: error.to_string(),
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
        let query =
            Query::open(&file, &sql, state.options.clone()).map_err(|e| plugin_error(&e))?;
        let (encoder, schema) = Encoder::new(query.schema()).map_err(|e| ipc_error(&e))?;
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
        match query.next_batch().map_err(|e| plugin_error(&e))? {
            None => Ok(None),
            Some(batch) => encoder.encode(&batch).map(Some).map_err(|e| ipc_error(&e)),
        }
    }
}
