//! Tests of the whole plugin: the data-driven cases of `tests/checks/`.

mod bench;
mod cases;
