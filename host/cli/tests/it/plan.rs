//! `ldp plan` and `ldp schema` against the Python tool's sample configs and plans. The config
//! crate compares every plan field of every vector; here the command line: the JSON printed,
//! the text, a folder, and the exit codes.

use std::path::{Path, PathBuf};

use crate::{ldp, stderr, stdout};

/// The Python tool's sample configs and plans, as the config crate keeps them.
fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/tests/data/exactly_once")
}

/// The Python tool's `ldp schema` outputs, byte for byte (`host/config/schemas`).
fn schemas() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/schemas")
}

/// Copies a vector config into a temporary folder (the plan of a config names its folder).
fn workdir(vector: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::copy(vectors().join(vector), root.join(vector)).unwrap();
    (dir, root)
}

#[test]
fn plan_json_with_a_window_equals_the_reference() {
    let (_dir, root) = workdir("v3_daily_orders_paris.json");
    let config = root.join("v3_daily_orders_paris.json");
    let out = ldp(&[
        "plan",
        config.to_str().unwrap(),
        "--window",
        "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ours: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = std::fs::read_to_string(vectors().join("v3_plan_window_paris_day.expected.json"))
        .unwrap()
        .replace("<vectors>", root.to_str().unwrap());
    let expected: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (ours, expected) = (ours.as_object().unwrap(), expected.as_object().unwrap());
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "the reference's keys in its order"
    );
    for (key, value) in expected {
        assert_eq!(&ours[key], value, "field {key}");
    }
}

#[test]
fn plan_text_and_exit_codes() {
    let (_dir, root) = workdir("v1_rides_csv_to_iceberg.json");
    let out = ldp(&[
        "plan",
        root.join("v1_rides_csv_to_iceberg.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("CSV -> ICEBERG"), "{}", stdout(&out));

    std::fs::copy(
        vectors().join("bad_config.json"),
        root.join("bad_config.json"),
    )
    .unwrap();
    let out = ldp(&["plan", root.join("bad_config.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("problem"), "{}", stderr(&out));

    // A folder: one row per file, exit 1 because one is invalid.
    let out = ldp(&["plan", root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("config"), "{text}");
    assert!(text.contains("bad_config.json"), "{text}");
    assert!(text.contains("v1_rides_csv_to_iceberg.json"), "{text}");
    assert!(text.ends_with("(2 rows)\n"), "{text}");
    let out = ldp(&["plan", root.to_str().unwrap(), "--json"]);
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list.as_array().map(Vec::len), Some(2));
}

#[test]
fn schema_prints_the_reference_schemas() {
    for (kind, file) in [(None, "pipeline.json"), (Some("Workflow"), "workflow.json")] {
        let mut args = vec!["schema"];
        if let Some(kind) = kind {
            args.extend(["--kind", kind]);
        }
        let out = ldp(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let expected = std::fs::read_to_string(schemas().join(file)).unwrap();
        assert_eq!(stdout(&out).trim_end(), expected.trim_end(), "{file}");
    }
    let out = ldp(&["schema", "--kind", "workflow"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("did you mean 'Workflow'"),
        "{}",
        stderr(&out)
    );
}

/// `ldp plan` of a workflow file plans it as `ldp workflow plan` does, and a folder plans its
/// workflow files with its configs: an invalid workflow fails the folder (it was skipped with a
/// warning, and a lone workflow file was refused as "not a dataset config").
#[test]
fn plan_plans_workflow_files_alone_and_in_a_folder() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workflows");
    let dir = tempfile::tempdir().unwrap();
    for file in ["nightly.json", "daily_orders.json"] {
        std::fs::copy(examples.join(file), dir.path().join(file)).unwrap();
    }
    let nightly = dir.path().join("nightly.json");
    let alone = ldp(&["plan", nightly.to_str().unwrap()]);
    assert_eq!(alone.status.code(), Some(0), "{}", stderr(&alone));
    let workflow = ldp(&["workflow", "plan", nightly.to_str().unwrap()]);
    assert_eq!(stdout(&alone), stdout(&workflow));

    let folder = ldp(&["plan", dir.path().to_str().unwrap()]);
    assert_eq!(folder.status.code(), Some(0), "{}", stderr(&folder));
    let text = stdout(&folder);
    assert!(
        text.contains("nightly.json       Workflow  nightly"),
        "{text}"
    );
    assert!(text.contains("(2 rows)"), "{text}");

    let json = ldp(&["plan", dir.path().to_str().unwrap(), "--json"]);
    let plans: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(plans[1]["kind"], "Workflow");
    assert_eq!(plans[1]["tasks"][0]["id"], "orders");

    let broken = r#"{"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "broken",
      "tasks": [{"id": "a", "pipeline": "missing.json"}]}"#;
    std::fs::write(dir.path().join("broken.json"), broken).unwrap();
    let folder = ldp(&["plan", dir.path().to_str().unwrap()]);
    assert_eq!(folder.status.code(), Some(1));
    assert!(
        stderr(&folder).contains("broken.json: "),
        "{}",
        stderr(&folder)
    );
}
