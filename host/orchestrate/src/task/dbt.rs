//! A `dbt` task: `ldp dbt build|test` of a project (`ldp_dbt`) for the window: dbt gets
//! `window_start` and `window_end` (UTC, `…Z`) among its `--vars`, with the task's own vars;
//! `select` and `exclude` go to dbt; after a passing build the models marked `ldp_publish` are
//! published with the task's events. Failing data tests, and a gate that holds a model back,
//! end the task `blocked_quality`; a dbt that fails otherwise, `failed`.

use ldp_config::workflow::DbtTask;
use ldp_dbt::{DbtCommand, DbtRequest, Overrides};
use ldp_pipeline::{EventContext, RunOptions};
use serde_json::{Map, Value};

use super::{Attempt, TaskRun};

/// Runs one attempt.
pub(crate) fn run(run: &TaskRun<'_>, task: &DbtTask) -> Attempt {
    let mut dbt_args = Vec::new();
    if !task.select.is_empty() {
        dbt_args.push("--select".to_string());
        dbt_args.extend(task.select.iter().cloned());
    }
    if !task.exclude.is_empty() {
        dbt_args.push("--exclude".to_string());
        dbt_args.extend(task.exclude.iter().cloned());
    }
    let mut vars: Map<String, Value> = task.vars.clone();
    vars.insert(
        "window_start".into(),
        ldp_config::format_instant(run.window.start).into(),
    );
    vars.insert(
        "window_end".into(),
        ldp_config::format_instant(run.window.end).into(),
    );
    let request = DbtRequest {
        command: if task.command == "test" {
            DbtCommand::Test
        } else {
            DbtCommand::Build
        },
        project: run.workflow.resolve(&task.project),
        overrides: Overrides::default(),
        dbt_args,
        // serde_json's maps keep keys sorted: the compact, sorted JSON dbt gets.
        vars: Some(Value::Object(vars)),
        run_options: RunOptions {
            events: Some(EventContext {
                run_id: Some(run.run_id.to_owned()),
                attempt: u32::try_from(run.attempt).unwrap_or(1),
                tags: run.tags(),
                sinks: Vec::new(),
            }),
            cancel: run.cancel,
            ..RunOptions::default()
        },
        dbt_output_to_stderr: true,
        dbt_program: task.dbt_bin.as_ref().map(|bin| run.workflow.resolve(bin)),
    };
    let report = match ldp_dbt::run(&request, run.runtime) {
        Ok(report) => report,
        Err(e) => {
            let code = e.exit_code();
            let mut attempt = Attempt::failed("DbtError", e.to_string(), false);
            if code == 3 {
                attempt.status = "blocked_quality";
            }
            return attempt;
        }
    };
    let mut detail = Map::new();
    detail.insert(
        "project".into(),
        report.project.dir.display().to_string().into(),
    );
    detail.insert("dbt_exit_code".into(), report.dbt_exit.into());
    detail.insert(
        "published".into(),
        report
            .published
            .iter()
            .map(|p| Value::from(p.plan.table.clone()))
            .collect::<Vec<_>>()
            .into(),
    );
    match report.exit_code() {
        0 => Attempt::done("succeeded", detail, false),
        code => {
            let message = match &report.publish_error {
                Some(e) => e.to_string(),
                None if !report.tests_failed.is_empty() => format!(
                    "{} data tests failed: {}",
                    report.tests_failed.len(),
                    report.tests_failed.join(", ")
                ),
                None => format!("dbt exited with {}", report.dbt_exit),
            };
            let mut attempt = Attempt::failed("DbtError", message, false);
            attempt.detail = detail;
            if code == 3 {
                attempt.status = "blocked_quality";
            }
            attempt
        }
    }
}
