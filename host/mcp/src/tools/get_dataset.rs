//! `get_dataset`: a pinned dataset version's manifest (`<warehouse>/.ldp/datasets/<name>/
//! v000001.json`, written by `ldp datasets pin`) and the versions of its name, looked for in
//! the warehouses of the served tables.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::{Context, no_more_than, string};
use crate::error::{ToolError, ToolErrorKind};

pub(super) fn call(context: &Context, arguments: &Map<String, Value>) -> Result<Value, ToolError> {
    no_more_than(arguments, &["name"])?;
    let text = string(arguments, "name")?;
    let (name, wanted) = match text.split_once("@v") {
        Some((name, version)) => {
            let n: u32 = version
                .parse()
                .map_err(|_| ToolError::arguments(format!("'{text}' is not NAME or NAME@vN")))?;
            (name, Some(n))
        }
        None => (text, None),
    };
    let valid = !name.is_empty()
        && name.len() <= 128
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if !valid {
        return Err(ToolError::arguments(format!(
            "'{name}' is not a dataset name"
        )));
    }
    let not_found = || {
        ToolError::new(
            ToolErrorKind::DatasetNotFound,
            format!("no pinned dataset '{text}' in the warehouses of the served tables"),
        )
    };
    let mut versions: Vec<(u32, PathBuf)> = Vec::new();
    let mut warehouses: Vec<PathBuf> = context
        .lake
        .tables
        .iter()
        .map(|t| t.target.warehouse.clone())
        .collect();
    warehouses.dedup();
    for warehouse in warehouses {
        let dir = warehouse.join(".ldp/datasets").join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().to_string();
            if let Some(n) = file
                .strip_prefix('v')
                .and_then(|r| r.strip_suffix(".json"))
                .and_then(|n| n.parse::<u32>().ok())
            {
                versions.push((n, entry.path()));
            }
        }
        if !versions.is_empty() {
            break;
        }
    }
    versions.sort();
    let chosen = match wanted {
        Some(n) => versions.iter().find(|(v, _)| *v == n),
        None => versions.last(),
    }
    .ok_or_else(not_found)?;
    let read = |path: &PathBuf| -> Option<Value> {
        serde_json::from_slice(&std::fs::read(path).ok()?).ok()
    };
    let manifest = read(&chosen.1).ok_or_else(not_found)?;
    let brief: Vec<Value> = versions
        .iter()
        .rev()
        .take(20)
        .filter_map(|(_, path)| read(path))
        .map(|m| {
            json!({"version": m.get("version"), "snapshot_id": m.get("snapshot_id"),
                   "row_count": m.get("row_count"), "created_at": m.get("created_at")})
        })
        .collect();
    Ok(json!({
        "available": true,
        "name": name,
        "version": manifest,
        "version_count": versions.len(),
        "versions": brief,
    }))
}
