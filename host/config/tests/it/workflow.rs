//! Workflow files against the Python tool (`tests/data/workflow`): the sample workflow's plan
//! field by field, the keys of the sample backfill's windows, and `reference_workflows.json`,
//! which `gen_reference_workflows.py` wrote by calling the real tool's `validate_workflow`,
//! `Workflow.order`, `retries_of`, `read_workflow`, `plan_workflow` and `_print_plan`.
//!
//! The Python tool registers three task kinds and ldp four (`sql`), so its kind lists
//! `['pipeline', 'maintain', 'dbt']` read `['pipeline', 'maintain', 'dbt', 'sql']` here.

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use ldp_config::workflow::{WorkflowPlan, plan_workflow, read_workflow, workflow_from_document};
use ldp_config::{Retries, validate_workflow};
use serde_json::{Value, json};

use crate::read_json;

const DATA: &str = "data/workflow";
const PARIS_DAY: &str = "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z";

fn now() -> Timestamp {
    "2026-08-05T01:30:00Z".parse().expect("now")
}

/// The Python tool's kind lists, with ldp's `sql` kind, and its maintain task keys with ldp's
/// compaction and manifest keys.
fn with_sql(text: &str) -> String {
    text.replace(
        "['pipeline', 'maintain', 'dbt']",
        "['pipeline', 'maintain', 'dbt', 'sql']",
    )
    .replace(
        "'orphan_age_hours', 'keep_metadata_versions']",
        "'orphan_age_hours', 'keep_metadata_versions', 'compact', 'target_file_size', 'sort_by', \
         'rewrite_manifests', 'allow_recent']",
    )
}

