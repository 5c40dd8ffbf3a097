//! Run events: the Python tool's event sequence in the `jsonl` sink, a failing
//! run still recording `run.failed` and `run.finished`, OpenLineage lines valid against the
//! OpenLineage 2-0-2 JSON Schemas (shipped in `tests/data/openlineage`), the `_ldp.runs` table,
//! and `ldp runs`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::interop::python;
use super::{ldp, rides_workdir, stderr, stdout};

const CONFIG: &str = r#"{"identifier": "rides", "metadata": {
  "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
  "target": {"name": "rides", "format": "ICEBERG",
             "catalog": {"identifier": "nyc", "type": "local", "warehouse_path": "warehouse"}},
  "quality": [{"check": "not_null", "columns": ["ride_id"]}, {"check": "range", "column": "fare", "min": 0}],
  "observability": {"sinks": ["jsonl", "openlineage", "iceberg"]}}}"#;

fn events(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join(".ldp/events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn types_of(events: &[serde_json::Value], run: &str) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["run_id"] == run)
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect()
}

fn run_json(dir: &Path, extra: &[&str]) -> (i32, serde_json::Value, String) {
    let config = dir.join("rides.json");
    let mut args = vec!["run", config.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let out = ldp(&args);
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code().unwrap_or(-1), json, stderr(&out))
}

fn spec() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/openlineage/spec")
}

#[test]
fn a_run_records_the_reference_sequence_and_valid_openlineage() {
    let dir = rides_workdir(CONFIG);
    let d = dir.path();
    // 1. Published (staged).
    let (code, published, err) = run_json(d, &["--window", "2026-08-01/2026-08-02"]);
    assert_eq!(code, 0, "{err}");
    let published_run = published["run_id"].as_str().unwrap().to_string();
    // 2. The same window again: skipped.
    let (code, skipped, err) = run_json(d, &["--window", "2026-08-01/2026-08-02"]);
    assert_eq!(code, 0, "{err}");
    let skipped_run = skipped["run_id"].as_str().unwrap().to_string();
    // 3. Blocked by a check: a negative fare.
    let csv = std::fs::read_to_string(d.join("data/rides.csv")).unwrap();
    let mut lines: Vec<String> = csv.lines().map(String::from).collect();
    let last = lines.len() - 1;
    let mut cells: Vec<String> = lines[last].split(',').map(String::from).collect();
    let fare = cells.len() - 1;
    cells[fare] = "-1.0".into();
    lines[last] = cells.join(",");
    std::fs::write(d.join("data/rides.csv"), lines.join("\n") + "\n").unwrap();
    let (code, _, _) = run_json(d, &[]);
    assert_eq!(code, 3);
    // 4. Failed after run.started: the source is gone.
    std::fs::remove_file(d.join("data/rides.csv")).unwrap();
    let (code, _, err) = run_json(d, &[]);
    assert_eq!(code, 1, "{err}");

    let all = events(d);
    assert_eq!(
        types_of(&all, &published_run),
        [
            "run.started",
            "run.extracted",
            "quality.evaluated",
            "run.published",
            "run.finished"
        ]
    );
    assert_eq!(
        types_of(&all, &skipped_run),
        ["run.started", "run.skipped_duplicate", "run.finished"]
    );
    let runs: Vec<&str> = all
        .iter()
        .filter(|e| e["type"] == "run.started")
        .map(|e| e["run_id"].as_str().unwrap())
        .collect();
    assert_eq!(runs.len(), 4);
    assert_eq!(
        types_of(&all, runs[2]),
        [
            "run.started",
            "run.extracted",
            "quality.evaluated",
            "run.blocked_quality",
            "run.finished"
        ]
    );
    assert_eq!(
        types_of(&all, runs[3]),
        ["run.started", "run.failed", "run.finished"]
    );
    let failed = all
        .iter()
        .find(|e| e["run_id"] == runs[3] && e["type"] == "run.failed")
        .unwrap();
    assert_eq!(failed["payload"]["stage"], "extract");
    let finished = all
        .iter()
        .find(|e| e["run_id"] == runs[3] && e["type"] == "run.finished")
        .unwrap();
    assert_eq!(finished["payload"]["status"], "failed");
    // seq counts 0, 1, 2… per run; the envelope has the Python tool's keys.
    for event in all.iter().filter(|e| e["run_id"] == published_run) {
        for key in [
            "event_id",
            "ts",
            "schema_version",
            "attempt",
            "seq",
            "table_uuid",
            "payload",
        ] {
            assert!(event.get(key).is_some(), "{key} in {event}");
        }
        assert_eq!(event["payload"]["pipeline"], "rides");
        assert_eq!(event["payload"]["table"], "nyc.rides");
    }

    // OpenLineage: START and COMPLETE/FAIL per run, valid against the 2-0-2 schemas.
    let lineage = d.join(".ldp/openlineage.jsonl");
    let text = std::fs::read_to_string(&lineage).unwrap();
    let kinds: Vec<String> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["eventType"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "START", "COMPLETE", "START", "COMPLETE", "START", "FAIL", "START", "FAIL"
        ]
    );
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/validate_openlineage.py");
    let out = Command::new(python())
        .arg(&script)
        .arg(&lineage)
        .arg("--spec")
        .arg(spec())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}\n(needs: .venv/bin/pip install 'jsonschema[format-nongpl]')",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    // _ldp.runs: `ldp runs` reads it (newest first), and pyiceberg reads the table.
    let config = d.join("rides.json");
    let out = ldp(&["runs", config.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("Runs recorded in _ldp.runs, newest first:"),
        "{text}"
    );
    assert!(text.ends_with("(4 rows)\n"), "{text}");
    for status in [
        "published",
        "skipped_duplicate",
        "blocked_quality",
        "failed",
    ] {
        assert!(text.contains(status), "{status} in {text}");
    }
    let out = ldp(&[
        "runs",
        lineage.with_file_name("events.jsonl").to_str().unwrap(),
        "--run",
        &published_run,
    ]);
    assert!(stdout(&out).contains("run.published"), "{}", stdout(&out));
    let script = r#"
import sys, json
from pyiceberg.catalog.sql import SqlCatalog
w = sys.argv[1]
c = SqlCatalog("nyc", uri=f"sqlite:///{w}/nyc_catalog.db", warehouse=f"file://{w}")
runs = c.load_table(("_ldp", "runs"))
rows = runs.scan().to_arrow()
q = c.load_table(("_ldp", "quality_results")).scan().to_arrow()
print(json.dumps({"rows": rows.num_rows, "types": sorted(set(rows["type"].to_pylist())),
  "spec": str(runs.spec()), "managed": runs.properties.get("ldp.managed"), "checks": q.num_rows}))
"#;
    let out = Command::new(python())
        .args(["-c", script, d.join("warehouse").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["rows"], all.len());
    assert_eq!(doc["managed"], "true");
    assert!(doc["spec"].as_str().unwrap().contains("ts_day"), "{doc}");
    // Two quality.evaluated events with two checks each.
    assert_eq!(doc["checks"], 4);
}

/// The `openlineage` sink with a `url`: the host posts the plugin's events, over `http://` and
/// over `https://` (a certificate of a test authority the run trusts through `SSL_CERT_FILE`); a sink
/// that cannot reach its endpoint never fails the run.
#[test]
fn openlineage_events_are_posted_and_a_failing_sink_does_not_fail_the_run() {
    // A certificate authority the run trusts, and the server's certificate it signed (rustls
    // refuses a self-signed CA certificate as the server's own).
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name);
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .current_dir(dir.path())
            .args(args)
            .output()
            .expect("openssl runs (apt-get install openssl)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=ldp test CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
    ]);
    openssl(&[
        "req",
        "-new",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "key.pem",
        "-out",
        "server.csr",
    ]);
    std::fs::write(
        file("server.ext"),
        "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        "server.ext",
        "-out",
        "cert.pem",
    ]);
    let (cert, key, ca) = (file("cert.pem"), file("key.pem"), file("ca.pem"));
    posts_reach_the_lineage_server(None);
    posts_reach_the_lineage_server(Some((&cert, &key, &ca)));
}

