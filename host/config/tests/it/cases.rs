//! Data-driven cases: each file of `tests/cases` holds a `config`, the problems `ldp plan`
//! reports (`plan`, in order), the first problem `ldp run`'s loader stops at (`run`, `null` when
//! it loads), and optionally the document's `kind`.

use ldp_config::{load, validate};
use serde_json::Value;

use crate::{read_json, tests_dir};

#[test]
fn every_case() {
    let mut files: Vec<String> = std::fs::read_dir(tests_dir("cases"))
        .expect("cases folder")
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "found {} cases", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let case = read_json("cases", file);
        let config = &case["config"];
        let plan: Vec<String> = case["plan"]
            .as_array()
            .unwrap_or_else(|| panic!("{file}: plan"))
            .iter()
            .map(|item| item.as_str().unwrap_or_default().to_owned())
            .collect();
        let validation = validate(config);
        if validation.problems != plan {
            failures.push(format!(
                "{file}: plan\n  expected {plan:#?}\n  got {:#?}",
                validation.problems
            ));
        }
        if let Some(kind) = case.get("kind").and_then(Value::as_str) {
            let got = validation.kind.map(|kind| kind.as_str());
            if got != Some(kind) {
                failures.push(format!("{file}: kind: expected {kind}, got {got:?}"));
            }
        }
        let run = load(config).map_err(|error| error.to_string());
        match (case["run"].as_str(), run) {
            (None, Ok(_)) => {}
            (Some(expected), Err(got)) if got == expected => {}
            (expected, got) => failures.push(format!(
                "{file}: run\n  expected {expected:?}\n  got {:?}",
                got.map(|_| "a config")
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The parameter table `../../tests/checks/params.json`, which the checks plugin is tested
/// against too: validation (`ldp plan`) and the loader (`ldp run`) accept each item the table
/// accepts, and refuse each other with the table's message after their own subject.
#[test]
fn check_parameter_table() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/checks/params.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let table: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cases = table["cases"].as_array().expect("a list of cases");
    assert!(cases.len() >= 50, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let config = serde_json::json!({
            "identifier": "rides",
            "metadata": {
                "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
                "target": {"name": "rides", "format": "JSON", "path": "out/rides.jsonl"},
                "quality": [case["item"]]
            }
        });
        let tail = case["error"].as_str();
        let plan: Vec<String> = tail
            .map(|tail| format!("metadata.quality.checks[0]: check {tail}"))
            .into_iter()
            .collect();
        let problems = validate(&config).problems;
        if problems != plan {
            failures.push(format!(
                "{}: plan\n  expected {plan:?}\n  got {problems:?}",
                case["item"]
            ));
        }
        let run = load(&config).err().map(|error| error.to_string());
        let expected = tail.map(|tail| format!("quality check #1 {tail}"));
        if run != expected {
            failures.push(format!(
                "{}: run\n  expected {expected:?}\n  got {run:?}",
                case["item"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
