//! A table's page: what `ldp mcp`'s `describe_table` and `table_history` give (schema and
//! column docs, partition spec, contract, snapshots with rows added and removed), its
//! partitions and files, its pipeline's runs with their quality results, and the tables
//! upstream and downstream of it ([`crate::lineage`]).

use std::collections::BTreeMap;

use ldp_events::Event;
use ldp_events::runs::summarize_runs;
use ldp_pipeline::TargetTable;
use ldp_status::RunsReader;
use serde_json::{Map, Value, json};

use crate::error::UiError;
use crate::state::State;

/// The most files listed one by one (every file counts in its partition).
const MAX_FILES: usize = 200;

/// The most runs listed, newest first.
const MAX_RUNS: usize = 200;

pub(crate) fn table(state: &State, name: &str) -> Result<Value, UiError> {
    let (context, served) = state.table(name)?;
    let mut noted = ldp_mcp::tools::Noted::default();
    let arguments = |limit: Option<u64>| {
        let mut map = Map::new();
        map.insert("table".into(), Value::from(served.identifier.clone()));
        if let Some(limit) = limit {
            map.insert("limit".into(), Value::from(limit));
        }
        map
    };
    let described = ldp_mcp::tools::call(&context, "describe_table", &arguments(None), &mut noted)?;
    let history = ldp_mcp::tools::call(
        &context,
        "table_history",
        &arguments(Some(1000)),
        &mut noted,
    )?;
    let table = served
        .target
        .load()
        .map_err(|e| UiError::internal(e.to_string()))?;
    let files = table
        .file_listing(None)
        .map_err(|e| UiError::internal(e.to_string()))?;

    let configs = ldp_status::lake_configs(&state.settings.paths)?;
    let mut reader = RunsReader::new();
    let runs = configs
        .iter()
        .find(|(_, config)| writes(config, &served.target))
        .map(|(_, config)| reader.config_events(config, None))
        .transpose()?
        .map_or_else(Vec::new, |(events, _)| runs_json(&events));
    let edges = crate::lineage::edges(&state.settings.paths, &configs, &mut reader);

    let mut doc = json!({
        "table": served.identifier,
        "describe": described,
        "history": history,
        "partitions": partitions_json(&files),
        "files": files.iter().take(MAX_FILES).map(|f| json!({
            "path": f.path, "records": f.records, "bytes": f.bytes,
            "partition": f.partition.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("/"),
        })).collect::<Vec<_>>(),
        "file_count": files.len(),
        "runs": runs,
        "lineage": crate::lineage::around(&edges, &served.identifier),
    });
    ids_as_text(&mut doc);
    Ok(doc)
}

/// Snapshot ids as strings (`snapshot_id`, `parent_id`, `current_snapshot_id`, and the like):
/// they pass 2^53, past which a browser's numbers round.
pub(crate) fn ids_as_text(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                let is_id = key.ends_with("snapshot_id") || key == "parent_id";
                match item {
                    Value::Number(n) if is_id => *item = Value::from(n.to_string()),
                    _ => ids_as_text(item),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(ids_as_text),
        _ => {}
    }
}

/// Whether `config`'s target is `target` (same catalog, same table).
fn writes(config: &ldp_config::Config, target: &TargetTable) -> bool {
    config.target().is_iceberg()
        && TargetTable::resolve(config, config.target())
            .is_ok_and(|t| t.catalog == target.catalog && t.identifier() == target.identifier())
}

/// Files, rows and bytes per partition, in partition order.
fn partitions_json(files: &[ldp_table::FileInfo]) -> Vec<Value> {
    let mut partitions: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for file in files {
        let key = file
            .partition
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("/");
        let entry = partitions.entry(key).or_default();
        entry.0 += 1;
        entry.1 += file.records;
        entry.2 += file.bytes;
    }
    partitions
        .into_iter()
        .map(|(partition, (files, records, bytes))| {
            json!({"partition": partition, "files": files, "records": records, "bytes": bytes})
        })
        .collect()
}

/// The runs, newest first, each with the verdicts of its final attempt's quality checks.
fn runs_json(events: &[Event]) -> Vec<Value> {
    let mut summaries = summarize_runs(events, true);
    summaries.sort_by_key(|r| std::cmp::Reverse(r.started_at));
    summaries
        .iter()
        .take(MAX_RUNS)
        .map(|run| {
            let mut doc = run.to_value();
            let quality = events
                .iter()
                .filter(|e| e.run_id == run.run_id && e.attempt == run.attempt)
                .find(|e| e.event_type == "quality.evaluated")
                .and_then(|e| e.payload.get("results").cloned())
                .unwrap_or(Value::Null);
            doc["quality"] = quality;
            doc
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_ids_reach_the_browser_as_text() {
        let mut doc = json!({"history": [{"snapshot_id": 6224440744950730123_i64,
            "parent_id": null, "total_records": 40}], "current_snapshot_id": 1,
            "refs": {"main": {"snapshot_id": 2}}});
        ids_as_text(&mut doc);
        assert_eq!(
            doc,
            json!({"history": [{"snapshot_id": "6224440744950730123", "parent_id": null,
                "total_records": 40}], "current_snapshot_id": "1",
                "refs": {"main": {"snapshot_id": "2"}}})
        );
    }
}
