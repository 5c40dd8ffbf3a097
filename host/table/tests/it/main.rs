//! Integration tests of `ldp-table` on real SQLite catalogs, Parquet and Avro files.

mod apply;
mod common;
mod compact;
mod concurrency;
mod contract;
mod expire;
mod failures;
mod orphans;
mod pyiceberg;
mod table_commits;
mod upsert;
mod window;
mod writes;
