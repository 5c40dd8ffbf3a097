//! What `ldp runs` prints: the summary table, the event table, the message when nothing
//! was recorded, and a JSON form of the same rows for `--json`.

use serde_json::{Map, Value};

use super::summary::{RunSummary, checks_text, summarize_runs};
use super::table::format_table;
use crate::envelope::Event;
use crate::pyvalue::{py_str, py_str_opt, truthy};
use crate::time::naive_millis;
use crate::time::naive_seconds;

/// The options of `ldp runs` that shape its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunsOptions {
    /// `--run ID`: the events of one run (the events given are already that run's), all of
    /// them.
    pub run: Option<String>,
    /// `--events`: one line per event instead of one per run.
    pub events: bool,
    /// `--attempts`: every attempt of a retried run, not only the last.
    pub attempts: bool,
    /// `--limit N`: at most this many runs (or the last N events).
    pub limit: usize,
}

impl Default for RunsOptions {
    fn default() -> Self {
        Self {
            run: None,
            events: false,
            attempts: false,
            limit: 20,
        }
    }
}

impl RunsOptions {
    fn shows_events(&self) -> bool {
        self.run.is_some() || self.events
    }
}

/// `No runs recorded in <where>. Add metadata.observability, e.g. {"sinks": ["iceberg",
/// "jsonl"]}, and run the pipeline.`
pub fn no_runs_message(location: &str) -> String {
    format!(
        "No runs recorded in {location}. Add metadata.observability, e.g. \
         {{\"sinks\": [\"iceberg\", \"jsonl\"]}}, and run the pipeline."
    )
}

/// Everything `ldp runs` writes to stdout for `events` read from `location` (a file path, or
/// `_ldp.runs`), newline included: the no-runs message, the event table, or `Runs recorded in
/// <location>, newest first:` and the summary table.
pub fn runs_text(events: &[Event], location: &str, options: &RunsOptions) -> String {
    if events.is_empty() {
        return format!("{}\n", no_runs_message(location));
    }
    if options.shows_events() {
        return format!("{}\n", events_table(events, options));
    }
    let shown = shown_runs(events, options);
    format!(
        "Runs recorded in {location}, newest first:\n{}\n",
        summary_table(&shown)
    )
}

/// The `--json` form: `{"where": location, "runs": [summary...]}` (summaries as
/// [`RunSummary::to_value`]), or `{"where": location, "events": [event...]}` with `--events`
/// or `--run`; the same rows the text shows.
pub fn runs_json(events: &[Event], location: &str, options: &RunsOptions) -> Value {
    let mut object = Map::new();
    object.insert("where".into(), Value::from(location));
    if options.shows_events() && !events.is_empty() {
        let rows = events_in_order(events, options);
        object.insert(
            "events".into(),
            Value::Array(rows.iter().map(|e| e.to_value()).collect()),
        );
    } else {
        let runs = shown_runs(events, options);
        object.insert(
            "runs".into(),
            Value::Array(runs.iter().map(RunSummary::to_value).collect()),
        );
    }
    Value::Object(object)
}

fn shown_runs(events: &[Event], options: &RunsOptions) -> Vec<RunSummary> {
    let mut runs = summarize_runs(events, !options.attempts);
    runs.truncate(options.limit);
    runs
}

fn events_in_order<'a>(events: &'a [Event], options: &RunsOptions) -> Vec<&'a Event> {
    let mut rows: Vec<&Event> = events.iter().collect();
    rows.sort_by(|a, b| (a.ts, &a.run_id, a.seq).cmp(&(b.ts, &b.run_id, b.seq)));
    if options.run.is_none() && rows.len() > options.limit {
        rows.drain(..rows.len() - options.limit);
    }
    rows
}

