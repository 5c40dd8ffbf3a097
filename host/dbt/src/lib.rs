//! `ldp dbt`: a dbt project over the Iceberg tables of a folder of configs.
//!
//! Before dbt runs, every Iceberg table the configs of the sources folder name is copied into
//! the project's DuckDB file as a table of schema `raw` ([`sources`]), so a model reads it with
//! `{{ source('raw', 'orders') }}`. Then the user's dbt runs ([`runner`]), with dbt-duckdb on
//! that file. After a `build` in which every model and every data test passed, each model
//! marked `meta: {ldp_publish: true}` is written to Iceberg through ldp's own write path
//! ([`publish`]); nothing is published when dbt fails, and failing data tests are a data gate
//! (exit 3). docs/dbt.md has the guide.

mod error;
pub mod init;
pub mod project;
pub mod publish;
pub mod runner;
pub mod sources;

use std::path::PathBuf;

use ldp_pipeline::RunOptions;
use ldp_plugin_runtime::Runtime;
use serde_json::{Value, json};

pub use error::{Error, Result};
pub use init::{InitReport, init};
pub use project::{Overrides, Project};
pub use publish::{PublishPlan, Published};
pub use sources::Source;

/// Which dbt command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbtCommand {
    /// `dbt build`, then the publish.
    Build,
    /// `dbt test`; nothing is published.
    Test,
    /// `dbt docs generate`, then `dbt docs serve` when `serve`.
    Docs {
        /// Serve them (on dbt's port, 8080 by default).
        serve: bool,
    },
    /// Any other dbt command, as given.
    Exec,
}

/// A run of `ldp dbt`.
#[derive(Debug, Clone)]
pub struct DbtRequest {
    /// The command.
    pub command: DbtCommand,
    /// The project folder.
    pub project: PathBuf,
    /// `--sources`, `--warehouse`, `--namespace`.
    pub overrides: Overrides,
    /// What goes to dbt after the command (for `exec`, the command itself first).
    pub dbt_args: Vec<String>,
    /// dbt's `--vars` (a workflow's window).
    pub vars: Option<Value>,
    /// How the published models are run (a workflow task's events).
    pub run_options: RunOptions,
    /// dbt's stdout goes to stderr (`--json`, a workflow task).
    pub dbt_output_to_stderr: bool,
    /// The dbt executable (a workflow task's `dbt_bin`); `None`: `LDP_DBT`, else `dbt`.
    pub dbt_program: Option<PathBuf>,
}

/// What `ldp dbt` did.
#[derive(Debug)]
pub struct DbtReport {
    /// The project.
    pub project: Project,
    /// The sources registered.
    pub sources: Vec<Source>,
    /// dbt's exit code.
    pub dbt_exit: i32,
    /// The data tests that failed (their ids).
    pub tests_failed: Vec<String>,
    /// The models published, in order.
    pub published: Vec<Published>,
    /// Why the publish stopped, when it did (the models before it stay published).
    pub publish_error: Option<Error>,
}

impl DbtReport {
    /// 0 when dbt and every publish succeeded; 3 when data tests failed or a gate held a model
    /// back; else 1.
    pub fn exit_code(&self) -> i32 {
        if !self.tests_failed.is_empty() {
            return 3;
        }
        if self.dbt_exit != 0 {
            return 1;
        }
        self.publish_error.as_ref().map_or(0, Error::exit_code)
    }

    /// `ldp dbt --json`.
    pub fn to_json(&self) -> Value {
        json!({
            "project": self.project.dir.display().to_string(),
            "sources": self.sources.iter().map(|s| json!({
                "name": s.name, "table": s.table, "snapshot_id": s.snapshot_id,
                "copied": s.copied, "exists": s.exists,
            })).collect::<Vec<_>>(),
            "dbt_exit_code": self.dbt_exit,
            "tests_failed": self.tests_failed,
            "published": self.published.iter().map(|p| json!({
                "model": p.plan.model,
                "table": p.plan.table,
                "mode": p.plan.mode,
                "config": p.plan.config.display().to_string(),
                "rows_written": p.report.rows_written,
                "snapshot_id": p.report.published_snapshot_id,
                "run_id": p.report.run_id,
            })).collect::<Vec<_>>(),
            "error": self.publish_error.as_ref().map(ToString::to_string),
            "exit_code": self.exit_code(),
        })
    }
}

/// Registers the sources, runs dbt, and after a passing `build` publishes the marked models.
///
/// # Errors
///
/// The project is not usable, a source cannot be copied, dbt does not start, or the publish
/// cannot be planned (a gold model that does not keep its contract: nothing is published). A
/// dbt that fails, and a publish that stops, are in the report.
pub fn run(request: &DbtRequest, runtime: &Runtime) -> Result<DbtReport> {
    let project = Project::open(&request.project, &request.overrides)?;
    let sources = sources::register_sources(&project)?;
    let mut args: Vec<String> = match &request.command {
        DbtCommand::Build => vec!["build".into()],
        DbtCommand::Test => vec!["test".into()],
        DbtCommand::Docs { .. } => vec!["docs".into(), "generate".into()],
        DbtCommand::Exec => Vec::new(),
    };
    if request.command == DbtCommand::Exec && request.dbt_args.is_empty() {
        return Err(Error::Project {
            message:
                "ldp dbt exec needs the dbt command to run, such as: ldp dbt exec PROJECT compile"
                    .into(),
        });
    }
    args.extend(request.dbt_args.iter().cloned());
    if let Some(vars) = &request.vars {
        args.extend(["--vars".to_string(), vars.to_string()]);
    }
    let mut report = DbtReport {
        project,
        sources,
        dbt_exit: 0,
        tests_failed: Vec::new(),
        published: Vec::new(),
        publish_error: None,
    };
    report.dbt_exit = runner::run_dbt(&report.project, &args, request)?;
    if matches!(request.command, DbtCommand::Build | DbtCommand::Test) && report.dbt_exit != 0 {
        report.tests_failed = publish::nodes_with_status(&report.project, "fail")
            .unwrap_or_default()
            .into_iter()
            .filter(|id| id.starts_with("test."))
            .collect();
        return Ok(report);
    }
    if let DbtCommand::Docs { serve: true } = request.command
        && report.dbt_exit == 0
    {
        let serve = ["docs".to_string(), "serve".to_string()];
        report.dbt_exit = runner::run_dbt(&report.project, &serve, request)?;
    }
    if request.command == DbtCommand::Build && report.dbt_exit == 0 {
        let plans = publish::plan_publish(&report.project)?;
        let mut published = Vec::new();
        if let Err(e) = publish::publish(&plans, runtime, &request.run_options, &mut published) {
            report.publish_error = Some(e);
        }
        report.published = published;
    }
    Ok(report)
}
