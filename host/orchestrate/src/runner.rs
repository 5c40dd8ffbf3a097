//! Running a workflow for one window: the whole workflow is planned first and refused
//! when anything in it is invalid; then the tasks run in dependency order, those that do not
//! depend on each other side by side (at most `jobs` at once), while two tasks that write one
//! table never run at the same time. A task whose dependency did not succeed is
//! `upstream_failed` and does not run; the others still do. A task that fails with an error
//! another attempt may fix runs again (the workflow's `retries` overlaid by the task's) as the
//! next attempt of the same run, so its commit fences the older attempt.
//!
//! The ledger gets `workflow.started`, every event of every task, and `workflow.finished`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use crate::scheduling::Continuation;
use ldp_config::workflow::{Task, TaskPlan, plan_loaded_workflow};
use ldp_config::{Window, Workflow};
use ldp_events::RunEvents;
use ldp_events::payload::WorkflowTask;
use ldp_events::payload::{TaskFinished, TaskStarted, WorkflowFinished, WorkflowStarted};
use ldp_plugin_runtime::Runtime;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::ledger::Ledger;
use crate::result::{TaskResult, WorkflowResult, round3};
use crate::task::{Attempt, TaskRun, run_attempt};

/// Waits between attempts: called with the seconds to wait.
pub type Sleep = fn(f64);

/// How a workflow run runs.
#[derive(Clone)]
pub struct RunSettings {
    /// The plugin runtime every task shares.
    pub runtime: Runtime,
    /// Tasks that may run at once (at least 1).
    pub jobs: usize,
    /// Replace each pipeline's window under its replace key (`ldp backfill --replace`).
    pub replace: bool,
    /// Where the publish loops' key search starts (ms since the epoch); 7 days before now when
    /// `None`.
    pub search_since_ms: Option<i64>,
    /// Set by a Ctrl-C handler: running pipelines stop without committing.
    pub cancel: Option<&'static AtomicBool>,
    /// What waits between a failed attempt and the next.
    pub sleep: Sleep,
    /// Where `sql` tasks run their query: `None` in this process, else the engine the factory
    /// makes (a cluster, `LDP_CLUSTER`).
    pub engine: Option<ldp_sql::EngineFactory>,
}

impl std::fmt::Debug for RunSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunSettings")
            .field("jobs", &self.jobs)
            .field("replace", &self.replace)
            .field("search_since_ms", &self.search_since_ms)
            .finish_non_exhaustive()
    }
}

impl RunSettings {
    /// Whether Ctrl-C asked the run to stop: nothing new starts after that.
    pub fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// One job per core, no replace, real waits.
    pub fn new(runtime: Runtime) -> RunSettings {
        RunSettings {
            runtime,
            jobs: default_jobs(),
            replace: false,
            search_since_ms: None,
            cancel: None,
            sleep: |seconds| std::thread::sleep(Duration::from_secs_f64(seconds.max(0.0))),
            engine: None,
        }
    }
}