/// Runs the rides with an `openlineage` sink posting to a local server (TLS with `tls`), and
/// checks what the server received.
fn posts_reach_the_lineage_server(
    tls: Option<(&std::path::Path, &std::path::Path, &std::path::Path)>,
) {
    // A lineage server: records each POST's path, headers and body, answers 201.
    let server = r#"
import http.server, json, ssl, sys, threading
posts = []
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        posts.append({"path": self.path, "type": self.headers["Content-Type"],
                      "auth": self.headers.get("Authorization"), "event": json.loads(body)["eventType"]})
        self.send_response(201); self.end_headers()
        if len(posts) == 2:
            print(json.dumps(posts), flush=True)
            threading.Thread(target=self.server.shutdown).start()
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
if len(sys.argv) > 2:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    s.socket = context.wrap_socket(s.socket, server_side=True)
print(s.server_address[1], flush=True)
s.serve_forever()
"#;
    let mut server_command = Command::new(python());
    server_command.args(["-c", server]);
    if let Some((cert, key, _)) = tls {
        server_command.arg(cert).arg(key);
    }
    let mut child = server_command
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut port = String::new();
    std::io::BufRead::read_line(&mut out, &mut port).unwrap();
    let port = port.trim().to_string();
    let scheme = if tls.is_some() { "https" } else { "http" };
    let config = CONFIG.replace(
        r#""observability": {"sinks": ["jsonl", "openlineage", "iceberg"]}"#,
        &format!(
            r#""observability": {{"sinks": [{{"type": "openlineage", "url": "{scheme}://127.0.0.1:{port}", "api_key_env": "LDP_TEST_LINEAGE_KEY"}},
                                {{"type": "jsonl", "path": "/proc/no/such/dir/events.jsonl"}}]}}"#
        ),
    );
    let dir = rides_workdir(&config);
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    let mut command = Command::new(env!("CARGO_BIN_EXE_ldp"));
    command
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(["run", dir.path().join("rides.json").to_str().unwrap()])
        .env("LDP_TEST_LINEAGE_KEY", "secret-key");
    if let Some((_, _, ca)) = tls {
        command.env("SSL_CERT_FILE", ca);
    }
    let run = command.output().unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "a broken jsonl sink must not fail the run: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    if stderr.contains("openlineage") {
        let _ = child.kill();
        panic!("{scheme}: the openlineage sink failed: {stderr}");
    }
    assert!(stderr.contains("event sink not opened"), "{stderr}");
    let mut posts = String::new();
    std::io::BufRead::read_line(&mut out, &mut posts).unwrap();
    let _ = child.wait();
    let posts: serde_json::Value = serde_json::from_str(&posts).unwrap();
    assert_eq!(posts[0]["path"], "/api/v1/lineage");
    assert_eq!(posts[0]["type"], "application/json");
    assert_eq!(posts[0]["auth"], "Bearer secret-key");
    assert_eq!(posts[0]["event"], "START");
    assert_eq!(posts[1]["event"], "COMPLETE");
}
