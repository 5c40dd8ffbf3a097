//! The ldp plugin runtime: loads WebAssembly components that implement the `ldp:plugin@0.1.0`
//! contract (`wit/plugin.wit`) and runs them in a sandbox, moving Arrow batches across the
//! boundary as Arrow IPC.
//!
//! ```text
//! Runtime ──load_file / load_bytes──► Plugin (compiled once, cached on disk by sha256)
//!    Plugin ──open_source──► SourceStream      schema(), next_batch()
//!    Plugin ──open_transform► TransformStream  push(batch) -> batches, flush()
//!    Plugin ──open_check───► CheckStream       push(batch), finish() -> verdicts
//!    Plugin ──open_*_sink──► SinkStream        write_batch / write_event, close() -> summary
//! ```
//!
//! Each stream runs in its own instance (its own linear memory) inside a [`Sandbox`]: no
//! environment variables, no network, only the granted folders, bounded memory, a time limit per
//! call (an epoch deadline) and capped stdout/stderr/log output. A plugin that breaks a limit,
//! traps or breaks the contract fails that stream with a [`RuntimeError`] naming the plugin; the
//! host and every other instance go on.
//!
//! The host's side of the interfaces plugins import lives in `host/`, one module per interface.
//! DuckDB queries (`ldp:plugin/duckdb`) and tables (`ldp:plugin/duckdb-write`) are answered by a
//! [`DuckdbEngine`] passed in [`RuntimeOptions`]: the runtime itself does not link DuckDB.
//!
//! Compiled code is cached in [`default_cache_dir`], keyed by the component's sha256, the
//! wasmtime version and the engine's settings.

mod bindings;
mod cache;
mod check;
mod direct;
mod error;
mod host;
mod inspect;
mod instance;
mod ipc;
mod limits;
mod output;
mod plugin;
mod runtime;
mod sandbox;
mod sink;
mod source;
mod transform;

pub use cache::{default_cache_dir, sha256_hex, wasmtime_version};
pub use check::{CheckContext, CheckResult, CheckStream};
pub use error::{ErrorKind, Limit, MAX_PLUGIN_TEXT_BYTES, Result, RuntimeError};
pub use host::{DuckdbEngine, DuckdbLimits, DuckdbQuery, DuckdbTableWriter, HostCallError};
pub use inspect::{FileFormat, Inspection, file_format};
pub use limits::{Grants, Limits, Sandbox};
pub use plugin::{Plugin, PluginInfo, PluginKind};
pub use runtime::{EPOCH_TICK, Runtime, RuntimeOptions};
pub use sink::{SinkStream, SinkSummary};
pub use source::SourceStream;
pub use transform::TransformStream;
