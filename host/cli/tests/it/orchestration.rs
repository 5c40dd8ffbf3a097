//! Running workflows (`docs/workflows.md`): the restaurant story of `examples/workflows`
//! through `ldp backfill` and `ldp schedule tick`, a tick killed in the middle of a window,
//! independent tasks side by side while writes to one table stay serialized, a `sql` model
//! over the tables its dependencies published, and retries only for what may pass.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::backfill::{in_dir, workdir};
use super::{stderr, stdout};

const DAY1: &str = "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z";
const DAY3: &str = "2026-08-02T22:00:00Z/2026-08-03T22:00:00Z";
const DAY4: &str = "2026-08-03T22:00:00Z/2026-08-04T22:00:00Z";
/// 02:10 in Paris on 5 August: the 02:05 fire owns 4 August.
const NOW: &str = "2026-08-05T00:10:00Z";

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn write_json(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

/// The rows of `shop.orders` per day, as `ldp query` counts them.
fn orders_per_day(dir: &Path) -> Vec<(String, i64)> {
    let out = in_dir(
        dir,
        &[
            "query",
            "daily_orders.json",
            "SELECT CAST(CAST(ordered_at AS DATE) AS VARCHAR) AS day, count(*) AS n FROM orders GROUP BY 1 ORDER BY 1",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["day"].as_str().unwrap().to_owned(),
                row["n"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// The snapshots of `shop.orders` that carry an idempotency key (none before its catalog is).
fn keyed_snapshots(dir: &Path) -> Vec<Value> {
    if !dir.join("warehouse/shop_catalog.db").is_file() {
        return Vec::new();
    }
    let out = in_dir(dir, &["snapshots", "daily_orders.json", "--json"]);
    if stderr(&out).contains("does not exist in the catalog") {
        return Vec::new();
    }
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["summary"].get("ldp.idempotency-key").is_some())
        .cloned()
        .collect()
}

#[test]
fn the_restaurant_story() {
    let dir = workdir();
    let range = [
        "backfill",
        "nightly.json",
        "--from",
        "2026-08-01",
        "--to",
        "2026-08-04",
    ];

    // Night 3 has a refund typed as an order (-9.00): two nights publish, the third is held back.
    let first = in_dir(dir.path(), &range);
    assert_eq!(first.status.code(), Some(3), "{}", stderr(&first));
    let text = stdout(&first);
    assert!(text.contains(&format!("[1/3] {DAY1}  published")), "{text}");
    assert!(text.contains(&format!("[3/3] {DAY3}  blocked")), "{text}");
    assert!(
        text.contains("backfill nightly: 2 published, 0 skipped, 1 blocked, 0 failed"),
        "{text}"
    );
    let err = stderr(&first);
    assert!(
        err.contains("orders: DataQualityError: 1 of 2 data quality checks failed:"),
        "{err}"
    );
    assert!(err.contains("range(amount)"), "{err}");
    assert!(
        err.contains("Fix the cause and run the same command again"),
        "{err}"
    );

    // The fix: the refund is taken out of the drop. The same command runs only the third night.
    let drop = dir.path().join("drops/orders_2026-08-03.csv");
    let fixed: String = std::fs::read_to_string(&drop)
        .unwrap()
        .lines()
        .filter(|line| !line.contains("-9.00"))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&drop, fixed).unwrap();
    let second = in_dir(dir.path(), &range);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let text = stdout(&second);
    assert!(!text.contains("[1/3]") && !text.contains("[2/3]"), "{text}");
    assert!(text.contains(&format!("[3/3] {DAY3}  published")), "{text}");
    assert!(
        text.contains("1 published, 2 skipped, 0 blocked, 0 failed"),
        "{text}"
    );

    // A third run skips every night, and says so in its JSON.
    let third = in_dir(dir.path(), &[&range[..], &["--json"]].concat());
    assert_eq!(third.status.code(), Some(0), "{}", stderr(&third));
    let doc: Value = serde_json::from_slice(&third.stdout).unwrap();
    assert_eq!(doc["status"], "succeeded");
    assert_eq!(
        doc["counts"],
        json!({"published": 0, "skipped": 3, "blocked": 0, "failed": 0})
    );
    assert_eq!(doc["states"]["published"], 3);

    // The scheduler's tick on the fifth loads the fourth night, once: the config and the
    // workflow both have it due, under the same key, and only the first to run publishes.
    let tick = in_dir(dir.path(), &["schedule", "tick", ".", "--now", NOW]);
    assert_eq!(tick.status.code(), Some(0), "{}", stderr(&tick));
    let text = stdout(&tick);
    assert!(
        text.contains(&format!("daily_orders  {DAY4}  published")),
        "{text}"
    );
    assert!(
        text.contains(
            "tick 2026-08-05T00:10:00Z: 2 workflows, 1 window due, 1 published, 1 skipped"
        ),
        "{text}"
    );
    let again = in_dir(
        dir.path(),
        &["schedule", "tick", ".", "--now", NOW, "--json"],
    );
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let doc: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(doc["counts"]["published"], 0, "{doc}");
    assert_eq!(doc["counts"]["skipped"], 2, "{doc}");

    assert_eq!(
        orders_per_day(dir.path()),
        [
            ("2026-08-01".to_owned(), 5),
            ("2026-08-02".to_owned(), 4),
            ("2026-08-03".to_owned(), 3),
            ("2026-08-04".to_owned(), 3),
        ]
    );
    assert_eq!(keyed_snapshots(dir.path()).len(), 4);

    // The ledger has every run: `ldp runs` lists the workflows' tasks.
    let runs = in_dir(dir.path(), &["runs", ".ldp/events.jsonl", "--json"]);
    assert_eq!(runs.status.code(), Some(0), "{}", stderr(&runs));
}

#[test]
fn workflow_run_json_has_the_reference_fields() {
    let dir = workdir();
    let out = in_dir(
        dir.path(),
        &[
            "workflow",
            "run",
            "nightly.json",
            "--window",
            DAY3,
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sample: Value = serde_json::from_str(include_str!(
        "../../../config/tests/data/workflow/workflow_run_result.json"
    ))
    .unwrap();
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&doc), keys(&sample));
    for (ours, theirs) in doc["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .zip(sample["tasks"].as_array().unwrap())
    {
        assert_eq!(keys(ours), keys(theirs));
        for field in ["id", "kind", "status", "attempts", "detail"] {
            assert_eq!(ours[field], theirs[field], "{field}");
        }
    }
    assert_eq!(doc["counts"], sample["counts"]);
    assert_eq!(doc["status"], "blocked_quality");

    // The same window again: a blocked task is not retried by the workflow (attempts 1), and
    // the ledger has both runs, every task event tagged with the workflow run.
    let ledger = std::fs::read_to_string(dir.path().join(".ldp/events.jsonl")).unwrap();
    let events: Vec<Value> = ledger
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"workflow.started"));
    assert_eq!(types.last(), Some(&"workflow.finished"));
    // Pins a mismatch: `workflow.started` said the Python tool's version while `run.started`
    // said ldp's. Every event that carries a version says ldp's own.
    assert!(events[0]["payload"].get("ldp_version").is_some());
    for event in events
        .iter()
        .filter(|e| e["payload"].get("ldp_version").is_some())
    {
        assert_eq!(
            event["payload"]["ldp_version"],
            env!("CARGO_PKG_VERSION"),
            "{event}"
        );
    }
    let run_id = events[0]["run_id"].as_str().unwrap();
    for event in &events[1..events.len() - 1] {
        assert_eq!(event["payload"]["workflow_run_id"], run_id, "{event}");
        assert_eq!(event["payload"]["workflow"], "nightly", "{event}");
    }
    assert_eq!(
        events.last().unwrap()["payload"]["tasks"],
        json!({"orders": "blocked_quality", "tidy": "upstream_failed"})
    );
}

/// Spins for `ms` milliseconds in the sandboxed interpreter, then passes the rows on.
fn slow_transform(ms: u64) -> Value {
    json!({"js": format!("function transform(rows) {{ const t = Date.now(); while (Date.now() - t < {ms}) {{}} return rows; }}"),
           "name": "slow"})
}

#[test]
fn a_tick_killed_in_the_middle_of_a_window_loads_it_exactly_once() {
    let dir = workdir();
    std::fs::remove_file(dir.path().join("nightly.json")).unwrap();
    let config_path = dir.path().join("daily_orders.json");
    let mut config = read_json(&config_path);
    config["metadata"]["transforms"] = json!([slow_transform(3000)]);
    write_json(&config_path, &config);

    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ldp"))
        .current_dir(dir.path())
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(["schedule", "tick", ".", "--now", NOW])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once the window's run has started (its source is being read).
    let ledger = dir.path().join(".ldp/events.jsonl");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let text = std::fs::read_to_string(&ledger).unwrap_or_default();
        if text.contains("\"run.extracted\"") || text.contains("\"run.started\"") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the tick never started the window"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the tick ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        keyed_snapshots(dir.path()).is_empty(),
        "the killed tick published"
    );

    // The next tick carries the window on as attempt 2 of the same run (the lock the killed
    // tick held went with it), and publishes it.
    let tick = in_dir(dir.path(), &["schedule", "tick", ".", "--now", NOW]);
    assert_eq!(tick.status.code(), Some(0), "{}", stderr(&tick));
    let text = stdout(&tick);
    assert!(
        text.contains(&format!("daily_orders  {DAY4}  published  (attempt 2)")),
        "{text}"
    );
    let events: Vec<Value> = std::fs::read_to_string(&ledger)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let started: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "workflow.started")
        .collect();
    assert_eq!(started.len(), 2);
    assert_eq!(
        started[0]["run_id"], started[1]["run_id"],
        "same workflow run"
    );
    assert_eq!(started[1]["attempt"], 2);

    // And a third tick finds it done: the window is loaded exactly once.
    let third = in_dir(dir.path(), &["schedule", "tick", ".", "--now", NOW]);
    assert_eq!(third.status.code(), Some(0), "{}", stderr(&third));
    assert!(
        stdout(&third).contains("0 published, 1 skipped"),
        "{}",
        stdout(&third)
    );
    let keyed = keyed_snapshots(dir.path());
    assert_eq!(keyed.len(), 1, "{keyed:?}");
    assert_eq!(keyed[0]["summary"]["ldp.attempt"], "2");
    assert_eq!(orders_per_day(dir.path()), [("2026-08-04".to_owned(), 3)]);
}

