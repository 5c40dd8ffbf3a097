//! Running the windows of a range, for `ldp backfill` and `ldp schedule tick`: each
//! window's state is decided before anything runs ([`crate::window_state::backfill_states`]);
//! the windows that are not `published` run one after another, in the order given, each as a
//! workflow run; a finished backfill run again does nothing, and one that stopped resumes where
//! it stopped, because the windows that are done are `published` by then.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::scheduling::{read_windows, trace_runs};
use crate::window_state::WindowState;
use ldp_config::Workflow;
use ldp_config::format_instant;
use serde_json::{Map, Value, json};

use crate::result::{WorkflowResult, round3};
use crate::runner::{RunSettings, run_workflow};

/// How the windows run.
#[derive(Clone, Debug, Default)]
pub struct WindowsOptions {
    /// Stop at the first window that failed (the rest are `not_run`); a blocked window does
    /// not stop it.
    pub stop_on_failure: bool,
    /// Run at most this many of the windows that are not published (the rest are `not_run`).
    pub max_pending: Option<usize>,
    /// Carry on the ledger's last run of a window that did not succeed, as the next attempt of
    /// that run (what a tick does).
    pub continue_runs: bool,
}

/// One window and how it ended.
#[derive(Clone, Debug)]
pub struct WindowRun {
    /// The window and its state before the run.
    pub state: WindowState,
    /// `published`, `skipped`, `blocked`, `failed` or `not_run`.
    pub outcome: &'static str,
    /// Why it failed when its workflow could not start.
    pub error: Option<String>,
    /// The attempt of the workflow run (more than 1 when it carried on an earlier run).
    pub attempt: Option<u64>,
    /// The run of the window.
    pub result: Option<WorkflowResult>,
}

impl WindowRun {
    /// The Python tool's JSON of a window of a backfill or tick.
    pub fn to_json(&self) -> Value {
        let keys: Map<String, Value> = self
            .state
            .keys
            .iter()
            .map(|(task, key)| (task.clone(), Value::from(key.as_str())))
            .collect();
        let mut doc = json!({
            "window": self.state.window.label(),
            "state": self.state.state,
            "keys": keys,
            "outcome": self.outcome,
            "error": self.error,
            "attempt": self.attempt,
        });
        if let (Some(result), Some(map)) = (&self.result, doc.as_object_mut()) {
            map.insert("workflow_run_id".into(), result.run_id.clone().into());
            let tasks: Vec<Value> = result
                .tasks
                .iter()
                .map(|t| {
                    json!({"id": t.id, "kind": t.kind, "status": t.status,
                           "attempts": t.attempts, "error": t.error})
                })
                .collect();
            map.insert("tasks".into(), Value::from(tasks));
        }
        doc
    }

    /// The lines that say what went wrong: `orders: DataQualityError: 1 of 2 … failed:` and
    /// the failed checks under it.
    pub fn problems(&self) -> Vec<String> {
        if let Some(error) = &self.error {
            return message_lines(error);
        }
        let mut lines = Vec::new();
        for task in self.result.iter().flat_map(|r| r.tasks.iter()) {
            if let Some(error) = &task.error
                && matches!(task.status.as_str(), "failed" | "blocked_quality")
            {
                let mut listed = message_lines(error).into_iter();
                if let Some(headline) = listed.next() {
                    lines.push(format!("{}: {headline}", task.id));
                }
                lines.extend(listed);
            }
        }
        lines
    }
}

/// The first line of a message and, when it ends in a colon, the indented lines under it.
fn message_lines(message: &str) -> Vec<String> {
    let mut lines = message.lines();
    let first = lines.next().unwrap_or_default().to_owned();
    let mut kept = vec![first.clone()];
    if first.trim_end().ends_with(':') {
        kept.extend(
            lines
                .take_while(|line| line.starts_with(' '))
                .map(str::to_owned),
        );
    }
    kept
}

