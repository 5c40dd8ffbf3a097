//! `describe_table`: a table's schema, partitioning, properties, contract (`metadata.docs` as
//! the table holds it), freshness and last snapshots; its latest run and that run's quality
//! verdicts (from `_ldp.runs` in its catalog, where `ldp gold build` and the `iceberg` event
//! sink record them); and the current release of its namespace that holds it.

use serde_json::{Map, Value, json};

use super::{Context, Noted, iso_ms, no_more_than, string};
use crate::error::{ToolError, ToolErrorKind};

pub(super) fn call(
    context: &Context,
    arguments: &Map<String, Value>,
    noted: &mut Noted,
) -> Result<Value, ToolError> {
    no_more_than(arguments, &["table"])?;
    let served = context.lake.resolve(string(arguments, "table")?)?;
    noted.table = Some(served.identifier.clone());
    let table = served
        .target
        .load()
        .map_err(|e| ToolError::new(ToolErrorKind::QueryFailed, e.to_string()))?;
    let metadata = table.metadata();
    let schema = metadata.current_schema();
    let fields: Vec<Value> = schema
        .as_struct()
        .fields()
        .iter()
        .map(|f| {
            json!({"id": f.id, "name": f.name, "type": f.field_type.to_string(),
                   "required": f.required, "doc": f.doc})
        })
        .collect();
    let raw = serde_json::to_value(metadata).unwrap_or(Value::Null);
    let properties: std::collections::BTreeMap<String, String> = metadata
        .properties()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let column_docs = schema
        .as_struct()
        .fields()
        .iter()
        .filter_map(|f| f.doc.clone().map(|doc| (f.name.clone(), doc)))
        .collect();
    let contract = ldp_config::docs::Contract::from_table(&properties, column_docs)
        .map(|contract| contract.to_json());
    let snapshots = table.snapshots();
    let recent: Vec<Value> = snapshots
        .iter()
        .rev()
        .take(10)
        .map(|s| {
            json!({"snapshot_id": s.snapshot_id, "committed_at": iso_ms(s.timestamp_ms),
                   "operation": s.operation, "total_records": s.count("total-records")})
        })
        .collect();
    let current = table.current_snapshot_id();
    let last_commit = snapshots.last().map(|s| s.timestamp_ms);
    let now = jiff::Timestamp::now().as_millisecond();
    let latest = latest_run(&served.target, &served.identifier);
    Ok(json!({
        "table": served.identifier,
        "sql_name": served.identifier,
        "access": "arrow",
        "table_uuid": metadata.uuid().to_string(),
        "format_version": raw.get("format-version"),
        "location": table.location(),
        "metadata_location": table.metadata_location(),
        "schema": {"schema_id": schema.schema_id(), "fields": fields},
        "partition_spec": raw.get("partition-specs").and_then(|s| s.get(0)),
        "sort_order": raw.get("sort-orders").and_then(|s| s.get(0)),
        "row_count": table.total_records(),
        "snapshot_count": snapshots.len(),
        "recent_snapshots": recent,
        "properties": raw.get("properties"),
        "contract": contract,
        "latest_run": latest.as_ref().map(|(run, _)| run.clone()),
        "quality": latest.map(|(_, quality)| quality),
        "release": release(&served.target, current),
        "freshness": {
            "last_commit_at": last_commit.map(iso_ms),
            "age_seconds": last_commit.map(|ms| ((now - ms) as f64 / 1000.0).round()),
            "current_snapshot_id": current,
        },
    }))
}

/// The latest finished run of `identifier` recorded in `_ldp.runs` of its catalog, and the
/// quality verdicts of that run (`null` when it had no checks); `None` when nothing is recorded
/// (or the system table cannot be read: describing the table does not fail on it).
fn latest_run(target: &ldp_pipeline::TargetTable, identifier: &str) -> Option<(Value, Value)> {
    use ldp_events::system_tables::{RUNS_TABLE, SYSTEM_NAMESPACE};
    let catalog = target.open_catalog(ldp_catalog::Mode::ReadOnly).ok()?;
    if !catalog.table_exists(SYSTEM_NAMESPACE, RUNS_TABLE).ok()? {
        return None;
    }
    let runs = ldp_table::Table::load(&catalog, SYSTEM_NAMESPACE, RUNS_TABLE).ok()?;
    let mut events = Vec::new();
    for batch in runs.read_all(None).ok()? {
        events.extend(ldp_events::events_from_runs_batch(&batch).ok()?);
    }
    events.retain(|e| e.payload.get("table").and_then(Value::as_str) == Some(identifier));
    let summaries = ldp_events::runs::summarize_runs(&events, true);
    let latest = summaries.iter().max_by_key(|s| s.started_at)?;
    let quality = events
        .iter()
        .filter(|e| e.run_id == latest.run_id && e.attempt == latest.attempt)
        .find(|e| e.event_type == "quality.evaluated")
        .map_or(Value::Null, |e| {
            json!({
                "passed": e.payload.get("passed"),
                "results": e.payload.get("results"),
            })
        });
    Some((latest.to_value(), quality))
}

/// The current release of the table's namespace, when it holds the table: `{release,
/// snapshot_id, created_at, is_current_snapshot}` (readers of the release read that snapshot).
fn release(target: &ldp_pipeline::TargetTable, current: Option<i64>) -> Value {
    let Ok(Some(release)) = ldp_gold::current_release(&target.warehouse, &target.namespace) else {
        return Value::Null;
    };
    match release.snapshot_for(&target.identifier()) {
        Some(snapshot) => json!({
            "release": release.name,
            "snapshot_id": snapshot,
            "created_at": release.created_at,
            "is_current_snapshot": current == Some(snapshot),
        }),
        None => Value::Null,
    }
}
