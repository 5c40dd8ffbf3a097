//! `run.extracted`.

use serde_json::{Map, Value};

use super::EventPayload;
use super::schema::{SchemaField, list};

/// `run.extracted`: `{rows_read, rows_kept (only with a window column), schema}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// Rows the source gave.
    pub rows_read: u64,
    /// Rows of those inside the window, when the config names a window column and the run has
    /// a window.
    pub rows_kept: Option<u64>,
    /// The columns read.
    pub schema: Vec<SchemaField>,
}

impl EventPayload for Extracted {
    fn event_type(&self) -> &'static str {
        "run.extracted"
    }

    fn to_payload(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("rows_read".into(), Value::from(self.rows_read));
        if let Some(kept) = self.rows_kept {
            payload.insert("rows_kept".into(), Value::from(kept));
        }
        payload.insert("schema".into(), list(&self.schema));
        payload
    }
}
