//! `list_tables`: the served tables, each with its SQL name, aliases, row count and last update.

use serde_json::{Value, json};

use super::{Context, iso_ms};
use crate::error::{ToolError, ToolErrorKind};

pub(super) fn call(context: &Context) -> Result<Value, ToolError> {
    let mut tables = Vec::new();
    for served in &context.lake.tables {
        let table = served
            .target
            .load()
            .map_err(|e| ToolError::new(ToolErrorKind::QueryFailed, e.to_string()))?;
        tables.push(json!({
            "table": served.identifier,
            "sql_name": served.identifier,
            "aliases": served.bare.iter().collect::<Vec<_>>(),
            "namespace": served.target.namespace,
            "name": served.target.name,
            "access": "arrow",
            "source": served.target.catalog.to_string(),
            "row_count": table.total_records(),
            "last_updated": iso_ms(table.metadata().last_updated_ms()),
        }));
    }
    Ok(json!({
        "tables": tables,
        "unavailable": context.lake.unavailable,
        "sql_dialect": "datafusion",
        "limits": {"max_rows": context.max_rows, "timeout_s": context.timeout.as_secs_f64()},
    }))
}
