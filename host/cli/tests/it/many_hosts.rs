//! Loads from many hosts on one lake: three `ldp schedule tick` processes, each in a working
//! folder of its own with its own copy of the config and the drops (as three machines would
//! have), share only a PostgreSQL catalog and a bucket (moto). They tick at once over four due
//! windows; every window is published exactly once, and the rows are those of one load each.
//! No lock is shared: the catalog's compare-and-swap and the key search before each publish
//! are what keep a window to one snapshot (docs/scale-out.md).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

use super::{stderr, stdout};

/// 02:10 in Paris on 5 August: with catch-up from 1 August, the nights of 1 to 4 August are due.
const NOW: &str = "2026-08-05T00:10:00Z";
const HOSTS: usize = 3;
const WINDOWS: usize = 4;

/// The nightly workflow: catch-up from 1 August (a dataset config's own schedule has none).
fn workflow() -> Value {
    json!({"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "nightly",
           "metadata": {"schedule": "5 2 * * *", "catchup": true, "start": "2026-08-01",
                        "window": {"size": "day", "timezone": "Europe/Paris"}},
           "tasks": [{"id": "orders", "pipeline": "daily_orders.json"}]})
}

fn config(uri: &str) -> Value {
    json!({"identifier": "daily_orders", "metadata": {
        "window": {"size": "day", "column": "ordered_at", "timezone": "Europe/Paris"},
        "source": {"name": "orders", "format": "CSV",
                   "path": "drops/orders_{window_start:%Y-%m-%d}.csv"},
        "target": {"name": "orders", "format": "ICEBERG", "write_mode": "append",
                   "catalog": {"type": "sql", "name": "team", "namespace": "shop", "uri": uri,
                               "password_env": "LDP_PG_PASSWORD", "warehouse": "s3://lake/team"}}}})
}

/// A host's working folder: the workflow, its config and the four nights' drops (the third without its
/// refund, so every night passes).
fn host(uri: &str) -> tempfile::TempDir {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workflows/drops");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("drops")).unwrap();
    for entry in std::fs::read_dir(examples).unwrap() {
        let entry = entry.unwrap();
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let kept: String = text
            .lines()
            .filter(|line| !line.contains(",-"))
            .map(|line| format!("{line}\n"))
            .collect();
        std::fs::write(dir.path().join("drops").join(entry.file_name()), kept).unwrap();
    }
    super::s3::write(dir.path(), "daily_orders.json", config(uri));
    super::s3::write(dir.path(), "nightly.json", workflow());
    dir
}

fn ldp(moto: &super::s3::Moto, dir: &Path, args: &[&str]) -> Command {
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    let mut command = Command::new(env!("CARGO_BIN_EXE_ldp"));
    command
        .current_dir(dir)
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(args)
        .env("LDP_PG_PASSWORD", ldp_test_servers::postgres::PASSWORD);
    moto.aws_env(&mut command);
    command
}

fn json_of(out: &Output, what: &str) -> Value {
    assert!(
        matches!(out.status.code(), Some(0)),
        "{what}: exit {:?}\n{}\n{}",
        out.status.code(),
        stdout(out),
        stderr(out)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {}", stdout(out)))
}

#[test]
fn three_hosts_ticking_at_once_publish_every_window_once() {
    let moto = super::s3::Moto::start();
    let server = ldp_test_servers::postgres::server();
    let uri = server.uri(&server.new_database("many_hosts"));
    let hosts: Vec<tempfile::TempDir> = (0..HOSTS).map(|_| host(&uri)).collect();

    let ticks: Vec<std::process::Child> = hosts
        .iter()
        .map(|dir| {
            ldp(
                &moto,
                dir.path(),
                &["schedule", "tick", ".", "--now", NOW, "--json"],
            )
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start a tick")
        })
        .collect();
    let reports: Vec<Value> = ticks
        .into_iter()
        .enumerate()
        .map(|(n, tick)| {
            let out = tick.wait_with_output().expect("a tick ends");
            json_of(&out, &format!("the tick of host {n}"))
        })
        .collect();

    // Every host saw the four windows due; together they published each once.
    let published: u64 = reports
        .iter()
        .map(|r| r["counts"]["published"].as_u64().unwrap())
        .sum();
    let skipped: u64 = reports
        .iter()
        .map(|r| r["counts"]["skipped"].as_u64().unwrap())
        .sum();
    assert_eq!(published, WINDOWS as u64, "{reports:#?}");
    assert_eq!(skipped, ((HOSTS - 1) * WINDOWS) as u64, "{reports:#?}");

    // One keyed snapshot per window on main, and one load's rows per night.
    let first = hosts[0].path();
    let commits = json_of(
        &ldp(&moto, first, &["commits", "daily_orders.json", "--json"])
            .output()
            .unwrap(),
        "commits",
    );
    let keys: Vec<&str> = commits["publishes"]
        .as_array()
        .unwrap_or_else(|| panic!("no commits in {commits}"))
        .iter()
        .map(|c| c["idempotency_key"].as_str().unwrap())
        .collect();
    let mut distinct = keys.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(keys.len(), WINDOWS, "{commits}");
    assert_eq!(distinct.len(), WINDOWS, "{commits}");
    let per_day = json_of(
        &ldp(
            &moto,
            hosts[HOSTS - 1].path(),
            &[
                "query",
                "daily_orders.json",
                "SELECT CAST(CAST(ordered_at AS DATE) AS VARCHAR) AS day, count(*) AS n FROM orders GROUP BY 1 ORDER BY 1",
                "--json",
            ],
        )
        .output()
        .unwrap(),
        "query",
    );
    assert_eq!(
        per_day["rows"],
        json!([
            {"day": "2026-08-01", "n": 5},
            {"day": "2026-08-02", "n": 4},
            {"day": "2026-08-03", "n": 3},
            {"day": "2026-08-04", "n": 3}
        ]),
        "{per_day}"
    );

    // No staging branch is left behind, and a second round of ticks does nothing.
    let branches = json_of(
        &ldp(
            &moto,
            first,
            &["commits", "daily_orders.json", "--branches", "--json"],
        )
        .output()
        .unwrap(),
        "branches",
    );
    assert_eq!(
        branches["branches"].as_array().map_or(0, Vec::len),
        0,
        "{branches}"
    );
    for dir in &hosts {
        let again = json_of(
            &ldp(
                &moto,
                dir.path(),
                &["schedule", "tick", ".", "--now", NOW, "--json"],
            )
            .output()
            .unwrap(),
            "a second tick",
        );
        assert_eq!(again["counts"]["published"], 0, "{again}");
    }
}
