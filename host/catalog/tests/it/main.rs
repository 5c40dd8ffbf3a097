//! Integration tests of `ldp-catalog` on real SQLite files.

mod common;
mod concurrency;
mod files;
mod namespaces;
mod tables;
