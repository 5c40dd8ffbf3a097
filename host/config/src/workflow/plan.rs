//! `ldp workflow plan FILE [--window W] [--json]`: check a workflow and every config it
//! names, and say what a run would do, without running anything.
//!
//! The document ([`WorkflowPlan`]) has the Python tool's keys in its order: `workflow`, `file`,
//! `kind`, `valid`, `errors`, `warnings`, `schedule`, `schedule_from`, `timezone`, `window`,
//! `tasks`. Each task ([`TaskPlan`]), in run order, has `order`, `id`, `kind`, `depends_on`,
//! `valid`, `errors`, what its kind reports (a pipeline task: `config`, `identifier`, `route`,
//! `target`, `write_mode`, `publish`, `idempotency_key`, from the same plan as `ldp plan CONFIG
//! --window`), and its `retries` when it is retried. A task's errors and notes are listed in
//! the workflow's `errors` and `warnings` as `task 'id': …`; `warnings` also names each table a
//! task reads while another writes it with no `depends_on` path between them.

use std::path::Path;

use jiff::Timestamp;
use serde::Serialize;
use serde_json::{Map, Value};

use super::plan_tasks::{Planned, plan_task};
use super::read::{read_workflow, resolve};
use super::tables::sql_reads;
use super::{TaskKind, Workflow};
use crate::repr::repr_str;
use crate::retries::Retries;
use crate::run_window::Window;

/// The `ldp workflow plan` document.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkflowPlan {
    /// The workflow's identifier (`None` when the file cannot be used).
    pub workflow: Option<String>,
    /// The file, absolute.
    pub file: Option<String>,
    /// Always `Workflow`.
    pub kind: String,
    /// Whether there are no errors.
    pub valid: bool,
    /// Every problem: the file's, the window's, then each task's as `task 'id': …`.
    pub errors: Vec<String>,
    /// Things worth knowing that do not stop a run.
    pub warnings: Vec<String>,
    /// The schedule as written, blanks collapsed.
    pub schedule: Option<String>,
    /// `metadata.schedule` or `when`.
    pub schedule_from: Option<String>,
    /// The time zone of the workflow's windows (`UTC` by default).
    pub timezone: Option<String>,
    /// The window planned, `START/END` in UTC-Z.
    pub window: Option<String>,
    /// The tasks in run order.
    pub tasks: Vec<TaskPlan>,
}

/// An Iceberg table a task reads or writes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableRef {
    /// Which table of which catalog: `<warehouse or uri>::<namespace>.<name>`.
    pub identity: String,
    /// `namespace.name`.
    pub name: String,
}

/// One task of a [`WorkflowPlan`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskPlan {
    /// Its place in the run order, from 1.
    pub order: usize,
    /// The task's id.
    pub id: String,
    /// `pipeline`, `maintain`, `dbt` or `sql`.
    pub kind: String,
    /// The ids it waits for.
    pub depends_on: Vec<String>,
    /// Whether the task can run.
    pub valid: bool,
    /// Why it cannot.
    pub errors: Vec<String>,
    /// What its kind reports, in the Python tool's order (`config`, `identifier`, `route`,
    /// `target`, `write_mode`, `publish`, `idempotency_key` for a pipeline; `config`,
    /// `dry_run`, `table` for maintain; `project`, `command`, `target`, … for dbt).
    #[serde(flatten)]
    pub details: Map<String, Value>,
    /// The retry policy, when a failed attempt is followed by another.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries: Option<Retries>,
    /// Things worth knowing (listed in the workflow's warnings).
    #[serde(skip)]
    pub notes: Vec<String>,
    /// The Iceberg tables it reads.
    #[serde(skip)]
    pub reads: Vec<TableRef>,
    /// The Iceberg tables it writes: a runner keeps writes to one table serialized.
    #[serde(skip)]
    pub writes: Vec<TableRef>,
}

impl WorkflowPlan {
    fn empty(file: Option<String>) -> WorkflowPlan {
        WorkflowPlan {
            workflow: None,
            file,
            kind: "Workflow".to_owned(),
            valid: false,
            errors: Vec::new(),
            warnings: Vec::new(),
            schedule: None,
            schedule_from: None,
            timezone: None,
            window: None,
            tasks: Vec::new(),
        }
    }

    /// The exit code of `ldp workflow plan`: 0 when valid, else 1.
    pub fn exit_code(&self) -> i32 {
        if self.valid { 0 } else { 1 }
    }

    /// The task with this id.
    pub fn task(&self, id: &str) -> Option<&TaskPlan> {
        self.tasks.iter().find(|task| task.id == id)
    }
}

