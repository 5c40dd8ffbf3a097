//! Workflow files (kind `Workflow`, `docs/workflows.md`): the pipelines, maintenance
//! and SQL models of a flow, the order they run in, and how they are retried, in one JSON file.
//!
//! ```json
//! {"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "nightly",
//!  "metadata": {"schedule": "5 2 * * *", "window": {"size": "day", "timezone": "Europe/Paris"},
//!               "retries": {"max_attempts": 2, "delay_s": 0}},
//!  "tasks": [
//!    {"id": "orders", "pipeline": "daily_orders.json"},
//!    {"id": "revenue", "depends_on": ["orders"],
//!     "sql": {"query": "SELECT ...", "target": {"name": "revenue", "format": "ICEBERG", "catalog": {...}}}},
//!    {"id": "tidy", "maintain": {"config": "daily_orders.json", "expire": 7}, "depends_on": ["revenue"]}]}
//! ```
//!
//! * Top keys [`WORKFLOW_KEYS`]; `metadata` keys [`WORKFLOW_METADATA_KEYS`]: `schedule`,
//!   `window` (`none` or `{size, timezone}`; a `column` is an error), `catchup`, `start`
//!   (required when `catchup` is true), `retries`, `observability`.
//! * Each task has an `id`, an optional `depends_on` and `retries`, and exactly one kind of
//!   [`TASK_KINDS`]: `pipeline` (a dataset config), `maintain` ([`MaintainTask`]), `dbt`
//!   ([`DbtTask`], read so the Python tool's workflows load, and not run by ldp) and ldp's own
//!   `sql` ([`SqlTask`]). Paths are relative to the workflow file.
//! * [`validate_workflow`] lists every problem in the Python tool's words; cycles are refused
//!   with the cycle named (`tasks: depend on each other in a cycle: a -> b -> a`).
//! * [`read_workflow`] / [`load_workflow`] read a file; a dataset config with a schedule is a
//!   workflow of one task. [`Workflow::order`] is the run order (dependencies first, ties by
//!   file position), [`Workflow::retries_of`] a task's retry policy (the workflow's `retries`
//!   overlaid key by key by the task's).
//! * [`plan_workflow`] builds the `ldp workflow plan --json` document ([`WorkflowPlan`]);
//!   [`WorkflowPlan::render_lines`] its human form.
//!
//! No task is run here: running, retrying, backfilling and scheduling are orchestration's.

mod dbt;
mod graph;
mod maintain;
mod plan;
mod plan_tasks;
mod plan_text;
mod read;
mod sql;
mod tables;
mod task;
mod validate;

use std::collections::BTreeSet;
use std::path::PathBuf;

use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde_json::{Map, Value};

pub use dbt::{DBT_COMMANDS, DBT_KEYS, DBT_WINDOW_VARS, DbtTask};
pub use maintain::{MAINTAIN_KEYS, MaintainTask};
pub use plan::{TableRef, TaskPlan, WorkflowPlan, plan_loaded_workflow, plan_workflow};
pub use plan_text::WorkflowPlanText;
pub use read::{load_workflow, read_workflow, workflow_from_document};
pub use sql::{SQL_KEYS, SQL_WRITE_MODES, SqlQuery, SqlTask, query_start, sql_identifier};
pub use task::{PipelineTask, TASK_KEYS, TASK_KINDS, TASK_OK, Task, TaskKind};
pub use validate::validate_workflow;

use crate::error::ConfigError;
use crate::observability::{SinkSpec, sink_specs};
use crate::paths::PathContext;
use crate::problems::Problems;
use crate::python::py_strip;
use crate::retries::{RETRY_KEYS, Retries};
use crate::run_window::Window;
use crate::schedule::{Schedule, ScheduleFrom, alias_for_when, parse_schedule};
use crate::window::{WindowSize, WindowSpec, check_window};

/// The top-level keys of a workflow file, in the Python tool's order.
pub const WORKFLOW_KEYS: [&str; 10] = [
    "apiVersion",
    "kind",
    "identifier",
    "who",
    "what",
    "where",
    "when",
    "how",
    "metadata",
    "tasks",
];

/// The keys of a workflow's `metadata`, in the Python tool's order.
pub const WORKFLOW_METADATA_KEYS: [&str; 6] = [
    "schedule",
    "window",
    "catchup",
    "start",
    "retries",
    "observability",
];

/// Where the events of every run of a workflow go, relative to the workflow file's folder.
pub const LEDGER_PATH: &str = ".ldp/events.jsonl";

/// A valid workflow, read from a file or built from a document.
#[derive(Clone, Debug, PartialEq)]
pub struct Workflow {
    /// The workflow's id.
    pub identifier: String,
    /// The workflow document; for a dataset config read as a workflow, the document of its
    /// one-task workflow.
    pub spec: Value,
    /// The tasks, in file order.
    pub tasks: Vec<Task>,
    /// The folder the task paths are relative to: the folder of the file.
    pub base_dir: PathBuf,
    /// The file, absolute, when it was read from one.
    pub path: Option<PathBuf>,
    /// Whether the file is a dataset config with a schedule (a workflow of one task).
    pub from_config: bool,
    /// The schedule: `metadata.schedule`, else the one a `when` such as `daily` means.
    pub schedule: Option<Schedule>,
    /// `metadata.window` (`size` and `timezone`; never a `column`).
    pub window: Option<WindowSpec>,
    /// `metadata.catchup` (default false).
    pub catchup: bool,
    /// `metadata.start` as written (an ISO-8601 date or time; read in the workflow's time zone
    /// by the scheduler).
    pub start: Option<String>,
    /// The event sinks of the whole workflow run (`metadata.observability`).
    pub sinks: Vec<SinkSpec>,
}

