//! The bug "table names and catalog identifiers escape the warehouse": a table name or a
//! catalog `identifier` that is a path (`/abs/x`, `a/b`, `..`) would have put the table, or the
//! catalog file `<warehouse_path>/<identifier>_catalog.db`, outside the warehouse or inside
//! another table's folder. Every command that resolves the table refuses it as a config error
//! (exit 1) naming the file, the key and the value, before anything is created: the config's
//! folder stays as it was and nothing appears at the path the name pointed to.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{ldp, rides_workdir, stderr, stdout};

fn config(name: &str, identifier: &str) -> String {
    serde_json::json!({"identifier": "rides", "metadata": {
        "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
        "target": {"name": name, "format": "ICEBERG",
                   "catalog": {"identifier": identifier, "warehouse_path": "warehouse"}}}})
    .to_string()
}

/// Every file and folder under `root`, relative to it.
fn listing(root: &Path) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            found.insert(path.strip_prefix(root).unwrap().to_path_buf());
        }
    }
    found
}

/// Runs `ldp run` on a config whose target is `name` in catalog `identifier` (`{outside}` in
/// either is replaced by a second temporary folder) and checks it is refused at `key` with
/// exit 1, naming the config file and the value, and that neither folder changed.
fn refused(name: &str, identifier: &str, key: &str) {
    let outside = tempfile::tempdir().unwrap();
    let fill = |text: &str| text.replace("{outside}", outside.path().to_str().unwrap());
    let (name, identifier) = (fill(name), fill(identifier));
    let value = if key.ends_with(".name") {
        &name
    } else {
        &identifier
    };
    let dir = rides_workdir(&config(&name, &identifier));
    let path = dir.path().join("rides.json");
    let before = listing(dir.path());
    let out = ldp(&["run", path.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{name} in {identifier}: {err}");
    let expected = format!("ldp: error: {}: {key}: '{value}' ", path.display());
    assert!(
        err.starts_with(&expected),
        "expected {expected:?}, got {err}"
    );
    assert!(err.contains("write a plain name such as"), "{err}");
    assert_eq!(listing(dir.path()), before, "{name} in {identifier}");
    assert!(listing(outside.path()).is_empty(), "{name} in {identifier}");

    let out = ldp(&["plan", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(&format!("{key}: '{value}' ")),
        "{}",
        stderr(&out)
    );
    for command in ["snapshots", "query"] {
        let mut args = vec![command, path.to_str().unwrap()];
        if command == "query" {
            args.push("SELECT 1");
        }
        let out = ldp(&args);
        assert_eq!(out.status.code(), Some(1), "{command}: {}", stderr(&out));
        assert!(stderr(&out).contains(key), "{command}: {}", stderr(&out));
    }
    assert_eq!(listing(dir.path()), before, "{name} in {identifier}");
    assert!(listing(outside.path()).is_empty(), "{name} in {identifier}");
}

#[test]
fn a_table_name_that_is_an_absolute_path_is_refused_before_anything_is_written() {
    refused("{outside}/rides", "nyc", "metadata.target.name");
}

#[test]
fn a_table_name_with_a_slash_is_refused_before_anything_is_written() {
    refused("a/b", "nyc", "metadata.target.name");
}

#[test]
fn a_table_name_that_is_dot_dot_is_refused_before_anything_is_written() {
    refused("..", "nyc", "metadata.target.name");
}

#[test]
fn a_catalog_identifier_with_a_slash_is_refused_before_anything_is_written() {
    refused("rides", "../nyc", "metadata.target.catalog.identifier");
}

#[test]
fn a_catalog_identifier_that_is_an_absolute_path_is_refused_before_anything_is_written() {
    refused(
        "rides",
        "{outside}/nyc",
        "metadata.target.catalog.identifier",
    );
}

/// `ldp catalog serve` serves the catalogs of the configs it is given: one whose identifier is a
/// path is refused before the server starts, and no catalog file is created.
#[test]
fn catalog_serve_refuses_an_identifier_that_is_a_path() {
    let outside = tempfile::tempdir().unwrap();
    let identifier = format!("{}/nyc", outside.path().display());
    let dir = rides_workdir(&config("rides", &identifier));
    let path = dir.path().join("rides.json");
    let before = listing(dir.path());
    let out = ldp(&[
        "catalog",
        "serve",
        path.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(&format!(
            "metadata.target.catalog.identifier: '{identifier}' is an absolute path"
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(listing(dir.path()), before);
    assert!(listing(outside.path()).is_empty());
}

/// A source Iceberg table is resolved by the same rules as a target.
#[test]
fn a_source_table_name_with_a_slash_is_refused_before_anything_is_written() {
    let text = serde_json::json!({"identifier": "copy", "metadata": {
        "source": {"name": "a/b", "format": "ICEBERG",
                   "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}},
        "target": {"name": "copy", "format": "ICEBERG",
                   "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}}}})
    .to_string();
    let dir = rides_workdir(&text);
    let path = dir.path().join("rides.json");
    let before = listing(dir.path());
    let out = ldp(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("metadata.source.name: 'a/b' holds the path separator '/'"),
        "{}",
        stderr(&out)
    );
    assert_eq!(listing(dir.path()), before);
}

/// Names the Python tool accepts that are safe keep working: `-`, `_`, digits, other scripts.
#[test]
fn plain_names_with_dashes_underscores_digits_and_accents_still_run() {
    let dir = rides_workdir(&config("rides-2024_v2", "café_nyc-1"));
    let path = dir.path().join("rides.json");
    let out = ldp(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(dir.path().join("warehouse/café_nyc-1_catalog.db").is_file());
    assert!(
        dir.path()
            .join("warehouse/café_nyc-1/rides-2024_v2/metadata")
            .is_dir()
    );
}
