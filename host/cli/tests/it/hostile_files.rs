//! The hostile suite, with third-party plugin files named in a config and run by
//! `ldp run`: a source plugin that reads `/etc/passwd`, one that loops forever and one that
//! allocates without bound are each stopped with a clear error naming the config key, nothing is
//! written, and the next run works. (The same plugins are run by the runtime alone in
//! `host/plugin-runtime/tests/it/hostile.rs`; a changed hash and a broken schema are in
//! `transforms.rs`, a host that was not granted in `network.rs`, agent JavaScript in
//! `agent_transforms.rs`.)

use std::path::Path;

use super::{ldp, rides_workdir, stderr, stdout};

fn config(source: &str) -> String {
    format!(
        r#"{{"identifier": "rides", "metadata": {{
  "source": {source},
  "target": {{"name": "rides", "format": "ICEBERG",
             "catalog": {{"identifier": "nyc", "warehouse_path": "warehouse"}}}}}}}}"#
    )
}

const CSV: &str = r#"{"name": "rides", "format": "CSV", "path": "data/rides.csv"}"#;

/// Copies a test plugin next to the config; returns its sha256.
fn plugin(dir: &Path, crate_name: &str) -> String {
    let bytes = std::fs::read(ldp_builtin_plugins::testing::component_path(crate_name)).unwrap();
    std::fs::create_dir_all(dir.join("plugins")).unwrap();
    std::fs::write(dir.join(format!("plugins/{crate_name}.wasm")), &bytes).unwrap();
    ldp_plugin_runtime::sha256_hex(&bytes)
}

