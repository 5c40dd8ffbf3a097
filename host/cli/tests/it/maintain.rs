//! `ldp maintain`: its reports field by field against the Python tool's on the same table,
//! compaction and manifest rewrite through the CLI, bad input, and the workflow task.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::{files_under, ldp, rides_workdir, stderr, stdout};

const CONFIG: &str = r#"{
  "apiVersion": "ldp/v1",
  "identifier": "rides",
  "metadata": {
    "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
    "target": {"name": "rides", "format": "ICEBERG", "write_mode": "append",
               "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}}
  }
}"#;

/// The Python tool's `ldp` (local-data-platform 0.1.3), installed by `tests/reference-tool`.
fn reference_ldp() -> PathBuf {
    match std::env::var_os("LDP_REFERENCE_LDP") {
        Some(path) => PathBuf::from(path),
        None => panic!(
            "LDP_REFERENCE_LDP is not set: install the Python tool with `tests/reference-tool` \
             (it prints the path to export), as scripts/test does"
        ),
    }
}

fn run_appends(dir: &Path, times: usize) {
    for _ in 0..times {
        let config = dir.join("rides.json");
        let out = ldp(&["run", config.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

fn table_dir(dir: &Path) -> PathBuf {
    dir.join("warehouse/nyc/rides")
}

/// Writes `name` under the table's `data/` with a modification time `hours` ago.
fn stray_file(dir: &Path, name: &str, hours: u64) -> PathBuf {
    let path = table_dir(dir).join("data").join(name);
    std::fs::write(&path, b"not referenced by any snapshot").unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(hours * 3600))
        .unwrap();
    path
}

fn json_of(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}\n{}\n{}",
        out.status.code(),
        stdout(out),
        stderr(out)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(out)))
}

