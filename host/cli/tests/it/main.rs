//! End-to-end tests of the `ldp` binary: real files, real plugins, real exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod agent_transforms;
mod backfill;
mod bigquery;
mod catalogs;
mod cluster;
mod datasets;
mod dbt;
mod demo;
mod docs;
mod duckdb;
mod duckdb_sql;
mod duckdb_target;
mod events;
mod evolution;
mod formats;
mod gcs;
mod gold;
mod gold_build;
mod hostile_files;
mod hostile_names;
mod interop;
mod killed_runs;
mod languages;
mod maintain;
mod many_hosts;
mod mcp;
mod network;
mod orchestration;
mod partitions;
mod plan;
mod quality;
mod s3;
mod scaffold;
mod schedule;
mod script_interface;
mod sinks;
mod source_options;
mod staged;
mod status;
mod tables;
mod telemetry;
mod torture;
mod transforms;
mod ui;
mod unknown_keys;
mod upsert;
mod windows;
mod workflows;

/// `ldp ARGS` in `dir`, without the variables of the test's own environment whose names start
/// with one of `cleared`, and with what `env` sets.
fn ldp_in_env(
    dir: &Path,
    args: &[&str],
    cleared: &[&str],
    env: impl FnOnce(&mut Command),
) -> Output {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    let mut command = Command::new(env!("CARGO_BIN_EXE_ldp"));
    command
        .current_dir(dir)
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(args);
    for (key, _) in std::env::vars_os() {
        let name = key.to_string_lossy();
        if cleared.iter().any(|prefix| name.starts_with(prefix)) {
            command.env_remove(key);
        }
    }
    env(&mut command);
    command.output().expect("ldp runs")
}

fn ldp(args: &[&str]) -> Output {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    Command::new(env!("CARGO_BIN_EXE_ldp"))
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(args)
        .output()
        .expect("ldp runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A temporary folder with `data/rides.csv` (the example rides) and `rides.json` = `config`.
fn rides_workdir(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    std::fs::copy(rides(), dir.path().join("data/rides.csv")).unwrap();
    std::fs::write(dir.path().join("rides.json"), config).unwrap();
    dir
}

/// Every file under `dir`, recursively (none when it does not exist).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn rides() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/rides.csv")
}

#[test]
fn plugins_lists_the_builtins() {
    let out = ldp(&["plugins"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let words = |l: &str| l.split_whitespace().map(String::from).collect::<Vec<_>>();
    assert_eq!(
        words(text.lines().next().unwrap())[..4],
        ["name", "kind", "version", "config"]
    );
    let row = |name: &str| {
        text.lines()
            .map(words)
            .find(|w| w.first().map(String::as_str) == Some(name))
            .unwrap_or_else(|| panic!("no {name} in {text}"))
    };
    assert_eq!(row("csv")[1..4], ["source", "0.1.0", "path*,"]);
    assert!(text.contains("Reads a CSV file"), "{text}");
    assert_eq!(row("checks")[1..4], ["check", "0.1.0", "checks*"]);
    assert_eq!(row("events-jsonl")[1], "sink");
    assert_eq!(row("json-sink")[1..4], ["sink", "0.1.0", "path*"]);
}

#[test]
fn plugins_json_has_config_schemas() {
    let out = ldp(&["plugins", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let named = |name: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap()
            .clone()
    };
    let csv = named("csv");
    assert_eq!(list[0]["name"], "bigquery");
    assert_eq!(named("checks")["kind"], "check");
    assert_eq!(csv["name"], "csv");
    assert_eq!(csv["kind"], "source");
    assert_eq!(csv["config_schema"]["required"][0], "path");
    assert_eq!(csv["sha256"].as_str().unwrap().len(), 64);
}

#[test]
fn inspect_describes_a_plugin_file() {
    let file = ldp_builtin_plugins::testing::component_path("identity");
    let out = ldp(&["plugins", "inspect", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("format:   WebAssembly component\n"), "{text}");
    assert!(text.contains("  ldp:plugin/transform@0.1.0\n"), "{text}");
    assert!(
        text.contains("ldp plugin: yes\n  name:        identity\n  kind:        transform\n"),
        "{text}"
    );
}

#[test]
fn inspect_says_why_a_file_is_not_a_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.wasm");
    std::fs::write(&file, "not wasm").unwrap();
    let out = ldp(&["plugins", "inspect", file.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["format"], "not-wasm");
    assert_eq!(
        stderr(&out).trim_end(),
        format!(
            "ldp: error: {} is not an ldp plugin: it is not a WebAssembly file (no `\\0asm` header)",
            file.display()
        )
    );
}

#[test]
fn run_reads_a_csv_through_the_builtin_plugin() {
    let config = serde_json::json!({ "path": rides() }).to_string();
    let out = ldp(&["plugins", "run", "csv", "--config", &config, "--head", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "ride_id,pickup_ts,city,distance_km,fare\n\
         1,2024-01-01T00:54:38,LDN,16.17,32.28\n\
         2,2024-01-02T03:43:54,NYC,3.92,12.22\n"
    );
    assert!(
        stderr(&out).contains("csv: read 20 rows in 1 batches"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn run_json_summarises_the_stream() {
    let config = serde_json::json!({ "path": rides(), "batch_size": 8 }).to_string();
    let out = ldp(&[
        "plugins", "run", "csv", "--config", &config, "--output", "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["rows"], 20);
    assert_eq!(json["batches"], 3);
    assert_eq!(json["schema"][1]["type"], "Timestamp(µs)");
}

#[test]
fn a_hostile_plugin_fails_the_run_with_exit_1() {
    let file = ldp_builtin_plugins::testing::component_path("hostile-loop");
    let out = ldp(&[
        "plugins",
        "run",
        file.to_str().unwrap(),
        "--timeout-s",
        "0.2",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim_end(),
        "ldp: error: plugin 'hostile-loop' was stopped by the sandbox: time limit: one call ran \
         longer than 0.200 s"
    );
}

#[test]
fn usage_errors_exit_1_and_unknown_plugins_are_named() {
    let out = ldp(&["plugins", "run"]);
    assert_eq!(out.status.code(), Some(1));
    let out = ldp(&["plugins", "run", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with(
            "ldp: error: no built-in plugin is named 'nope' (built-in: bigquery, checks, csv"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_broken_pipe_exits_0() {
    use std::io::Read;
    use std::process::Stdio;
    let config = serde_json::json!({ "path": rides() }).to_string();
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ldp"))
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(["plugins", "run", "csv", "--config", &config])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close our end of stdout before ldp writes.
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0), "{err}");
}
