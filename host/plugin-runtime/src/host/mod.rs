//! The host's side of each interface a plugin imports from `wit/plugin.wit`, one module per
//! interface. The generated traits live in [`crate::bindings`]; these modules implement them on
//! [`crate::sandbox::HostState`].

pub(crate) mod duckdb;
pub(crate) mod duckdb_write;
mod log;
mod types;

pub use duckdb::{DuckdbEngine, DuckdbLimits, DuckdbQuery, DuckdbTableWriter, HostCallError};
