//! Folding events into one summary per run attempt, as the Python tool's `summarize_runs` does.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde_json::{Map, Value};

use crate::envelope::Event;
use crate::pyvalue::truthy;
use crate::time::isoformat;

/// What `ldp runs` knows of one run attempt. Values read from payloads keep their JSON form
/// (`null` when unknown), as the Python tool keeps whatever the payload held.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// The run id.
    pub run_id: String,
    /// The attempt.
    pub attempt: i64,
    /// The pipeline (a workflow's name for a workflow run).
    pub pipeline: Value,
    /// The target table.
    pub table: Value,
    /// The earliest event time.
    pub started_at: Timestamp,
    /// `running` until an outcome is seen; then `published`, `skipped_duplicate`,
    /// `blocked_quality`, `failed`, a task's or a workflow's status.
    pub status: Value,
    /// Rows read.
    pub rows_read: Value,
    /// Rows written.
    pub rows_written: Value,
    /// The snapshot holding the run's effect.
    pub snapshot_id: Value,
    /// The idempotency key.
    pub idempotency_key: Value,
    /// Seconds the run took.
    pub duration_s: Value,
    /// `passed/run` checks, once `quality.evaluated` is seen.
    pub checks: Option<String>,
    /// The workflow a task run belongs to.
    pub workflow: Value,
    /// The task id within it.
    pub task_id: Value,
    /// The workflow run id.
    pub workflow_run_id: Value,
    /// Whether this is the run of a workflow itself.
    pub is_workflow: bool,
}

impl RunSummary {
    fn new(event: &Event) -> Self {
        Self {
            run_id: event.run_id.clone(),
            attempt: event.attempt,
            pipeline: Value::Null,
            table: Value::Null,
            started_at: event.ts,
            status: Value::from("running"),
            rows_read: Value::Null,
            rows_written: Value::Null,
            snapshot_id: Value::Null,
            idempotency_key: Value::Null,
            duration_s: Value::Null,
            checks: None,
            workflow: Value::Null,
            task_id: Value::Null,
            workflow_run_id: Value::Null,
            is_workflow: false,
        }
    }

    /// The summary as the Python tool's dict: `run_id, attempt, pipeline, table, started_at
    /// (ISO+00), status, rows_read, rows_written, snapshot_id, idempotency_key, duration_s,
    /// checks, workflow, task_id, workflow_run_id, is_workflow`.
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("run_id".into(), Value::from(self.run_id.clone()));
        object.insert("attempt".into(), Value::from(self.attempt));
        object.insert("pipeline".into(), self.pipeline.clone());
        object.insert("table".into(), self.table.clone());
        object.insert("started_at".into(), Value::from(isoformat(self.started_at)));
        object.insert("status".into(), self.status.clone());
        object.insert("rows_read".into(), self.rows_read.clone());
        object.insert("rows_written".into(), self.rows_written.clone());
        object.insert("snapshot_id".into(), self.snapshot_id.clone());
        object.insert("idempotency_key".into(), self.idempotency_key.clone());
        object.insert("duration_s".into(), self.duration_s.clone());
        object.insert(
            "checks".into(),
            self.checks.clone().map_or(Value::Null, Value::from),
        );
        object.insert("workflow".into(), self.workflow.clone());
        object.insert("task_id".into(), self.task_id.clone());
        object.insert("workflow_run_id".into(), self.workflow_run_id.clone());
        object.insert("is_workflow".into(), Value::from(self.is_workflow));
        Value::Object(object)
    }

    fn fold(&mut self, event: &Event) {
        let payload = &event.payload;
        let get = |key: &str| payload.get(key).cloned().unwrap_or(Value::Null);
        or_assign(&mut self.pipeline, get("pipeline"));
        or_assign(&mut self.table, get("table"));
        self.started_at = self.started_at.min(event.ts);
        or_assign(&mut self.idempotency_key, get("idempotency_key"));
        or_assign(&mut self.workflow, get("workflow"));
        or_assign(&mut self.task_id, get("task_id"));
        or_assign(&mut self.workflow_run_id, get("workflow_run_id"));
        match event.event_type.as_str() {
            "run.extracted" => self.rows_read = get("rows_read"),
            "quality.evaluated" => self.checks = Some(checks_text(payload)),
            "run.published" | "run.skipped_duplicate" | "run.blocked_quality" | "run.failed" => {
                let (_, status) = event.event_type.split_once('.').unwrap_or_default();
                self.status = Value::from(status);
                if let Some(snapshot) = payload.get("snapshot_id") {
                    self.snapshot_id = snapshot.clone();
                }
                if let Some(rows) = payload.get("rows_written") {
                    self.rows_written = rows.clone();
                }
            }
            "workflow.started" | "workflow.finished" => {
                self.is_workflow = true;
                if event.event_type == "workflow.finished" {
                    or_replace(&mut self.status, get("status"));
                    self.duration_s = get("duration_s");
                }
            }
            "run.finished" => {
                or_replace(&mut self.status, get("status"));
                self.duration_s = get("duration_s");
                for (key, slot) in [
                    ("rows_read", &mut self.rows_read),
                    ("rows_written", &mut self.rows_written),
                ] {
                    if let Some(value) = payload.get(key).filter(|v| !v.is_null()) {
                        *slot = value.clone();
                    }
                }
                if let Some(snapshot) = payload
                    .get("published_snapshot_id")
                    .filter(|v| !v.is_null())
                {
                    self.snapshot_id = snapshot.clone();
                }
            }
            _ => {}
        }
    }
}

