//! Schema evolution on write (`schema_evolution`, default true): a new column of the data is added
//! to the table in the same commit as the data, older snapshots keep their columns, pyiceberg reads
//! the evolved table; with `schema_evolution: false` the run fails naming the column and commits
//! nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::interop::python;
use super::{ldp, stderr, stdout};

fn config(evolution: bool) -> String {
    format!(
        r#"{{"apiVersion": "ldp/v1", "identifier": "rides", "metadata": {{
      "source": {{"name": "rides", "format": "CSV", "path": "data/rides.csv"}},
      "target": {{"name": "rides", "format": "ICEBERG", "schema_evolution": {evolution},
                 "catalog": {{"identifier": "nyc", "warehouse_path": "warehouse"}}}}}}}}"#
    )
}

/// The rides CSV with one more column, `name`, valued `f(i)` on line i.
fn with_column(name: &str, f: impl Fn(usize) -> String) -> String {
    let csv = std::fs::read_to_string(super::rides()).unwrap();
    csv.lines()
        .enumerate()
        .map(|(i, line)| {
            let extra = if i == 0 { format!("\"{name}\"") } else { f(i) };
            format!("{line},{extra}\n")
        })
        .collect()
}

fn run(dir: &Path) -> Output {
    ldp(&["run", dir.join("rides.json").to_str().unwrap()])
}

fn query(dir: &Path, sql: &str, extra: &[&str]) -> String {
    let config = dir.join("rides.json");
    let mut args = vec!["query", config.to_str().unwrap(), sql, "--json"];
    args.extend_from_slice(extra);
    let out = ldp(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out)
}

fn snapshot_ids(dir: &Path) -> Vec<i64> {
    let out = ldp(&[
        "snapshots",
        dir.join("rides.json").to_str().unwrap(),
        "--json",
    ]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    value["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["snapshot_id"].as_i64().unwrap())
        .collect()
}

const PYICEBERG: &str = r#"
import json, sys
from pyiceberg.catalog.sql import SqlCatalog
w = sys.argv[1]
t = SqlCatalog("nyc", uri=f"sqlite:///{w}/nyc_catalog.db", warehouse=f"file://{w}").load_table(("nyc", "rides"))
rows = t.scan().to_arrow()
print(json.dumps({"rows": rows.num_rows, "columns": rows.column_names,
                  "tips": sum(1 for v in rows["tip"].to_pylist() if v is not None),
                  "schema_id": t.schema().schema_id, "tip_id": t.schema().find_field("tip").field_id}))
"#;

#[test]
fn a_new_column_is_added_in_the_same_commit_and_pyiceberg_reads_it() {
    let dir = super::rides_workdir(&config(true));
    let d = dir.path();
    assert_eq!(run(d).status.code(), Some(0));

    std::fs::write(
        d.join("data/rides.csv"),
        with_column("tip", |i| format!("{}.5", i % 4)),
    )
    .unwrap();
    let out = run(d);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ids = snapshot_ids(d);
    assert_eq!(ids.len(), 2, "one commit for the data and the new column");
    let now = query(
        d,
        "SELECT count(*) AS n, count(tip) AS tips FROM rides",
        &[],
    );
    assert!(
        now.contains("\"n\": 40") && now.contains("\"tips\": 20"),
        "{now}"
    );
    // The first snapshot keeps the columns it was written with.
    let first = ids[0].to_string();
    let then = query(d, "SELECT * FROM rides LIMIT 1", &["--snapshot", &first]);
    assert!(!then.contains("tip"), "{then}");

    let out = Command::new(python())
        .args(["-c", PYICEBERG, d.join("warehouse").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(seen["rows"], 40);
    assert_eq!(seen["tips"], 20);
    assert_eq!(seen["schema_id"], 1);
    assert_eq!(seen["tip_id"], 6, "the new field id follows last-column-id");
    assert_eq!(
        seen["columns"],
        serde_json::json!(["ride_id", "pickup_ts", "city", "distance_km", "fare", "tip"])
    );
}

#[test]
fn without_schema_evolution_a_new_column_fails_the_run_and_names_it() {
    let dir = super::rides_workdir(&config(false));
    let d = dir.path();
    assert_eq!(run(d).status.code(), Some(0));
    let files = data_files(&d.join("warehouse/nyc/rides/data"));

    std::fs::write(
        d.join("data/rides.csv"),
        with_column("driver", |i| format!("\"d{i}\"")),
    )
    .unwrap();
    let out = run(d);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("the data has column(s) 'driver' that the table lacks"),
        "{}",
        stderr(&out)
    );
    assert_eq!(snapshot_ids(d).len(), 1);
    assert_eq!(data_files(&d.join("warehouse/nyc/rides/data")), files);
}

fn data_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    files
}
