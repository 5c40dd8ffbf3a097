//! `ldp gold build` on the example of examples/gold: CSV and Excel drops loaded into silver
//! tables, two gold tables over them (one over the other) built in the order of their inputs,
//! behind their gates and contracts, and released; a query at a release after a later rebuild
//! gives the release's rows. A contract not kept blocks the build (exit 3) and writes nothing;
//! a cycle is refused before anything runs; pyiceberg reads the contract ldp wrote.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::duckdb::ldp;
use super::interop::python;
use super::{stderr, stdout};

/// A copy of examples/gold in a temporary folder (the example writes its warehouse next to it).
fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/gold");
    copy_tree(&source, dir.path());
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "warehouse" || name == ".ldp" {
            continue;
        }
        if path.is_dir() {
            copy_tree(&path, &to.join(name));
        } else {
            std::fs::copy(&path, to.join(name)).unwrap();
        }
    }
}

fn path(dir: &Path, rel: &str) -> String {
    dir.join(rel).display().to_string()
}

/// Loads the silver tables from the drops.
fn load_silver(dir: &Path) {
    for config in ["config/orders.json", "config/restaurants.json"] {
        let out = ldp(&["run", &path(dir, config)]);
        assert!(out.status.success(), "{config}: {}", stderr(&out));
    }
}

fn build(dir: &Path) -> (i32, Value) {
    let out = ldp(&["gold", "build", &path(dir, "config"), "--json"]);
    let report: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{e}: {} {}", stdout(&out), stderr(&out)));
    (out.status.code().unwrap(), report)
}