/// `slot = slot or value`.
fn or_assign(slot: &mut Value, value: Value) {
    if !truthy(slot) {
        *slot = value;
    }
}

/// `slot = value or slot`.
fn or_replace(slot: &mut Value, value: Value) {
    if truthy(&value) {
        *slot = value;
    }
}

/// `passed/run` of a `quality.evaluated` payload, e.g. `3/3`.
pub(crate) fn checks_text(payload: &Map<String, Value>) -> String {
    let count = |key: &str| {
        payload
            .get(key)
            .filter(|v| truthy(v))
            .and_then(crate::pyvalue::py_int)
            .unwrap_or(0)
    };
    let run = count("checks_run");
    format!("{}/{run}", run - count("checks_failed"))
}

/// One summary per `(run_id, attempt)`, newest first (by start time, then run id and attempt,
/// descending). With `final_attempts_only`, only the last attempt of each run. A monitor's
/// alerts (`monitor.*`) are not runs and are left out.
pub fn summarize_runs(events: &[Event], final_attempts_only: bool) -> Vec<RunSummary> {
    let mut ordered: Vec<&Event> = events
        .iter()
        .filter(|event| !crate::payload::is_monitor_event(&event.event_type))
        .collect();
    ordered.sort_by(|a, b| (&a.run_id, a.attempt, a.seq).cmp(&(&b.run_id, b.attempt, b.seq)));
    let mut runs: BTreeMap<(String, i64), RunSummary> = BTreeMap::new();
    for event in ordered {
        runs.entry((event.run_id.clone(), event.attempt))
            .or_insert_with(|| RunSummary::new(event))
            .fold(event);
    }
    let mut summaries: Vec<RunSummary> = runs.into_values().collect();
    if final_attempts_only {
        let mut last: BTreeMap<String, RunSummary> = BTreeMap::new();
        for run in summaries {
            match last.get(&run.run_id) {
                Some(kept) if kept.attempt >= run.attempt => {}
                _ => {
                    last.insert(run.run_id.clone(), run);
                }
            }
        }
        summaries = last.into_values().collect();
    }
    summaries.sort_by(|a, b| {
        (b.started_at, &b.run_id, b.attempt).cmp(&(a.started_at, &a.run_id, a.attempt))
    });
    summaries
}
