//! The task kinds a workflow runs, one file each: [`pipeline`] (a dataset config for the
//! window), [`sql`] (a SQL model run by DataFusion and published to an Iceberg table),
//! [`maintain`] (snapshot expiry of a config's table) and [`dbt`] (a dbt project built for the
//! window, its marked models published).
//!
//! Each kind runs one attempt and says how it went ([`Attempt`]); the runner retries, marks
//! dependants and writes the ledger.

pub(crate) mod dbt;
pub(crate) mod maintain;
pub(crate) mod pipeline;
pub(crate) mod sql;

use std::sync::atomic::AtomicBool;

use ldp_config::workflow::{Task, TaskPlan};
use ldp_config::{Window, Workflow};
use ldp_plugin_runtime::Runtime;
use serde_json::{Map, Value};

use crate::ledger::Ledger;

/// Everything one attempt of a task is given.
pub(crate) struct TaskRun<'a> {
    pub workflow: &'a Workflow,
    pub task: &'a Task,
    pub plan: Option<&'a TaskPlan>,
    pub window: Window,
    pub replace: bool,
    pub runtime: &'a Runtime,
    pub ledger: &'a Ledger,
    pub workflow_run_id: &'a str,
    /// The task's run id, the same for all its attempts.
    pub run_id: &'a str,
    pub attempt: u64,
    pub search_since_ms: i64,
    pub cancel: Option<&'static AtomicBool>,
    /// Where a `sql` task's query runs (`None`: this process).
    pub engine: Option<&'a ldp_sql::EngineFactory>,
}

impl TaskRun<'_> {
    /// `workflow`, `workflow_run_id` and `task_id`, set over every event of the task.
    pub fn tags(&self) -> Vec<(String, String)> {
        vec![
            ("workflow".into(), self.workflow.identifier.clone()),
            ("workflow_run_id".into(), self.workflow_run_id.to_owned()),
            ("task_id".into(), self.task.id.clone()),
        ]
    }

    /// A detail of the task's plan (`idempotency_key`, `publish`).
    pub fn planned(&self, key: &str) -> Option<&str> {
        self.plan
            .and_then(|p| p.details.get(key))
            .and_then(Value::as_str)
    }
}

/// How one attempt of a task went.
#[derive(Debug)]
pub(crate) struct Attempt {
    /// `published`, `skipped_duplicate`, `succeeded`, `blocked_quality` or `failed`.
    pub status: &'static str,
    /// Facts of the run.
    pub detail: Map<String, Value>,
    /// `(Type, message)` of the error, for `failed` and `blocked_quality`.
    pub error: Option<(String, String)>,
    /// Whether another attempt may pass (an I/O error, a lost commit race).
    pub retryable: bool,
    /// Whether the task's own events are in the ledger already (a pipeline run records
    /// them); else the runner writes `run.started`/`run.failed`/`run.finished` for it.
    pub emitted: bool,
}

impl Attempt {
    /// A task that did its work.
    pub fn done(status: &'static str, detail: Map<String, Value>, emitted: bool) -> Attempt {
        Attempt {
            status,
            detail,
            error: None,
            retryable: false,
            emitted,
        }
    }

    /// A task that failed.
    pub fn failed(error_type: &str, message: String, retryable: bool) -> Attempt {
        Attempt {
            status: "failed",
            detail: Map::new(),
            error: Some((error_type.to_owned(), message)),
            retryable,
            emitted: false,
        }
    }

    /// The attempt of a staged or direct run that ended with `report` (a pipeline task, a sql
    /// model): `published` or `skipped_duplicate`, with the Python tool's detail.
    pub fn of_report(report: &ldp_pipeline::RunReport) -> Attempt {
        let mut detail = Map::new();
        detail.insert("run_id".into(), report.run_id.clone().into());
        detail.insert(
            "idempotency_key".into(),
            report.idempotency_key.clone().into(),
        );
        detail.insert(
            "snapshot_id".into(),
            report
                .published_snapshot_id
                .map_or(Value::Null, Value::from),
        );
        detail.insert("rows_read".into(), report.rows_read.into());
        detail.insert("rows_written".into(), report.rows_written.into());
        if let Some(kept) = report.rows_kept {
            detail.insert("rows_kept".into(), kept.into());
        }
        let status = if report.status == "skipped_duplicate" {
            "skipped_duplicate"
        } else {
            "published"
        };
        Attempt::done(status, detail, true)
    }

    /// The attempt of a pipeline run that failed with `error`.
    pub fn of_pipeline_error(error: &ldp_pipeline::Error, emitted: bool) -> Attempt {
        let blocked = error.kind() == ldp_pipeline::ErrorKind::Quality;
        Attempt {
            status: if blocked { "blocked_quality" } else { "failed" },
            detail: Map::new(),
            error: Some((error.type_name().to_owned(), format!("{error:#}"))),
            retryable: !blocked && error.may_pass_on_retry(),
            emitted,
        }
    }
}

/// Runs one attempt of `run.task`.
pub(crate) fn run_attempt(run: &TaskRun<'_>) -> Attempt {
    use ldp_config::workflow::TaskKind;
    match &run.task.kind {
        TaskKind::Pipeline(pipeline) => pipeline::run(run, &run.workflow.resolve(&pipeline.config)),
        TaskKind::Sql(sql) => sql::run(run, sql),
        TaskKind::Maintain(maintain) => maintain::run(run, maintain),
        TaskKind::Dbt(dbt) => dbt::run(run, dbt),
    }
}
