//! The SQL box: `ldp mcp`'s `query` tool as it is (the guard, the session of served tables
//! only, the row, time and memory limits), so the page can do nothing an agent cannot.

use serde_json::{Map, Value};

use crate::error::UiError;
use crate::state::State;

/// Runs `{"sql": …, "max_rows": N}`.
pub(crate) fn query(state: &State, body: &Value) -> Result<Value, UiError> {
    let arguments: Map<String, Value> = body
        .as_object()
        .cloned()
        .ok_or_else(|| UiError::bad_request("send {\"sql\": \"SELECT …\"}"))?;
    let context = state.context()?;
    let mut noted = ldp_mcp::tools::Noted::default();
    let result = ldp_mcp::tools::call(&context, "query", &arguments, &mut noted)?;
    tracing::info!(
        sql = noted.sql.as_deref().unwrap_or(""),
        rows = noted.rows.unwrap_or(0),
        "ui query"
    );
    Ok(result)
}
