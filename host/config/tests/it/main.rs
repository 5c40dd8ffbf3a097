//! Integration tests of `ldp-config`: the Python tool's vectors, a folder of data-driven cases,
//! path resolution on real temporary folders, and workflow files against the Python tool.

mod cases;
mod exactly_once;
mod files;
mod paths;
mod vectors;
mod workflow;

use std::path::PathBuf;

/// A folder under `tests/`.
pub fn tests_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name)
}

/// A JSON file under `tests/`.
pub fn read_json(folder: &str, file: &str) -> serde_json::Value {
    let path = tests_dir(folder).join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
