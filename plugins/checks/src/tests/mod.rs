//! Tests of the whole plugin: its config, and the data-driven cases of `tests/checks/`.

mod bench;
mod cases;
mod config;