fn snapshots(dir: &Path) -> String {
    let config = dir.join("rides.json");
    let out = ldp(&["snapshots", config.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn hostile_source_plugin_files_are_stopped_nothing_is_written_and_the_next_run_works() {
    let dir = rides_workdir(&config(CSV));
    let path = dir.path().join("rides.json");
    let out = ldp(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let before = snapshots(dir.path());

    let cases = [
        (
            "hostile-read-outside",
            r#""grants": {"read": ["data"]}"#,
            "/etc/passwd",
        ),
        (
            "hostile-loop",
            r#""limits": {"timeout_s": 2}"#,
            "time limit: one call ran longer than 2.000 s",
        ),
        (
            "hostile-alloc",
            r#""limits": {"memory_mb": 256}"#,
            "memory limit",
        ),
    ];
    for (name, extra, words) in cases {
        let sha = plugin(dir.path(), name);
        let source = format!(
            r#"{{"name": "rides", "format": "CSV", "plugin": "plugins/{name}.wasm", "sha256": "{sha}", {extra}}}"#
        );
        std::fs::write(&path, config(&source)).unwrap();
        let started = std::time::Instant::now();
        let out = ldp(&["run", path.to_str().unwrap()]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains(&format!("plugins/{name}.wasm")) && err.contains(words),
            "{name}: {err}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "{name} took {:?}",
            started.elapsed()
        );
        assert_eq!(snapshots(dir.path()), before, "{name} changed the table");
    }

    std::fs::write(&path, config(CSV)).unwrap();
    let out = ldp(&["run", path.to_str().unwrap(), "--mode", "append"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(snapshots(dir.path()), before);
}

#[test]
fn a_source_limit_that_is_not_a_number_is_refused_with_its_key() {
    let dir = rides_workdir("{}");
    plugin(dir.path(), "hostile-loop");
    let path = dir.path().join("rides.json");
    std::fs::write(
        &path,
        config(
            r#"{"name": "rides", "format": "CSV", "plugin": "plugins/hostile-loop.wasm", "limits": {"timeout_s": "soon"}}"#,
        ),
    )
    .unwrap();
    let out = ldp(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("metadata.source.limits.timeout_s must be a number of seconds"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("warehouse").exists());
}

/// The example rides with `extra` appended to the header and `,` + each row's fare to each row.
fn rides_with_fare_again(extra: &str) -> String {
    let csv = std::fs::read_to_string(super::rides()).unwrap();
    let mut lines = csv.lines();
    let mut out = format!("{},{extra}\n", lines.next().unwrap());
    for line in lines {
        let fare = line.rsplit(',').next().unwrap();
        out.push_str(&format!("{line},{fare}\n"));
    }
    out
}

/// Bug: a CSV header `…,fare,fare` appended to a table kept the first `fare` and dropped the
/// second, exit 0 (into a new table: Iceberg's raw `multiple fields for name`). Now the run
/// fails before anything is written, naming the file, the name and both columns, exit 1; names
/// differing in case (`Fare`, `fare`) are two columns.
#[test]
fn a_duplicate_csv_column_fails_the_run_naming_it_and_commits_nothing() {
    let dir = rides_workdir(&config(CSV));
    let path = dir.path().join("rides.json");
    let out = ldp(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let before = snapshots(dir.path());
    let csv = dir.path().join("data/rides.csv");
    std::fs::write(&csv, rides_with_fare_again("fare")).unwrap();
    let expected = format!(
        "ldp: error: source rides (CSV {}): columns 5 and 6 are both named 'fare'; every column \
         needs a name of its own, or one of them would be lost: rename one of them in the \
         file's header row (or read the header as data with \"has_header\": false and \
         \"skip_rows\": 1, which names the columns f0, f1, ..., and rename or drop them in a \
         transform)",
        csv.display()
    );
    // Into the existing table (append): it is left as it was.
    let out = ldp(&["run", path.to_str().unwrap(), "--mode", "append"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains(&expected), "{}", stderr(&out));
    assert_eq!(
        snapshots(dir.path()),
        before,
        "the failed append changed the table"
    );
    // Into a new table: none is created.
    std::fs::remove_dir_all(dir.path().join("warehouse")).unwrap();
    let out = ldp(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains(&expected), "{}", stderr(&out));
    let out = ldp(&["snapshots", path.to_str().unwrap(), "--json"]);
    assert_ne!(
        out.status.code(),
        Some(0),
        "a table was created: {}",
        stdout(&out)
    );
    // `Fare` is another column than `fare`.
    std::fs::write(&csv, rides_with_fare_again("Fare")).unwrap();
    let out = ldp(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Bug: a 50 MB field in the first CSV row left type inference (a fixed first MiB) without one
/// whole data row, so every column became a string, exit 0. Inference reads at least the first
/// 1,000 rows: the other columns keep their types.
#[test]
fn a_50_mb_field_in_the_first_csv_row_leaves_the_other_columns_their_types() {
    let dir = rides_workdir(&config(CSV));
    let path = dir.path().join("rides.json");
    let huge = "x".repeat(50 << 20);
    let text = format!(
        "id,note,fare,day,paid\n1,{huge},2.5,2026-08-01,true\n2,short,3,2026-08-02,false\n"
    );
    drop(huge);
    std::fs::write(dir.path().join("data/rides.csv"), text).unwrap();
    let out = ldp(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sql = "SELECT arrow_typeof(id) AS id, arrow_typeof(note) AS note, \
               arrow_typeof(fare) AS fare, arrow_typeof(day) AS day, \
               arrow_typeof(paid) AS paid, length(note) AS len FROM rides WHERE id = 1";
    let out = ldp(&["query", path.to_str().unwrap(), sql, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &json["rows"][0];
    let types: Vec<&str> = ["id", "note", "fare", "day", "paid"]
        .iter()
        .map(|c| row[c].as_str().unwrap_or_else(|| panic!("{c} in {json}")))
        .collect();
    assert_eq!(
        types,
        ["Int64", "Utf8", "Float64", "Date32", "Boolean"],
        "{json}"
    );
    assert_eq!(row["len"], 50 << 20, "{json}");
}