/// The summary table: `run_id attempt pipeline [workflow task] started_utc status rows_read
/// rows_written checks snapshot_id idempotency_key duration_s` (`workflow` and `task` only
/// when a run belongs to a workflow).
pub fn summary_table(runs: &[RunSummary]) -> String {
    let in_workflows = runs.iter().any(|run| truthy(&run.workflow));
    let mut columns = vec!["run_id", "attempt", "pipeline"];
    if in_workflows {
        columns.extend(["workflow", "task"]);
    }
    columns.extend([
        "started_utc",
        "status",
        "rows_read",
        "rows_written",
        "checks",
        "snapshot_id",
        "idempotency_key",
        "duration_s",
    ]);
    let rows: Vec<Vec<Value>> = runs
        .iter()
        .map(|run| {
            let mut row = vec![
                Value::from(run.run_id.clone()),
                Value::from(run.attempt),
                run.pipeline.clone(),
            ];
            if in_workflows {
                row.push(run.workflow.clone());
                row.push(if run.is_workflow {
                    Value::from("(workflow)")
                } else {
                    run.task_id.clone()
                });
            }
            row.extend([
                Value::from(naive_seconds(run.started_at)),
                run.status.clone(),
                run.rows_read.clone(),
                run.rows_written.clone(),
                run.checks.clone().map_or(Value::Null, Value::from),
                run.snapshot_id.clone(),
                short_value(&run.idempotency_key, 12),
                run.duration_s.clone(),
            ]);
            row
        })
        .collect();
    format_table(&columns, &rows)
}

/// The event table: `run_id (13 characters) attempt seq ts_utc type detail`, oldest first;
/// without `--run`, the last `limit` events.
pub fn events_table(events: &[Event], options: &RunsOptions) -> String {
    let rows: Vec<Vec<Value>> = events_in_order(events, options)
        .into_iter()
        .map(|event| {
            vec![
                short_value(&Value::from(event.run_id.clone()), 13),
                Value::from(event.attempt),
                Value::from(event.seq),
                Value::from(naive_millis(event.ts)),
                Value::from(event.event_type.clone()),
                Value::from(event_detail(event)),
            ]
        })
        .collect();
    format_table(
        &["run_id", "attempt", "seq", "ts_utc", "type", "detail"],
        &rows,
    )
}

fn short(text: &str, width: usize) -> String {
    text.chars().take(width).collect()
}

fn short_value(value: &Value, width: usize) -> Value {
    match value {
        Value::String(text) => Value::from(short(text, width)),
        other => other.clone(),
    }
}

/// The `detail` of one event: `mode=upsert publish=staged`, `rows_read=3`, `checks 3/3`,
/// `rows_written=3 snapshot=…`, `failed: a, b`, `extract: FileNotFoundError: …`,
/// `status=published duration_s=0.541`, `window=[…] tasks=2`, `task_kind=maintain`.
pub fn event_detail(event: &Event) -> String {
    let payload = &event.payload;
    let get = |key: &str| py_str_opt(payload.get(key));
    match event.event_type.as_str() {
        "run.started" => {
            if payload.get("task_kind").is_some_and(truthy) && !payload.contains_key("mode") {
                return format!("task_kind={}", get("task_kind"));
            }
            format!("mode={} publish={}", get("mode"), get("publish"))
        }
        "run.extracted" => format!("rows_read={}", get("rows_read")),
        "quality.evaluated" => format!("checks {}", checks_text(payload)),
        "run.published" | "run.skipped_duplicate" => format!(
            "rows_written={} snapshot={}",
            get("rows_written"),
            get("snapshot_id")
        ),
        "run.blocked_quality" => {
            let failures: Vec<String> = match payload.get("failures") {
                Some(Value::Array(items)) => items.iter().map(py_str).collect(),
                _ => Vec::new(),
            };
            format!("failed: {}", failures.join(", "))
        }
        "run.failed" => {
            let message = match payload.get("message") {
                Some(Value::String(text)) => short(text, 80),
                other => py_str_opt(other),
            };
            format!("{}: {}: {message}", get("stage"), get("error_type"))
        }
        "run.finished" | "workflow.finished" => {
            format!("status={} duration_s={}", get("status"), get("duration_s"))
        }
        "workflow.started" => {
            let tasks = match payload.get("tasks") {
                Some(Value::Array(items)) => items.len(),
                Some(Value::Object(map)) => map.len(),
                Some(Value::String(text)) => text.chars().count(),
                _ => 0,
            };
            format!("window={} tasks={tasks}", get("window"))
        }
        _ => String::new(),
    }
}
