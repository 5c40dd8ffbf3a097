//! One task of a workflow: an `id`, an optional `depends_on` and `retries`, and exactly one
//! task kind, the key that holds what the task does (`pipeline`, `maintain`, `dbt` or `sql`).

use serde_json::Value;

use super::dbt::DbtTask;
use super::maintain::MaintainTask;
use super::sql::SqlTask;

/// The keys a task may have besides its one kind.
pub const TASK_KEYS: [&str; 3] = ["id", "depends_on", "retries"];

/// The task kinds, in registry order: the Python tool's `pipeline`, `maintain` and `dbt`, then
/// ldp's own `sql`. Messages list them in this order
/// (`needs exactly one task kind of ['pipeline', 'maintain', 'dbt', 'sql'], and has none`).
pub const TASK_KINDS: [&str; 4] = ["pipeline", "maintain", "dbt", "sql"];

/// The statuses of a task that did what it should; a dependant of a task in any other status
/// is `upstream_failed`.
pub const TASK_OK: [&str; 3] = ["published", "skipped_duplicate", "succeeded"];

/// One task of a workflow.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// The task's id, unique in the workflow.
    pub id: String,
    /// Its position in the file (from 0): it orders the tasks that nothing else orders.
    pub index: usize,
    /// The ids of the tasks that must succeed before this one runs, as written.
    pub depends_on: Vec<String>,
    /// The task's own `retries` object as written (checked), or `None` to use the workflow's.
    /// See [`super::Workflow::retries_of`].
    pub retries: Option<Value>,
    /// What the task does.
    pub kind: TaskKind,
}

/// What a task does: the value of its one task-kind key.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskKind {
    /// `"pipeline": "config.json"`: run a dataset config for the window of the run.
    Pipeline(PipelineTask),
    /// `"maintain": {...}`: expire snapshots and find orphan files of a config's Iceberg table
    /// (a dry run unless `apply`).
    Maintain(MaintainTask),
    /// `"dbt": {...}`: build (or test) a dbt project for the window and publish its marked
    /// models (`ldp dbt build`).
    Dbt(DbtTask),
    /// `"sql": {...}` (ldp's own): a SQL model over Iceberg tables, run by DataFusion and
    /// published to an Iceberg table.
    Sql(Box<SqlTask>),
}

impl TaskKind {
    /// The kind's key: `pipeline`, `maintain`, `dbt` or `sql`.
    pub fn name(&self) -> &'static str {
        match self {
            TaskKind::Pipeline(_) => "pipeline",
            TaskKind::Maintain(_) => "maintain",
            TaskKind::Dbt(_) => "dbt",
            TaskKind::Sql(_) => "sql",
        }
    }

    /// Whether a task of this kind that succeeds may have changed data a later task reads.
    /// Only `maintain` says no: it looks after a table and changes none of its rows.
    pub fn changes_data(&self) -> bool {
        !matches!(self, TaskKind::Maintain(_))
    }
}

/// A `pipeline` task: the path of a dataset config, relative to the workflow file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineTask {
    /// The path as written.
    pub config: String,
}

/// Checks the value of a `pipeline` task at `at` (`tasks[0].pipeline`).
pub(super) fn check_pipeline(
    problems: &mut crate::problems::Problems,
    value: &Value,
    at: &str,
) -> Option<PipelineTask> {
    match crate::problems::non_blank(value) {
        Some(_) => value.as_str().map(|config| PipelineTask {
            config: config.to_owned(),
        }),
        None => {
            problems.add(
                at,
                format!(
                    "must be the path of a dataset config, got {}",
                    crate::repr::repr(value)
                ),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::Problems;
    use serde_json::json;

    #[test]
    fn a_pipeline_is_a_path() {
        let mut problems = Problems::default();
        let task = check_pipeline(&mut problems, &json!("orders.json"), "tasks[0].pipeline");
        assert_eq!(task.map(|task| task.config).as_deref(), Some("orders.json"));
        for (value, got) in [(json!(" "), "' '"), (json!(3), "3"), (json!(null), "None")] {
            let mut problems = Problems::default();
            assert!(check_pipeline(&mut problems, &value, "tasks[0].pipeline").is_none());
            assert_eq!(
                problems.into_vec(),
                [format!(
                    "tasks[0].pipeline: must be the path of a dataset config, got {got}"
                )]
            );
        }
        assert!(problems.is_empty());
    }

    #[test]
    fn only_maintain_changes_no_data() {
        let pipeline = TaskKind::Pipeline(PipelineTask {
            config: "a.json".into(),
        });
        assert_eq!(pipeline.name(), "pipeline");
        assert!(pipeline.changes_data());
    }
}
