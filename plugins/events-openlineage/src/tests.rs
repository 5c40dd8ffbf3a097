//! The Python tool's OpenLineage lines (`testdata/*.openlineage.jsonl`, written by its own sink
//! from the ldp events beside them, see `testdata/generate.py`), compared field by field.

use super::*;
use ldp_plugin_sdk::testing::{TempDir, path_config, read_text, write_events};
use serde_json::Value;

fn testdata(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Walks two JSON values and names the first path where they differ.
fn first_difference(path: &str, got: &Value, want: &Value) -> Option<String> {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            let mut keys: Vec<&String> = g.keys().chain(w.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .find_map(|key| match (g.get(key), w.get(key)) {
                    (Some(a), Some(b)) => first_difference(&format!("{path}.{key}"), a, b),
                    (a, b) => Some(format!("{path}.{key}: got {a:?}, want {b:?}")),
                })
        }
        (Value::Array(g), Value::Array(w)) if g.len() == w.len() => g
            .iter()
            .zip(w)
            .enumerate()
            .find_map(|(i, (a, b))| first_difference(&format!("{path}[{i}]"), a, b)),
        _ if got == want => None,
        _ => Some(format!("{path}: got {got}, want {want}")),
    }
}

fn check(events: &str, expected: &str, namespace: &str) {
    let input = testdata(events);
    let lines = openlineage_lines(input.lines().filter(|l| !l.trim().is_empty()), namespace)
        .expect("the events fold");
    let want: Vec<String> = testdata(expected).lines().map(str::to_owned).collect();
    assert_eq!(
        lines.len(),
        want.len(),
        "{events}: number of OpenLineage events"
    );
    for (index, (got, want)) in lines.iter().zip(&want).enumerate() {
        let got_value: Value = serde_json::from_str(got).expect("JSON");
        let want_value: Value = serde_json::from_str(want).expect("JSON");
        if let Some(difference) = first_difference("", &got_value, &want_value) {
            panic!("{events}, event {index}: {difference}");
        }
        assert_eq!(got, want, "{events}, event {index}: the line");
    }
}

#[test]
fn a_staged_run_gives_the_reference_start_and_complete() {
    check(
        "events_staged_run.jsonl",
        "openlineage_start_complete.jsonl",
        "ldp",
    );
}

#[test]
fn failed_blocked_and_workflow_runs_are_the_references() {
    check("runs_mixed.jsonl", "runs_mixed.openlineage.jsonl", "ldp");
    check(
        "ledger_workflow_run.jsonl",
        "ledger_workflow_run.openlineage.jsonl",
        "ldp",
    );
}

#[test]
fn run_ids_that_are_no_uuid_are_hashed() {
    check("ids.jsonl", "ids.openlineage.jsonl", "team");
}

#[test]
fn the_sink_appends_one_line_per_openlineage_event() {
    let dir = TempDir::new();
    let path = dir.path("openlineage.jsonl");
    let config = path_config(&path, r#","namespace":null"#);
    let input = testdata("events_staged_run.jsonl");
    let events: Vec<&str> = input.lines().collect();
    let summary = write_events::<EventsOpenLineage>(&config, &events);
    let written = read_text(&path);
    assert_eq!(written, testdata("openlineage_start_complete.jsonl"));
    assert_eq!((summary.records, summary.bytes), (2, written.len() as u64));
}

#[test]
fn config_errors_say_what_to_do() {
    let error = |text: &str| Config::parse(text).expect_err("invalid").message;
    let url = error(r#"{"url": "http://marquez:5000"}"#);
    assert!(url.contains("only 'path' is supported"), "{url}");
    assert!(error("{}").starts_with("config.path: required"));
    assert!(error(r#"{"path": "x.jsonl"}"#).contains("is not the absolute path of a file"));
    assert_eq!(
        error(r#"{"path": "/x", "namespace": 3}"#),
        "config.namespace: expected a non-empty string (the OpenLineage job namespace), got 3"
    );
    assert!(error(r#"{"path": "/x", "headers": {}}"#).starts_with("config.headers: unknown key"));
    assert_eq!(
        error(r#"{"path": "/x", "timeout": "10"}"#),
        "config.timeout: expected a number, got \"10\""
    );
    assert_eq!(
        error(r#"{"path": "/x", "api_key_env": 1}"#),
        "config.api_key_env: expected a string, got 1"
    );
    let config = Config::parse(r#"{"path": "/x", "namespace": "", "timeout": 5, "url": null}"#)
        .expect("valid");
    assert_eq!(config.namespace, "ldp");
}

#[test]
fn a_broken_event_is_a_data_error() {
    let Err(error) = openlineage_lines(["{\"type\": \"run.started\"}"], "ldp") else {
        panic!("folded a broken event");
    };
    assert_eq!(error.kind, ErrorKind::Data);
    assert!(error.message.contains("missing"));
}

#[test]
fn describes_itself() {
    let info = EventsOpenLineage::describe();
    assert_eq!(info.name, "events-openlineage");
    let schema: Value = serde_json::from_str(&info.config_schema).expect("JSON");
    assert_eq!(schema["properties"]["namespace"]["default"], "ldp");
}

/// A monitor's alerts: a breach is a `FAIL` of the job `<pipeline>.monitor.<monitor>` with the
/// detail as its error message, a recovery a `COMPLETE`; the table is the input, and neither
/// touches the runs being folded.
#[test]
fn a_monitor_alert_is_a_run_event_of_its_own() {
    let alert = |kind: &str, run: &str| {
        format!(
            r#"{{"attempt":1,"event_id":"01a23725-703f-70a2-bcb1-b5e58fd5a77a","type":"{kind}","payload":{{"pipeline":"rides","table":"nyc.rides","monitor":"volume","detail":"20 rows added: below min_rows 100","value":20,"target":{{"format":"ICEBERG","name":"nyc.rides","namespace":"file:///lake/warehouse","table_identifier":"nyc.rides"}}}},"run_id":"{run}","schema_version":1,"seq":0,"table_uuid":null,"ts":"2026-08-01T00:00:00.000001+00:00"}}"#
        )
    };
    let lines = openlineage_lines(
        [
            alert("monitor.breached", "01a23725-6f95-73c9-8cfe-c24a42626895"),
            alert("monitor.recovered", "01a23725-6f95-73c9-8cfe-c24a42626896"),
        ]
        .iter()
        .map(String::as_str),
        "ldp",
    )
    .expect("the alerts fold");
    assert_eq!(lines.len(), 2);
    let breach: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(breach["eventType"], "FAIL");
    assert_eq!(breach["job"]["name"], "rides.monitor.volume");
    assert_eq!(breach["job"]["facets"]["jobType"]["jobType"], "MONITOR");
    assert_eq!(breach["inputs"][0]["name"], "nyc.rides");
    assert_eq!(breach["inputs"][0]["namespace"], "file:///lake/warehouse");
    let facets = &breach["run"]["facets"];
    assert_eq!(facets["ldp_monitor"]["status"], "breached");
    assert_eq!(facets["ldp_monitor"]["value"], 20);
    assert_eq!(
        facets["errorMessage"]["message"],
        "monitor volume breached: 20 rows added: below min_rows 100"
    );
    let recovery: Value = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(recovery["eventType"], "COMPLETE");
    assert_eq!(
        recovery["run"]["facets"]["ldp_monitor"]["status"],
        "recovered"
    );
    assert!(recovery["run"]["facets"].get("errorMessage").is_none());
    assert_ne!(breach["run"]["runId"], recovery["run"]["runId"]);
}