impl Workflow {
    /// Builds the typed fields from a document that was checked.
    pub(super) fn assemble(
        spec: Value,
        tasks: Vec<Task>,
        base_dir: PathBuf,
        path: Option<PathBuf>,
        from_config: bool,
    ) -> Workflow {
        let empty = Map::new();
        let metadata = spec
            .get("metadata")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let schedule = match metadata.get("schedule").filter(|s| !s.is_null()) {
            Some(raw) => parse_schedule(raw, ScheduleFrom::Metadata).ok(),
            None => spec
                .get("when")
                .and_then(Value::as_str)
                .and_then(alias_for_when)
                .and_then(|alias| parse_schedule(&Value::from(alias), ScheduleFrom::When).ok()),
        };
        let window = check_window(&mut Problems::default(), metadata.get("window")).flatten();
        let mut observability = Map::new();
        if let Some(value) = metadata.get("observability") {
            observability.insert("observability".to_owned(), value.clone());
        }
        Workflow {
            identifier: spec
                .get("identifier")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            schedule,
            window,
            catchup: metadata.get("catchup") == Some(&Value::Bool(true)),
            start: metadata
                .get("start")
                .and_then(Value::as_str)
                .map(|start| py_strip(start).to_owned()),
            sinks: sink_specs(&observability).unwrap_or_default(),
            spec,
            tasks,
            base_dir,
            path,
            from_config,
        }
    }

    /// The `metadata` of the workflow document (empty when it has none).
    pub fn metadata(&self) -> Map<String, Value> {
        self.spec
            .get("metadata")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    }

    /// The time zone the days of the workflow's windows are counted in (UTC by default).
    pub fn time_zone(&self) -> TimeZone {
        self.window
            .as_ref()
            .map_or(TimeZone::UTC, WindowSpec::time_zone)
    }

    /// The name of that time zone as the plan shows it (`Europe/Paris`, `UTC`).
    pub fn timezone_name(&self) -> String {
        self.window.as_ref().map_or("UTC".to_owned(), |window| {
            py_strip(&window.timezone).to_owned()
        })
    }

    /// How long the workflow's windows are: `metadata.window.size`, else what an hourly or
    /// daily schedule means (`0 * * * *` an hour, `0 0 * * *` a day), else `None`.
    pub fn window_size(&self) -> Option<WindowSize> {
        if let Some(window) = &self.window {
            return Some(window.size);
        }
        match self.schedule.as_ref()?.cron.expression.as_str() {
            "0 * * * *" => Some(WindowSize::Hour),
            "0 0 * * *" => Some(WindowSize::Day),
            _ => None,
        }
    }

    /// Reads `--window` for this workflow: a shortcut (`yesterday`) counted in its time zone,
    /// or `START/END` (naive = UTC).
    ///
    /// # Errors
    ///
    /// [`ConfigError::Window`] with the Python tool's messages.
    pub fn parse_window(&self, text: &str, now: Timestamp) -> Result<Window, ConfigError> {
        Window::parse(text, &self.time_zone(), now)
    }

    /// The file every event of a run goes to: `.ldp/events.jsonl` next to the workflow file.
    pub fn ledger_path(&self) -> PathBuf {
        self.base_dir.join(LEDGER_PATH)
    }

    /// A path the workflow names, resolved against the workflow file's folder by the rules of
    /// [`PathContext`].
    pub fn resolve(&self, path: &str) -> PathBuf {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        PathContext::new(Some(&self.base_dir), &cwd)
            .resolve(path)
            .path
    }

    /// The task with this id.
    pub fn task(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|task| task.id == id)
    }

    fn graph(&self) -> Vec<(&str, &[String])> {
        self.tasks
            .iter()
            .map(|task| (task.id.as_str(), task.depends_on.as_slice()))
            .collect()
    }

    /// The tasks in the order they run: every task after the tasks it depends on; in each
    /// round of tasks whose dependencies have run, file order. A plan and a run agree on it.
    pub fn order(&self) -> Vec<&Task> {
        graph::order(&self.graph())
            .into_iter()
            .filter_map(|position| self.tasks.get(position))
            .collect()
    }

    /// The ids of every task `id` depends on, directly or through others.
    pub fn ancestors(&self, id: &str) -> BTreeSet<String> {
        graph::ancestors(&self.graph(), id)
    }

    /// How a task is retried: the workflow's `retries`, each key the task's own `retries` sets
    /// replaced; defaults `max_attempts` 1 (no retry), `delay_s` 30, `backoff` 2.0.
    pub fn retries_of(&self, task: &Task) -> Retries {
        let mut merged = Map::new();
        let workflow = self.spec.get("metadata").and_then(|m| m.get("retries"));
        for setting in [workflow, task.retries.as_ref()].into_iter().flatten() {
            if let Some(map) = setting.as_object() {
                for (key, value) in map {
                    if RETRY_KEYS.contains(&key.as_str()) {
                        merged.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        let mut retries = Retries::default();
        if let Some(n) = merged.get("max_attempts").and_then(Value::as_u64) {
            retries.max_attempts = n;
        }
        if let Some(n) = merged.get("delay_s").and_then(Value::as_f64) {
            retries.delay_s = n;
        }
        if let Some(n) = merged.get("backoff").and_then(Value::as_f64) {
            retries.backoff = n;
        }
        retries
    }
}

#[cfg(test)]
mod tests;
