//! Publishing the models of a dbt build: each model whose `meta` says `ldp_publish: true` and
//! that the build ran is written to Iceberg through ldp's own write path: a dataset config with
//! a DUCKDB source over the model's relation in the project's DuckDB file, kept in
//! `target/ldp_publish/<table>.json`, run as `ldp run` runs it (quality gate, contract, events,
//! one snapshot).
//!
//! * The table is the model's alias (else its name) in `meta.ldp_namespace`, else the project's
//!   namespace, in the project's warehouse. A `table` or `view` model overwrites it; an
//!   `incremental` model with a `unique_key` upserts on that key, one without appends.
//! * The contract comes from the manifest (description, column descriptions, tags, `owner`,
//!   `grain`, `layer`, `primary_key` meta). Every model is checked before the first is
//!   published: a gold model that does not keep its contract stops the publish of all.
//! * `meta.ldp_checks`, a list of quality checks, becomes the config's checks.

use std::path::{Path, PathBuf};

use ldp_pipeline::{Job, RunOptions, RunReport};
use ldp_plugin_runtime::Runtime;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::project::Project;

/// A model to publish.
#[derive(Debug, Clone)]
pub struct PublishPlan {
    /// The model's name.
    pub model: String,
    /// `ns.t`.
    pub table: String,
    /// `overwrite`, `upsert` or `append`.
    pub mode: &'static str,
    /// The config ldp runs.
    pub config: PathBuf,
}

/// A model published.
#[derive(Debug, Clone)]
pub struct Published {
    /// The plan.
    pub plan: PublishPlan,
    /// The run.
    pub report: RunReport,
}

