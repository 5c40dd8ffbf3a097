//! Time travel on a table's page: its rows at a snapshot (default: the current one), the first
//! `n`, with the snapshot's row count.

use ldp_sql::{Engine, Session, SessionOptions, TableName};
use serde_json::{Value, json};

use crate::error::{UiError, UiErrorKind};
use crate::state::State;

pub(crate) fn rows(
    state: &State,
    name: &str,
    snapshot: Option<i64>,
    n: usize,
) -> Result<Value, UiError> {
    let (_, served) = state.table(name)?;
    let n = n.clamp(1, state.settings.max_rows);
    let table = served
        .target
        .load()
        .map_err(|e| UiError::internal(e.to_string()))?;
    if let Some(id) = snapshot
        && table.snapshot(id).is_err()
    {
        return Err(UiError::not_found(format!(
            "{} has no snapshot {id}; its page lists the snapshots it has",
            served.identifier
        )));
    }
    let session = Session::with_options(SessionOptions {
        partitions: None,
        memory_limit: state.settings.memory_limit,
    })
    .map_err(query_error)?;
    Engine::register(&session, &table, snapshot, &[TableName::bare("t")]).map_err(query_error)?;
    let timeout = Some(state.settings.timeout);
    let sql = format!("SELECT * FROM t LIMIT {n}");
    let out = Engine::query(&session, &sql, n, timeout).map_err(query_error)?;
    let rows = ldp_mcp::values::rows(&out.batches);
    let snapshot_id = snapshot.or(table.current_snapshot_id());
    let total = snapshot_id
        .and_then(|id| table.snapshot(id).ok())
        .map(|s| s.count("total-records"));
    let truncated = total.is_some_and(|t| t > rows.len() as u64);
    Ok(json!({
        "table": served.identifier,
        "snapshot_id": snapshot_id.map(|id| id.to_string()),
        "is_current": snapshot_id == table.current_snapshot_id(),
        "total_records": total,
        "columns": ldp_mcp::values::columns(&out.schema),
        "rows": rows,
        "truncated": truncated,
    }))
}

fn query_error(e: ldp_sql::Error) -> UiError {
    UiError::new(UiErrorKind::Query, e.to_string())
}
