//! The bug "misspelled keys inside source, target and metadata are ignored": `"writemode":
//! "overwrite"` appended twice and `"qualty": {...}` skipped the quality gate, with exit 0 and
//! not a word from `ldp plan` or `ldp run`. Each key ldp does not know is now a warning that
//! names its JSON path and the key it most likely meant (the Python tool accepts such keys, so
//! the run still goes ahead), and `--strict` makes it an error before anything is read.

use super::{ldp, rides_workdir, stderr, stdout};

const CONFIG: &str = r#"{"apiVersion": "ldp/v1", "identifier": "rides",
  "metadata": {
    "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
    "target": {"name": "rides", "format": "ICEBERG", "writemode": "overwrite",
               "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}},
    "qualty": {"checks": [{"check": "row_count", "min": 1000000}]}}}"#;

const WRITEMODE: &str = "metadata.target.writemode: ldp does not know this key and ignores it; \
                         did you mean 'write_mode'?";
const QUALTY: &str =
    "metadata.qualty: ldp does not know this key and ignores it; did you mean 'quality'?";

#[test]
fn plan_warns_of_each_misspelled_key_and_strict_refuses_them() {
    let dir = rides_workdir(CONFIG);
    let config = dir.path().join("rides.json");
    let config = config.to_str().unwrap();

    let out = ldp(&["plan", config]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("write_mode"), "{}", stdout(&out));
    assert_eq!(
        stderr(&out),
        format!("warning: {QUALTY}\nwarning: {WRITEMODE}\n")
    );

    let out = ldp(&["plan", config, "--json"]);
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["valid"], true);
    assert_eq!(plan["warnings"], serde_json::json!([QUALTY, WRITEMODE]));

    let out = ldp(&["plan", config, "--strict", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["valid"], false);
    assert_eq!(plan["errors"], serde_json::json!([QUALTY, WRITEMODE]));

    let out = ldp(&["plan", dir.path().to_str().unwrap(), "--strict"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("rides.json: {WRITEMODE}")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn run_warns_and_writes_and_strict_stops_before_anything_is_created() {
    let dir = rides_workdir(CONFIG);
    let config = dir.path().join("rides.json");
    let config = config.to_str().unwrap();

    let out = ldp(&["run", config, "--strict"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(text.contains("rides.json"), "{text}");
    assert!(text.contains(WRITEMODE) && text.contains(QUALTY), "{text}");
    assert!(
        !dir.path().join("warehouse").exists(),
        "a strict run created the warehouse"
    );

    // Without --strict the run goes ahead as the Python tool's would, and says what it ignored.
    let out = ldp(&["run", config]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(text.contains(WRITEMODE) && text.contains(QUALTY), "{text}");
}
