//! Exactly once: the staged publish of `ldp run --window`/`--idempotency-key`, seen
//! from the command line: a second run of a window reads nothing and adds nothing, two runs at
//! once publish once, a newer attempt fences an older one, a re-run removes a killed run's
//! branch, and a window the Python tool published is skipped.

use std::path::Path;
use std::process::Command;

use super::interop::python;
use super::{ldp, rides_workdir, stderr, stdout};

const CONFIG: &str = r#"{"identifier": "rides", "metadata": {
  "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
  "target": {"name": "rides", "format": "ICEBERG",
             "catalog": {"identifier": "nyc", "type": "local", "warehouse_path": "warehouse"}}}}"#;

/// The key of this config's window 2026-08-01, as the Python tool derived it
/// (`host/events/tests/vectors/events_staged_run.jsonl`).
const KEY: &str = "62831bc16852034866a7b4b9869fcdabe016ba9bfdac1f07d73a9d265f3315c6";
const WINDOW: &str = "2026-08-01/2026-08-02";

fn run_json(dir: &Path, extra: &[&str]) -> (i32, serde_json::Value, String) {
    let config = dir.join("rides.json");
    let mut args = vec!["run", config.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let out = ldp(&args);
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code().unwrap_or(-1), json, stderr(&out))
}

