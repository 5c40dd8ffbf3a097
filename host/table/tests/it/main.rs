//! Integration tests of `ldp-table` on real SQLite catalogs, Parquet and Avro files.

mod apply;
mod common;
mod concurrency;
mod expire;
mod failures;
mod pyiceberg;
mod table_commits;
mod upsert;
mod window;
mod writes;
