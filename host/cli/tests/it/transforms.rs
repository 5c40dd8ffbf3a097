//! Transforms named in configs: plugin files pinned by sha256 and run as a
//! chain between the source and the checks; a changed file refuses the run before anything is
//! read; a transform that gives batches of another schema than it declared fails the run and
//! leaves the table as it was; `ldp plan` lists the plugins; the run events record each
//! transform's sha256.

use std::path::Path;

use super::{ldp, rides_workdir, stderr, stdout};

fn config(transforms: &str) -> String {
    format!(
        r#"{{"identifier": "rides", "metadata": {{
  "source": {{"name": "rides", "format": "CSV", "path": "data/rides.csv"}},
  "transforms": {transforms},
  "target": {{"name": "rides", "format": "ICEBERG",
             "catalog": {{"identifier": "nyc", "warehouse_path": "warehouse"}}}},
  "quality": [{{"check": "row_count", "min": 1}}],
  "observability": {{"sinks": ["jsonl"]}}}}}}"#
    )
}

/// Copies a test plugin next to the config, as a user keeps theirs; returns its sha256.
fn plugin(dir: &Path, crate_name: &str, file: &str) -> String {
    let bytes = std::fs::read(ldp_builtin_plugins::testing::component_path(crate_name)).unwrap();
    std::fs::create_dir_all(dir.join("plugins")).unwrap();
    std::fs::write(dir.join("plugins").join(file), &bytes).unwrap();
    ldp_plugin_runtime::sha256_hex(&bytes)
}

fn count(dir: &Path) -> String {
    let config = dir.join("rides.json");
    let out = ldp(&[
        "query",
        config.to_str().unwrap(),
        "SELECT count(*) AS n FROM rides",
    ]);
    stdout(&out)
}

#[test]
fn a_pinned_transform_chain_runs_and_the_events_record_its_hashes() {
    let dir = rides_workdir("{}");
    let sha = plugin(dir.path(), "identity", "identity.wasm");
    let transforms = format!(
        r#"[{{"plugin": "plugins/identity.wasm", "sha256": "{sha}", "name": "first"}},
            {{"plugin": "plugins/identity.wasm"}}]"#
    );
    std::fs::write(dir.path().join("rides.json"), config(&transforms)).unwrap();
    let config = dir.path().join("rides.json");

    let plan = ldp(&["plan", config.to_str().unwrap(), "--json"]);
    assert_eq!(plan.status.code(), Some(0), "{}", stderr(&plan));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let plugins = plan["plugins"].as_array().unwrap();
    assert_eq!(plugins.len(), 2);
    assert_eq!(plugins[0]["at"], "metadata.transforms[0]");
    assert_eq!(plugins[0]["sha256"], sha.as_str());
    assert_eq!(plugins[0]["pinned"], sha.as_str());
    assert_eq!(plugins[1]["pinned"], serde_json::Value::Null);
    let text = stdout(&ldp(&["plan", config.to_str().unwrap()]));
    assert!(
        text.contains(&format!(
            "transform metadata.transforms[0] {} sha256 {sha} (pinned), no grants",
            dir.path()
                .join("plugins/identity.wasm")
                .display()
                .to_string()
                + ","
        )),
        "{text}"
    );

    let out = ldp(&["run", config.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("read 20 rows, wrote 20 rows"),
        "{}",
        stdout(&out)
    );
    let events = std::fs::read_to_string(dir.path().join(".ldp/events.jsonl")).unwrap();
    let started: serde_json::Value = events
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["type"] == "run.started")
        .unwrap();
    let recorded = &started["payload"]["transforms"];
    assert_eq!(recorded[0]["name"], "first");
    assert_eq!(recorded[0]["kind"], "plugin");
    assert_eq!(recorded[0]["sha256"], sha.as_str());
    assert_eq!(recorded[1]["name"], "identity.wasm");
}

#[test]
fn a_changed_plugin_file_refuses_the_run_before_anything_is_read() {
    let dir = rides_workdir("{}");
    plugin(dir.path(), "identity", "t.wasm");
    let pinned = "0".repeat(64);
    let transforms = format!(r#"[{{"plugin": "plugins/t.wasm", "sha256": "{pinned}"}}]"#);
    std::fs::write(dir.path().join("rides.json"), config(&transforms)).unwrap();
    // The source is gone: a run that read anything would fail on it instead.
    std::fs::remove_file(dir.path().join("data/rides.csv")).unwrap();
    let config = dir.path().join("rides.json");
    let out = ldp(&["run", config.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("metadata.transforms[0] (t.wasm):")
            && err.contains(&format!("but the config pins {pinned}"))
            && err.contains("Nothing was read"),
        "{err}"
    );
    assert!(!dir.path().join("warehouse").exists());
    let plan = ldp(&["plan", config.to_str().unwrap()]);
    assert_eq!(plan.status.code(), Some(1));
    assert!(
        stderr(&plan).contains("the run would be refused"),
        "{}",
        stderr(&plan)
    );
}

#[test]
fn a_transform_that_breaks_its_declared_schema_fails_and_the_table_stays_as_it_was() {
    let dir = rides_workdir("{}");
    plugin(dir.path(), "identity", "identity.wasm");
    plugin(dir.path(), "hostile-schema", "liar.wasm");
    let good = config(r#"[{"plugin": "plugins/identity.wasm"}]"#);
    std::fs::write(dir.path().join("rides.json"), &good).unwrap();
    let path = dir.path().join("rides.json");
    let out = ldp(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let before = count(dir.path());

    std::fs::write(
        &path,
        config(r#"[{"plugin": "plugins/identity.wasm"}, {"plugin": "plugins/liar.wasm"}]"#),
    )
    .unwrap();
    let out = ldp(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("metadata.transforms[1] (liar.wasm):")
            && err.contains("broke the plugin contract"),
        "{err}"
    );
    assert_eq!(count(dir.path()), before);

    // The next run works.
    std::fs::write(&path, &good).unwrap();
    let out = ldp(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(count(dir.path()).contains("40"), "{}", count(dir.path()));
}

#[test]
fn transform_items_are_checked_with_their_json_path() {
    let dir = rides_workdir(&config(
        r#"[{"plugin": "a.wasm", "js": "x"}, {"js": "f", "grants": {"env": ["X"]}}]"#,
    ));
    let path = dir.path().join("rides.json");
    let out = ldp(&["plan", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(
            "metadata.transforms[0]: needs exactly one of 'plugin', 'js' or 'js_file', and has 2"
        ) && err.contains("metadata.transforms[1]: 'grants' goes with a plugin file"),
        "{err}"
    );
}