fn commits(dir: &Path) -> serde_json::Value {
    let config = dir.join("rides.json");
    let out = ldp(&["commits", config.to_str().unwrap(), "--branches", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn snapshot_count(dir: &Path) -> usize {
    let config = dir.join("rides.json");
    let out = ldp(&["snapshots", config.to_str().unwrap(), "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["snapshots"].as_array().map_or(0, Vec::len)
}

#[test]
fn the_same_window_twice_is_skipped_without_reading_the_source() {
    let dir = rides_workdir(CONFIG);
    let (code, first, err) = run_json(dir.path(), &["--window", WINDOW]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(first["status"], "published");
    assert_eq!(first["idempotency_key"], KEY);
    assert_eq!(first["rows_written"], 20);
    let branch = first["write_result"]["branch"].as_str().unwrap();
    assert!(
        branch.starts_with("ldp_r") && branch.ends_with("_a1_0"),
        "{branch}"
    );
    // The base (ldp.init) and the publish.
    assert_eq!(snapshot_count(dir.path()), 2);

    // The source is gone: a run that read it would fail.
    std::fs::remove_file(dir.path().join("data/rides.csv")).unwrap();
    let (code, second, err) = run_json(dir.path(), &["--window", WINDOW]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(second["status"], "skipped_duplicate");
    assert_eq!(second["rows_read"], 0);
    assert_eq!(second["rows_written"], 0);
    assert_eq!(
        second["published_snapshot_id"],
        first["published_snapshot_id"]
    );
    assert_eq!(second["write_result"]["skipped_duplicate"], true);
    assert_eq!(snapshot_count(dir.path()), 2, "no snapshot added");

    // The text output says it skipped.
    let config = dir.path().join("rides.json");
    let out = ldp(&["run", config.to_str().unwrap(), "--window", WINDOW]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("rides: skipped: idempotency key already published in snapshot "),
        "{text}"
    );
    assert!(
        text.contains("  status           skipped_duplicate\n"),
        "{text}"
    );

    // The publish carries the `ldp.*` properties the Python tool writes.
    let log = commits(dir.path());
    let publishes = log["publishes"].as_array().unwrap();
    assert_eq!(publishes.len(), 1);
    assert_eq!(publishes[0]["idempotency_key"], KEY);
    assert_eq!(publishes[0]["attempt"], "1");
    assert_eq!(
        publishes[0]["logical_window"],
        "2026-08-01T00:00:00+00:00/2026-08-02T00:00:00+00:00"
    );
    assert_eq!(publishes[0]["spec_hash"].as_str().map(str::len), Some(64));
    assert_eq!(log["branches"], serde_json::json!([]));
}

#[test]
fn two_processes_on_one_window_publish_once() {
    let dir = rides_workdir(CONFIG);
    let config = dir.path().join("rides.json");
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    // Warm the component cache so both start at once.
    let _ = ldp(&["plan", config.to_str().unwrap()]);
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_ldp"))
            .args(["--cache-dir", cache.to_str().unwrap()])
            .args([
                "run",
                config.to_str().unwrap(),
                "--window",
                WINDOW,
                "--json",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let children: Vec<_> = (0..3).map(|_| spawn()).collect();
    let mut statuses = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        statuses.push(doc["status"].as_str().unwrap().to_string());
    }
    statuses.sort();
    assert_eq!(
        statuses,
        ["published", "skipped_duplicate", "skipped_duplicate"],
        "exactly one run publishes"
    );
    let log = commits(dir.path());
    assert_eq!(log["publishes"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        log["branches"],
        serde_json::json!([]),
        "no branch left behind"
    );
    let out = ldp(&[
        "query",
        config.to_str().unwrap(),
        "SELECT count(*) AS n FROM rides",
        "--json",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["rows"][0]["n"], 20, "{doc}");
}

/// A crashed attempt 1 left a staged branch; attempt 2 of the same run fences it: the branch
/// is removed, a fence tag added, and attempt 1 can no longer stage or publish.
#[test]
fn a_newer_attempt_fences_the_older_one() {
    let dir = rides_workdir(CONFIG);
    let run_id = "01a23725-6f95-73c9-8cfe-c24a42626895";
    // Attempt 1 publishes another key first, so the table exists with a base.
    let (code, _, err) = run_json(
        dir.path(),
        &["--idempotency-key", "warmup", "--run-id", "warmup-run"],
    );
    assert_eq!(code, 0, "{err}");
    // Attempt 1 of run R stages a branch and "crashes" before publishing: python
    // (pyiceberg) plays the crashed writer, with the Python tool's branch name.
    let warehouse = dir.path().join("warehouse");
    let branch = "ldp_r01a237256f9573c98cfec24a42626895_a1_0";
    let script = format!(
        r#"
import sys
from pyiceberg.catalog.sql import SqlCatalog
w = sys.argv[1]
c = SqlCatalog("nyc", uri=f"sqlite:///{{w}}/nyc_catalog.db", warehouse=f"file://{{w}}")
t = c.load_table(("nyc", "rides"))
rows = t.scan().to_arrow().slice(0, 1)
t.append(rows, branch="{branch}", snapshot_properties={{"ldp.idempotency-key": "{KEY}", "ldp.run-id": "{run_id}", "ldp.attempt": "1"}})
"#
    );
    let out = Command::new(python())
        .args(["-c", &script, warehouse.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = commits(dir.path());
    assert_eq!(log["branches"][0]["branch"], branch);

    // Attempt 2 of the same run: fences attempt 1, then publishes the window.
    let (code, second, err) = run_json(
        dir.path(),
        &["--window", WINDOW, "--run-id", run_id, "--attempt", "2"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(second["status"], "published");
    assert!(
        second["write_result"]["branch"]
            .as_str()
            .unwrap()
            .ends_with("_a2_0")
    );
    let log = commits(dir.path());
    assert_eq!(
        log["branches"],
        serde_json::json!([]),
        "attempt 1's branch removed"
    );
    let keyed: Vec<_> = log["publishes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["idempotency_key"] == KEY)
        .collect();
    assert_eq!(keyed.len(), 1);
    assert_eq!(keyed[0]["attempt"], "2");

    // Attempt 1, still alive, tries to publish something: refused by the fence.
    let before = snapshot_count(dir.path());
    let (code, _, err) = run_json(
        dir.path(),
        &[
            "--idempotency-key",
            "late",
            "--run-id",
            run_id,
            "--attempt",
            "1",
        ],
    );
    assert_eq!(code, 1);
    assert!(err.contains("fenced by a newer attempt"), "{err}");
    assert!(
        err.contains("ldp_r01a237256f9573c98cfec24a42626895_a1_fenced"),
        "{err}"
    );
    assert_eq!(snapshot_count(dir.path()), before, "nothing published");
}

/// Hostile-input finding: a `--window` run killed after staging left its branch, and a manual
/// re-run of the window (a new run id) published but never removed it. Once the key is on
/// main, every staging branch carrying it is removed.
#[test]
fn a_rerun_removes_the_branch_a_killed_run_left() {
    let dir = rides_workdir(CONFIG);
    let (code, _, err) = run_json(dir.path(), &["--idempotency-key", "warmup"]);
    assert_eq!(code, 0, "{err}");
    // The killed runs: pyiceberg stages on a branch and stops there, once for this window and
    // once for another key, which the re-run must leave alone.
    let warehouse = dir.path().join("warehouse");
    let killed = "ldp_r0123456789abcdef0123456789abcdef_a1_0";
    let other = "ldp_rfedcba9876543210fedcba9876543210_a1_0";
    for (branch, key) in [(killed, KEY), (other, "another-window")] {
        let script = format!(
            r#"
import sys
from pyiceberg.catalog.sql import SqlCatalog
w = sys.argv[1]
c = SqlCatalog("nyc", uri=f"sqlite:///{{w}}/nyc_catalog.db", warehouse=f"file://{{w}}")
t = c.load_table(("nyc", "rides"))
rows = t.scan().to_arrow().slice(0, 1)
t.append(rows, branch="{branch}", snapshot_properties={{"ldp.idempotency-key": "{key}", "ldp.run-id": "killed", "ldp.attempt": "1"}})
"#
        );
        let out = Command::new(python())
            .args(["-c", &script, warehouse.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(commits(dir.path())["branches"].as_array().unwrap().len(), 2);

    let (code, rerun, err) = run_json(dir.path(), &["--window", WINDOW]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(rerun["status"], "published");
    let log = commits(dir.path());
    let left: Vec<&str> = log["branches"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["branch"].as_str())
        .collect();
    assert_eq!(left, [other], "{log}");
}

/// A warehouse where the Python tool published the window: `ldp run` of the same config and
/// window skips it (the keys are the same, byte for byte).
#[test]
fn a_window_the_python_tool_published_is_skipped() {
    let dir = rides_workdir(CONFIG);
    let warehouse = dir.path().join("warehouse");
    std::fs::create_dir_all(&warehouse).unwrap();
    let script = format!(
        r#"
import sys
import pyarrow.csv as pv
from pyiceberg.catalog.sql import SqlCatalog
w, csv = sys.argv[1], sys.argv[2]
c = SqlCatalog("nyc", uri=f"sqlite:///{{w}}/nyc_catalog.db", warehouse=f"file://{{w}}")
c.create_namespace_if_not_exists("nyc")
import pyarrow as pa
rows = pv.read_csv(csv)
rows = rows.cast(pa.schema([pa.field(f.name, pa.timestamp("us") if pa.types.is_timestamp(f.type) else f.type) for f in rows.schema]))
t = c.create_table(("nyc", "rides"), schema=rows.schema)
t.append(rows.slice(0, 0), snapshot_properties={{"ldp.init": "true"}})
t.append(rows, snapshot_properties={{"ldp.idempotency-key": "{KEY}", "ldp.run-id": "py-run", "ldp.attempt": "1",
    "ldp.logical-window": "2026-08-01T00:00:00+00:00/2026-08-02T00:00:00+00:00"}})
"#
    );
    let out = Command::new(python())
        .args([
            "-c",
            &script,
            warehouse.to_str().unwrap(),
            dir.path().join("data/rides.csv").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, doc, err) = run_json(dir.path(), &["--window", WINDOW]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(doc["status"], "skipped_duplicate", "{doc}");
    assert_eq!(doc["write_result"]["rows_after"], 20);
}

/// An append of a window older than every window the table holds a key for warns that its key
/// may have expired (the Python tool's advice); a newer window does not.
#[test]
fn an_older_window_than_every_key_warns() {
    let dir = rides_workdir(CONFIG);
    let config = dir.path().join("rides.json");
    let run = |window: &str| ldp(&["run", config.to_str().unwrap(), "--window", window]);
    let out = run("2026-08-02/2026-08-03");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("may have expired"),
        "{}",
        stderr(&out)
    );
    let out = run("2026-08-01/2026-08-02");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "the window 2026-08-01T00:00:00+00:00/2026-08-02T00:00:00+00:00 is older than every \
             window that 'nyc.rides' still holds a key for, the oldest starting \
             2026-08-02T00:00:00+00:00, and its key is not there"
        ),
        "{}",
        stderr(&out)
    );
}
