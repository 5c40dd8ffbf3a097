//! `describe_table`: a table's schema, partitioning, properties, contract (`metadata.docs` as
//! the table holds it), freshness and last snapshots.

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
        "freshness": {
            "last_commit_at": last_commit.map(iso_ms),
            "age_seconds": last_commit.map(|ms| ((now - ms) as f64 / 1000.0).round()),
            "current_snapshot_id": current,
        },
    }))
}
