//! The DUCKDB target: one table of a DuckDB file, appended to or replaced.
//!
//! DuckDB is C++ and cannot run in the sandbox, so this component hands the stream to the host
//! through the narrow `ldp:plugin/duckdb-write` interface (open one table of a file in the
//! folder the sink was granted, write batches, close) and passes the batches on untouched. What
//! stays here is the sink's contract: its config and its messages. The host writes into its
//! staged copy of the target file and moves it into place only after a clean close.
//!
//! The bindings are generated here rather than through the SDK: the SDK's sink world does not
//! import `duckdb-write`, and the batches need no decoding on the way through.

pub mod config;

use config::Config;

mod bindings {
    wit_bindgen::generate!({
        world: "duckdb-sink-plugin",
        path: "../../wit",
    });
}

use bindings::exports::ldp::plugin::sink::{Guest, SinkSummary};
use bindings::ldp::plugin::duckdb_write as host;
use bindings::ldp::plugin::types::{ErrorKind, PluginError, PluginInfo, PluginKind};
use std::cell::RefCell;

fn error(kind: ErrorKind, message: String) -> PluginError {
    PluginError { kind, message }
}

thread_local! {
    /// The open table's config and the bytes passed on so far.
    static OPEN: RefCell<Option<(Config, u64)>> = const { RefCell::new(None) };
}

/// The plugin.
struct DuckdbSink;

impl Guest for DuckdbSink {
    fn describe() -> PluginInfo {
        PluginInfo {
            name: "duckdb-sink".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            kind: PluginKind::Sink,
            description: "Writes a table of a DuckDB file (append or overwrite), through the host"
                .to_string(),
            config_schema: config::SCHEMA.to_string(),
        }
    }

    fn open_batches(config: String, input: Vec<u8>) -> Result<(), PluginError> {
        let config = Config::parse(&config).map_err(|m| error(ErrorKind::Config, m))?;
        host::open(&config.path, &config.table, config.replace, &input)
            .map_err(|e| explain(&config, e))?;
        OPEN.with(|open| *open.borrow_mut() = Some((config, 0)));
        Ok(())
    }

    fn write_batch(batch: Vec<u8>) -> Result<(), PluginError> {
        let len = batch.len() as u64;
        host::write(&batch).map_err(|e| {
            OPEN.with(|open| match &*open.borrow() {
                Some((config, _)) => explain(config, e),
                None => e,
            })
        })?;
        OPEN.with(|open| {
            if let Some((_, bytes)) = open.borrow_mut().as_mut() {
                *bytes += len;
            }
        });
        Ok(())
    }

    fn open_events(_config: String) -> Result<(), PluginError> {
        Err(error(
            ErrorKind::Config,
            "the DuckDB sink writes a file target's batches, not run events".to_string(),
        ))
    }

    fn write_event(_event: String) -> Result<(), PluginError> {
        Err(error(
            ErrorKind::Internal,
            "write-event was called on the DuckDB sink".to_string(),
        ))
    }

    fn close() -> Result<SinkSummary, PluginError> {
        let Some((config, bytes)) = OPEN.with(|open| open.borrow_mut().take()) else {
            return Err(error(
                ErrorKind::Internal,
                "close was called before open-batches".to_string(),
            ));
        };
        let rows = host::close().map_err(|e| explain(&config, e))?;
        let file = config
            .path
            .rsplit('/')
            .next()
            .unwrap_or(config.path.as_str())
            .to_string();
        Ok(SinkSummary {
            records: rows,
            bytes,
            files: vec![file],
        })
    }
}

/// The host's message with the table and file it was about.
fn explain(config: &Config, e: PluginError) -> PluginError {
    if e.kind == ErrorKind::Internal {
        return e;
    }
    let message = format!(
        "DuckDB table {} of {}: {}",
        config.table, config.path, e.message
    );
    error(e.kind, message)
}

bindings::export!(DuckdbSink with_types_in bindings);