fn read_json(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::file("read", path, e))?;
    serde_json::from_str(&text).map_err(|e| Error::Artifact {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// The ids of the nodes the last dbt command ran with `status`.
pub(crate) fn nodes_with_status(project: &Project, status: &str) -> Result<Vec<String>> {
    let path = project.target_dir().join("run_results.json");
    let results = read_json(&path)?;
    Ok(results["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["status"] == status)
        .filter_map(|r| r["unique_id"].as_str().map(str::to_owned))
        .collect())
}

/// Plans the publish of the models the build ran, checks every contract, and writes each
/// model's config; publishes nothing.
///
/// # Errors
///
/// [`Error::Contract`] for a gold model that does not keep its contract; an ephemeral model
/// marked for publishing; artifacts dbt did not write.
pub fn plan_publish(project: &Project) -> Result<Vec<PublishPlan>> {
    let manifest_path = project.target_dir().join("manifest.json");
    let manifest = read_json(&manifest_path)?;
    let built = nodes_with_status(project, "success")?;
    let mut plans = Vec::new();
    let folder = project.target_dir().join("ldp_publish");
    for id in &built {
        let node = &manifest["nodes"][id];
        if node["resource_type"] != "model" {
            continue;
        }
        let meta = |key: &str| {
            node["config"]["meta"]
                .get(key)
                .or_else(|| node["meta"].get(key))
        };
        if meta("ldp_publish") != Some(&Value::Bool(true)) {
            continue;
        }
        let model = node["name"].as_str().unwrap_or_default().to_string();
        let alias = node["alias"].as_str().unwrap_or(&model).to_string();
        let namespace = meta("ldp_namespace")
            .and_then(Value::as_str)
            .unwrap_or(&project.namespace)
            .to_string();
        let (mode, join_cols) = write_mode(node, &model)?;
        let relation = format!("{}.{}", node["schema"].as_str().unwrap_or("main"), alias);
        let contract = ldp_pipeline::contract::contract_from_dbt_manifest(
            &manifest_path,
            &namespace,
            &alias,
            None,
            None,
        )?;
        let table = format!("{namespace}.{alias}");
        let columns = relation_columns(project, &relation)?;
        let names: Vec<&str> = columns.iter().map(String::as_str).collect();
        let reasons = contract.gate(&names);
        if !reasons.is_empty() {
            return Err(Error::Contract {
                model,
                table,
                reasons,
            });
        }
        let mut target = json!({
            "name": alias, "format": "ICEBERG", "write_mode": mode,
            "catalog": {"identifier": namespace,
                        "warehouse_path": project.warehouse.display().to_string()},
        });
        if !join_cols.is_empty() {
            target["join_cols"] = json!(join_cols);
        }
        let mut metadata = Map::new();
        metadata.insert(
            "source".into(),
            json!({"name": alias, "format": "DUCKDB",
                   "path": project.duckdb_file().display().to_string(), "relation": relation}),
        );
        metadata.insert("target".into(), target);
        metadata.insert("docs".into(), docs_block(&contract.to_json()));
        if let Some(checks) = meta("ldp_checks") {
            metadata.insert("quality".into(), json!({"checks": checks}));
        }
        let config = json!({"apiVersion": "ldp/v1", "identifier": alias, "metadata": metadata});
        std::fs::create_dir_all(&folder).map_err(|e| Error::file("create", &folder, e))?;
        let path = folder.join(format!("{alias}.json"));
        let text = serde_json::to_string_pretty(&config).unwrap_or_default();
        std::fs::write(&path, text).map_err(|e| Error::file("write", &path, e))?;
        plans.push(PublishPlan {
            model,
            table,
            mode,
            config: path,
        });
    }
    Ok(plans)
}

/// `overwrite` for a table or view, `upsert` on the `unique_key` of an incremental model
/// (`append` without one).
fn write_mode(node: &Value, model: &str) -> Result<(&'static str, Vec<String>)> {
    let config = &node["config"];
    match config["materialized"].as_str().unwrap_or("view") {
        "incremental" => {
            let keys: Vec<String> = match &config["unique_key"] {
                Value::String(key) => vec![key.clone()],
                Value::Array(keys) => keys
                    .iter()
                    .filter_map(|k| k.as_str().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            };
            Ok((if keys.is_empty() { "append" } else { "upsert" }, keys))
        }
        "ephemeral" => Err(Error::Project {
            message: format!(
                "model {model} is ephemeral, so it has no relation to publish; materialize it as a table, view or incremental model, or drop meta ldp_publish"
            ),
        }),
        _ => Ok(("overwrite", Vec::new())),
    }
}

/// The contract JSON as a `docs` block: the keys that hold something.
fn docs_block(contract: &Value) -> Value {
    let Value::Object(map) = contract else {
        return json!({});
    };
    let kept: Map<String, Value> = map
        .iter()
        .filter(|(_, v)| match v {
            Value::Null => false,
            Value::Array(items) => !items.is_empty(),
            Value::Object(items) => !items.is_empty(),
            _ => true,
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Value::Object(kept)
}

/// The column names of a relation of the project's DuckDB file.
fn relation_columns(project: &Project, relation: &str) -> Result<Vec<String>> {
    let sql = format!("SELECT * FROM {relation} LIMIT 0");
    let query = ldp_duckdb::Query::open(
        &project.duckdb_file(),
        &sql,
        ldp_duckdb::QueryOptions::default(),
    )
    .map_err(|source| Error::Register {
        file: project.duckdb_file(),
        source,
    })?;
    Ok(query
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect())
}

/// Publishes each plan in order, stopping at the first that fails (the ones before it stay
/// published).
///
/// # Errors
///
/// The first publish that fails (a gate that blocks it is exit 3).
pub fn publish(
    plans: &[PublishPlan],
    runtime: &Runtime,
    options: &RunOptions,
    published: &mut Vec<Published>,
) -> Result<()> {
    for plan in plans {
        let job = Job::open(ldp_pipeline::open_config_for_run(&plan.config, false)?)?;
        let report = job.run(runtime, options)?;
        published.push(Published {
            plan: plan.clone(),
            report,
        });
    }
    Ok(())
}
