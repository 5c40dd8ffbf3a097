//! Unit tests of the workflow model: every validation message of the file and its tasks (the
//! Python tool's own examples among them), the run order, the retry overlay, and a dataset
//! config read as a workflow of one task. (Each task kind's own messages are tested in its
//! module; the plan against the Python tool's sample in `tests/it/workflow.rs`.)

use std::path::Path;

use serde_json::{Value, json};

use super::*;

const KINDS: &str = "['pipeline', 'maintain', 'dbt', 'sql']";

fn problems(document: Value) -> Vec<String> {
    validate_workflow(&document)
}

fn workflow(tasks: Value) -> Value {
    json!({"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "nightly", "tasks": tasks})
}

fn built(document: Value) -> Workflow {
    workflow_from_document(&document, Path::new("/project"), None).expect("valid workflow")
}

#[test]
fn the_reference_example_is_valid() {
    let document = json!({"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "nightly",
        "metadata": {"schedule": "5 2 * * *", "window": {"size": "day", "timezone": "Europe/Paris"},
                     "retries": {"max_attempts": 2, "delay_s": 0}},
        "tasks": [
            {"id": "orders", "pipeline": "daily_orders.json"},
            {"id": "gold", "dbt": {"project": "dbt", "select": "+daily_revenue"}, "depends_on": ["orders"]},
            {"id": "tidy", "maintain": {"config": "daily_orders.json", "expire": 7}, "depends_on": ["gold"]}]});
    assert_eq!(problems(document.clone()), Vec::<String>::new());
    assert!(crate::validate(&document).is_valid());
    let flow = built(document);
    assert_eq!(flow.identifier, "nightly");
    assert_eq!(flow.timezone_name(), "Europe/Paris");
    assert_eq!(flow.window_size(), Some(WindowSize::Day));
    assert_eq!(
        flow.schedule.as_ref().map(|s| s.text.as_str()),
        Some("5 2 * * *")
    );
    assert_eq!(flow.ledger_path(), Path::new("/project/.ldp/events.jsonl"));
    let kinds: Vec<&str> = flow.tasks.iter().map(|task| task.kind.name()).collect();
    assert_eq!(kinds, ["pipeline", "dbt", "maintain"]);
    assert!(!flow.tasks[2].kind.changes_data());
}

#[test]
fn the_reference_task_messages() {
    assert_eq!(
        problems(workflow(
            json!([{"id": "a", "pipeline": "a.json"}, {"id": "a", "pipeline": "b.json"}])
        )),
        ["tasks[1].id: 'a' is the id of an earlier task"]
    );
    assert_eq!(
        problems(workflow(
            json!([{"id": "a", "gold": {"model": "x"}, "pipeline": "a.json"}])
        )),
        [format!(
            "tasks[0]: has unknown keys ['gold']; a task has an id, depends_on, retries and one task kind of {KINDS}"
        )]
    );
    assert_eq!(
        problems(workflow(json!([{"id": "a"}]))),
        [format!(
            "tasks[0]: needs exactly one task kind of {KINDS}, and has none"
        )]
    );
    assert_eq!(
        problems(workflow(
            json!([{"id": "a", "pipeline": "a.json", "maintain": {"config": "a.json"}}])
        )),
        [format!(
            "tasks[0]: needs exactly one task kind of {KINDS}, and has 2: ['pipeline', 'maintain']"
        )]
    );
    assert_eq!(
        problems(workflow(json!([
            {"id": "a", "pipeline": "a.json"},
            {"id": "c", "pipeline": "c.json", "depends_on": ["b", "c", "a", "a", 3]}]))),
        [
            "tasks[1].depends_on[0]: unknown task id 'b'; the ids are ['a', 'c']",
            "tasks[1].depends_on[1]: 'c' is the task itself",
            "tasks[1].depends_on[3]: 'a' is listed twice",
            "tasks[1].depends_on[4]: must be a task id, got 3",
        ]
    );
    assert_eq!(
        problems(workflow(
            json!([{"id": "a", "pipeline": "a.json", "depends_on": "b", "retries": {"x": 1}}])
        )),
        ["tasks[0].depends_on: must be a list of task ids, got 'b'"]
    );
    assert_eq!(
        problems(workflow(
            json!([{"id": " ", "pipeline": ""}, "x", {"pipeline": "p.json", "retries": {"max_attempts": 0}}])
        )),
        [
            "tasks[0].id: is required and must be a non-empty string",
            "tasks[1]: must be an object with an 'id'",
            "tasks[2].id: is required and must be a non-empty string",
            "tasks[0].pipeline: must be the path of a dataset config, got ''",
            "tasks[2].retries.max_attempts: must be a whole number from 1, got 0",
        ]
    );
}

#[test]
fn cycles_are_named_only_when_nothing_else_is_wrong() {
    let cycle = json!([
        {"id": "a", "pipeline": "a.json", "depends_on": ["c"]},
        {"id": "b", "pipeline": "b.json", "depends_on": ["a"]},
        {"id": "c", "pipeline": "c.json", "depends_on": ["b"]}]);
    assert_eq!(
        problems(workflow(cycle.clone())),
        ["tasks: depend on each other in a cycle: a -> b -> c -> a"]
    );
    let mut with_other_problem = workflow(cycle);
    with_other_problem["who"] = json!(1);
    assert_eq!(
        problems(with_other_problem),
        ["who: must be a string, got int"]
    );
    let two = json!([{"id": "a", "pipeline": "a.json", "depends_on": ["b"]},
                     {"id": "b", "pipeline": "b.json", "depends_on": ["a"]}]);
    assert_eq!(
        problems(workflow(two)),
        ["tasks: depend on each other in a cycle: a -> b -> a"]
    );
}

#[test]
fn top_level_and_metadata_messages() {
    assert_eq!(
        problems(
            json!({"apiVersion": "v2", "kind": "Workflow", "identifier": "", "when": 5,
                        "metadata": [], "extra": 1})
        ),
        [
            "unknown top-level keys ['extra']; allowed: ['apiVersion', 'kind', 'identifier', 'who', 'what', 'where', 'when', 'how', 'metadata', 'tasks']",
            "apiVersion: must be 'ldp/v1', got 'v2'",
            "identifier: must be a non-empty string, got ''",
            "when: must be a string, got int",
            "metadata: must be an object, got list",
            "tasks: is required and must be a list of at least one task",
        ]
    );
    assert_eq!(
        problems(json!({"kind": "Workflow", "tasks": []})),
        [
            "identifier: is required",
            "tasks: is required and must be a list of at least one task"
        ]
    );
    let metadata = json!({"schedule": "@yearly", "window": {"size": "week", "column": "ts"},
        "catchup": true, "retries": {"delay_s": -1}, "lineage": {},
        "observability": {"sinks": ["kafka"]}});
    let mut document = workflow(json!([{"id": "a", "pipeline": "a.json"}]));
    document["metadata"] = metadata;
    assert_eq!(
        problems(document),
        [
            "metadata: has unknown keys ['lineage']; allowed: ['schedule', 'window', 'catchup', 'start', 'retries', 'observability']",
            "metadata.schedule: schedule '@yearly' is not one of @hourly, @daily, @weekly, @monthly; write a 5-field cron expression for anything else",
            "metadata.window.size: must be one of ['day', 'hour', '15m'], got 'week'",
            "metadata.window.column: does not belong in a workflow, because each dataset config names the window column that selects its own rows",
            "metadata.catchup: is true, and a catch-up needs metadata.start, the first window it runs",
            "metadata.retries.delay_s: must be a number from 0, got -1",
            "metadata.observability.sinks[0] has unknown sink type 'kafka'; expected one of ['null', 'jsonl', 'openlineage', 'iceberg']",
        ]
    );
    let mut document = workflow(json!([{"id": "a", "pipeline": "a.json"}]));
    document["metadata"] = json!({"catchup": "yes", "start": "August", "retries": null,
                                  "window": {"size": "day", "timezone": "Mars/Olympus"}});
    assert_eq!(
        problems(document),
        [
            "metadata.window.timezone: unknown time zone 'Mars/Olympus'; use an IANA name such as 'Europe/Paris' or 'UTC' (on Windows, pip install tzdata)",
            "metadata.catchup: must be true or false, got 'yes'",
            "metadata.start: must be an ISO-8601 date or time, got 'August'",
            "metadata.retries: must be an object such as {'max_attempts': 3, 'delay_s': 30}, got None",
        ]
    );
    let mut document = workflow(json!([{"id": "a", "pipeline": "a.json"}]));
    document["metadata"] = json!({"catchup": true, "start": " 2026-08-01 ", "window": "none"});
    assert_eq!(problems(document.clone()), Vec::<String>::new());
    let flow = built(document);
    assert!(flow.catchup);
    assert_eq!(flow.start.as_deref(), Some("2026-08-01"));
    assert_eq!(
        (flow.window.as_ref(), flow.timezone_name().as_str()),
        (None, "UTC")
    );
}

#[test]
fn secrets_are_refused() {
    let document =
        workflow(json!([{"id": "a", "dbt": {"project": "p", "vars": {"api_token": "abc"}}}]));
    assert_eq!(
        problems(document),
        [
            "tasks[0].dbt.vars.api_token: looks like an inline secret; keep secrets out of specs and reference an environment variable instead (e.g. 'token_env': 'MY_TOKEN')"
        ]
    );
}

#[test]
fn tasks_run_in_rounds_in_file_order() {
    let flow = built(workflow(json!([
        {"id": "export", "pipeline": "e.json", "depends_on": ["orders"]},
        {"id": "orders", "pipeline": "o.json"},
        {"id": "customers", "pipeline": "c.json"},
        {"id": "tidy", "maintain": {"config": "o.json"}, "depends_on": ["export", "customers"]}])));
    let order: Vec<&str> = flow.order().iter().map(|task| task.id.as_str()).collect();
    assert_eq!(order, ["orders", "customers", "export", "tidy"]);
    assert_eq!(
        flow.ancestors("tidy").into_iter().collect::<Vec<_>>(),
        ["customers", "export", "orders"]
    );
    assert_eq!(flow.task("orders").map(|task| task.index), Some(1));
}

#[test]
fn retries_overlay_key_by_key() {
    let mut document = workflow(json!([
        {"id": "a", "pipeline": "a.json"},
        {"id": "b", "pipeline": "b.json", "retries": {"max_attempts": 5}},
        {"id": "c", "pipeline": "c.json", "retries": {"backoff": 3, "delay_s": 1.5}}]));
    let none = built(document.clone());
    assert_eq!(none.retries_of(&none.tasks[0]), crate::Retries::default());
    assert!(!none.retries_of(&none.tasks[0]).enabled());
    document["metadata"] = json!({"retries": {"max_attempts": 2, "delay_s": 0}});
    let flow = built(document);
    let policy = |index: usize| {
        let retries = flow.retries_of(&flow.tasks[index]);
        (retries.max_attempts, retries.delay_s, retries.backoff)
    };
    assert_eq!(policy(0), (2, 0.0, 2.0));
    assert_eq!(policy(1), (5, 0.0, 2.0));
    assert_eq!(policy(2), (2, 1.5, 3.0));
}

#[test]
fn a_scheduled_config_is_a_workflow_of_one_task() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = json!({"identifier": "daily_orders", "when": "daily",
        "metadata": {"window": {"size": "day", "timezone": "Europe/Paris"},
                     "retries": {"max_attempts": 3, "delay_s": 30},
                     "source": {"name": "o", "format": "CSV", "path": "o.csv"},
                     "target": {"name": "o", "format": "ICEBERG",
                                "catalog": {"identifier": "shop", "warehouse_path": "w"}}}});
    let path = dir.path().join("daily_orders.json");
    std::fs::write(&path, config.to_string()).expect("write");
    let flow = read_workflow(&path, true).expect("a workflow");
    assert!(flow.from_config);
    assert_eq!(
        flow.spec["metadata"],
        json!({"schedule": "@daily", "window": {"size": "day", "timezone": "Europe/Paris"},
               "retries": {"max_attempts": 3, "delay_s": 30}})
    );
    assert_eq!(
        flow.spec["tasks"],
        json!([{"id": "daily_orders", "pipeline": "daily_orders.json"}])
    );
    let schedule = flow.schedule.as_ref().expect("schedule");
    assert_eq!(
        (schedule.text.as_str(), schedule.from.as_str()),
        ("@daily", "metadata.schedule")
    );
    assert_eq!(flow.retries_of(&flow.tasks[0]).max_attempts, 3);

    let mut unscheduled = config.clone();
    unscheduled.as_object_mut().map(|map| map.remove("when"));
    std::fs::write(&path, unscheduled.to_string()).expect("write");
    assert_eq!(
        read_workflow(&path, true).unwrap_err(),
        [
            "daily_orders.json is a dataset config with no schedule, so it is not a workflow. Add metadata.schedule to run it as one, or name it as a task in a workflow file"
        ]
    );
    assert!(read_workflow(&path, false).is_ok());
    unscheduled["metadata"]
        .as_object_mut()
        .map(|map| map.remove("window"));
    std::fs::write(&path, unscheduled.to_string()).expect("write");
    assert_eq!(
        read_workflow(&path, false).unwrap_err(),
        [
            "daily_orders.json is a dataset config with no metadata.window and no schedule, so it has no windows. Set metadata.window.size to day, hour or 15m"
        ]
    );
}

#[test]
fn unusable_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let missing = root.join("nope.json");
    assert_eq!(
        read_workflow(&missing, true).unwrap_err(),
        [format!("workflow file not found: {}", missing.display())]
    );
    let path = root.join("w.json");
    for (text, expected) in [
        ("[1]", "w.json must be a JSON object, got list".to_owned()),
        (r#"{"kind": "workflow"}"#, "kind: unknown kind 'workflow'; did you mean 'Workflow'? Kind names are written exactly as in ['Pipeline', 'Workflow']".to_owned()),
        ("{", format!("{} is not valid JSON: EOF while parsing an object: line 1 column 1", path.display())),
    ] {
        std::fs::write(&path, text).expect("write");
        assert_eq!(read_workflow(&path, true).unwrap_err(), [expected]);
    }
    std::fs::write(
        &path,
        workflow(json!([{"id": "a"}, {"id": "a", "pipeline": 1}])).to_string(),
    )
    .expect("write");
    let error = load_workflow(&path, true).unwrap_err();
    assert_eq!(
        error.problems(),
        [
            "w.json has 3 problems:".to_owned(),
            "  - tasks[1].id: 'a' is the id of an earlier task".to_owned(),
            format!("  - tasks[0]: needs exactly one task kind of {KINDS}, and has none"),
            "  - tasks[1].pipeline: must be the path of a dataset config, got 1".to_owned(),
        ]
    );
    assert!(
        error
            .to_string()
            .starts_with("w.json has 3 problems:\n  - tasks[1].id")
    );
    let one = workflow_from_document(&workflow(json!([])), &root, None).unwrap_err();
    assert_eq!(
        one.problems(),
        [
            "the workflow has 1 problem:",
            "  - tasks: is required and must be a list of at least one task"
        ]
    );
}
