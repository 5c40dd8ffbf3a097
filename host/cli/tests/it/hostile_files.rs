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