/// Both tools plan the same expiry and list the same orphans on one table, field by field
/// (the times they compute from their own clocks aside).
#[test]
fn maintain_json_equals_the_python_tool_field_by_field() {
    let dir = rides_workdir(CONFIG);
    run_appends(dir.path(), 4);
    let old = stray_file(dir.path(), "00000-0-stray.parquet", 100);
    stray_file(dir.path(), "00000-1-young.parquet", 1);
    stray_file(dir.path(), ".hidden.parquet", 100);
    let config = dir.path().join("rides.json");
    let args = [
        "maintain",
        config.to_str().unwrap(),
        "--expire",
        "0",
        "--retain-last",
        "2",
        "--orphans",
        "--json",
    ];
    let ours = json_of(&ldp(&args));
    let theirs = json_of(
        &Command::new(reference_ldp())
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("the Python tool runs"),
    );
    let mut ours_cmp = ours.clone();
    let mut theirs_cmp = theirs.clone();
    for doc in [&mut ours_cmp, &mut theirs_cmp] {
        // Each tool's "now".
        doc["expire"]["older_than"] = Value::Null;
        doc["expire"]["protect_keys_since"] = Value::Null;
    }
    assert_eq!(
        ours_cmp, theirs_cmp,
        "ldp:\n{ours:#}\nthe Python tool:\n{theirs:#}"
    );
    assert_eq!(
        ours["expire"]["expired_snapshot_ids"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let orphans = ours["orphans"]["orphans"].as_array().unwrap();
    assert_eq!(orphans.len(), 1, "{ours:#}");
    assert!(
        orphans[0]
            .as_str()
            .unwrap()
            .ends_with("00000-0-stray.parquet")
    );
    assert_eq!(ours["orphans"]["stats"]["recent"], 1);
    assert_eq!(ours["orphans"]["stats"]["hidden"], 1);

    // The human report: the same lines.
    let human = |out: std::process::Output| -> Vec<String> {
        stdout(&out)
            .lines()
            .filter(|line| !line.starts_with("Snapshots older than"))
            .map(str::to_owned)
            .collect()
    };
    let ours_text = human(ldp(&args[..args.len() - 1]));
    let theirs_text = human(
        Command::new(reference_ldp())
            .args(&args[..args.len() - 1])
            .current_dir(dir.path())
            .output()
            .unwrap(),
    );
    assert_eq!(ours_text, theirs_text);

    // Applied: the expiry commits and the old orphan goes; the Python tool then agrees there
    // is nothing left to do.
    let mut apply = args.to_vec();
    apply.push("--apply");
    let applied = json_of(&ldp(&apply));
    assert_eq!(applied["expire"]["committed"], true);
    assert_eq!(applied["orphans"]["deleted"].as_array().unwrap().len(), 1);
    assert!(!old.exists());
    let after = json_of(
        &Command::new(reference_ldp())
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap(),
    );
    assert_eq!(
        after["expire"]["expired_snapshot_ids"],
        serde_json::json!([])
    );
    assert_eq!(after["orphans"]["orphans"], serde_json::json!([]));
}

fn count_rows(config: &Path) -> String {
    let out = ldp(&[
        "query",
        config.to_str().unwrap(),
        "SELECT count(*) AS n, round(sum(fare), 6) AS fares, count(DISTINCT fare) AS d FROM rides",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["rows"].to_string()
}

#[test]
fn compaction_and_manifest_rewrite_keep_every_row() {
    let dir = rides_workdir(CONFIG);
    run_appends(dir.path(), 6);
    let config = dir.path().join("rides.json");
    let before = count_rows(&config);
    let path = config.to_str().unwrap();

    let plan = json_of(&ldp(&["maintain", path, "--compact", "--json"]));
    assert_eq!(plan["dry_run"], true);
    assert_eq!(plan["compact"]["files_rewritten"], 6, "{plan:#}");
    assert!(plan.get("expire").is_none() && plan.get("orphans").is_none());

    let done = json_of(&ldp(&[
        "maintain",
        path,
        "--compact",
        "--sort-by",
        "fare",
        "--target-file-size",
        "64MB",
        "--apply",
        "--json",
    ]));
    let report = &done["compact"];
    assert_eq!(report["committed"], true, "{done:#}");
    assert_eq!(
        (
            report["files_before"].as_u64(),
            report["files_after"].as_u64()
        ),
        (Some(6), Some(1))
    );
    assert!(report["manifests_after"].as_u64().unwrap() <= 3);
    assert_eq!(count_rows(&config), before);

    let snapshots = ldp(&["snapshots", path, "--json"]);
    let doc: Value = serde_json::from_slice(&snapshots.stdout).unwrap();
    let last = doc["snapshots"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["operation"], "replace");

    run_appends(dir.path(), 3);
    let merged = json_of(&ldp(&[
        "maintain",
        path,
        "--rewrite-manifests",
        "--apply",
        "--json",
    ]));
    assert_eq!(
        merged["rewrite_manifests"]["manifests_after"], 1,
        "{merged:#}"
    );

    let text = stdout(&ldp(&["maintain", path, "--compact"]));
    assert!(
        text.contains("Compaction of small data files into files of 128.0 MB:"),
        "{text}"
    );
    assert!(text.contains("would rewrite 4 files"), "{text}");
}

#[test]
fn bad_input_is_refused_and_nothing_is_deleted() {
    let dir = rides_workdir(CONFIG);
    let config = dir.path().join("rides.json");
    let path = config.to_str().unwrap();

    // No table yet.
    let out = ldp(&["maintain", path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("rides"), "{}", stderr(&out));

    run_appends(dir.path(), 2);
    let stray = stray_file(dir.path(), "00000-9-stray.parquet", 2);
    let files = files_under(&table_dir(dir.path()));

    let young = ldp(&[
        "maintain",
        path,
        "--orphans",
        "--orphan-age-hours",
        "1",
        "--apply",
    ]);
    assert_eq!(young.status.code(), Some(1));
    assert!(
        stderr(&young).contains("refusing to delete files younger than 24 hours"),
        "{}",
        stderr(&young)
    );
    let unknown = ldp(&[
        "maintain",
        path,
        "--compact",
        "--sort-by",
        "nope",
        "--apply",
    ]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).contains("cannot sort by 'nope': it is not a column of nyc.rides"),
        "{}",
        stderr(&unknown)
    );
    let size = ldp(&["maintain", path, "--compact", "--target-file-size", "12XB"]);
    assert_ne!(size.status.code(), Some(0));
    assert!(
        stderr(&size).contains("--target-file-size"),
        "{}",
        stderr(&size)
    );
    assert_eq!(
        files_under(&table_dir(dir.path())),
        files,
        "nothing changed"
    );
    assert!(stray.exists());

    // With --allow-recent the young orphan goes, and the table still reads.
    let out = ldp(&[
        "maintain",
        path,
        "--orphans",
        "--orphan-age-hours",
        "1",
        "--allow-recent",
        "--apply",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stray.exists());
    assert!(count_rows(&config).contains("\"n\":"));
}

/// A workflow's maintain task compacts and removes orphans (`orphans: true` used to fail).
#[test]
fn a_workflow_maintain_task_compacts_and_removes_orphans() {
    let dir = rides_workdir(CONFIG);
    run_appends(dir.path(), 3);
    let stray = stray_file(dir.path(), "00000-7-stray.parquet", 100);
    std::fs::write(
        dir.path().join("tidy.json"),
        r#"{"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "tidy",
            "tasks": [{"id": "tidy", "maintain": {"config": "rides.json", "orphans": true,
                       "compact": true, "apply": true}}]}"#,
    )
    .unwrap();
    let workflow = dir.path().join("tidy.json");
    let out = ldp(&[
        "workflow",
        "run",
        workflow.to_str().unwrap(),
        "--window",
        "2026-08-01T00:00:00Z/2026-08-02T00:00:00Z",
        "--json",
    ]);
    let doc = json_of(&out);
    let detail = &doc["tasks"][0]["detail"];
    assert_eq!(doc["tasks"][0]["status"], "succeeded", "{doc:#}");
    assert_eq!(detail["orphan_files_deleted"], 1, "{doc:#}");
    assert_eq!(detail["files_compacted"], 3, "{doc:#}");
    assert!(!stray.exists());
}
