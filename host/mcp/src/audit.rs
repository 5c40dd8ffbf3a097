//! Every tool call audited (`docs/mcp.md#the-audit`): one JSON line per call, appended and flushed
//! before the result goes back (so a killed server loses none of the file), and the same
//! records appended to the `_ldp.audit` Iceberg table of the first served table's catalog in
//! batches of [`ICEBERG_BATCH`] (and when the server stops), so a killed server loses at most
//! the last batch of the table. A record never holds result data: the tool, its status, the
//! SQL, the table, the other scalar arguments, the row count, the error, timing and ids.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use ldp_catalog::{Catalog, Mode};
use ldp_pipeline::TargetTable;
use serde_json::{Map, Value, json};

/// Records buffered before an append to `_ldp.audit`.
pub const ICEBERG_BATCH: usize = 20;
/// The system table the records go to.
pub const AUDIT_TABLE: &str = "audit";
/// The longest SQL kept in a record.
pub const MAX_AUDIT_SQL_CHARS: usize = 100_000;
/// The longest string argument kept.
const MAX_ARGUMENT_CHARS: usize = 1000;

/// One audited call.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRecord {
    /// The tool.
    pub tool: String,
    /// `ok`, `rejected`, `denied`, `timeout` or `error`.
    pub status: String,
    /// Milliseconds, 3 decimals.
    pub duration_ms: f64,
    /// The SQL of a `query` call.
    pub sql: Option<String>,
    /// The table of a call about one table.
    pub table: Option<String>,
    /// The other scalar arguments (strings cut at 1000 characters).
    pub arguments: Map<String, Value>,
    /// The rows a successful call gave.
    pub rows: Option<u64>,
    /// Whether they were cut at the row cap.
    pub truncated: Option<bool>,
    /// The error message.
    pub error: Option<String>,
    /// A uuid4, hex.
    pub event_id: String,
    /// When, UTC.
    pub ts: jiff::Timestamp,
}

impl AuditRecord {
    /// The Python tool's JSON of a record.
    pub fn to_json(&self) -> Value {
        let sql = self
            .sql
            .as_ref()
            .map(|s| s.chars().take(MAX_AUDIT_SQL_CHARS).collect::<String>());
        json!({
            "tool": self.tool.chars().take(200).collect::<String>(),
            "status": self.status,
            "duration_ms": (self.duration_ms * 1000.0).round() / 1000.0,
            "sql": sql,
            "table": self.table,
            "arguments": self.arguments,
            "rows": self.rows,
            "truncated": self.truncated,
            "error": self.error,
            "event_id": self.event_id,
            "ts": ldp_events::isoformat_millis(self.ts),
            "schema_version": 1,
        })
    }
}

/// The scalar arguments of a call other than `sql` and `table`, as the record keeps them.
pub fn scalar_arguments(arguments: &Map<String, Value>) -> Map<String, Value> {
    arguments
        .iter()
        .filter(|(key, _)| *key != "sql" && *key != "table")
        .filter_map(|(key, value)| match value {
            Value::String(s) => Some((
                key.clone(),
                Value::from(s.chars().take(MAX_ARGUMENT_CHARS).collect::<String>()),
            )),
            Value::Number(_) | Value::Bool(_) | Value::Null => Some((key.clone(), value.clone())),
            _ => None,
        })
        .collect()
}

struct Inner {
    path: PathBuf,
    file: Option<File>,
    iceberg: Option<TargetTable>,
    pending: Vec<AuditRecord>,
}

/// The audit log of a server; clones share it.
#[derive(Clone)]
pub struct AuditLog {
    inner: Arc<Mutex<Inner>>,
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditLog").finish_non_exhaustive()
    }
}

impl AuditLog {
    /// A log appending to `path`, and to `_ldp.audit` in the catalog of `iceberg` when given.
    pub fn new(path: &Path, iceberg: Option<TargetTable>) -> AuditLog {
        AuditLog {
            inner: Arc::new(Mutex::new(Inner {
                path: path.to_path_buf(),
                file: None,
                iceberg,
                pending: Vec::new(),
            })),
        }
    }

