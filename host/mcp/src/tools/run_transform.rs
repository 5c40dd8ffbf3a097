//! `run_transform` (beyond the Python tool): an agent's JavaScript transform run in ldp's sandbox
//! (the built-in interpreter: no I/O, a time and a memory limit) on the first rows of a served
//! table; the rows it gives come back, nothing is written anywhere.

use std::sync::Arc;

use ldp_pipeline::ProvidedBatches;
use serde_json::{Map, Value, json};

use super::{Context, Noted, count, no_more_than, string};
use crate::error::{ToolError, ToolErrorKind};
use crate::values;

pub(super) fn call(
    context: &Context,
    arguments: &Map<String, Value>,
    noted: &mut Noted,
) -> Result<Value, ToolError> {
    no_more_than(arguments, &["table", "js", "n"])?;
    let served = context.lake.resolve(string(arguments, "table")?)?;
    noted.table = Some(served.identifier.clone());
    let js = string(arguments, "js")?;
    let n = count(arguments, "n", 20, context.max_rows)?;
    let spec = ldp_config::parse_transform(0, &json!({"js": js, "name": "agent"}))
        .map_err(ToolError::arguments)?;
    let session = context
        .lake
        .session(context.memory_limit, context.engine.as_ref())?;
    let sql = format!(
        "SELECT * FROM \"{}\".\"{}\" LIMIT {n}",
        served.target.namespace, served.target.name
    );
    let input = session
        .query(&sql, n, Some(context.timeout))
        .map_err(ToolError::of_sql)?;
    let base = std::env::temp_dir();
    let sample = ldp_pipeline::transform::sample_batches(
        &context.runtime,
        &spec,
        &base,
        ProvidedBatches {
            name: format!("{} (first {n} rows)", served.identifier),
            schema: input.schema.clone(),
            batches: Arc::new(input.batches),
        },
    )
    .map_err(|e| ToolError::new(ToolErrorKind::QueryFailed, format!("{e:#}")))?;
    let rows = values::rows(&sample.output);
    noted.rows = Some(rows.len() as u64);
    noted.truncated = Some(false);
    Ok(json!({
        "table": served.identifier,
        "sha256": sample.sha256,
        "input_rows": sample.input_rows,
        "columns": values::columns(&sample.output_schema),
        "row_count": rows.len(),
        "rows": rows,
        "written": false,
    }))
}
