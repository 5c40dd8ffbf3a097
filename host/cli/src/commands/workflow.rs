//! `ldp workflow plan FILE [--window W] [--json]`: a workflow's tasks in the order they
//! run, each planned as `ldp plan` plans a config, without running anything; and `ldp workflow
//! run FILE --window W [--jobs N] [--json]`, which runs them (`ldp_orchestrate`).

use std::io::Write;
use std::sync::atomic::AtomicBool;

use ldp_orchestrate::{RunSettings, WorkflowResult, run_workflow};

use crate::args::{WorkflowPlanArgs, WorkflowRunArgs};
use crate::output::table;

/// Prints the plan; exits 1 when the workflow is not valid.
pub fn plan(args: &WorkflowPlanArgs) -> anyhow::Result<u8> {
    let plan =
        ldp_config::plan_workflow(&args.file, args.window.as_deref(), jiff::Timestamp::now());
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(stdout, "{}", plan.to_json_text())?;
    } else {
        let text = plan.render_lines();
        for line in &text.stdout {
            writeln!(stdout, "{line}")?;
        }
        stdout.flush()?;
        let mut stderr = std::io::stderr().lock();
        for line in &text.stderr {
            writeln!(stderr, "{line}")?;
        }
    }
    Ok(u8::try_from(plan.exit_code()).unwrap_or(1))
}

/// Runs the workflow for the window; exits 0, 3 (a data gate held a task back) or 1.
pub fn run(
    runtime: ldp_plugin_runtime::Runtime,
    args: &WorkflowRunArgs,
    cancel: &'static AtomicBool,
) -> anyhow::Result<u8> {
    let workflow = ldp_config::load_workflow(&args.file, false)?;
    let window = workflow.parse_window(&args.window, jiff::Timestamp::now())?;
    let settings = run_settings(runtime, args.jobs, false, cancel)?;
    let result = run_workflow(&workflow, window, &settings, None)?;
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(stdout, "{}", super::json_text(&result.to_json())?)?;
    } else {
        for line in result_lines(&result) {
            writeln!(stdout, "{line}")?;
        }
        stdout.flush()?;
        let mut stderr = std::io::stderr().lock();
        for line in problem_lines(&result) {
            writeln!(stderr, "{line}")?;
        }
    }
    if cancel.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(ldp_pipeline::Error::Interrupted.into());
    }
    Ok(u8::try_from(result.exit_code()).unwrap_or(1))
}

/// The settings of the runs of a command.
pub fn run_settings(
    runtime: ldp_plugin_runtime::Runtime,
    jobs: Option<usize>,
    replace: bool,
    cancel: &'static AtomicBool,
) -> Result<RunSettings, crate::settings::SettingsError> {
    let mut settings = RunSettings::new(runtime);
    if let Some(jobs) = jobs {
        settings.jobs = jobs;
    }
    settings.replace = replace;
    settings.cancel = Some(cancel);
    // `sql` tasks run on the cluster `LDP_CLUSTER` names, if any.
    let cluster = std::env::var("LDP_CLUSTER").ok();
    settings.engine =
        crate::settings::cluster_setting(cluster.as_deref())?.map(ldp_cluster::cluster_engine);
    Ok(settings)
}

/// The text of a workflow run: the header (`workflow W  run R  window A/B`), the task table,
/// the summary line.
pub fn result_lines(result: &WorkflowResult) -> Vec<String> {
    let mut out = vec![format!(
        "workflow {}  run {}  window {}",
        result.workflow,
        result.run_id,
        result.window.label()
    )];
    let retried = result.tasks.iter().any(|t| t.attempts > 1);
    let mut header = vec!["id", "kind", "status"];
    if retried {
        header.push("attempts");
    }
    header.extend(["rows_read", "rows_written", "snapshot", "seconds"]);
    let cell = |value: Option<&serde_json::Value>| match value {
        None | Some(serde_json::Value::Null) => "-".to_owned(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let rows: Vec<Vec<String>> = result
        .tasks
        .iter()
        .map(|task| {
            let mut row = vec![task.id.clone(), task.kind.clone(), task.status.clone()];
            if retried {
                row.push(task.attempts.to_string());
            }
            row.push(cell(task.detail.get("rows_read")));
            row.push(cell(task.detail.get("rows_written")));
            row.push(cell(task.detail.get("snapshot_id")));
            row.push(ldp_config::py_float(
                (task.duration_s * 100.0).round() / 100.0,
            ));
            row
        })
        .collect();
    let right: Vec<bool> = header
        .iter()
        .map(|h| {
            matches!(
                *h,
                "attempts" | "rows_read" | "rows_written" | "snapshot" | "seconds"
            )
        })
        .collect();
    out.extend(table::lines(&header, &rows, &right));
    let counted: Vec<String> = result
        .counts()
        .iter()
        .map(|(status, n)| format!("{n} {status}"))
        .collect();
    out.push(format!(
        "{}: {} in {:.1}s. Events: {}",
        result.status(),
        counted.join(", "),
        result.duration_s,
        result.ledger.display()
    ));
    out
}

/// What went wrong, for stderr: `  id: first line` and `  id: did not run, because …`.
pub fn problem_lines(result: &WorkflowResult) -> Vec<String> {
    let mut out = Vec::new();
    for task in &result.tasks {
        if let Some(error) = &task.error {
            out.push(format!(
                "  {}: {}",
                task.id,
                error.lines().next().unwrap_or_default()
            ));
        } else if task.status == "upstream_failed" {
            let blockers: Vec<String> = task
                .detail
                .get("blocked_by")
                .and_then(serde_json::Value::as_array)
                .map(|ids| {
                    ids.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            out.push(format!(
                "  {}: did not run, because {} did not succeed",
                task.id,
                blockers.join(", ")
            ));
        }
    }
    out
}