    /// The JSONL file.
    pub fn path(&self) -> PathBuf {
        self.lock().path.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes one record: the line at once (flushed), the table when a batch is full. A
    /// failure is logged; it never fails the call.
    pub fn record(&self, record: AuditRecord) {
        let mut inner = self.lock();
        let line = format!("{}\n", record.to_json());
        if inner.file.is_none() {
            if let Some(dir) = inner.path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            match OpenOptions::new()
                .create(true)
                .append(true)
                .open(&inner.path)
            {
                Ok(file) => inner.file = Some(file),
                Err(e) => tracing::warn!("cannot open the audit log {}: {e}", inner.path.display()),
            }
        }
        if let Some(file) = inner.file.as_mut()
            && let Err(e) = file.write_all(line.as_bytes()).and_then(|()| file.flush())
        {
            tracing::warn!("cannot write the audit log: {e}");
        }
        if inner.iceberg.is_some() {
            inner.pending.push(record);
            if inner.pending.len() >= ICEBERG_BATCH {
                flush(&mut inner);
            }
        }
    }

    /// Appends what is buffered to `_ldp.audit` (when the server stops).
    pub fn close(&self) {
        let mut inner = self.lock();
        flush(&mut inner);
        if let Some(file) = inner.file.as_mut() {
            let _ = file.sync_data();
        }
    }
}

fn flush(inner: &mut Inner) {
    if inner.pending.is_empty() {
        return;
    }
    let Some(target) = inner.iceberg.clone() else {
        return;
    };
    let records = std::mem::take(&mut inner.pending);
    let appended = (|| -> Result<(), String> {
        let batch = audit_batch(&records).map_err(|e| e.to_string())?;
        let catalog = Catalog::connect(&target.catalog, &target.catalog_name, Mode::Create)
            .map_err(|e| e.to_string())?;
        ldp_pipeline::append_system_batch(
            &catalog,
            &target,
            ldp_events::system_tables::SYSTEM_NAMESPACE,
            AUDIT_TABLE,
            &batch,
        )
        .map_err(|e| e.to_string())
    })();
    if let Err(e) = appended {
        tracing::warn!("cannot append {} records to _ldp.audit: {e}", records.len());
    }
}

/// The Arrow batch of records for `_ldp.audit`.
fn audit_batch(records: &[AuditRecord]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let ts = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    let schema = Arc::new(Schema::new(vec![
        Field::new("event_id", DataType::Utf8, true),
        Field::new("ts", ts, true),
        Field::new("tool", DataType::Utf8, true),
        Field::new("status", DataType::Utf8, true),
        Field::new("duration_ms", DataType::Float64, true),
        Field::new("sql", DataType::Utf8, true),
        Field::new("table_identifier", DataType::Utf8, true),
        Field::new("arguments", DataType::Utf8, true),
        Field::new("rows", DataType::Int64, true),
        Field::new("truncated", DataType::Boolean, true),
        Field::new("error", DataType::Utf8, true),
        Field::new("schema_version", DataType::Int32, true),
    ]));
    let strings = |f: &dyn Fn(&AuditRecord) -> Option<String>| -> ArrayRef {
        Arc::new(StringArray::from(records.iter().map(f).collect::<Vec<_>>()))
    };
    let columns: Vec<ArrayRef> = vec![
        strings(&|r| Some(r.event_id.clone())),
        Arc::new(
            TimestampMicrosecondArray::from(
                records
                    .iter()
                    .map(|r| r.ts.as_microsecond())
                    .collect::<Vec<_>>(),
            )
            .with_timezone("UTC"),
        ),
        strings(&|r| Some(r.tool.clone())),
        strings(&|r| Some(r.status.clone())),
        Arc::new(Float64Array::from(
            records.iter().map(|r| r.duration_ms).collect::<Vec<_>>(),
        )),
        strings(&|r| r.sql.clone()),
        strings(&|r| r.table.clone()),
        strings(&|r| Some(Value::Object(r.arguments.clone()).to_string())),
        Arc::new(Int64Array::from(
            records
                .iter()
                .map(|r| r.rows.map(|n| i64::try_from(n).unwrap_or(i64::MAX)))
                .collect::<Vec<_>>(),
        )),
        Arc::new(BooleanArray::from(
            records.iter().map(|r| r.truncated).collect::<Vec<_>>(),
        )),
        strings(&|r| r.error.clone()),
        Arc::new(Int32Array::from(vec![1; records.len()])),
    ];
    RecordBatch::try_new(schema, columns)
}
