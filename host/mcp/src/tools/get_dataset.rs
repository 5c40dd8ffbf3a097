//! `get_dataset`: a pinned dataset version's manifest (written by `ldp datasets pin`) and the
//! versions of its name, looked for in the warehouses of the served tables
//! ([`ldp_datasets::list_versions`]).

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::{Context, no_more_than, string};
use crate::error::{ToolError, ToolErrorKind};

pub(super) fn call(context: &Context, arguments: &Map<String, Value>) -> Result<Value, ToolError> {
    no_more_than(arguments, &["name"])?;
    let text = string(arguments, "name")?;
    let (name, wanted) =
        ldp_datasets::parse_reference(text).map_err(|e| ToolError::arguments(e.to_string()))?;
    let mut warehouses: Vec<PathBuf> = context
        .lake
        .tables
        .iter()
        .map(|t| t.target.warehouse.clone())
        .collect();
    warehouses.dedup();
    let mut versions = Vec::new();
    for warehouse in &warehouses {
        versions = ldp_datasets::list_versions(&name, warehouse)
            .map_err(|e| ToolError::arguments(e.to_string()))?;
        if !versions.is_empty() {
            break;
        }
    }
    let chosen = match wanted {
        Some(n) => versions.iter().find(|v| v.version == n),
        None => versions.last(),
    }
    .ok_or_else(|| {
        ToolError::new(
            ToolErrorKind::DatasetNotFound,
            format!("no pinned dataset '{text}' in the warehouses of the served tables"),
        )
    })?;
    let brief: Vec<Value> = versions
        .iter()
        .rev()
        .take(20)
        .map(|v| {
            json!({"version": v.version, "snapshot_id": v.snapshot_id,
                   "row_count": v.row_count, "created_at": ldp_datasets::iso_utc(v.created_at)})
        })
        .collect();
    Ok(json!({
        "available": true,
        "name": name,
        "version": chosen.to_json(),
        "version_count": versions.len(),
        "versions": brief,
    }))
}
