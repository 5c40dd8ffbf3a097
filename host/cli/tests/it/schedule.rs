//! `ldp schedule list`: the sample workflow and its scheduled config found under a
//! folder, with the next fire, the due window and the missed windows (a published window is
//! not missed), as JSON and as text; and a scheduled file that is not valid, listed as a
//! problem (exit 1) while the others are still listed.

use std::path::Path;

use super::{stderr, stdout};

/// Published by a run before the listing.
const PUBLISHED: &str = "2026-08-01T22:00:00Z/2026-08-02T22:00:00Z";
const NOW: &str = "2026-08-05T00:10:00Z";
/// The fields of an entry, in the Python tool's order
/// (`host/orchestrate/tests/data/scheduling/schedule_list.json`).
const ENTRY_FIELDS: [&str; 17] = [
    "file",
    "workflow",
    "kind",
    "schedule",
    "timezone",
    "window_size",
    "catchup",
    "start",
    "next_fire",
    "next_fire_local",
    "last_window",
    "last_status",
    "due",
    "missed",
    "more_missed",
    "commands",
    "error",
];

/// A folder holding `shop/` with the sample workflow, its config and its drops, and a ledger
/// whose first window is 1 August (Paris), so the listing looks from there.
fn workdir() -> tempfile::TempDir {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workflows");
    let dir = tempfile::tempdir().unwrap();
    let shop = dir.path().join("shop");
    std::fs::create_dir_all(shop.join("drops")).unwrap();
    for name in ["nightly.json", "daily_orders.json"] {
        std::fs::copy(examples.join(name), shop.join(name)).unwrap();
    }
    for entry in std::fs::read_dir(examples.join("drops")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), shop.join("drops").join(entry.file_name())).unwrap();
    }
    std::fs::create_dir_all(shop.join(".ldp")).unwrap();
    let started = serde_json::json!({
        "type": "workflow.started", "run_id": "r1", "attempt": 1, "seq": 0,
        "payload": {"workflow": "daily_orders",
                    "window": ["2026-07-31T22:00:00Z", "2026-08-01T22:00:00Z"]},
    });
    std::fs::write(shop.join(".ldp/events.jsonl"), format!("{started}\n")).unwrap();
    let run = in_dir(&shop, &["run", "daily_orders.json", "--window", PUBLISHED]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    dir
}

fn in_dir(dir: &Path, args: &[&str]) -> std::process::Output {
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    std::process::Command::new(env!("CARGO_BIN_EXE_ldp"))
        .current_dir(dir)
        .env("TZ", "UTC")
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(args)
        .output()
        .expect("ldp runs")
}

#[test]
fn schedule_list_shows_both_kinds_with_their_next_fire_and_missed_windows() {
    let dir = workdir();
    let out = in_dir(
        dir.path(),
        &["schedule", "list", "shop", "--now", NOW, "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listing: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys = |value: &serde_json::Value| -> Vec<String> {
        value.as_object().unwrap().keys().cloned().collect()
    };
    assert_eq!(
        keys(&listing),
        ["directory", "now", "scheduled", "problems"]
    );
    assert_eq!(listing["directory"], "shop");
    assert_eq!(listing["now"], NOW);
    assert_eq!(listing["problems"], serde_json::json!([]));
    let items = listing["scheduled"].as_array().unwrap();
    let files: Vec<&str> = items.iter().map(|i| i["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["shop/daily_orders.json", "shop/nightly.json"]);
    let kinds: Vec<&str> = items.iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["Pipeline", "Workflow"]);
    for item in items {
        assert_eq!(keys(item), ENTRY_FIELDS);
        assert_eq!(item["next_fire"], "2026-08-06T00:05:00Z");
        assert_eq!(item["next_fire_local"], "2026-08-06T00:05:00+00:00");
        assert_eq!(item["schedule"], "5 2 * * *");
        assert_eq!(item["timezone"], "Europe/Paris");
        assert_eq!(item["window_size"], "day");
        assert_eq!(item["error"], serde_json::Value::Null);
        let missed: Vec<&str> = item["missed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        assert!(!missed.contains(&PUBLISHED), "{missed:?}");
        assert_eq!(
            item["due"],
            serde_json::json!(["2026-08-03T22:00:00Z/2026-08-04T22:00:00Z"])
        );
    }
    // The config's ledger starts on 1 August: 1 and 3 August are missed, 2 August is published.
    let orders = &items[0];
    assert_eq!(
        orders["missed"],
        serde_json::json!([
            "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z",
            "2026-08-02T22:00:00Z/2026-08-03T22:00:00Z"
        ])
    );
    assert_eq!(
        orders["commands"],
        serde_json::json!([
            "ldp backfill shop/daily_orders.json --from 2026-08-01 --to 2026-08-04"
        ])
    );
    assert_eq!(
        orders["last_window"],
        "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z"
    );
    assert_eq!(orders["last_status"], "unfinished");

    let text = in_dir(dir.path(), &["schedule", "list", "shop", "--now", NOW]);
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    let text = stdout(&text);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..11],
        [
            "2 workflows or configs with a schedule under shop at 2026-08-05T00:10:00Z",
            "",
            "daily_orders  Pipeline  shop/daily_orders.json",
            "  schedule     5 2 * * *, in Europe/Paris, windows of one day",
            "  next fire    2026-08-06T00:05:00Z, 2026-08-06T00:05:00+00:00 local",
            "  last window  2026-07-31T22:00:00Z/2026-08-01T22:00:00Z unfinished",
            "  due          1 window, 2026-08-03T22:00:00Z/2026-08-04T22:00:00Z",
            "  missed       2 windows. Fill them with",
            "    ldp backfill shop/daily_orders.json --from 2026-08-01 --to 2026-08-04",
            "",
            "nightly  Workflow  shop/nightly.json",
        ]
    );
}

#[test]
fn an_invalid_scheduled_file_is_a_problem_and_the_others_are_listed() {
    let dir = workdir();
    let shop = dir.path().join("shop");
    std::fs::write(
        shop.join("broken.json"),
        r#"{"kind": "Workflow", "identifier": "broken", "metadata": {"schedule": "61 * * * *"}, "tasks": []}"#,
    )
    .unwrap();
    // Not listed: no schedule, a skipped folder, a table's metadata file, not JSON.
    std::fs::write(shop.join("notes.json"), "not json").unwrap();
    std::fs::create_dir_all(shop.join("node_modules")).unwrap();
    std::fs::write(
        shop.join("node_modules/bad.json"),
        r#"{"kind": "Workflow", "metadata": {"schedule": "x"}}"#,
    )
    .unwrap();
    let out = in_dir(
        dir.path(),
        &["schedule", "list", "shop", "--now", NOW, "--json"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let listing: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listing["scheduled"].as_array().unwrap().len(), 2);
    let problems = listing["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0]["file"], "shop/broken.json");
    assert!(
        problems[0]["lines"][0]
            .as_str()
            .unwrap()
            .starts_with("metadata.schedule: "),
        "{problems:?}"
    );
    let text = in_dir(dir.path(), &["schedule", "list", "shop", "--now", NOW]);
    assert_eq!(text.status.code(), Some(1));
    let text = stdout(&text);
    assert!(text.starts_with("2 workflows or configs with a schedule under shop"));
    assert!(
        text.contains(
            "\nshop/broken.json  has a schedule and cannot be used\n  metadata.schedule: "
        ),
        "{text}"
    );
}
