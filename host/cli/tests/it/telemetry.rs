//! OpenTelemetry traces: `ldp run` and `ldp workflow run` with `OTEL_EXPORTER_OTLP_ENDPOINT`
//! pointing at a local OTLP/HTTP receiver (`telemetry/receiver.py`, which decodes the requests
//! with PyPI's `opentelemetry-proto`, installed into `.venv` by `scripts/test`). The spans'
//! names, attributes, statuses and parent/child structure are checked; without the variable
//! nothing is sent.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::interop::python;
use super::{rides, stderr};

const SETUP: &str = "run scripts/test, or: .venv/bin/pip install 'opentelemetry-proto==1.45.2'";

/// The receiver, killed on drop.
struct Receiver {
    child: Child,
    endpoint: String,
    out: PathBuf,
}

impl Receiver {
    fn start(dir: &Path) -> Receiver {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/telemetry/receiver.py");
        let out = dir.join("spans.jsonl");
        let port_file = dir.join("receiver.port");
        let mut child = Command::new(python())
            .arg(&script)
            .arg(&out)
            .arg(&port_file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the receiver: {e}; {SETUP}"));
        let deadline = Instant::now() + Duration::from_secs(30);
        let port = loop {
            if let Ok(port) = std::fs::read_to_string(&port_file) {
                break port;
            }
            if let Ok(Some(status)) = child.try_wait() {
                let mut err = String::new();
                std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).ok();
                panic!("the receiver exited ({status}): {err}\n{SETUP}");
            }
            assert!(Instant::now() < deadline, "the receiver did not start");
            std::thread::sleep(Duration::from_millis(50));
        };
        Receiver {
            child,
            endpoint: format!("http://127.0.0.1:{}", port.trim()),
            out,
        }
    }