/// Every string of a value with `from` replaced by `to`, and the kind lists given `sql`.
fn masked(value: &Value, from: &str, to: &str) -> Value {
    match value {
        Value::String(text) => Value::from(with_sql(&text.replace(from, to))),
        Value::Array(items) => items.iter().map(|item| masked(item, from, to)).collect(),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (key.clone(), masked(item, from, to)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A temporary project folder, symlinks resolved (as the Python tool resolves paths).
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    (dir, root)
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// The sample workflow and its pipeline config, in `<root>/shop`.
fn copy_samples(root: &Path) {
    std::fs::create_dir_all(root.join("shop")).expect("mkdir");
    for file in ["nightly.json", "daily_orders.json"] {
        std::fs::copy(
            crate::tests_dir(DATA).join(file),
            root.join("shop").join(file),
        )
        .expect("copy");
    }
}

/// Compares two objects key by key, in order.
fn assert_same_object(actual: &Value, expected: &Value, what: &str) {
    let (Value::Object(actual), Value::Object(expected)) = (actual, expected) else {
        panic!("{what}: objects expected, got {actual} and {expected}");
    };
    assert_eq!(
        actual.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{what}: keys and their order"
    );
    for (key, value) in expected {
        if let (Value::Array(left), Value::Array(right)) = (&actual[key], value)
            && left.iter().chain(right).all(Value::is_object)
            && left.len() == right.len()
        {
            for (index, (left, right)) in left.iter().zip(right).enumerate() {
                assert_same_object(left, right, &format!("{what}.{key}[{index}]"));
            }
        } else {
            assert_eq!(&actual[key], value, "{what}: {key}");
        }
    }
}

/// The sample workflow (`tests/data/workflow/nightly.json` with its pipeline config) plans
/// exactly as the Python tool planned it (`workflow_plan.expected.json`), the project folder
/// written `<project>`.
#[test]
fn the_sample_plan_equals_the_reference_sample() {
    let (_dir, root) = project();
    copy_samples(&root);
    write(
        &root,
        "shop/drops/orders_2026-08-01.csv",
        "order_id,ordered_at,amount\n",
    );
    let plan = plan_workflow(&root.join("shop/nightly.json"), Some(PARIS_DAY), now());
    let actual = masked(
        &serde_json::to_value(&plan).expect("json"),
        &root.display().to_string(),
        "<project>",
    );
    let expected = read_json(DATA, "workflow_plan.expected.json");
    assert_same_object(&actual, &expected, "workflow_plan");
    assert!(plan.valid && plan.exit_code() == 0);
    assert_eq!(plan.tasks[0].writes.len(), 1);
    assert_eq!(plan.tasks[0].writes[0].name, "shop.orders");
}

/// The keys of the sample backfill's four windows are the keys a plan of each window gives.
#[test]
fn the_sample_backfill_keys() {
    let (_dir, root) = project();
    copy_samples(&root);
    let backfill = read_json(DATA, "backfill_dry_run.expected.json");
    let windows = backfill["windows"].as_array().expect("windows");
    assert_eq!(windows.len(), 4);
    for window in windows {
        let label = window["window"].as_str().expect("window");
        let plan = plan_workflow(&root.join("shop/nightly.json"), Some(label), now());
        assert_eq!(plan.window.as_deref(), Some(label));
        assert_eq!(
            plan.task("orders")
                .and_then(|task| task.details.get("idempotency_key")),
            Some(&window["keys"]["orders"]),
            "{label}"
        );
    }
}

#[test]
fn validation_equals_the_reference() {
    let reference = read_json(DATA, "reference_workflows.json");
    let cases = reference["validation"].as_object().expect("validation");
    assert!(cases.len() >= 25, "{} cases", cases.len());
    let mut failures = Vec::new();
    for (name, case) in cases {
        let expected: Vec<String> = case["problems"]
            .as_array()
            .expect("problems")
            .iter()
            .map(|problem| with_sql(problem.as_str().expect("text")))
            .collect();
        let actual = validate_workflow(&case["document"]);
        if actual != expected {
            failures.push(format!(
                "{name}:\n  expected {expected:#?}\n  got {actual:#?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn order_retries_and_ancestors_equal_the_reference() {
    let reference = read_json(DATA, "reference_workflows.json");
    for (name, case) in reference["orders"].as_object().expect("orders") {
        let flow = workflow_from_document(&case["document"], Path::new("/project"), None)
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        let order: Vec<&str> = flow.order().iter().map(|task| task.id.as_str()).collect();
        assert_eq!(json!(order), case["order"], "{name}: order");
        for task in &flow.tasks {
            let policy = flow.retries_of(task);
            let shown = policy.enabled().then_some(policy);
            assert_eq!(
                serde_json::to_value(shown).expect("json"),
                case["retries"][&task.id],
                "{name}: retries of {}",
                task.id
            );
            assert_eq!(
                json!(flow.ancestors(&task.id)),
                case["ancestors"][&task.id],
                "{name}: ancestors of {}",
                task.id
            );
        }
    }
    assert_eq!(
        serde_json::to_value(Retries::default()).expect("json"),
        json!({"max_attempts": 1, "delay_s": 30.0, "backoff": 2.0})
    );
}

/// Every plan of the Python tool's project folder, as JSON and as the human output.
#[test]
fn plans_equal_the_reference() {
    let reference = read_json(DATA, "reference_workflows.json");
    let (_dir, root) = project();
    for (relative, text) in reference["files"].as_object().expect("files") {
        write(&root, relative, text.as_str().expect("text"));
    }
    let dir = root.display().to_string();
    let now: Timestamp = reference["now"]
        .as_str()
        .expect("now")
        .parse()
        .expect("now");
    for (relative, expected) in reference["read"].as_object().expect("read") {
        let problems = read_workflow(&root.join(relative), false)
            .err()
            .unwrap_or_default();
        assert_eq!(
            masked(&json!(problems), &dir, "<dir>"),
            masked(expected, "", ""),
            "{relative}"
        );
    }
    let plans = reference["plans"].as_array().expect("plans");
    assert!(plans.len() >= 15);
    for case in plans {
        let file = case["file"].as_str().expect("file");
        let window = case["window"].as_str();
        let what = format!("{file} --window {window:?}");
        let plan: WorkflowPlan = plan_workflow(&root.join(file), window, now);
        let actual = masked(&serde_json::to_value(&plan).expect("json"), &dir, "<dir>");
        assert_same_object(&actual, &masked(&case["plan"], "", ""), &what);
        let text = plan.render_lines();
        let joined = |lines: &[String]| {
            lines
                .iter()
                .map(|line| format!("{line}\n"))
                .collect::<String>()
        };
        let stdout = joined(&text.stdout).replace(&dir, "<dir>");
        let stderr = joined(&text.stderr).replace(&dir, "<dir>");
        assert_eq!(
            stdout,
            with_sql(case["stdout"].as_str().expect("stdout")),
            "{what}: stdout"
        );
        assert_eq!(
            stderr,
            with_sql(case["stderr"].as_str().expect("stderr")),
            "{what}: stderr"
        );
        assert_eq!(
            plan.exit_code(),
            if case["plan"]["valid"] == true { 0 } else { 1 }
        );
    }
}

/// ldp's own `sql` kind and the Python tool's `dbt` kind in a plan: the model's key, the table it
/// reads without a `depends_on` (a warning), and dbt named as not run by ldp.
#[test]
fn sql_and_dbt_tasks_plan() {
    let (_dir, root) = project();
    copy_samples(&root);
    write(
        &root,
        "shop/drops/orders_2026-08-01.csv",
        "order_id,ordered_at,amount\n",
    );
    write(
        &root,
        "shop/models/revenue.sql",
        "-- daily revenue\nSELECT * FROM \"shop\".\"orders\"",
    );
    let target = json!({"name": "revenue", "format": "ICEBERG",
                        "catalog": {"identifier": "shop", "warehouse_path": "warehouse"}});
    let flow = json!({"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "nightly",
        "metadata": {"window": {"size": "day", "timezone": "Europe/Paris"}},
        "tasks": [
            {"id": "orders", "pipeline": "daily_orders.json"},
            {"id": "revenue", "sql": {"query_file": "models/revenue.sql", "target": target}},
            {"id": "totals", "depends_on": ["orders"],
             "sql": {"query": "SELECT count(*) FROM shop.orders", "write_mode": "append",
                     "target": {"name": "totals", "format": "iceberg",
                                "catalog": {"identifier": "shop", "warehouse_path": "warehouse"}}}},
            {"id": "missing", "sql": {"query_file": "models/nope.sql", "target": target}},
            {"id": "gold", "dbt": {"project": "dbt", "select": "+daily_revenue"}, "depends_on": ["orders"]}]});
    write(&root, "shop/nightly.json", &flow.to_string());
    let plan = plan_workflow(&root.join("shop/nightly.json"), Some(PARIS_DAY), now());
    let revenue = plan.task("revenue").expect("revenue");
    let shown = serde_json::to_value(revenue).expect("json");
    assert_eq!(shown["identifier"], "nightly.revenue");
    assert_eq!(shown["query_file"], "models/revenue.sql");
    assert_eq!(shown["target"], "shop.revenue");
    assert_eq!(
        (shown["write_mode"].as_str(), shown["publish"].as_str()),
        (Some("overwrite"), Some("staged"))
    );
    let key = ldp_config::idempotency_key(
        "nightly.revenue",
        "iceberg:shop.revenue",
        Some(
            &ldp_config::Window::parse(PARIS_DAY, &jiff::tz::TimeZone::UTC, now()).expect("window"),
        ),
    )
    .expect("key");
    assert_eq!(shown["idempotency_key"], key);
    assert_eq!(
        revenue
            .reads
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["shop.orders"]
    );
    assert_eq!(
        plan.task("totals").map(|t| t.details["write_mode"].clone()),
        Some(json!("append"))
    );
    let gold = serde_json::to_value(plan.task("gold").expect("gold")).expect("json");
    assert_eq!(gold["target"], "dbt build");
    assert_eq!(gold["window_vars"]["window_start"], "2026-07-31T22:00:00Z");
    let missing = root.join("shop/models/nope.sql");
    assert_eq!(
        plan.errors,
        [format!(
            "task 'missing': the SQL file {} does not exist",
            missing.display()
        )]
    );
    assert_eq!(
        plan.warnings,
        [
            "task 'revenue' reads the table shop.orders, which task 'orders' writes, and no depends_on connects them, so they may run in either order",
        ]
    );
    let lines = plan.render_lines().stdout;
    assert!(
        lines
            .iter()
            .any(|line| line.contains("revenue  sql") && line.contains("models/revenue.sql"))
    );
}
