//! `table_history`: a table's snapshots, newest first, and its branches and tags.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::{Context, Noted, count, iso_ms, no_more_than, string};
use crate::error::{ToolError, ToolErrorKind};

pub(super) fn call(
    context: &Context,
    arguments: &Map<String, Value>,
    noted: &mut Noted,
) -> Result<Value, ToolError> {
    no_more_than(arguments, &["table", "limit"])?;
    let served = context.lake.resolve(string(arguments, "table")?)?;
    noted.table = Some(served.identifier.clone());
    let limit = count(arguments, "limit", 50, 1000)?;
    let table = served
        .target
        .load()
        .map_err(|e| ToolError::new(ToolErrorKind::QueryFailed, e.to_string()))?;
    let snapshots = table.snapshots();
    let current = table.current_snapshot_id();
    // The ancestors of main's head.
    let mut on_main = BTreeSet::new();
    let mut at = table.ref_snapshot_id("main");
    while let Some(id) = at {
        if !on_main.insert(id) {
            break;
        }
        at = snapshots
            .iter()
            .find(|s| s.snapshot_id == id)
            .and_then(|s| s.parent_snapshot_id);
    }
    let history: Vec<Value> = snapshots
        .iter()
        .rev()
        .take(limit)
        .map(|s| {
            let ldp: Map<String, Value> = s
                .summary
                .iter()
                .filter(|(k, _)| k.starts_with("ldp."))
                .map(|(k, v)| (k.clone(), Value::from(v.clone())))
                .collect();
            json!({
                "snapshot_id": s.snapshot_id,
                "parent_id": s.parent_snapshot_id,
                "committed_at": iso_ms(s.timestamp_ms),
                "operation": s.operation,
                "added_records": s.count("added-records"),
                "deleted_records": s.count("deleted-records"),
                "total_records": s.count("total-records"),
                "ldp": ldp,
                "is_current": Some(s.snapshot_id) == current,
                "on_main": on_main.contains(&s.snapshot_id),
            })
        })
        .collect();
    noted.rows = Some(history.len() as u64);
    let refs: Map<String, Value> = table
        .refs()
        .into_iter()
        .map(|(name, r)| {
            (
                name,
                json!({"snapshot_id": r.snapshot_id, "type": if r.is_branch { "branch" } else { "tag" }}),
            )
        })
        .collect();
    Ok(json!({
        "table": served.identifier,
        "current_snapshot_id": current,
        "snapshot_count": snapshots.len(),
        "history": history,
        "truncated": snapshots.len() > limit,
        "refs": refs,
    }))
}