/// The number of cores (the default of `--jobs`).
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `workflow` for `window`; `continues` carries on an earlier run of the window that did
/// not succeed (same run ids, next attempts).
///
/// # Errors
///
/// [`Error::Invalid`] when the plan finds problems (no task runs), [`Error::Io`] when the
/// ledger cannot be opened. A task that fails is a result, not an error.
pub fn run_workflow(
    workflow: &Workflow,
    window: Window,
    settings: &RunSettings,
    continues: Option<&Continuation>,
) -> Result<WorkflowResult> {
    let plan = plan_loaded_workflow(workflow, Some(&window), settings.replace);
    if !plan.valid {
        return Err(Error::Invalid {
            workflow: workflow.identifier.clone(),
            problems: plan.errors,
        });
    }
    let ledger = Ledger::open(&workflow.ledger_path())?;
    let run_id = continues.map_or_else(ldp_events::uuid7, |c| c.run_id.clone());
    let attempt = continues.map_or(1, |c| c.attempt + 1);
    let mut emitter = RunEvents::new(run_id.clone(), i64::try_from(attempt).unwrap_or(1))
        .with_context("pipeline", workflow.identifier.as_str())
        .with_context("workflow", workflow.identifier.as_str())
        .with_context("workflow_run_id", run_id.as_str())
        .with_sink(ledger.sink());
    let order = workflow.order();
    emitter.record(&WorkflowStarted {
        window: (window.start, window.end),
        schedule: workflow
            .schedule
            .as_ref()
            .map(|s| s.cron.expression.clone()),
        tasks: order
            .iter()
            .map(|task| WorkflowTask {
                id: task.id.clone(),
                kind: task.kind.name().to_owned(),
                depends_on: task.depends_on.clone(),
                max_attempts: u32::try_from(workflow.retries_of(task).max_attempts)
                    .unwrap_or(u32::MAX),
            })
            .collect(),
        replace: settings.replace,
        ldp_version: ldp_events::payload::LDP_VERSION.to_owned(),
    });
    let started = Instant::now();
    // The span `ldp.workflow` holds one `ldp.task` per task, which holds its runs' `ldp.run`.
    let span = tracing::info_span!(
        "ldp.workflow",
        "ldp.workflow" = %workflow.identifier,
        "ldp.run_id" = %run_id,
        "ldp.attempt" = i64::try_from(attempt).unwrap_or(i64::MAX),
        "ldp.window" = %format!("{}/{}", window.start, window.end),
        "ldp.status" = tracing::field::Empty,
        "otel.status_code" = tracing::field::Empty,
    );
    let search_since_ms = settings.search_since_ms.unwrap_or_else(|| {
        ldp_pipeline::Staging::search_since(jiff::Timestamp::now().as_millisecond())
    });
    let shared = Shared {
        workflow,
        window,
        settings,
        ledger: &ledger,
        workflow_run_id: &run_id,
        search_since_ms,
        continues,
        plans: plan.tasks.iter().map(|p| (p.id.as_str(), p)).collect(),
        span: span.clone(),
    };
    let results = span.in_scope(|| schedule(&shared, &order));
    let tasks: Vec<TaskResult> = order
        .iter()
        .filter_map(|task| results.get(task.id.as_str()).cloned())
        .collect();
    let result = WorkflowResult {
        workflow: workflow.identifier.clone(),
        run_id,
        attempt,
        window,
        duration_s: started.elapsed().as_secs_f64(),
        tasks,
        ledger: ledger.path().to_path_buf(),
    };
    span.record("ldp.status", result.status());
    if result.status() != "succeeded" {
        span.record("otel.status_code", "ERROR");
    }
    emitter.record(&WorkflowFinished {
        status: result.status().to_owned(),
        duration_s: result.duration_s,
        counts: result.counts(),
        tasks: result
            .tasks
            .iter()
            .map(|t| (t.id.clone(), t.status.clone()))
            .collect(),
    });
    emitter.close();
    Ok(result)
}

/// What every task of one run shares.
struct Shared<'a> {
    workflow: &'a Workflow,
    window: Window,
    settings: &'a RunSettings,
    ledger: &'a Ledger,
    workflow_run_id: &'a str,
    search_since_ms: i64,
    continues: Option<&'a Continuation>,
    plans: BTreeMap<&'a str, &'a TaskPlan>,
    /// The run's `ldp.workflow` span: the parent of each task's, on whatever thread it runs.
    span: tracing::Span,
}