/// A workflow of `n` independent pipelines, each loading the day's drop (slowly) into a table of
/// its own, plus one more task writing the first task's table.
fn fan_out(dir: &Path, n: usize, ms: u64) {
    let base = read_json(&dir.join("daily_orders.json"));
    let mut tasks = Vec::new();
    for i in 1..=n {
        let mut config = base.clone();
        config["identifier"] = json!(format!("orders_{i}"));
        config["metadata"]["target"]["name"] = json!(format!("orders_{i}"));
        config["metadata"]["transforms"] = json!([slow_transform(ms)]);
        config["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("schedule");
        config.as_object_mut().unwrap().remove("when");
        write_json(&dir.join(format!("orders_{i}.json")), &config);
        tasks.push(json!({"id": format!("load_{i}"), "pipeline": format!("orders_{i}.json")}));
    }
    let mut same_table = base.clone();
    same_table["identifier"] = json!("orders_1_again");
    same_table["metadata"]["target"]["name"] = json!("orders_1");
    same_table["metadata"]["target"]["write_mode"] = json!("append");
    same_table["metadata"]["transforms"] = json!([slow_transform(ms)]);
    same_table["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("schedule");
    same_table.as_object_mut().unwrap().remove("when");
    write_json(&dir.join("orders_1_again.json"), &same_table);
    tasks.push(json!({"id": "again_1", "pipeline": "orders_1_again.json"}));
    write_json(
        &dir.join("fan.json"),
        &json!({"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "fan",
                "metadata": {"window": {"size": "day", "timezone": "Europe/Paris"}},
                "tasks": tasks}),
    );
}

/// `(task id, start, end)` of each task run in the ledger, by event timestamps.
fn task_spans(dir: &Path) -> Vec<(String, String, String)> {
    let events: Vec<Value> = std::fs::read_to_string(dir.join(".ldp/events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut spans = Vec::new();
    for start in events.iter().filter(|e| e["type"] == "run.started") {
        let id = start["payload"]["task_id"].as_str().unwrap().to_owned();
        let end = events
            .iter()
            .find(|e| e["type"] == "run.finished" && e["run_id"] == start["run_id"])
            .unwrap();
        spans.push((
            id,
            start["ts"].as_str().unwrap().to_owned(),
            end["ts"].as_str().unwrap().to_owned(),
        ));
    }
    spans
}

fn overlap(a: &(String, String, String), b: &(String, String, String)) -> bool {
    a.1 < b.2 && b.1 < a.2
}

#[test]
fn independent_tasks_run_side_by_side_and_one_table_is_written_by_one_task_at_a_time() {
    let dir = workdir();
    fan_out(dir.path(), 2, 1500);
    let out = in_dir(
        dir.path(),
        &[
            "workflow", "run", "fan.json", "--window", DAY1, "--jobs", "2", "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["counts"], json!({"published": 3}), "{doc}");
    let spans = task_spans(dir.path());
    let span = |id: &str| spans.iter().find(|s| s.0 == id).unwrap().clone();
    assert!(overlap(&span("load_1"), &span("load_2")), "{spans:?}");
    assert!(!overlap(&span("load_1"), &span("again_1")), "{spans:?}");

    // With one job nothing overlaps, and the tables come out the same.
    let one = workdir();
    fan_out(one.path(), 2, 10);
    let out = in_dir(
        one.path(),
        &[
            "workflow", "run", "fan.json", "--window", DAY1, "--jobs", "1",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let spans = task_spans(one.path());
    for (i, a) in spans.iter().enumerate() {
        for b in &spans[i + 1..] {
            assert!(!overlap(a, b), "{spans:?}");
        }
    }
    let count = |dir: &Path, config: &str| {
        let out = in_dir(
            dir,
            &[
                "query",
                config,
                "SELECT count(*) AS n FROM orders_1",
                "--json",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["rows"][0]["n"].as_i64().unwrap()
    };
    assert_eq!(count(dir.path(), "orders_1.json"), 10);
    assert_eq!(count(one.path(), "orders_1.json"), 10);
}

#[test]
fn a_sql_task_publishes_a_model_of_the_tables_its_dependencies_loaded() {
    let dir = workdir();
    write_json(
        &dir.path().join("revenue.json"),
        &json!({"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "revenue",
                "metadata": {"window": {"size": "day", "timezone": "Europe/Paris"}},
                "tasks": [
                  {"id": "orders", "pipeline": "daily_orders.json"},
                  {"id": "by_dish", "depends_on": ["orders"],
                   "sql": {"query": "SELECT dish, count(*) AS orders, sum(amount) AS revenue FROM shop.orders GROUP BY dish",
                           "target": {"name": "revenue_by_dish", "format": "ICEBERG",
                                      "catalog": {"identifier": "shop", "warehouse_path": "warehouse"}}}}]}),
    );
    let out = in_dir(
        dir.path(),
        &[
            "workflow",
            "run",
            "revenue.json",
            "--window",
            DAY1,
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["tasks"][1]["status"], "published", "{doc}");
    assert_eq!(doc["tasks"][1]["kind"], "sql");
    write_json(
        &dir.path().join("model.json"),
        &json!({"identifier": "model", "metadata": {
            "source": {"name": "x", "format": "CSV", "path": "drops/orders_2026-08-01.csv"},
            "target": {"name": "revenue_by_dish", "format": "ICEBERG",
                       "catalog": {"identifier": "shop", "warehouse_path": "warehouse"}}}}),
    );
    let q = in_dir(
        dir.path(),
        &[
            "query",
            "model.json",
            "SELECT dish, orders, revenue FROM revenue_by_dish ORDER BY dish",
            "--json",
        ],
    );
    assert_eq!(q.status.code(), Some(0), "{}", stderr(&q));
    let rows: Value = serde_json::from_slice(&q.stdout).unwrap();
    assert_eq!(
        rows["rows"],
        json!([
            {"dish": "carbonara", "orders": 1, "revenue": 14.0},
            {"dish": "lasagne", "orders": 1, "revenue": 15.5},
            {"dish": "margherita", "orders": 2, "revenue": 25.0},
            {"dish": "tiramisu", "orders": 1, "revenue": 6.5}
        ])
    );
    // The same window again: both tasks find their keys and write nothing.
    let again = in_dir(
        dir.path(),
        &[
            "workflow",
            "run",
            "revenue.json",
            "--window",
            DAY1,
            "--json",
        ],
    );
    let doc: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(doc["counts"], json!({"skipped_duplicate": 2}), "{doc}");
}

#[test]
fn a_missing_drop_is_retried_and_a_bad_config_is_not() {
    let dir = workdir();
    // No drop for 6 August: an I/O error another attempt may fix, retried (max_attempts 2).
    let out = in_dir(
        dir.path(),
        &[
            "workflow",
            "run",
            "nightly.json",
            "--window",
            "2026-08-05T22:00:00Z/2026-08-06T22:00:00Z",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["tasks"][0]["status"], "failed");
    assert_eq!(doc["tasks"][0]["attempts"], 2, "{doc}");
    assert!(
        doc["tasks"][0]["error"]
            .as_str()
            .unwrap()
            .starts_with("FileNotFoundError: the source file"),
        "{doc}"
    );
    assert_eq!(doc["tasks"][1]["status"], "upstream_failed");

    // A workflow that is not valid runs nothing and says why.
    let mut workflow = read_json(&dir.path().join("nightly.json"));
    workflow["tasks"][1]["depends_on"] = json!(["nope"]);
    write_json(&dir.path().join("nightly.json"), &workflow);
    let out = in_dir(
        dir.path(),
        &["workflow", "run", "nightly.json", "--window", DAY1],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unknown task id 'nope'"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn install_prints_each_recipe() {
    let dir = workdir();
    for (kind, needle) in [
        ("cron", "*/5 * * * * mkdir -p"),
        ("launchd", "<key>StartInterval</key>"),
        ("systemd", "OnCalendar=*:0/5"),
    ] {
        let out = in_dir(dir.path(), &["schedule", "install", "--print", kind, "."]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(stdout(&out).contains(needle), "{kind}: {}", stdout(&out));
        assert!(stdout(&out).contains("schedule tick"), "{kind}");
    }
    let out = in_dir(
        dir.path(),
        &["schedule", "install", "--print", "anacron", "."],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "an unknown recipe is a usage error"
    );
}

#[test]
fn tick_json_has_the_reference_fields_and_a_held_lock_makes_a_tick_do_nothing() {
    let dir = workdir();
    let out = in_dir(
        dir.path(),
        &["schedule", "tick", ".", "--now", NOW, "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sample: Value = serde_json::from_str(include_str!(
        "../../../config/tests/data/workflow/schedule_tick.json"
    ))
    .unwrap();
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&doc), keys(&sample));
    assert_eq!(doc["now"], sample["now"]);
    let ours = doc["workflows"].as_array().unwrap();
    let theirs = sample["workflows"].as_array().unwrap();
    assert_eq!(ours.len(), theirs.len());
    for (o, t) in ours.iter().zip(theirs) {
        assert_eq!(keys(o), keys(t));
        for field in ["workflow", "kind"] {
            assert_eq!(o[field], t[field], "{field}");
        }
        let (ow, tw) = (&o["windows"][0], &t["windows"][0]);
        // A window that ran adds its `workflow_run_id` and `tasks` to the Python tool's fields.
        let extra: Vec<String> = keys(ow)
            .into_iter()
            .filter(|k| !keys(tw).contains(k))
            .collect();
        assert!(
            extra.is_empty() || extra == ["workflow_run_id", "tasks"],
            "{extra:?}"
        );
        assert_eq!(ow["window"], tw["window"]);
        assert_eq!(ow["keys"], tw["keys"], "the reference's keys");
    }

    // Another tick holds the folder's lock: this one does nothing, exit 0.
    let lock_path = dir.path().join(".ldp/locks/schedule.lock");
    let held = std::fs::OpenOptions::new()
        .write(true)
        .open(&lock_path)
        .unwrap();
    held.try_lock().unwrap();
    let out = in_dir(dir.path(), &["schedule", "tick", ".", "--now", NOW]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("so this one did nothing"),
        "{}",
        stdout(&out)
    );
    drop(held);

    // The foreground loop ticks (once here, at the real time, in a folder with nothing
    // scheduled) as tick does.
    let empty = tempfile::tempdir().unwrap();
    let out = in_dir(empty.path(), &["schedule", "run", ".", "--ticks", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(": 0 workflows, 0 windows due"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("ticking . every 5 minutes"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_replace_backfill_overwrites_each_window_once_per_spec() {
    let dir = workdir();
    let range = [
        "backfill",
        "daily_orders.json",
        "--from",
        "2026-08-01",
        "--to",
        "2026-08-03",
    ];
    let first = in_dir(dir.path(), &range);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(
        orders_per_day(dir.path()),
        [("2026-08-01".to_owned(), 5), ("2026-08-02".to_owned(), 4)]
    );
    // A late correction to the first drop: --replace writes both windows again, each replacing
    // only its own rows.
    let drop = dir.path().join("drops/orders_2026-08-01.csv");
    let text = std::fs::read_to_string(&drop).unwrap();
    std::fs::write(
        &drop,
        text.lines()
            .take(3)
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    )
    .unwrap();
    let replace = [&range[..], &["--replace"]].concat();
    let out = in_dir(dir.path(), &replace);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("2 published"), "{}", stdout(&out));
    assert_eq!(
        orders_per_day(dir.path()),
        [("2026-08-01".to_owned(), 2), ("2026-08-02".to_owned(), 4)]
    );
    // The same replace again: each window was replaced under this spec, so nothing runs.
    let out = in_dir(dir.path(), &[&replace[..], &["--dry-run"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("2 published"), "{}", stdout(&out));
    let out = in_dir(dir.path(), &replace);
    assert!(
        stdout(&out).contains("0 published, 2 skipped"),
        "{}",
        stdout(&out)
    );
}
