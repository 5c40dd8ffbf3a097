//! `ldp backfill --dry-run`: the sample workflow with 1 August published by a staged
//! run, then each window of 1–3 August with its key and state; and the refusal of a bound that
//! does not start a window. Running the windows is `orchestration.rs`.

use std::path::Path;

use super::{stderr, stdout};

const FIRST: &str = "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z";

/// The sample workflow, its config and its drops in a temporary folder.
pub(super) fn workdir() -> tempfile::TempDir {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workflows");
    let dir = tempfile::tempdir().unwrap();
    for name in ["nightly.json", "daily_orders.json"] {
        std::fs::copy(examples.join(name), dir.path().join(name)).unwrap();
    }
    std::fs::create_dir(dir.path().join("drops")).unwrap();
    for entry in std::fs::read_dir(examples.join("drops")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(
            entry.path(),
            dir.path().join("drops").join(entry.file_name()),
        )
        .unwrap();
    }
    dir
}

pub(super) fn in_dir(dir: &Path, args: &[&str]) -> std::process::Output {
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    std::process::Command::new(env!("CARGO_BIN_EXE_ldp"))
        .current_dir(dir)
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(args)
        .output()
        .expect("ldp runs")
}

#[test]
fn a_dry_run_says_which_windows_are_published() {
    let dir = workdir();
    let run = in_dir(dir.path(), &["run", "daily_orders.json", "--window", FIRST]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let plan = in_dir(
        dir.path(),
        &[
            "workflow",
            "plan",
            "nightly.json",
            "--window",
            FIRST,
            "--json",
        ],
    );
    assert_eq!(plan.status.code(), Some(0), "{}", stderr(&plan));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let key = plan["tasks"][0]["idempotency_key"]
        .as_str()
        .unwrap()
        .to_owned();

    let range = [
        "backfill",
        "nightly.json",
        "--from",
        "2026-08-01",
        "--to",
        "2026-08-04",
        "--dry-run",
    ];
    let out = in_dir(dir.path(), &[&range[..], &["--json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["workflow"], "nightly");
    assert_eq!(doc["window_size"], "day");
    assert_eq!(doc["timezone"], "Europe/Paris");
    assert_eq!(doc["from"], "2026-07-31T22:00:00Z");
    assert_eq!(doc["to"], "2026-08-03T22:00:00Z");
    assert_eq!(doc["order"], "oldest first");
    assert_eq!(doc["status"], "dry_run");
    assert_eq!(doc["dry_run"], true);
    assert_eq!(doc["exit_code"], 0);
    assert_eq!(
        doc["counts"],
        serde_json::json!({"published": 0, "skipped": 0, "blocked": 0, "failed": 0})
    );
    assert_eq!(
        doc["states"],
        serde_json::json!({"published": 1, "partial": 0, "missing": 2, "failed": 0, "blocked": 0})
    );
    let windows = doc["windows"].as_array().unwrap();
    assert_eq!(windows.len(), 3);
    assert_eq!(windows[0]["window"], FIRST);
    assert_eq!(windows[0]["state"], "published");
    assert_eq!(windows[0]["keys"]["orders"], key.as_str());
    assert_eq!(windows[0]["outcome"], serde_json::Value::Null);
    assert_eq!(windows[0]["attempt"], serde_json::Value::Null);
    for window in &windows[1..] {
        assert_eq!(window["state"], "missing");
        assert_eq!(window["keys"]["orders"].as_str().unwrap().len(), 64);
    }
    assert_eq!(
        windows[1]["window"],
        "2026-08-01T22:00:00Z/2026-08-02T22:00:00Z"
    );

    let text = in_dir(dir.path(), &range);
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    let printed = stdout(&text);
    assert!(
        printed.contains(&format!("{FIRST}  {}  published", &key[..12])),
        "{printed}"
    );
    assert_eq!(
        printed.lines().last(),
        Some("3 windows of size day, oldest first: 1 published, 2 missing. Nothing was run.")
    );
}

#[test]
fn a_start_that_does_not_start_a_window_is_refused() {
    let dir = workdir();
    let out = in_dir(
        dir.path(),
        &[
            "backfill",
            "nightly.json",
            "--from",
            "2026-08-01T05:00:00",
            "--dry-run",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim_end(),
        "ldp: error: the start of the range, 2026-08-01T03:00:00Z, does not start a window of \
         size day in Europe/Paris. Windows of that size start at midnight"
    );
}
