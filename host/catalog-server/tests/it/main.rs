//! Integration tests of `ldp-catalog-server`: the server started in-process on 127.0.0.1:0
//! over a temp SQLite catalog, driven by real clients (pyiceberg's `RestCatalog` through
//! `$LDP_PYTHON`, DuckDB's iceberg extension through `$LDP_DUCKDB_PYTHON`) and by raw HTTP for
//! exact statuses and error bodies.

mod common;
mod concurrency;
mod duckdb;
mod errors;
mod pyiceberg;
