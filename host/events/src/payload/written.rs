//! `run.published` and `run.skipped_duplicate`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{EventPayload, opt_num, opt_str};

/// What the Iceberg write did (the Python tool's `WriteResult`); `write` is `null` for file
/// targets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteFacts {
    /// `ns.t`.
    pub table_identifier: String,
    /// The write mode that ran: `append`, `overwrite` or `upsert`.
    pub mode: String,
    /// Rows the write added or changed (0 for a duplicate).
    pub rows_written: u64,
    /// `total-records` before the write.
    pub rows_before: u64,
    /// `total-records` after it.
    pub rows_after: u64,
    /// The snapshot written, or the one that already carries the key.
    pub snapshot_id: Option<i64>,
    /// The staged branch that was published (staged runs).
    pub branch: Option<String>,
    /// The key the write ran under (staged runs).
    pub idempotency_key: Option<String>,
    /// Tries used (0 for a duplicate found before staging).
    pub attempts: u32,
    /// Whether the key was already published.
    pub skipped_duplicate: bool,
}

impl WriteFacts {
    /// The write as the payload holds it.
    pub fn to_value(&self) -> Value {
        let mut write = Map::new();
        write.insert(
            "table_identifier".into(),
            Value::from(self.table_identifier.clone()),
        );
        write.insert("mode".into(), Value::from(self.mode.clone()));
        write.insert("rows_written".into(), Value::from(self.rows_written));
        write.insert("rows_before".into(), Value::from(self.rows_before));
        write.insert("rows_after".into(), Value::from(self.rows_after));
        write.insert("snapshot_id".into(), opt_num(self.snapshot_id));
        write.insert("branch".into(), opt_str(self.branch.as_deref()));
        write.insert(
            "idempotency_key".into(),
            opt_str(self.idempotency_key.as_deref()),
        );
        write.insert("attempts".into(), Value::from(self.attempts));
        write.insert(
            "skipped_duplicate".into(),
            Value::from(self.skipped_duplicate),
        );
        Value::Object(write)
    }
}

/// A snapshot's summary: its operation and every other summary property
/// (`added-data-files`, `total-records`, `ldp.idempotency-key`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SnapshotSummary {
    /// `append`, `overwrite`, `replace` or `delete`.
    pub operation: String,
    /// The other properties.
    pub properties: BTreeMap<String, String>,
}

impl SnapshotSummary {
    /// `{operation, **properties}`.
    pub fn to_value(&self) -> Value {
        let mut summary = Map::new();
        summary.insert("operation".into(), Value::from(self.operation.clone()));
        for (key, value) in &self.properties {
            summary.insert(key.clone(), Value::from(value.clone()));
        }
        Value::Object(summary)
    }
}

/// `run.published` or, with `skipped_duplicate`, `run.skipped_duplicate`: `{rows_written,
/// snapshot_id, idempotency_key, write, snapshot_summary}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The key was already published: nothing was written.
    pub skipped_duplicate: bool,
    /// Rows the write added or changed.
    pub rows_written: u64,
    /// The snapshot holding the run's effect (`null` for file targets).
    pub snapshot_id: Option<i64>,
    /// The run's idempotency key.
    pub idempotency_key: Option<String>,
    /// The Iceberg write (`None` for file targets).
    pub write: Option<WriteFacts>,
    /// The summary of `snapshot_id` (`{}` when there is none).
    pub snapshot_summary: Option<SnapshotSummary>,
}

impl EventPayload for Written {
    fn event_type(&self) -> &'static str {
        if self.skipped_duplicate {
            "run.skipped_duplicate"
        } else {
            "run.published"
        }
    }

    fn to_payload(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("rows_written".into(), Value::from(self.rows_written));
        payload.insert("snapshot_id".into(), opt_num(self.snapshot_id));
        payload.insert(
            "idempotency_key".into(),
            opt_str(self.idempotency_key.as_deref()),
        );
        payload.insert(
            "write".into(),
            self.write
                .as_ref()
                .map_or(Value::Null, WriteFacts::to_value),
        );
        payload.insert(
            "snapshot_summary".into(),
            self.snapshot_summary
                .as_ref()
                .map_or_else(|| Value::Object(Map::new()), SnapshotSummary::to_value),
        );
        payload
    }
}