/// Plans a workflow file, or a dataset config with a schedule, as `ldp workflow plan FILE
/// [--window W]` does. `window` is `START/END` (naive = UTC) or a shortcut counted from `now`
/// in the workflow's time zone; without one the plan has no keys. A file that cannot be used
/// is a plan with its problems in `errors`, and a bad window is the first error.
pub fn plan_workflow(path: &Path, window: Option<&str>, now: Timestamp) -> WorkflowPlan {
    let workflow = match read_workflow(path, true) {
        Ok(workflow) => workflow,
        Err(problems) => {
            let mut plan = WorkflowPlan::empty(Some(resolve(path).display().to_string()));
            plan.errors = problems;
            return plan;
        }
    };
    let bounds = window.map(|text| workflow.parse_window(text, now));
    let window = bounds.as_ref().and_then(|bounds| bounds.as_ref().ok());
    let mut plan = plan_loaded_workflow(&workflow, window, false);
    if let Some(Err(error)) = bounds {
        plan.errors.insert(0, error.to_string());
        plan.valid = false;
    }
    plan
}

/// Plans a workflow that is already read, for a window already parsed (`None`: no keys).
/// `replace` plans the run that replaces the window (`ldp backfill --replace`): a pipeline
/// task that writes to Iceberg shows its replace key, and is an error without a
/// `metadata.window.column`.
pub fn plan_loaded_workflow(
    workflow: &Workflow,
    window: Option<&Window>,
    replace: bool,
) -> WorkflowPlan {
    let mut plan = WorkflowPlan::empty(workflow.path.as_ref().map(|p| p.display().to_string()));
    plan.workflow = Some(workflow.identifier.clone());
    if let Some(schedule) = &workflow.schedule {
        plan.schedule = Some(schedule.text.clone());
        plan.schedule_from = Some(schedule.from.as_str().to_owned());
    }
    plan.timezone = Some(workflow.timezone_name());
    plan.window = window.map(Window::label);
    let mut planned: Vec<(usize, &super::Task, Planned)> = workflow
        .order()
        .into_iter()
        .enumerate()
        .map(|(number, task)| (number + 1, task, plan_task(workflow, task, window, replace)))
        .collect();
    let all_writes: Vec<(String, TableRef)> = planned
        .iter()
        .flat_map(|(_, task, outcome)| {
            outcome
                .writes
                .iter()
                .map(|table| (task.id.clone(), table.clone()))
        })
        .collect();
    for (_, task, outcome) in &mut planned {
        if let TaskKind::Sql(_) = task.kind {
            outcome.reads = sql_reads(outcome.query_text.as_deref(), &task.id, &all_writes);
        }
    }
    let mut errors = Vec::new();
    for (order, task, outcome) in planned {
        let label = repr_str(&task.id);
        errors.extend(
            outcome
                .errors
                .iter()
                .map(|message| format!("task {label}: {message}")),
        );
        plan.warnings.extend(
            outcome
                .notes
                .iter()
                .map(|message| format!("task {label}: {message}")),
        );
        let retries = workflow.retries_of(task);
        plan.tasks.push(TaskPlan {
            order,
            id: task.id.clone(),
            kind: task.kind.name().to_owned(),
            depends_on: task.depends_on.clone(),
            valid: outcome.errors.is_empty(),
            errors: outcome.errors,
            details: outcome.details,
            retries: retries.enabled().then_some(retries),
            notes: outcome.notes,
            reads: outcome.reads,
            writes: outcome.writes,
        });
    }
    plan.warnings
        .extend(connection_warnings(workflow, &plan.tasks));
    plan.valid = errors.is_empty();
    plan.errors = errors;
    plan
}

/// A warning for each table a task reads while another task writes it, when no `depends_on`
/// path connects the two (so they may run in either order).
fn connection_warnings(workflow: &Workflow, tasks: &[TaskPlan]) -> Vec<String> {
    let by_file_order: Vec<&TaskPlan> = workflow
        .tasks
        .iter()
        .filter_map(|task| tasks.iter().find(|planned| planned.id == task.id))
        .collect();
    let mut found = Vec::new();
    for reader in tasks {
        for table in &reader.reads {
            for writer in &by_file_order {
                if writer.id == reader.id
                    || !writer
                        .writes
                        .iter()
                        .any(|written| written.identity == table.identity)
                {
                    continue;
                }
                if workflow.ancestors(&reader.id).contains(&writer.id)
                    || workflow.ancestors(&writer.id).contains(&reader.id)
                {
                    continue;
                }
                found.push(format!(
                    "task {} reads the table {}, which task {} writes, and no depends_on connects \
                     them, so they may run in either order",
                    repr_str(&reader.id),
                    table.name,
                    repr_str(&writer.id)
                ));
            }
        }
    }
    found
}
