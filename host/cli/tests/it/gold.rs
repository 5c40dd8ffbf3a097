//! Table contracts (`metadata.docs`): a gold table that breaks its contract is stopped before
//! the write (exit 3), a kept one is written into the table after the publish, and `ldp gold
//! sync` writes an edited contract with no new data.

use std::path::Path;

use serde_json::{Value, json};

use crate::{ldp, rides_workdir, stderr, stdout};

fn config(docs: Value) -> String {
    json!({
        "apiVersion": "ldp/v1",
        "identifier": "rides",
        "who": "mobility team",
        "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
            "target": {"name": "rides", "format": "ICEBERG", "write_mode": "overwrite",
                       "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}},
            "docs": docs
        }
    })
    .to_string()
}

/// The header of the example rides CSV.
fn columns() -> Vec<String> {
    let text = std::fs::read_to_string(crate::rides()).unwrap();
    text.lines()
        .next()
        .unwrap()
        .split(',')
        .map(|c| c.trim_matches('"').to_string())
        .collect()
}

fn gold(skip: Option<&str>) -> Value {
    let docs: serde_json::Map<String, Value> = columns()
        .into_iter()
        .filter(|c| Some(c.as_str()) != skip)
        .map(|c| {
            let doc = format!("The {c} of the ride.");
            (c, Value::from(doc))
        })
        .collect();
    json!({"layer": "gold", "description": "Taxi rides, one row each.",
           "grain": "one row per ride", "primary_key": ["ride_id"], "columns": docs})
}

/// The table's newest metadata file, as JSON.
fn metadata(dir: &Path) -> Value {
    let folder = dir.join("warehouse/nyc/rides/metadata");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".metadata.json"))
        .collect();
    files.sort();
    serde_json::from_slice(&std::fs::read(files.last().unwrap()).unwrap()).unwrap()
}

fn docs_of(meta: &Value) -> Value {
    let current = meta["current-schema-id"].clone();
    let schema = meta["schemas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["schema-id"] == current)
        .unwrap();
    schema["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap().to_string(), f["doc"].clone()))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

#[test]
fn a_gold_table_keeps_its_contract_or_is_not_written() {
    let first = columns()[0].clone();
    let dir = rides_workdir(&config(gold(Some(&first))));
    let path = dir.path().join("rides.json");
    let path = path.to_str().unwrap();
    let hash = |dir: &Path| -> Value {
        let out = ldp(&["plan", dir.join("rides.json").to_str().unwrap(), "--json"]);
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["spec_hash"].clone()
    };
    let before_hash = hash(dir.path());

    let out = ldp(&["run", path]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("metadata.docs.columns has none for ['{first}']")),
        "{}",
        stderr(&out)
    );
    let data = dir.path().join("warehouse/nyc/rides/data");
    assert!(crate::files_under(&data).is_empty(), "nothing written");

    std::fs::write(dir.path().join("rides.json"), config(gold(None))).unwrap();
    assert_eq!(hash(dir.path()), before_hash, "the contract is not hashed");
    let out = ldp(&["run", path]);
    assert!(out.status.success(), "{}", stderr(&out));
    let meta = metadata(dir.path());
    assert_eq!(meta["properties"]["comment"], "Taxi rides, one row each.");
    assert_eq!(meta["properties"]["ldp.owner"], "mobility team");
    assert_eq!(meta["properties"]["ldp.layer"], "gold");
    assert_eq!(meta["properties"]["ldp.primary-key"], "ride_id");
    assert_eq!(docs_of(&meta)[&first], format!("The {first} of the ride."));
    assert_eq!(
        meta["snapshots"].as_array().unwrap().len(),
        1,
        "no snapshot for the contract"
    );

    // A second run: the contract is already there, so only the run's own commit.
    let log_before = meta["metadata-log"].as_array().unwrap().len();
    let out = ldp(&["run", path]);
    assert!(out.status.success(), "{}", stderr(&out));
    let meta = metadata(dir.path());
    assert_eq!(
        meta["metadata-log"].as_array().unwrap().len(),
        log_before + 1
    );

    // An edited contract goes in with ldp gold sync, without new data.
    let mut edited = gold(None);
    edited["grain"] = Value::from("one row per completed ride");
    std::fs::write(dir.path().join("rides.json"), config(edited)).unwrap();
    let plan = ldp(&["gold", "sync", path, "--dry-run"]);
    assert!(
        stdout(&plan).contains("would write it"),
        "{}",
        stdout(&plan)
    );
    assert!(
        stdout(&plan).contains("properties: ldp.grain"),
        "{}",
        stdout(&plan)
    );
    let out = ldp(&["gold", "sync", path, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["committed"], true);
    assert_eq!(report["properties"], json!(["ldp.grain"]));
    let meta = metadata(dir.path());
    assert_eq!(
        meta["properties"]["ldp.grain"],
        "one row per completed ride"
    );
    assert_eq!(meta["snapshots"].as_array().unwrap().len(), 2);
    let again = ldp(&["gold", "sync", path]);
    assert!(
        stdout(&again).contains("already holds it"),
        "{}",
        stdout(&again)
    );

    // An agent reads the contract through ldp mcp's describe_table.
    let doc = crate::mcp::session(
        dir.path(),
        &json!([["describe_table", {"table": "nyc.rides"}]]),
        &["--config", "rides.json"],
    );
    let contract = &doc["calls"][0]["result"]["contract"];
    assert_eq!(contract["layer"], "gold", "{doc:#}");
    assert_eq!(contract["grain"], "one row per completed ride");
    assert_eq!(contract["owner"], "mobility team");
    assert_eq!(
        contract["columns"][&first],
        format!("The {first} of the ride.")
    );

    // A contract naming a column the table does not have: exit 3, nothing changed.
    let mut wrong = gold(None);
    wrong["columns"]["tip"] = Value::from("The tip.");
    std::fs::write(dir.path().join("rides.json"), config(wrong)).unwrap();
    let out = ldp(&["gold", "sync", path]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("['tip']"), "{}", stderr(&out));
    // --dbt-manifest: the contract of the dbt model that builds the table.
    let described: serde_json::Map<String, Value> = columns()
        .into_iter()
        .map(|c| (c.clone(), json!({"description": format!("dbt: the {c}.")})))
        .collect();
    let manifest = dir.path().join("manifest.json");
    std::fs::write(
        &manifest,
        json!({"nodes": {"model.taxi.rides": {"resource_type": "model", "name": "rides",
            "description": "Rides, as dbt builds them.", "columns": described,
            "meta": {"layer": "gold", "owner": "dbt team", "grain": "one row per ride"}}}})
        .to_string(),
    )
    .unwrap();
    let out = ldp(&[
        "gold",
        "sync",
        path,
        "--dbt-manifest",
        manifest.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let meta = metadata(dir.path());
    assert_eq!(meta["properties"]["comment"], "Rides, as dbt builds them.");
    assert_eq!(meta["properties"]["ldp.owner"], "dbt team");
    assert_eq!(docs_of(&meta)[&first], format!("dbt: the {first}."));
}
