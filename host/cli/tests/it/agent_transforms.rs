//! Agent transforms: JavaScript in a config, inline or in a file, runs in the
//! built-in `js` interpreter plugin with no I/O, bounded memory and a time budget; the run
//! events record the code's sha256. Hostile code (an endless loop, a memory bomb, an attempt to
//! read `/etc/passwd`) is stopped with a clear error, nothing is written, and the next run
//! works.

use std::path::Path;

use super::{ldp, rides_workdir, stderr, stdout};

fn config(transforms: &str) -> String {
    format!(
        r#"{{"identifier": "rides", "metadata": {{
  "source": {{"name": "rides", "format": "CSV", "path": "data/rides.csv"}},
  "transforms": {transforms},
  "target": {{"name": "rides", "format": "ICEBERG",
             "catalog": {{"identifier": "nyc", "warehouse_path": "warehouse"}}}},
  "observability": {{"sinks": ["jsonl"]}}}}}}"#
    )
}

fn query(dir: &Path, sql: &str) -> String {
    let config = dir.join("rides.json");
    let out = ldp(&["query", config.to_str().unwrap(), sql, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out)
}

fn snapshots(dir: &Path) -> usize {
    let config = dir.join("rides.json");
    let out = ldp(&["snapshots", config.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    list["snapshots"].as_array().map_or(0, Vec::len)
}

const FARES: &str = "function schema(fields) { return [...fields, {name: 'fare_per_km', type: 'double'}]; }\nfunction transform(rows) { return rows.filter(r => r.fare >= 10).map(r => ({...r, fare_per_km: Math.round(100 * r.fare / r.distance_km) / 100})); }";

#[test]
fn inline_and_file_javascript_transform_a_run_and_the_events_record_the_code_sha256() {
    let dir = rides_workdir("{}");
    let upper = "const transform = rows => rows.map(r => ({...r, city: r.city.toLowerCase()}));\n";
    std::fs::create_dir(dir.path().join("js")).unwrap();
    std::fs::write(dir.path().join("js/lower.js"), upper).unwrap();
    let transforms = serde_json::json!([
        {"js": FARES, "name": "fares"},
        {"js_file": "js/lower.js", "sha256": ldp_plugin_runtime::sha256_hex(upper.as_bytes())},
    ]);
    std::fs::write(
        dir.path().join("rides.json"),
        config(&transforms.to_string()),
    )
    .unwrap();
    let path = dir.path().join("rides.json");
    let out = ldp(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let out: serde_json::Value = serde_json::from_str(&query(
        dir.path(),
        "SELECT ride_id, city, fare_per_km FROM rides ORDER BY ride_id LIMIT 2",
    ))
    .unwrap();
    let rows = &out["rows"];
    // Ride 1 (LDN, 16.17 km, 32.28) is kept; ride 2 (12.22) too; ride 3 (6.17) is dropped.
    assert_eq!(rows[0]["city"], "ldn", "{rows}");
    assert_eq!(rows[0]["fare_per_km"], 2.0, "{rows}");
    assert_eq!(rows[1]["ride_id"], 2, "{rows}");

    let events = std::fs::read_to_string(dir.path().join(".ldp/events.jsonl")).unwrap();
    let started: serde_json::Value = events
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["type"] == "run.started")
        .unwrap();
    let recorded = &started["payload"]["transforms"];
    assert_eq!(recorded[0]["kind"], "js", "{recorded}");
    assert_eq!(recorded[0]["name"], "fares");
    assert_eq!(
        recorded[0]["sha256"],
        ldp_plugin_runtime::sha256_hex(FARES.as_bytes())
    );
    assert_eq!(
        recorded[1]["sha256"],
        ldp_plugin_runtime::sha256_hex(upper.as_bytes())
    );
}

/// Hostile JavaScript, each with the words its error must hold.
const HOSTILE: &[(&str, &str, &str)] = &[
    (
        "an endless loop",
        r#"{"js": "function transform(rows) { while (true) {} }", "name": "spin", "limits": {"timeout_s": 2}}"#,
        "spin",
    ),
    (
        "a memory bomb",
        r#"{"js": "function transform(rows) { const a = []; for (;;) a.push(new ArrayBuffer(8 << 20)); }", "name": "bomb", "limits": {"memory_mb": 128}}"#,
        "bomb",
    ),
    (
        "reading /etc/passwd",
        r#"{"js": "function transform(rows) { return [{city: require('fs').readFileSync('/etc/passwd', 'utf8')}]; }", "name": "peek"}"#,
        "require is not defined",
    ),
];

#[test]
fn hostile_javascript_is_stopped_nothing_is_written_and_the_next_run_works() {
    let dir = rides_workdir("{}");
    let path = dir.path().join("rides.json");
    let good = config(&serde_json::json!([{"js": FARES}]).to_string());
    std::fs::write(&path, &good).unwrap();
    let out = ldp(&["run", path.to_str().unwrap(), "--mode", "append"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let before = query(dir.path(), "SELECT count(*) AS n FROM rides");
    let snapshots_before = snapshots(dir.path());

    for (what, item, words) in HOSTILE {
        std::fs::write(&path, config(&format!("[{item}]"))).unwrap();
        let started = std::time::Instant::now();
        let out = ldp(&["run", path.to_str().unwrap(), "--mode", "append"]);
        let err = stderr(&out);
        assert_ne!(out.status.code(), Some(0), "{what}: {err}");
        assert!(
            err.contains("metadata.transforms[0]") && err.contains(words),
            "{what}: {err}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "{what} took {:?}",
            started.elapsed()
        );
        assert_eq!(
            query(dir.path(), "SELECT count(*) AS n FROM rides"),
            before,
            "{what}"
        );
        assert_eq!(snapshots(dir.path()), snapshots_before, "{what}");
    }
    let limits: Vec<String> = HOSTILE[..2]
        .iter()
        .map(|(_, item, _)| {
            std::fs::write(&path, config(&format!("[{item}]"))).unwrap();
            stderr(&ldp(&["run", path.to_str().unwrap(), "--mode", "append"]))
        })
        .collect();
    assert!(limits[0].contains("time"), "{}", limits[0]);
    assert!(limits[1].contains("memory"), "{}", limits[1]);

    // The next run works.
    std::fs::write(&path, &good).unwrap();
    let out = ldp(&["run", path.to_str().unwrap(), "--mode", "append"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(snapshots(dir.path()), snapshots_before + 1);
}

#[test]
fn transform_test_stops_an_endless_loop_within_its_timeout() {
    let dir = rides_workdir(&config("[]"));
    let path = dir.path().join("rides.json");
    let started = std::time::Instant::now();
    let out = ldp(&[
        "transform",
        "test",
        path.to_str().unwrap(),
        "--js",
        "function transform(rows) { for (;;) {} }",
        "--timeout",
        "1",
    ]);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("time"), "{}", stderr(&out));
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let bad = ldp(&[
        "transform",
        "test",
        path.to_str().unwrap(),
        "--js",
        "function transform(r) { return r }",
        "--timeout",
        "0",
    ]);
    assert!(stderr(&bad).contains("--timeout"), "{}", stderr(&bad));
    // Regression: a bad --timeout was reported as "--config is not a JSON object: …", an option
    // this command does not have.
    assert!(
        !stderr(&bad).contains("--config is not a JSON object"),
        "{}",
        stderr(&bad)
    );
}
