//! The tools, one file each, and what they share: the [`Context`] of the server, the tool
//! definitions ([`definitions`]) and the dispatch ([`call`]). Every tool only reads: the
//! definitions say so to the client (read-only, idempotent, closed-world).

mod describe_table;
mod get_dataset;
mod list_tables;
mod query;
mod run_transform;
mod sample_rows;
mod table_history;

use std::sync::Arc;
use std::time::Duration;

use ldp_plugin_runtime::Runtime;
use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use crate::error::ToolError;
use crate::lake::Lake;

/// What every call sees.
pub struct Context {
    /// The served tables.
    pub lake: Lake,
    /// The most rows a result holds.
    pub max_rows: usize,
    /// The longest a query may run.
    pub timeout: Duration,
    /// The most memory a query may hold.
    pub memory_limit: Option<usize>,
    /// Where queries run, when not in this process.
    pub engine: Option<ldp_sql::EngineFactory>,
    /// For `run_transform`.
    pub runtime: Runtime,
}

/// What the audit record of a call notes besides its result.
#[derive(Debug, Default, Clone)]
pub struct Noted {
    /// The SQL of a query.
    pub sql: Option<String>,
    /// The table of a call about one.
    pub table: Option<String>,
    /// The rows of the result.
    pub rows: Option<u64>,
    /// Whether they were cut.
    pub truncated: Option<bool>,
}

/// Runs tool `name` with `arguments`.
///
/// # Errors
///
/// [`ToolError`]: an unknown tool or bad arguments, a refused or failed query, a table not
/// served.
pub fn call(
    context: &Context,
    name: &str,
    arguments: &Map<String, Value>,
    noted: &mut Noted,
) -> Result<Value, ToolError> {
    match name {
        "list_tables" => {
            no_more_than(arguments, &[])?;
            list_tables::call(context)
        }
        "describe_table" => describe_table::call(context, arguments, noted),
        "query" => query::call(context, arguments, noted),
        "sample_rows" => sample_rows::call(context, arguments, noted),
        "table_history" => table_history::call(context, arguments, noted),
        "get_dataset" => get_dataset::call(context, arguments),
        "run_transform" => run_transform::call(context, arguments, noted),
        other => Err(ToolError::arguments(format!(
            "there is no tool '{other}'; the tools are {}",
            TOOLS.join(", ")
        ))),
    }
}

/// The tools' names.
pub const TOOLS: [&str; 7] = [
    "list_tables",
    "describe_table",
    "query",
    "sample_rows",
    "table_history",
    "get_dataset",
    "run_transform",
];

/// The tool definitions, with their input schemas.
pub fn definitions(context: &Context) -> Vec<Tool> {
    let cap = context.max_rows;
    let table = json!({"type": "string", "description": "ns.table, or a bare name when it is unique (list_tables)"});
    let specs: [(&str, &str, Value); 7] = [
        (
            "list_tables",
            "List the Iceberg tables this server serves, with their SQL names, row counts and last update.",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
        ),
        (
            "describe_table",
            "Describe a table: schema, partitioning, properties, freshness and recent snapshots.",
            json!({"type": "object", "properties": {"table": table}, "required": ["table"], "additionalProperties": false}),
        ),
        (
            "query",
            "Run one read-only SQL query (SELECT or WITH, DataFusion's dialect) over the served tables; tables are named ns.table or by a unique bare name. Rows are capped.",
            json!({"type": "object", "properties": {
                "sql": {"type": "string", "description": "exactly one SELECT or WITH query"},
                "max_rows": {"type": "integer", "minimum": 1, "maximum": cap, "description": format!("rows to return (default {})", cap.min(100))}},
              "required": ["sql"], "additionalProperties": false}),
        ),
        (
            "sample_rows",
            "The first rows of a table.",
            json!({"type": "object", "properties": {"table": table, "n": {"type": "integer", "minimum": 1, "maximum": cap, "description": "rows (default 10)"}},
              "required": ["table"], "additionalProperties": false}),
        ),
        (
            "table_history",
            "A table's snapshots, newest first, with their operations, record counts and ldp properties, and its branches and tags.",
            json!({"type": "object", "properties": {"table": table, "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "snapshots (default 50)"}},
              "required": ["table"], "additionalProperties": false}),
        ),
        (
            "get_dataset",
            "A pinned dataset version (ldp datasets pin): its manifest and the versions of its name.",
            json!({"type": "object", "properties": {"name": {"type": "string", "description": "NAME or NAME@vN"}}, "required": ["name"], "additionalProperties": false}),
        ),
        (
            "run_transform",
            "Run a JavaScript transform (function transform(rows) { return rows; }) in ldp's sandbox on the first rows of a table and return what it gives; nothing is written.",
            json!({"type": "object", "properties": {
                "table": table,
                "js": {"type": "string", "description": "the transform's JavaScript source"},
                "n": {"type": "integer", "minimum": 1, "maximum": cap, "description": "rows of the table to try it on (default 20)"}},
              "required": ["table", "js"], "additionalProperties": false}),
        ),
    ];
    specs
        .into_iter()
        .map(|(name, description, schema)| {
            let schema = schema.as_object().cloned().unwrap_or_default();
            Tool::new(name, description, Arc::new(schema)).with_annotations(
                ToolAnnotations::new()
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(false),
            )
        })
        .collect()
}

/// Refuses arguments other than `known`.
fn no_more_than(arguments: &Map<String, Value>, known: &[&str]) -> Result<(), ToolError> {
    if let Some(key) = arguments.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(ToolError::arguments(format!(
            "unknown argument '{key}'; this tool takes {}",
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        )));
    }
    Ok(())
}

/// A required string argument.
fn string<'a>(arguments: &'a Map<String, Value>, key: &str) -> Result<&'a str, ToolError> {
    match arguments.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s),
        Some(Value::String(_)) => Err(ToolError::arguments(format!("{key} is empty"))),
        Some(other) => Err(ToolError::arguments(format!(
            "{key} must be a string, got {other}"
        ))),
        None => Err(ToolError::arguments(format!("{key} is required"))),
    }
}

/// An optional whole-number argument from 1 to `max` (`default` when absent).
fn count(
    arguments: &Map<String, Value>,
    key: &str,
    default: usize,
    max: usize,
) -> Result<usize, ToolError> {
    match arguments.get(key) {
        None | Some(Value::Null) => Ok(default.min(max)),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(v) if v >= 1 && v <= max as u64 => Ok(v as usize),
            _ => Err(ToolError::arguments(format!(
                "{key} must be a whole number from 1 to {max}, got {n}"
            ))),
        },
        Some(other) => Err(ToolError::arguments(format!(
            "{key} must be a whole number from 1 to {max}, got {other}"
        ))),
    }
}

/// An ISO-8601 UTC time of milliseconds since the epoch.
fn iso_ms(ms: i64) -> Value {
    jiff::Timestamp::from_millisecond(ms).map_or(Value::Null, |t| {
        Value::from(ldp_events::isoformat_millis(t))
    })
}
