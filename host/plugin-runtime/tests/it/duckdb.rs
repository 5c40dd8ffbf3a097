//! The host's `ldp:plugin/duckdb` interface answers only for files inside the plugin's grants,
//! and only when the runtime was given an engine
//! (the DuckDB queries themselves are tested in `ldp-duckdb` and end to end in `ldp-cli`).

use crate::common::builtin;
use ldp_plugin_runtime::{ErrorKind, Grants, Sandbox};
use std::path::Path;

#[test]
fn a_duckdb_file_outside_the_grants_is_refused_before_duckdb_is_loaded() {
    let granted = tempfile::tempdir().unwrap();
    let outside = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data/rides.csv")
        .canonicalize()
        .unwrap();
    let sandbox = Sandbox {
        grants: Grants {
            read_dirs: vec![granted.path().to_path_buf()],
            ..Grants::default()
        },
        ..Sandbox::default()
    };
    let config = serde_json::json!({"name": "rides", "path": outside, "relation": "rides"});
    let plugin = builtin("duckdb");
    let error = plugin
        .open_source(&config.to_string(), &sandbox)
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config, "{error}");
    assert!(
        error
            .to_string()
            .contains("is outside the folders granted to the plugin"),
        "{error}"
    );
    // The same instance's runtime goes on: the next plugin call works.
    assert!(builtin("csv").info().name == "csv");
}

#[test]
fn without_an_engine_a_granted_duckdb_file_is_refused_with_a_config_error() {
    let granted = tempfile::tempdir().unwrap();
    let file = granted.path().join("shop.duckdb");
    std::fs::write(&file, b"not read").unwrap();
    let sandbox = Sandbox {
        grants: Grants {
            read_dirs: vec![granted.path().to_path_buf()],
            ..Grants::default()
        },
        ..Sandbox::default()
    };
    let config = serde_json::json!({"name": "orders", "path": file, "relation": "orders"});
    let error = builtin("duckdb")
        .open_source(&config.to_string(), &sandbox)
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config, "{error}");
    assert!(
        error
            .to_string()
            .contains("this host runs no DuckDB queries for plugins"),
        "{error}"
    );
}