    fn spans(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.out)
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `ldp ARGS` in `dir`, exporting to `endpoint` when given (and never to anything of the test's
/// own environment).
fn ldp_in(dir: &Path, args: &[&str], endpoint: Option<&str>) -> Output {
    super::ldp_in_env(dir, args, &["OTEL_"], |command| {
        if let Some(endpoint) = endpoint {
            command.env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
        }
        command.env("NO_PROXY", "127.0.0.1");
    })
}

fn workdir(quality_min: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    std::fs::copy(rides(), dir.path().join("data/rides.csv")).unwrap();
    let config = serde_json::json!({"identifier": "rides", "metadata": {
        "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
        "target": {"name": "rides", "format": "ICEBERG",
                   "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}},
        "quality": {"on_failure": "fail", "checks": [
            {"check": "row_count", "min": quality_min},
            {"check": "not_null", "columns": ["ride_id"]}]}}});
    std::fs::write(dir.path().join("rides.json"), config.to_string()).unwrap();
    dir
}

fn named<'a>(spans: &'a [Value], name: &str) -> Vec<&'a Value> {
    spans.iter().filter(|s| s["name"] == name).collect()
}

#[test]
fn a_run_is_a_span_with_its_plugins_inside() {
    let dir = workdir(1);
    let receiver = Receiver::start(dir.path());
    let out = ldp_in(dir.path(), &["run", "rides.json"], Some(&receiver.endpoint));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let spans = receiver.spans();
    let runs = named(&spans, "ldp.run");
    assert_eq!(runs.len(), 1, "{spans:#?}");
    let run = runs[0];
    assert_eq!(run["parent"], "", "a run alone is a root span");
    assert_eq!(run["path"], "/v1/traces");
    assert_eq!(run["content_type"], "application/x-protobuf");
    assert_eq!(run["resource"]["service.name"], "ldp");
    let attributes = &run["attributes"];
    assert_eq!(attributes["ldp.pipeline"], "rides");
    assert_eq!(attributes["ldp.status"], "published");
    assert_eq!(attributes["ldp.rows_read"], 20);
    assert_eq!(attributes["ldp.rows_written"], 20);
    assert_eq!(attributes["ldp.checks_run"], 2);
    assert_eq!(attributes["ldp.checks_failed"], 0);
    assert_eq!(
        attributes["ldp.checks"],
        "row_count=passed,not_null(ride_id)=passed"
    );
    assert!(attributes["ldp.snapshot_id"].as_i64().is_some(), "{run}");
    assert!(attributes["ldp.run_id"].as_str().is_some(), "{run}");

    let plugins = named(&spans, "ldp.plugin");
    let source = plugins
        .iter()
        .find(|p| {
            p["attributes"]["ldp.plugin_kind"] == "source" && p["attributes"]["ldp.rows_out"] == 20
        })
        .unwrap_or_else(|| panic!("no source plugin span that gave 20 rows: {plugins:#?}"));
    assert_eq!(source["attributes"]["ldp.plugin"], "csv");
    assert_eq!(source["attributes"]["ldp.rows_out"], 20);
    assert!(source["attributes"]["ldp.bytes_out"].as_i64().unwrap() > 0);
    assert!(
        plugins
            .iter()
            .any(|p| p["attributes"]["ldp.plugin_kind"] == "check"
                && p["attributes"]["ldp.rows_in"] == 20),
        "{spans:#?}"
    );
    for plugin in &plugins {
        assert_eq!(plugin["parent"], run["span_id"], "{plugin}");
        assert_eq!(plugin["trace_id"], run["trace_id"], "{plugin}");
    }

    // A run blocked by its gate is an error span that says which check failed.
    let dir = workdir(1000);
    let receiver = Receiver::start(dir.path());
    let out = ldp_in(dir.path(), &["run", "rides.json"], Some(&receiver.endpoint));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let spans = receiver.spans();
    let run = named(&spans, "ldp.run")[0];
    assert_eq!(run["status"], 2, "STATUS_CODE_ERROR: {run}");
    assert_eq!(run["attributes"]["ldp.status"], "blocked_quality");
    assert_eq!(
        run["attributes"]["ldp.checks"],
        "row_count=failed,not_null(ride_id)=passed"
    );

    // Without the variable nothing is sent.
    let out = ldp_in(dir.path(), &["run", "rides.json"], None);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(receiver.spans().len(), spans.len());
}

#[test]
fn a_workflow_holds_its_tasks_which_hold_their_runs() {
    let dir = workdir(1);
    let workflow = serde_json::json!({"apiVersion": "ldp/v1", "kind": "Workflow",
        "identifier": "nightly", "metadata": {"window": {"size": "day"}},
        "tasks": [{"id": "load", "pipeline": "rides.json"}]});
    std::fs::write(dir.path().join("nightly.json"), workflow.to_string()).unwrap();
    let receiver = Receiver::start(dir.path());
    let out = ldp_in(
        dir.path(),
        &[
            "workflow",
            "run",
            "nightly.json",
            "--window",
            "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z",
        ],
        Some(&receiver.endpoint),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let spans = receiver.spans();
    let workflow = named(&spans, "ldp.workflow");
    assert_eq!(workflow.len(), 1, "{spans:#?}");
    let workflow = workflow[0];
    assert_eq!(workflow["parent"], "");
    assert_eq!(workflow["attributes"]["ldp.workflow"], "nightly");
    assert_eq!(workflow["attributes"]["ldp.status"], "succeeded");
    let task = named(&spans, "ldp.task")[0];
    assert_eq!(task["parent"], workflow["span_id"]);
    assert_eq!(task["attributes"]["ldp.task_id"], "load");
    assert_eq!(task["attributes"]["ldp.status"], "published");
    let run = named(&spans, "ldp.run")[0];
    assert_eq!(run["parent"], task["span_id"]);
    let plugins = named(&spans, "ldp.plugin");
    assert!(!plugins.is_empty(), "{spans:#?}");
    for span in plugins.iter().chain([&task, &run]) {
        assert_eq!(span["trace_id"], workflow["trace_id"], "{span}");
    }
    for plugin in plugins {
        assert_eq!(plugin["parent"], run["span_id"], "{plugin}");
    }
}