impl Shared<'_> {
    /// Whether Ctrl-C asked the run to stop: no task starts after that.
    fn cancelled(&self) -> bool {
        self.settings.cancelled()
    }

    /// The tables a task writes (or, for maintenance, changes): two tasks with one in common
    /// never run at once.
    fn locks(&self, task: &Task) -> BTreeSet<String> {
        self.plans
            .get(task.id.as_str())
            .map(|plan| {
                plan.writes
                    .iter()
                    .chain(plan.reads.iter().filter(|_| !task.kind.changes_data()))
                    .map(|t| t.identity.clone())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Runs every task, at most `jobs` at once, dependencies first; returns each task's result.
fn schedule<'a>(shared: &Shared<'a>, order: &[&'a Task]) -> BTreeMap<&'a str, TaskResult> {
    let jobs = shared.settings.jobs.max(1);
    let mut results: BTreeMap<&'a str, TaskResult> = BTreeMap::new();
    let mut running: BTreeMap<&'a str, BTreeSet<String>> = BTreeMap::new();
    std::thread::scope(|scope| {
        let (sender, receiver) = channel::<(&'a str, TaskResult)>();
        loop {
            // Start what can start, in run order; mark what cannot run at all.
            let mut changed = true;
            while changed {
                changed = false;
                for task in order {
                    let id = task.id.as_str();
                    if results.contains_key(id) || running.contains_key(id) {
                        continue;
                    }
                    let deps: Vec<&TaskResult> = task
                        .depends_on
                        .iter()
                        .filter_map(|d| results.get(d.as_str()))
                        .collect();
                    if deps.len() < task.depends_on.len() {
                        continue; // a dependency has not finished
                    }
                    let blockers: Vec<String> = task
                        .depends_on
                        .iter()
                        .filter(|d| results.get(d.as_str()).is_some_and(|r| !r.ok()))
                        .cloned()
                        .collect();
                    if !blockers.is_empty() {
                        results.insert(id, upstream_failed(shared, task, blockers));
                        changed = true;
                        continue;
                    }
                    if shared.cancelled() {
                        results.insert(id, not_started(task));
                        changed = true;
                        continue;
                    }
                    if running.len() >= jobs {
                        continue;
                    }
                    let locks = shared.locks(task);
                    if running.values().any(|held| !held.is_disjoint(&locks)) {
                        continue;
                    }
                    running.insert(id, locks);
                    let sender = sender.clone();
                    let task: &'a Task = task;
                    scope.spawn(move || {
                        let result = run_task(shared, task);
                        let _ = sender.send((task.id.as_str(), result));
                    });
                    changed = true;
                }
            }
            if running.is_empty() {
                break;
            }
            let Ok((id, result)) = receiver.recv() else {
                break;
            };
            running.remove(id);
            results.insert(id, result);
        }
    });
    results
}

/// The result (and ledger events) of a task that did not run because `blockers` did not
/// succeed.
fn upstream_failed(shared: &Shared<'_>, task: &Task, blockers: Vec<String>) -> TaskResult {
    tracing::info!(
        "workflow {}: task {} did not run, because {} did not succeed",
        shared.workflow.identifier,
        task.id,
        blockers.join(", ")
    );
    let (carried, base) = carried(shared, task);
    let mut detail = Map::new();
    detail.insert("blocked_by".into(), Value::from(blockers));
    let mut events = task_events(shared, task, carried, base + 1);
    events.record(&TaskStarted);
    events.record(&TaskFinished {
        status: "upstream_failed".into(),
        duration_s: 0.0,
        detail: detail.clone(),
    });
    events.close();
    TaskResult {
        id: task.id.clone(),
        kind: task.kind.name().to_owned(),
        status: "upstream_failed".into(),
        attempts: 0,
        detail,
        error: None,
        duration_s: 0.0,
    }
}

/// The result of a task that did not start because the run was interrupted.
fn not_started(task: &Task) -> TaskResult {
    TaskResult {
        id: task.id.clone(),
        kind: task.kind.name().to_owned(),
        status: "failed".into(),
        attempts: 0,
        detail: Map::new(),
        error: Some("KeyboardInterrupt: the run was interrupted before this task started".into()),
        duration_s: 0.0,
    }
}

/// The run id and last attempt a continued run carries for `task` (a new id and 0 otherwise).
fn carried(shared: &Shared<'_>, task: &Task) -> (String, u64) {
    match shared.continues.map(|c| c.task(&task.id)) {
        Some((Some(run_id), attempt)) => (run_id.to_owned(), attempt),
        _ => (ldp_events::uuid7(), 0),
    }
}

/// The emitter of the events the runner writes for a task (kinds that record none, and
/// failures before a pipeline recorded any).
fn task_events(shared: &Shared<'_>, task: &Task, run_id: String, attempt: u64) -> RunEvents {
    RunEvents::new(run_id, i64::try_from(attempt).unwrap_or(i64::MAX))
        .with_context("pipeline", task.id.as_str())
        .with_context("task_kind", task.kind.name())
        .with_workflow_tags(
            &shared.workflow.identifier,
            shared.workflow_run_id,
            &task.id,
        )
        .with_sink(shared.ledger.sink())
}

/// Runs a task, and again while it fails with an error another attempt may fix and it has
/// attempts left.
fn run_task(shared: &Shared<'_>, task: &Task) -> TaskResult {
    let span = tracing::info_span!(
        parent: &shared.span,
        "ldp.task",
        "ldp.task_id" = %task.id,
        "ldp.task_kind" = task.kind.name(),
        "ldp.status" = tracing::field::Empty,
        "ldp.attempts" = tracing::field::Empty,
        "otel.status_code" = tracing::field::Empty,
    );
    let result = span.in_scope(|| run_task_attempts(shared, task));
    span.record("ldp.status", result.status.as_str());
    span.record(
        "ldp.attempts",
        i64::try_from(result.attempts).unwrap_or(i64::MAX),
    );
    if !result.ok() {
        span.record("otel.status_code", "ERROR");
    }
    result
}

/// [`run_task`]'s attempts.
fn run_task_attempts(shared: &Shared<'_>, task: &Task) -> TaskResult {
    let policy = shared.workflow.retries_of(task);
    let (run_id, base) = carried(shared, task);
    let started = Instant::now();
    let mut attempt = base;
    loop {
        attempt += 1;
        let tries = attempt - base;
        let run = TaskRun {
            workflow: shared.workflow,
            task,
            plan: shared.plans.get(task.id.as_str()).copied(),
            window: shared.window,
            replace: shared.settings.replace,
            runtime: &shared.settings.runtime,
            ledger: shared.ledger,
            workflow_run_id: shared.workflow_run_id,
            run_id: &run_id,
            attempt,
            search_since_ms: shared.search_since_ms,
            cancel: shared.settings.cancel,
            engine: shared.settings.engine.as_ref(),
        };
        let began = Instant::now();
        let outcome = run_attempt(&run);
        let took = began.elapsed().as_secs_f64();
        if !outcome.emitted {
            record_attempt(shared, task, &run_id, attempt, &outcome, took);
        }
        tracing::info!(
            "workflow {}: task {} {} in {took:.2}s",
            shared.workflow.identifier,
            task.id,
            outcome.status
        );
        let cancelled = shared.cancelled();
        let again = outcome.status == "failed"
            && outcome.retryable
            && tries < policy.max_attempts
            && !cancelled;
        if !again {
            return TaskResult {
                id: task.id.clone(),
                kind: task.kind.name().to_owned(),
                status: outcome.status.to_owned(),
                attempts: tries,
                detail: outcome.detail,
                error: outcome.error.map(|(kind, message)| {
                    ldp_events::redact_text(&format!("{kind}: {message}"), None)
                }),
                duration_s: round3(started.elapsed().as_secs_f64()),
            };
        }
        let wait = jitter(policy.delay_cap(tries));
        tracing::warn!(
            "workflow {}: task {} failed on attempt {tries} of {} ({}), and runs again in {wait:.1} s",
            shared.workflow.identifier,
            task.id,
            policy.max_attempts,
            outcome
                .error
                .as_ref()
                .map_or(String::new(), |(k, m)| format!("{k}: {m}"))
        );
        (shared.settings.sleep)(wait);
    }
}

/// `run.started`, `run.failed` for an error, and `run.finished` of an attempt whose kind does
/// not record its own events.
fn record_attempt(
    shared: &Shared<'_>,
    task: &Task,
    run_id: &str,
    attempt: u64,
    outcome: &Attempt,
    took: f64,
) {
    let mut events = task_events(shared, task, run_id.to_owned(), attempt);
    events.record(&TaskStarted);
    if outcome.status == "failed"
        && let Some((kind, message)) = &outcome.error
    {
        let mut payload = Map::new();
        payload.insert("stage".into(), Value::from(task.kind.name()));
        payload.insert("error_type".into(), Value::from(kind.as_str()));
        payload.insert(
            "message".into(),
            Value::from(ldp_events::redact_text(
                message,
                Some(ldp_events::MAX_MESSAGE),
            )),
        );
        events.emit("run.failed", payload);
    }
    events.record(&TaskFinished {
        status: outcome.status.to_owned(),
        duration_s: took,
        detail: outcome.detail.clone(),
    });
    events.close();
}

/// A full-jitter wait: a random time from 0 to `cap` seconds.
fn jitter(cap: f64) -> f64 {
    let random = uuid::Uuid::new_v4().as_u128() as f64 / u128::MAX as f64;
    cap * random
}