/// How many windows ended with each outcome: `published`, `skipped`, `blocked`, `failed`,
/// and `not_run` when some were left undone.
pub fn outcome_counts(windows: &[WindowRun]) -> Vec<(&'static str, usize)> {
    let mut counts: Vec<(&'static str, usize)> = ["published", "skipped", "blocked", "failed"]
        .iter()
        .map(|name| (*name, windows.iter().filter(|w| w.outcome == *name).count()))
        .collect();
    let not_run = windows.iter().filter(|w| w.outcome == "not_run").count();
    if not_run > 0 {
        counts.push(("not_run", not_run));
    }
    counts
}

/// Runs the windows of `states` that are not published, in their order; `on_window` is told
/// of each window that ran or was skipped (`index` from 1, of `total`).
pub fn run_windows(
    workflow: &Workflow,
    states: Vec<WindowState>,
    settings: &RunSettings,
    options: &WindowsOptions,
    mut on_window: impl FnMut(&WindowRun, usize, usize),
) -> Vec<WindowRun> {
    let total = states.len();
    let mut settings = settings.clone();
    if settings.search_since_ms.is_none() {
        settings.search_since_ms = Some(ldp_pipeline::Staging::search_since(
            jiff::Timestamp::now().as_millisecond(),
        ));
    }
    let mut budget = options.max_pending.unwrap_or(usize::MAX);
    // The ledger's last run of each window that did not succeed, to carry on.
    let mut carried: BTreeMap<(String, String), String> = BTreeMap::new();
    if options.continue_runs {
        let task_ids: Vec<&str> = workflow.tasks.iter().map(|t| t.id.as_str()).collect();
        for (window, record) in read_windows(&workflow.ledger_path(), &workflow.identifier) {
            if record.status(&task_ids) != "succeeded" {
                carried.insert(window, record.run_id);
            }
        }
    }
    let run_ids: Vec<&str> = carried.values().map(String::as_str).collect();
    let continuations = trace_runs(&workflow.ledger_path(), &run_ids);
    let mut stopped = false;
    let mut runs = Vec::with_capacity(total);
    for (index, state) in states.into_iter().enumerate() {
        let mut run = WindowRun {
            state,
            outcome: "not_run",
            error: None,
            attempt: None,
            result: None,
        };
        if run.state.state == "published" {
            run.outcome = "skipped";
        } else if !stopped && budget > 0 && !settings.cancelled() {
            budget -= 1;
            let window = run.state.window;
            let key = (format_instant(window.start), format_instant(window.end));
            let continues = carried.get(&key).and_then(|id| continuations.get(id));
            match run_workflow(workflow, window, &settings, continues) {
                Ok(result) => {
                    run.outcome = outcome_of(&result);
                    run.attempt = Some(result.attempt);
                    run.result = Some(result);
                }
                Err(error) => {
                    tracing::warn!(
                        "backfill of {}: the window {} could not start: {}",
                        workflow.identifier,
                        window.label(),
                        error.to_string().lines().next().unwrap_or_default()
                    );
                    run.outcome = "failed";
                    run.error = Some(error.to_string());
                }
            }
            stopped = options.stop_on_failure && run.outcome == "failed";
        }
        if run.outcome != "not_run" {
            on_window(&run, index + 1, total);
        }
        runs.push(run);
    }
    runs
}

/// How a window ended, from the tasks of its run.
fn outcome_of(result: &WorkflowResult) -> &'static str {
    match result.status() {
        "failed" => "failed",
        "blocked_quality" => "blocked",
        _ if result.wrote_data() => "published",
        _ => "skipped",
    }
}

/// The backfill's status and exit code: `failed`/1 if a window failed, `blocked_quality`/3 if a
/// data gate held one back, else `succeeded`/0.
pub fn status_of(windows: &[WindowRun]) -> (&'static str, i32) {
    if windows.iter().any(|w| w.outcome == "failed") {
        ("failed", 1)
    } else if windows.iter().any(|w| w.outcome == "blocked") {
        ("blocked_quality", 3)
    } else {
        ("succeeded", 0)
    }
}

/// Seconds since `started`, to 3 decimals.
pub fn seconds_since(started: Instant) -> f64 {
    round3(started.elapsed().as_secs_f64())
}
