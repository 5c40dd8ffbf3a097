//! `ldp:plugin/duckdb-write`: one table of a DuckDB file per plugin instance, written from the
//! Arrow IPC messages the plugin passes on.
//!
//! The runtime owns the sandbox's rules; the table is written by the [`DuckdbEngine`] whoever
//! builds the [`crate::Runtime`] passes in. The rules:
//!
//! - the plugin names the file; the host writes only a file inside the folder the sandbox grants
//!   for writing (the file's folder resolved, so `..` and links do not lead out);
//! - the engine gets the sandbox's memory limit as its own;
//! - every batch is validated as any batch a plugin sends;
//! - without an engine, `open` fails with a config error that says so.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ldp_plugin_ipc::{Decoder, Validation};

use crate::bindings::wit;
use crate::bindings::wit_duckdb_write;
use crate::host::duckdb::{DuckdbEngine, DuckdbLimits, DuckdbTableWriter, plugin_error};
use crate::limits::Sandbox;
use crate::sandbox::HostState;

/// The table of one instance, and where it may be written.
pub(crate) struct DuckdbWriteState {
    write_dir: Option<PathBuf>,
    limits: DuckdbLimits,
    engine: Option<Arc<dyn DuckdbEngine>>,
    open: Option<(Box<dyn DuckdbTableWriter>, Decoder)>,
}

impl DuckdbWriteState {
    pub(crate) fn new(
        sandbox: &Sandbox,
        engine: Option<Arc<dyn DuckdbEngine>>,
    ) -> DuckdbWriteState {
        DuckdbWriteState {
            write_dir: sandbox.grants.write_dir.clone(),
            limits: DuckdbLimits::of(sandbox),
            engine,
            open: None,
        }
    }

    /// `path`, when its folder is the granted one or lies inside it.
    fn granted(&self, path: &str) -> Result<PathBuf, wit::PluginError> {
        let refused = |why: &str| config_error(format!("the DuckDB file {path} {why}"));
        let file = Path::new(path);
        let (Some(folder), Some(name)) = (file.parent(), file.file_name()) else {
            return Err(refused("names no file"));
        };
        let folder = folder
            .canonicalize()
            .map_err(|e| refused(&format!("cannot be written: {e}")))?;
        let inside = self
            .write_dir
            .as_ref()
            .is_some_and(|dir| dir.canonicalize().is_ok_and(|dir| folder.starts_with(&dir)));
        if !inside {
            return Err(refused("is outside the folder granted to the plugin"));
        }
        Ok(folder.join(name))
    }
}

fn config_error(message: String) -> wit::PluginError {
    wit::PluginError {
        kind: wit::ErrorKind::Config,
        message,
    }
}

fn contract_error(message: String) -> wit::PluginError {
    wit::PluginError {
        kind: wit::ErrorKind::Internal,
        message,
    }
}

impl wit_duckdb_write::Host for HostState {
    fn open(
        &mut self,
        path: String,
        table: String,
        replace: bool,
        input: Vec<u8>,
    ) -> Result<(), wit::PluginError> {
        let state = self.duckdb_write_mut();
        if state.open.is_some() {
            return Err(contract_error(
                "duckdb-write open was called twice; an instance writes one table".into(),
            ));
        }
        let file = state.granted(&path)?;
        let Some(engine) = &state.engine else {
            return Err(config_error(
                "this host writes no DuckDB tables for plugins".into(),
            ));
        };
        let decoder = Decoder::new(input, Validation::Full)
            .map_err(|e| contract_error(format!("the stream's schema is not Arrow IPC: {e}")))?;
        let writer = engine
            .write_table(
                &file,
                &table,
                replace,
                decoder.schema().clone(),
                state.limits,
            )
            .map_err(plugin_error)?;
        state.open = Some((writer, decoder));
        Ok(())
    }

    fn write(&mut self, batch: Vec<u8>) -> Result<(), wit::PluginError> {
        let Some((writer, decoder)) = self.duckdb_write_mut().open.as_mut() else {
            return Err(contract_error(
                "duckdb-write write was called before open".into(),
            ));
        };
        let batch =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decoder.decode(batch)))
                .unwrap_or_else(|_| {
                    Err(arrow_schema::ArrowError::IpcError(
                        "a batch the Arrow IPC decoder cannot read".into(),
                    ))
                })
                .map_err(|e| contract_error(format!("a batch is not valid Arrow IPC: {e}")))?;
        writer.write(batch).map_err(plugin_error)
    }

    fn close(&mut self) -> Result<u64, wit::PluginError> {
        let Some((writer, _)) = self.duckdb_write_mut().open.take() else {
            return Err(contract_error(
                "duckdb-write close was called before open".into(),
            ));
        };
        writer.close().map_err(plugin_error)
    }
}
