//! How a workflow run ended, as `ldp workflow run --json` prints it: `{workflow, run_id,
//! window, status, exit_code, duration_s, ledger, counts, tasks}`, the Python tool's document.

use std::path::PathBuf;

use ldp_config::Window;
use ldp_config::workflow::TASK_OK;
use serde_json::{Map, Value, json};

/// How one task of a workflow run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskResult {
    /// The task's id.
    pub id: String,
    /// `pipeline`, `maintain`, `sql` or `dbt`.
    pub kind: String,
    /// `published`, `skipped_duplicate`, `succeeded`, `blocked_quality`, `failed` or
    /// `upstream_failed`.
    pub status: String,
    /// How many times it ran (0 when it did not).
    pub attempts: u64,
    /// Small facts (row counts, snapshot, key; `blocked_by` for `upstream_failed`). Never rows.
    pub detail: Map<String, Value>,
    /// `Type: message` of the last attempt's error, for `failed` and `blocked_quality`.
    pub error: Option<String>,
    /// Seconds, the waits between attempts included.
    pub duration_s: f64,
}

impl TaskResult {
    /// Whether the task did what it should (its dependants may run).
    pub fn ok(&self) -> bool {
        TASK_OK.contains(&self.status.as_str())
    }

    /// The Python tool's JSON of a task.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "attempts": self.attempts,
            "detail": self.detail,
            "error": self.error,
            "duration_s": round3(self.duration_s),
        })
    }

    /// Whether it wrote data: a published pipeline or a data-changing task that succeeded.
    pub fn wrote_data(&self) -> bool {
        self.status == "published" || (self.status == "succeeded" && self.kind == "sql")
    }
}

/// How a workflow run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkflowResult {
    /// The workflow's identifier.
    pub workflow: String,
    /// The workflow run's id (kept by a continuation).
    pub run_id: String,
    /// The attempt of the workflow run (from 1; a continuation counts on).
    pub attempt: u64,
    /// The window.
    pub window: Window,
    /// Seconds.
    pub duration_s: f64,
    /// Every task, in run order.
    pub tasks: Vec<TaskResult>,
    /// The ledger file.
    pub ledger: PathBuf,
}

impl WorkflowResult {
    /// `failed` if a task failed, else `blocked_quality` if a data gate held one back, else
    /// `succeeded`.
    pub fn status(&self) -> &'static str {
        if self.tasks.iter().any(|t| t.status == "failed") {
            "failed"
        } else if self.tasks.iter().any(|t| t.status == "blocked_quality") {
            "blocked_quality"
        } else {
            "succeeded"
        }
    }

    /// 0 when it succeeded, 3 when a data gate is the only problem, else 1.
    pub fn exit_code(&self) -> i32 {
        match self.status() {
            "succeeded" => 0,
            "blocked_quality" => 3,
            _ => 1,
        }
    }

    /// How many tasks ended with each status, in the order statuses first appear.
    pub fn counts(&self) -> Vec<(String, u64)> {
        let mut counts: Vec<(String, u64)> = Vec::new();
        for task in &self.tasks {
            match counts.iter_mut().find(|(s, _)| *s == task.status) {
                Some((_, n)) => *n += 1,
                None => counts.push((task.status.clone(), 1)),
            }
        }
        counts
    }

    /// Whether a task wrote data (a backfill's window outcome is then `published`).
    pub fn wrote_data(&self) -> bool {
        self.tasks.iter().any(TaskResult::wrote_data)
    }

    /// The Python tool's `ldp workflow run --json` document.
    pub fn to_json(&self) -> Value {
        let counts: Map<String, Value> = self
            .counts()
            .into_iter()
            .map(|(status, n)| (status, Value::from(n)))
            .collect();
        json!({
            "workflow": self.workflow,
            "run_id": self.run_id,
            "window": self.window.label(),
            "status": self.status(),
            "exit_code": self.exit_code(),
            "duration_s": round3(self.duration_s),
            "ledger": self.ledger.display().to_string(),
            "counts": counts,
            "tasks": self.tasks.iter().map(TaskResult::to_json).collect::<Vec<_>>(),
        })
    }
}

/// Seconds to 3 decimals (half away from zero on the value times 1000), as `--json` prints
/// durations.
pub(crate) fn round3(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}
