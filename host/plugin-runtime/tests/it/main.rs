//! Integration tests of the plugin runtime with real components built by the workspace.

mod common;
mod csv;
mod duckdb;
mod hostile;
mod inspect;
mod transform;