fn query(dir: &Path, sql: &str, release: Option<&str>) -> Value {
    let config = path(dir, "config");
    let mut args = vec!["query", config.as_str(), sql, "--json"];
    if let Some(release) = release {
        args.extend(["--release", release]);
    }
    let out = ldp(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

/// The one value of a one-row, one-column query.
fn scalar(result: &Value) -> Value {
    let row = &result["rows"][0];
    match row {
        Value::Array(cells) => cells[0].clone(),
        Value::Object(map) => map.values().next().cloned().unwrap_or(Value::Null),
        other => other.clone(),
    }
}

#[test]
fn the_gold_example_builds_in_order_and_a_release_keeps_what_readers_see() {
    let dir = example();
    let dir = dir.path();
    load_silver(dir);
    let (code, report) = build(dir);
    assert_eq!(code, 0, "{report:#}");
    // city_revenue reads daily_revenue, so it comes second though its file sorts first.
    let names: Vec<&str> = report["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["daily_revenue", "city_revenue"]);
    assert_eq!(report["built"], 2);
    assert_eq!(report["tables"][0]["checks"], 3);
    assert_eq!(report["tables"][0]["checks_passed"], 3);
    assert_eq!(report["release"]["status"], "cut");
    let r1 = &report["release"]["release"];
    assert_eq!(r1["release"], "r1");
    assert_eq!(r1["namespace"], "gold");
    assert_eq!(r1["tables"][0]["dataset_version"], "gold.daily_revenue@v1");
    assert!(dir.join("warehouse/.ldp/releases/gold/r1.json").is_file());

    let total = "SELECT CAST(sum(orders) AS BIGINT) FROM gold.city_revenue";
    assert_eq!(scalar(&query(dir, total, None)), 55);

    // The human report: one line per table, the summary, the release.
    let text = ldp(&["gold", "build", &path(dir, "config")]);
    let text_out = stdout(&text);
    assert!(text.status.success(), "{}", stderr(&text));
    assert!(text_out.contains("daily_revenue  built"), "{text_out}");
    assert!(text_out.contains("3 of 3 checks passed"), "{text_out}");
    assert!(
        text_out.contains("2 built, 0 checked, 0 blocked, 0 failed, 0 not run in"),
        "{text_out}"
    );
    assert!(
        text_out.contains("release r2 cut with 2 tables"),
        "{text_out}"
    );

    // A later drop, loaded and rebuilt: r3 holds it, r1 still gives what it gave.
    let orders = dir.join("drops/orders.csv");
    let mut csv = std::fs::read_to_string(&orders).unwrap();
    csv.push_str(
        "9001,R2,2026-08-04 12:00:00,margherita,12.50\n9002,R2,2026-08-04 12:10:00,espresso,2.50\n",
    );
    std::fs::write(&orders, csv).unwrap();
    load_silver(dir);
    let (code, report) = build(dir);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["release"]["release"]["release"], "r3");
    assert_eq!(scalar(&query(dir, total, None)), 57);
    assert_eq!(scalar(&query(dir, total, Some("r1"))), 55);
    assert_eq!(scalar(&query(dir, total, Some("r3"))), 57);
    // A silver table is not in a release: it reads as it is now.
    let silver = "SELECT count(*) FROM silver.orders";
    assert_eq!(scalar(&query(dir, silver, Some("r1"))), 57);

    let listed = ldp(&["gold", "releases", &path(dir, "config")]);
    let listed_out = stdout(&listed);
    let order: Vec<&str> = listed_out
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(order, ["r3", "r2", "r1"], "{listed_out}");
    let shown = ldp(&["gold", "releases", &path(dir, "config"), "--show", "r1"]);
    assert!(
        stdout(&shown).contains("gold.daily_revenue@v1"),
        "{}",
        stdout(&shown)
    );
    let missing = ldp(&["gold", "releases", &path(dir, "config"), "--show", "r9"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("it has r3, r2, r1"),
        "{}",
        stderr(&missing)
    );
    let unknown = ldp(&[
        "query",
        &path(dir, "config"),
        "SELECT 1",
        "--release",
        "latest",
    ]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).contains("a release is named r1, r2"),
        "{}",
        stderr(&unknown)
    );

    // Snapshot expiry keeps every released snapshot: each is tagged by its pin.
    let tags = pyiceberg(dir, "sorted(r for r in t.metadata.refs if r != 'main')");
    let tags: Vec<&str> = tags
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(tags.len(), 3, "{tags:?}");
    for (tag, version) in tags.iter().zip(["_v1", "_v2", "_v3"]) {
        assert!(
            tag.starts_with("ldp_ds_gold_daily_revenue_") && tag.ends_with(version),
            "{tags:?}"
        );
    }
}

/// Evaluates a Python expression over pyiceberg's view of gold.daily_revenue (`t`).
fn pyiceberg(dir: &Path, expression: &str) -> Value {
    let warehouse = dir.join("warehouse");
    let script = format!(
        "import json, sys\n\
         from pyiceberg.catalog.sql import SqlCatalog\n\
         w = sys.argv[1]\n\
         c = SqlCatalog('gold', uri=f'sqlite:///{{w}}/gold_catalog.db', warehouse=f'file://{{w}}')\n\
         t = c.load_table('gold.daily_revenue')\n\
         print(json.dumps({expression}))\n"
    );
    let out = Command::new(python())
        .args(["-c", &script, warehouse.to_str().unwrap()])
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "pyiceberg: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn pyiceberg_reads_the_contract_ldp_wrote() {
    let dir = example();
    let dir = dir.path();
    load_silver(dir);
    let (code, report) = build(dir);
    assert_eq!(code, 0, "{report:#}");
    let properties = pyiceberg(
        dir,
        "{k: v for k, v in t.properties.items() if k == 'comment' or k.startswith('ldp.')}",
    );
    assert_eq!(
        properties["comment"],
        "Orders and revenue of each restaurant on each day it had an order."
    );
    assert_eq!(properties["ldp.layer"], "gold");
    assert_eq!(properties["ldp.owner"], "restaurant operations");
    assert_eq!(
        properties["ldp.grain"],
        "one row per restaurant and day with an order"
    );
    assert_eq!(properties["ldp.primary-key"], "restaurant_id,day");
    let docs = pyiceberg(dir, "{f.name: f.doc for f in t.schema().fields}");
    assert_eq!(docs["city"], "The city it is in.");
    assert_eq!(docs["revenue"], "What those orders came to, in euros.");
}

#[test]
fn a_gold_table_missing_a_column_doc_blocks_the_build_and_writes_nothing() {
    let dir = example();
    let dir = dir.path();
    load_silver(dir);
    let file = dir.join("config/daily_revenue.json");
    let mut config: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    config["metadata"]["docs"]["columns"]
        .as_object_mut()
        .unwrap()
        .remove("city");
    std::fs::write(&file, config.to_string()).unwrap();
    let (code, report) = build(dir);
    assert_eq!(code, 3, "{report:#}");
    assert_eq!(report["tables"][0]["status"], "blocked");
    let message = report["tables"][0]["message"].as_str().unwrap();
    assert!(message.contains("city"), "{message}");
    assert_eq!(report["tables"][1]["status"], "not run");
    assert_eq!(report["release"]["status"], "held");
    assert!(!dir.join("warehouse/gold/daily_revenue").exists());
    assert!(!dir.join("warehouse/.ldp/releases/gold").exists());
}

#[test]
fn a_cycle_is_refused_before_anything_runs() {
    let dir = example();
    let dir = dir.path();
    load_silver(dir);
    let file = dir.join("config/daily_revenue.json");
    let mut config: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    config["metadata"]["source"]["inputs"] =
        serde_json::json!(["orders.json", "city_revenue.json"]);
    std::fs::write(&file, config.to_string()).unwrap();
    let out = ldp(&["gold", "build", &path(dir, "config")]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out)
            .contains("in a cycle: city_revenue.json -> daily_revenue.json -> city_revenue.json"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("warehouse/gold").exists());
}

#[test]
fn a_query_over_inputs_reads_only_its_inputs() {
    let dir = example();
    let dir = dir.path();
    load_silver(dir);
    let config: PathBuf = dir.join("config/stray.json");
    std::fs::write(
        &config,
        serde_json::json!({
            "identifier": "stray",
            "metadata": {
                "source": {"name": "stray", "format": "DUCKDB", "inputs": ["orders.json"],
                           "sql": "SELECT * FROM orders JOIN restaurants USING (restaurant_id)"},
                "target": {"name": "stray", "format": "ICEBERG",
                           "catalog": {"identifier": "gold", "warehouse_path": "../warehouse"}}
            }
        })
        .to_string(),
    )
    .unwrap();
    let out = ldp(&["run", config.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("Catalog Error"), "{err}");
    assert!(err.contains("restaurants"), "{err}");
    assert!(!dir.join("warehouse/gold/stray").exists());
    // ldp plan names an input config that is not there.
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    doc["metadata"]["source"]["inputs"] = serde_json::json!(["orders.json", "menu.json"]);
    std::fs::write(&config, doc.to_string()).unwrap();
    let plan = ldp(&["plan", config.to_str().unwrap()]);
    assert_ne!(plan.status.code(), Some(0));
    let text = stdout(&plan) + &stderr(&plan);
    assert!(
        text.contains("metadata.source.inputs[1]: the dataset config")
            && text.contains("menu.json"),
        "{text}"
    );
}

#[test]
fn describe_table_gives_an_agent_the_contract_latest_run_checks_and_release() {
    let dir = example();
    let dir = dir.path();
    load_silver(dir);
    let (code, report) = build(dir);
    assert_eq!(code, 0, "{report:#}");
    let run_id = report["tables"][0]["run_id"].as_str().unwrap().to_string();
    let snapshot = report["tables"][0]["snapshot_id"].clone();
    let calls = serde_json::json!([["describe_table", {"table": "gold.daily_revenue"}]]);
    let doc = super::mcp::session(dir, &calls, &["--config", "config"]);
    let described = &doc["calls"][0]["result"];
    assert_eq!(doc["calls"][0]["is_error"], false, "{described:#}");
    assert_eq!(described["contract"]["layer"], "gold");
    assert_eq!(
        described["contract"]["grain"],
        "one row per restaurant and day with an order"
    );
    assert_eq!(
        described["contract"]["columns"]["city"],
        "The city it is in."
    );
    assert_eq!(
        described["latest_run"]["run_id"],
        run_id.as_str(),
        "{described:#}"
    );
    assert_eq!(described["latest_run"]["status"], "published");
    assert_eq!(described["latest_run"]["checks"], "3/3");
    assert_eq!(described["quality"]["passed"], true);
    assert_eq!(described["quality"]["results"].as_array().unwrap().len(), 3);
    assert_eq!(described["release"]["release"], "r1");
    assert_eq!(described["release"]["snapshot_id"], snapshot);
    assert_eq!(described["release"]["is_current_snapshot"], true);
}
