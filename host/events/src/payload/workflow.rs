//! The events of a workflow run (the ledger): `workflow.started` and `workflow.finished` around
//! the task runs, and the `run.started` / `run.finished` the runner emits for tasks that are not
//! pipelines (`maintain`, `dbt`) or that did not run (`upstream_failed`).
//!
//! The workflow's own emitter has the context `{pipeline: <workflow>, workflow: <workflow>,
//! workflow_run_id}`; a task's emitter has `{pipeline: <task id>, task_kind}` (a pipeline task:
//! its pipeline and table) and the tags `{workflow, workflow_run_id, task_id}`, see
//! [`crate::RunEvents::with_tag`].

use jiff::Timestamp;
use serde_json::{Map, Value};

use super::EventPayload;
use super::finished::duration_value;

/// A task as `workflow.started` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkflowTask {
    /// The task id.
    pub id: String,
    /// Its kind (`pipeline`, `maintain`, `dbt`).
    pub kind: String,
    /// The tasks it depends on.
    pub depends_on: Vec<String>,
    /// Its attempts when it is retried (`max_attempts` appears only when above 1).
    pub max_attempts: u32,
}

/// `workflow.started`: `{window (UTC-Z), schedule, tasks, ldp_version, replace?: true}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkflowStarted {
    /// The window `[start, end)`, written with `Z`.
    pub window: (Timestamp, Timestamp),
    /// The schedule's cron expression.
    pub schedule: Option<String>,
    /// The tasks, in run order.
    pub tasks: Vec<WorkflowTask>,
    /// A `--replace` run.
    pub replace: bool,
    /// ldp's version, [`super::LDP_VERSION`] ([`super::COMPATIBLE_VERSION`] in the Python
    /// tool's events).
    pub ldp_version: String,
}

impl EventPayload for WorkflowStarted {
    fn event_type(&self) -> &'static str {
        "workflow.started"
    }

    fn to_payload(&self) -> Map<String, Value> {
        let tasks: Vec<Value> = self
            .tasks
            .iter()
            .map(|task| {
                let mut item = Map::new();
                item.insert("id".into(), Value::from(task.id.clone()));
                item.insert("kind".into(), Value::from(task.kind.clone()));
                item.insert("depends_on".into(), Value::from(task.depends_on.clone()));
                if task.max_attempts > 1 {
                    item.insert("max_attempts".into(), Value::from(task.max_attempts));
                }
                Value::Object(item)
            })
            .collect();
        let mut payload = Map::new();
        payload.insert(
            "window".into(),
            Value::from(vec![
                ldp_config::format_instant(self.window.0),
                ldp_config::format_instant(self.window.1),
            ]),
        );
        payload.insert(
            "schedule".into(),
            self.schedule.clone().map_or(Value::Null, Value::from),
        );
        payload.insert("tasks".into(), Value::Array(tasks));
        payload.insert("ldp_version".into(), Value::from(self.ldp_version.clone()));
        if self.replace {
            payload.insert("replace".into(), Value::from(true));
        }
        payload
    }
}

/// `workflow.finished`: `{status, duration_s, counts {status: n}, tasks {id: status}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkflowFinished {
    /// `succeeded`, `blocked_quality` or `failed`.
    pub status: String,
    /// Wall-clock seconds (written to 3 decimals).
    pub duration_s: f64,
    /// How many tasks ended with each status.
    pub counts: Vec<(String, u64)>,
    /// Each task's status, in run order.
    pub tasks: Vec<(String, String)>,
}

impl EventPayload for WorkflowFinished {
    fn event_type(&self) -> &'static str {
        "workflow.finished"
    }

    fn to_payload(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("status".into(), Value::from(self.status.clone()));
        payload.insert("duration_s".into(), duration_value(self.duration_s));
        let counts: Map<String, Value> = self
            .counts
            .iter()
            .map(|(status, n)| (status.clone(), Value::from(*n)))
            .collect();
        payload.insert("counts".into(), Value::Object(counts));
        let tasks: Map<String, Value> = self
            .tasks
            .iter()
            .map(|(id, status)| (id.clone(), Value::from(status.clone())))
            .collect();
        payload.insert("tasks".into(), Value::Object(tasks));
        payload
    }
}

/// `run.started` of a task the runner reports for (an empty payload: the context says
/// `pipeline` and `task_kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TaskStarted;

impl EventPayload for TaskStarted {
    fn event_type(&self) -> &'static str {
        "run.started"
    }

    fn to_payload(&self) -> Map<String, Value> {
        Map::new()
    }
}

/// `run.finished` of a task the runner reports for: `{status, duration_s, **detail}`
/// (`succeeded` with the task's facts, `failed`, or `upstream_failed` with `blocked_by`).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskFinished {
    /// `succeeded`, `failed`, `blocked_quality` or `upstream_failed`.
    pub status: String,
    /// Wall-clock seconds (written to 3 decimals).
    pub duration_s: f64,
    /// What the task reported (`{"dry_run": true, "snapshots_to_expire": 0}`), or
    /// `{"blocked_by": [...]}`.
    pub detail: Map<String, Value>,
}

impl EventPayload for TaskFinished {
    fn event_type(&self) -> &'static str {
        "run.finished"
    }

    fn to_payload(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("status".into(), Value::from(self.status.clone()));
        payload.insert("duration_s".into(), duration_value(self.duration_s));
        for (key, value) in &self.detail {
            payload.insert(key.clone(), value.clone());
        }
        payload
    }
}
