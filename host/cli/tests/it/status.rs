//! `ldp status`: a lake whose tables are well exits 0; each monitor breached once (a table never
//! loaded is stale, a table whose newest row is old, a load below its volume band, a column
//! added, a run blocked by its gate)
//! exits 3 and says which, in lines and in `--json`.

use std::path::Path;

use super::{ldp, rides_workdir, stderr, stdout};

/// A config of table `name` loading `csv` with `monitors` and `extra` metadata; run events go to
/// the JSONL sink, which `ldp status` reads as `ldp runs` does.
fn config(name: &str, csv: &str, monitors: &str, extra: &str) -> String {
    format!(
        r#"{{"identifier": "{name}", "metadata": {{
  "source": {{"name": "{name}", "format": "CSV", "path": "{csv}"}},
  "target": {{"name": "{name}", "format": "ICEBERG", "catalog": {{"identifier": "nyc", "warehouse_path": "warehouse"}}}},
  "observability": {{"sinks": [{{"type": "jsonl", "path": ".ldp/{name}.jsonl"}}]}},
  "monitors": {monitors}{extra}}}}}"#
    )
}

fn write(dir: &Path, file: &str, text: &str) -> String {
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn status(dir: &Path, json: bool) -> (Option<i32>, String) {
    let folder = dir.join("lake");
    let mut args = vec!["status", folder.to_str().unwrap()];
    if json {
        args.push("--json");
    }
    let out = ldp(&args);
    (
        out.status.code(),
        format!("{}{}", stdout(&out), stderr(&out)),
    )
}

#[test]
fn a_lake_that_is_well_exits_0_and_each_breached_monitor_exits_3() {
    let dir = rides_workdir("{}");
    let d = dir.path();
    std::fs::create_dir(d.join("lake")).unwrap();
    let every = r#"{"freshness": {"max_age": "1h"}, "volume": {"min_rows": 1}, "schema_drift": true, "failure_streak": 1}"#;
    let rides = write(
        d,
        "lake/rides.json",
        &config("rides", "../data/rides.csv", every, ""),
    );
    let out = ldp(&["run", &rides]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (code, text) = status(d, false);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("nyc.rides  ok  published "), "{text}");
    assert!(text.contains("last run published"), "{text}");
    assert!(text.contains("volume ok: 20 rows added"), "{text}");
    assert!(
        text.contains("1 table(s), 0 with a breached monitor"),
        "{text}"
    );

    // Freshness: a table never loaded has no snapshot.
    let stale = config(
        "stale",
        "../data/rides.csv",
        r#"{"freshness": {"max_age": "26h"}}"#,
        "",
    );
    write(d, "lake/stale.json", &stale);
    // Freshness of the rows: the newest pickup_ts (its upper bound in the manifests) is of 2024.
    let old_rows = r#"{"freshness": {"max_age": "26h", "column": "pickup_ts"}}"#;
    let rows = write(
        d,
        "lake/rows.json",
        &config("rows", "../data/rides.csv", old_rows, ""),
    );
    assert_eq!(ldp(&["run", &rows]).status.code(), Some(0));
    // Volume: 20 rows against a band of at least 100.
    let small = config(
        "small",
        "../data/rides.csv",
        r#"{"volume": {"min_rows": 100}}"#,
        "",
    );
    let small = write(d, "lake/small.json", &small);
    assert_eq!(ldp(&["run", &small]).status.code(), Some(0));
    // Schema drift: the rides again with a column more.
    let wider: String = std::fs::read_to_string(d.join("data/rides.csv"))
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("{l},\"tip\"\n")
            } else {
                format!("{l},1.5\n")
            }
        })
        .collect();
    std::fs::write(d.join("data/wider.csv"), wider).unwrap();
    let drift = config(
        "drift",
        "../data/rides.csv",
        r#"{"schema_drift": true}"#,
        "",
    );
    let drift_file = write(d, "lake/drift.json", &drift);
    assert_eq!(ldp(&["run", &drift_file]).status.code(), Some(0));
    write(
        d,
        "lake/drift.json",
        &config(
            "drift",
            "../data/wider.csv",
            r#"{"schema_drift": true}"#,
            "",
        ),
    );
    let out = ldp(&["run", &drift_file]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Failure streak: a run its gate blocks.
    let gate = r#", "quality": {"checks": [{"check": "row_count", "min": 1000000}]}"#;
    let blocked = config(
        "blocked",
        "../data/rides.csv",
        r#"{"failure_streak": 1}"#,
        gate,
    );
    let blocked = write(d, "lake/blocked.json", &blocked);
    assert_eq!(ldp(&["run", &blocked]).status.code(), Some(3));

    let (code, text) = status(d, false);
    assert_eq!(code, Some(3), "{text}");
    for expected in [
        "nyc.stale  BREACHED  no snapshot  no run recorded  freshness BREACHED: no snapshot yet (max age 1d 2h)",
        "nyc.small  BREACHED",
        "volume BREACHED: 20 rows added: below min_rows 100",
        "nyc.drift  BREACHED",
        "schema_drift BREACHED: added tip",
        "nyc.blocked  BREACHED",
        "last run blocked_quality",
        "failure_streak BREACHED: 1 failed or blocked run(s) in a row (max 0)",
        "nyc.rides  ok",
        "nyc.rows  BREACHED",
        "freshness BREACHED: newest pickup_ts ",
        "6 table(s), 5 with a breached monitor",
    ] {
        assert!(text.contains(expected), "{expected:?} not in:\n{text}");
    }

    let (code, text) = status(d, true);
    assert_eq!(code, Some(3), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["breached"], 5);
    let drift = doc["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == "nyc.drift")
        .unwrap();
    assert_eq!(drift["snapshots"], 2);
    assert_eq!(drift["monitors"][0]["monitor"], "schema_drift");
    assert_eq!(drift["monitors"][0]["value"]["added"][0], "tip");

    // A monitor the config gets wrong is named by `ldp plan`, at its key.
    let bad = config(
        "bad",
        "../data/rides.csv",
        r#"{"freshness": {"max_age": "soon"}}"#,
        "",
    );
    let bad = write(d, "bad.json", &bad);
    let out = ldp(&["plan", &bad]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out)
            .contains("metadata.monitors.freshness.max_age: must be a whole number and a unit")
            || stderr(&out)
                .contains("metadata.monitors.freshness.max_age: must be a whole number and a unit"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

/// A local webhook: every POST body, one JSON per line, in `file`; stopped when dropped.
struct Webhook {
    child: std::process::Child,
    url: String,
}

impl Webhook {
    fn start(file: &Path) -> Webhook {
        use std::io::BufRead;
        let script = r#"
import sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class Hook(BaseHTTPRequestHandler):
    def log_message(self, *args): pass
    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        with open(sys.argv[1], "ab") as f: f.write(body + b"\n")
        self.send_response(204); self.end_headers()
server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(server.server_port, flush=True)
sys.stdin.read()
"#;
        let mut child = std::process::Command::new(super::interop::python())
            .args(["-c", script])
            .arg(file)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Webhook {
            child,
            url: format!("http://127.0.0.1:{}/hook", line.trim()),
        }
    }
}

impl Drop for Webhook {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `ldp status DIR --alert --json` with the webhook's URL in `LDP_TEST_WEBHOOK` (or unset).
fn alert(dir: &Path, url: Option<&str>) -> (Option<i32>, serde_json::Value, String) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_ldp"));
    command.args([
        "status",
        dir.join("lake").to_str().unwrap(),
        "--alert",
        "--json",
    ]);
    match url {
        Some(url) => command.env("LDP_TEST_WEBHOOK", url),
        None => command.env_remove("LDP_TEST_WEBHOOK"),
    };
    let out = command.output().unwrap();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_default();
    (out.status.code(), doc, stderr(&out))
}

fn posted(file: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_breach_is_posted_to_the_webhook_once_and_its_recovery_once() {
    let dir = rides_workdir("{}");
    let d = dir.path();
    std::fs::create_dir(d.join("lake")).unwrap();
    let hook_file = d.join("posted.jsonl");
    let hook = Webhook::start(&hook_file);
    let monitors = |min: u64| {
        format!(
            r#"{{"volume": {{"min_rows": {min}}}, "alert": {{"webhook_env": "LDP_TEST_WEBHOOK"}}}}"#
        )
    };
    let file = write(
        d,
        "lake/small.json",
        &config("small", "../data/rides.csv", &monitors(100), ""),
    );
    assert_eq!(ldp(&["run", &file]).status.code(), Some(0));

    // Breached: posted once, however often status runs.
    let (code, doc, err) = alert(d, Some(&hook.url));
    assert_eq!(code, Some(3), "{err}");
    assert_eq!(doc["tables"][0]["alerts"][0]["sent"], true, "{doc}");
    let (code, _, _) = alert(d, Some(&hook.url));
    assert_eq!(code, Some(3));
    let sent = posted(&hook_file);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["type"], "monitor.breached");
    assert_eq!(sent[0]["table"], "nyc.small");
    assert_eq!(sent[0]["monitor"], "volume");
    assert_eq!(sent[0]["detail"], "20 rows added: below min_rows 100");

    // Well again: the recovery, once.
    write(
        d,
        "lake/small.json",
        &config("small", "../data/rides.csv", &monitors(1), ""),
    );
    let (code, _, err) = alert(d, Some(&hook.url));
    assert_eq!(code, Some(0), "{err}");
    alert(d, Some(&hook.url));
    let sent = posted(&hook_file);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[1]["type"], "monitor.recovered");

    // Without the variable: said on stderr, not remembered, so posted once it is set.
    write(
        d,
        "lake/small.json",
        &config("small", "../data/rides.csv", &monitors(100), ""),
    );
    let (code, doc, err) = alert(d, None);
    assert_eq!(code, Some(3));
    assert!(err.contains("LDP_TEST_WEBHOOK is not set"), "{err}");
    assert_eq!(doc["tables"][0]["alerts"][0]["sent"], false, "{doc}");
    assert_eq!(posted(&hook_file).len(), 2);
    alert(d, Some(&hook.url));
    assert_eq!(posted(&hook_file).len(), 3);
}

/// A breach and its recovery reach the config's event sinks once each: a `monitor.breached`
/// and a `monitor.recovered` line in the JSONL file (which `ldp runs` leaves out), and an
/// OpenLineage `FAIL` then `COMPLETE` of the job `<pipeline>.monitor.volume`, valid against the
/// OpenLineage schemas.
#[test]
fn a_breach_and_its_recovery_are_events_in_the_sinks_once_each() {
    let dir = rides_workdir("{}");
    let d = dir.path();
    std::fs::create_dir(d.join("lake")).unwrap();
    let with = |min: u64| {
        config(
            "small",
            "../data/rides.csv",
            &format!(r#"{{"volume": {{"min_rows": {min}}}}}"#),
            "",
        )
        .replace(
            r#"[{"type": "jsonl", "path": ".ldp/small.jsonl"}]"#,
            r#"[{"type": "jsonl", "path": ".ldp/small.jsonl"},
                {"type": "openlineage", "path": ".ldp/small.openlineage.jsonl"}]"#,
        )
    };
    let file = write(d, "lake/small.json", &with(100));
    assert_eq!(ldp(&["run", &file]).status.code(), Some(0));
    let monitor_lines = || -> Vec<serde_json::Value> {
        posted(&d.join("lake/.ldp/small.jsonl"))
            .into_iter()
            .filter(|e| e["type"].as_str().unwrap().starts_with("monitor."))
            .collect()
    };

    for _ in 0..2 {
        let (code, doc, err) = alert(d, None);
        assert_eq!(code, Some(3), "{err}");
        assert!(
            doc["tables"][0]["alerts"].as_array().unwrap().len() <= 1,
            "{doc}"
        );
    }
    let (_, doc, _) = alert(d, None);
    assert_eq!(doc["tables"][0]["alerts"], serde_json::json!([]), "{doc}");
    let events = monitor_lines();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["type"], "monitor.breached");
    assert_eq!(events[0]["payload"]["monitor"], "volume");
    assert_eq!(events[0]["payload"]["table"], "nyc.small");
    assert_eq!(events[0]["payload"]["target"]["name"], "nyc.small");

    write(d, "lake/small.json", &with(1));
    let (code, doc, err) = alert(d, None);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(doc["tables"][0]["alerts"][0]["channel"], "events", "{doc}");
    assert_eq!(doc["tables"][0]["alerts"][0]["sent"], true, "{doc}");
    alert(d, None);
    let events = monitor_lines();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[1]["type"], "monitor.recovered");

    // `ldp runs` lists the one run, not the alerts.
    let out = ldp(&["runs", &file, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(runs["runs"].as_array().map(Vec::len), Some(1), "{runs}");

    let lineage = d.join("lake/.ldp/small.openlineage.jsonl");
    let ol: Vec<serde_json::Value> = posted(&lineage)
        .into_iter()
        .filter(|e| e["job"]["name"] == "small.monitor.volume")
        .collect();
    let kinds: Vec<&str> = ol
        .iter()
        .map(|e| e["eventType"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["FAIL", "COMPLETE"], "{ol:?}");
    assert_eq!(ol[0]["inputs"][0]["name"], "nyc.small");
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/validate_openlineage.py");
    let out = std::process::Command::new(super::interop::python())
        .arg(&script)
        .arg(&lineage)
        .arg("--spec")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/openlineage/spec"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}\n(needs: .venv/bin/pip install 'jsonschema[format-nongpl]')",
        stdout(&out),
        stderr(&out)
    );
}
