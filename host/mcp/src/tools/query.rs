//! `query`: one read-only SQL query over the served tables, checked before it plans
//! ([`ldp_sql::check_read_only`]), run in a session that holds only the served tables, capped
//! in rows, time and memory.

use std::time::Instant;

use serde_json::{Map, Value, json};

use super::{Context, Noted, count, no_more_than, string};
use crate::error::ToolError;
use crate::values;

pub(super) fn call(
    context: &Context,
    arguments: &Map<String, Value>,
    noted: &mut Noted,
) -> Result<Value, ToolError> {
    no_more_than(arguments, &["sql", "max_rows"])?;
    let sql = string(arguments, "sql")?;
    noted.sql = Some(sql.to_owned());
    let max_rows = count(arguments, "max_rows", 100, context.max_rows)?;
    ldp_sql::check_read_only(sql).map_err(ToolError::of_sql)?;
    run(context, sql, max_rows, noted)
}

/// Runs checked SQL and shapes the result (shared with `sample_rows`).
pub(super) fn run(
    context: &Context,
    sql: &str,
    max_rows: usize,
    noted: &mut Noted,
) -> Result<Value, ToolError> {
    let started = Instant::now();
    let session = context
        .lake
        .session(context.memory_limit, context.engine.as_ref())?;
    let out = session
        .query(sql, max_rows, Some(context.timeout))
        .map_err(ToolError::of_sql)?;
    let rows = values::rows(&out.batches);
    let truncated = out.total_rows > rows.len() as u64;
    noted.rows = Some(rows.len() as u64);
    noted.truncated = Some(truncated);
    Ok(json!({
        "columns": values::columns(&out.schema),
        "row_count": rows.len(),
        "rows": rows,
        "truncated": truncated,
        "max_rows": max_rows,
        "duration_ms": (started.elapsed().as_secs_f64() * 1_000_000.0).round() / 1000.0,
        "stale_tables": Vec::<String>::new(),
    }))
}
