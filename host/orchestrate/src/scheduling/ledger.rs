//! Reading a workflow's ledger: `<workflow folder>/.ldp/events.jsonl`
//! ([`ldp_config::Workflow::ledger_path`]), the JSONL events of every run.
//!
//! * [`read_windows`]: per window (the `workflow.started` window pair of UTC-Z strings, for
//!   events whose payload `workflow` is this workflow), the last run id (the last
//!   `workflow.started`), that run's highest attempt, and the task statuses of the last
//!   `workflow.finished` of a run of that window (`None` when none finished).
//! * [`run_status`]: `failed` if a task failed, `blocked` if one was blocked by a data gate,
//!   `succeeded` if every current task ended well ([`TASK_OK`]), else `incomplete`;
//!   [`WindowRecord::status`] says `unfinished` when no run finished.
//! * [`trace_runs`]: what a tick needs to carry on a run that did not succeed, the run id and
//!   highest attempt of the workflow run and of each of its tasks ([`Continuation`]); the next
//!   attempt reuses the ids with the attempt + 1.
//!
//! A line that is not an event (one a crash cut short, or not UTF-8) is ignored, and so is a
//! ledger that does not exist. An event's `attempt` is 1 unless it is a whole number from 1.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::{Map, Value};

use ldp_config::py_str;
use ldp_config::workflow::TASK_OK;

/// A window as `workflow.started` wrote it: start and end, UTC-Z strings.
pub type LedgerWindow = (String, String);

/// What the ledger holds about one window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowRecord {
    /// The run id of the workflow run that started last for the window.
    pub run_id: String,
    /// The highest attempt of that run.
    pub attempt: u64,
    /// `{task id: status}` of the last run of the window that finished; `None` when none did.
    pub tasks: Option<BTreeMap<String, String>>,
}

impl WindowRecord {
    /// How the last run ended, as `ldp schedule list` shows it: `failed`, `blocked`,
    /// `succeeded`, `incomplete`, or `unfinished` when no run of the window finished.
    pub fn status(&self, task_ids: &[&str]) -> &'static str {
        run_status(self.tasks.as_ref(), task_ids).map_or("unfinished", RunStatus::as_str)
    }
}

/// How the last finished run of a window ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RunStatus {
    /// A task failed.
    Failed,
    /// A data gate blocked a task.
    Blocked,
    /// Every task of the workflow as it is now ended well.
    Succeeded,
    /// The run stopped before every task ran, or a task was added since.
    Incomplete,
}

impl RunStatus {
    /// `failed`, `blocked`, `succeeded` or `incomplete`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Failed => "failed",
            RunStatus::Blocked => "blocked",
            RunStatus::Succeeded => "succeeded",
            RunStatus::Incomplete => "incomplete",
        }
    }
}

/// What the last finished run of a window says, from its task statuses and the ids of the
/// workflow's tasks now; `None` when no run finished.
pub fn run_status(
    tasks: Option<&BTreeMap<String, String>>,
    task_ids: &[&str],
) -> Option<RunStatus> {
    let tasks = tasks?;
    if tasks.values().any(|status| status == "failed") {
        return Some(RunStatus::Failed);
    }
    if tasks.values().any(|status| status == "blocked_quality") {
        return Some(RunStatus::Blocked);
    }
    let ok = task_ids.iter().all(|id| {
        tasks
            .get(*id)
            .is_some_and(|status| TASK_OK.contains(&status.as_str()))
    });
    Some(if ok {
        RunStatus::Succeeded
    } else {
        RunStatus::Incomplete
    })
}

/// One event of the ledger: run id, type, attempt, payload.
struct Event {
    run_id: String,
    kind: String,
    attempt: u64,
    payload: Map<String, Value>,
}

/// The events of the lines that hold one of the `needles` (a cheap test before parsing).
fn events(path: &Path, needles: &[&str]) -> Vec<Event> {
    let Ok(file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for line in BufReader::new(file).split(b'\n') {
        let Ok(bytes) = line else {
            break;
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        if !needles.iter().any(|needle| text.contains(needle)) {
            continue;
        }
        let Ok(Value::Object(mut event)) = serde_json::from_str::<Value>(text) else {
            continue;
        };
        let (Some(Value::Object(payload)), Some(Value::String(run_id)), Some(Value::String(kind))) = (
            event.remove("payload"),
            event.remove("run_id"),
            event.remove("type"),
        ) else {
            continue;
        };
        let attempt = event
            .get("attempt")
            .and_then(Value::as_u64)
            .filter(|attempt| *attempt >= 1)
            .unwrap_or(1);
        found.push(Event {
            run_id,
            kind,
            attempt,
            payload,
        });
    }
    found
}

/// What the ledger says about each window of a workflow (the Python tool's `read_windows`).
pub fn read_windows(path: &Path, workflow: &str) -> BTreeMap<LedgerWindow, WindowRecord> {
    let mut last_run: BTreeMap<LedgerWindow, String> = BTreeMap::new();
    let mut attempts: BTreeMap<String, u64> = BTreeMap::new();
    let mut finished: BTreeMap<LedgerWindow, BTreeMap<String, String>> = BTreeMap::new();
    let mut opened: BTreeMap<String, LedgerWindow> = BTreeMap::new();
    for event in events(path, &["\"workflow."]) {
        if event.payload.get("workflow").and_then(Value::as_str) != Some(workflow) {
            continue;
        }
        match (event.kind.as_str(), event.payload.get("window")) {
            ("workflow.started", Some(Value::Array(span))) if span.len() == 2 => {
                let window = (py_str(&span[0]), py_str(&span[1]));
                opened.insert(event.run_id.clone(), window.clone());
                last_run.insert(window, event.run_id.clone());
                let attempt = attempts.entry(event.run_id).or_insert(0);
                *attempt = (*attempt).max(event.attempt);
            }
            ("workflow.finished", _) => {
                let (Some(window), Some(Value::Object(tasks))) =
                    (opened.get(&event.run_id), event.payload.get("tasks"))
                else {
                    continue;
                };
                let statuses = tasks
                    .iter()
                    .map(|(id, status)| (id.clone(), py_str(status)))
                    .collect();
                finished.insert(window.clone(), statuses);
            }
            _ => {}
        }
    }
    last_run
        .into_iter()
        .map(|(window, run_id)| {
            let record = WindowRecord {
                attempt: attempts.get(&run_id).copied().unwrap_or(1),
                tasks: finished.get(&window).cloned(),
                run_id,
            };
            (window, record)
        })
        .collect()
}

/// The ids that carry on a run that did not succeed, so the next attempt fences the ones
/// before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Continuation {
    /// The workflow run's id.
    pub run_id: String,
    /// Its highest attempt so far.
    pub attempt: u64,
    /// `{task id: (task run id, highest attempt)}` for the tasks that ran or were held back.
    pub tasks: BTreeMap<String, (String, u64)>,
}

impl Continuation {
    /// A task's run id and highest attempt, or `(None, 0)` for one that did not take part.
    pub fn task(&self, task_id: &str) -> (Option<&str>, u64) {
        self.tasks
            .get(task_id)
            .map_or((None, 0), |(run_id, attempt)| {
                (Some(run_id.as_str()), *attempt)
            })
    }
}

/// The ids and attempts of workflow runs, to carry them on, in one scan of the ledger (the
/// Python tool's `trace_runs`). A run the ledger does not hold is not in the result.
pub fn trace_runs(path: &Path, run_ids: &[&str]) -> BTreeMap<String, Continuation> {
    let wanted: BTreeSet<&str> = run_ids.iter().copied().collect();
    if wanted.is_empty() {
        return BTreeMap::new();
    }
    let needles: Vec<&str> = wanted.iter().copied().collect();
    let mut attempts: BTreeMap<String, u64> = BTreeMap::new();
    let mut tasks: BTreeMap<String, BTreeMap<String, (String, u64)>> = BTreeMap::new();
    for event in events(path, &needles) {
        if wanted.contains(event.run_id.as_str()) && event.kind.starts_with("workflow.") {
            let attempt = attempts.entry(event.run_id.clone()).or_insert(0);
            *attempt = (*attempt).max(event.attempt);
        }
        let owner = event.payload.get("workflow_run_id").and_then(Value::as_str);
        let task_id = event.payload.get("task_id").and_then(Value::as_str);
        if let (Some(owner), Some(task_id)) = (owner, task_id)
            && wanted.contains(owner)
        {
            let known = tasks.entry(owner.to_owned()).or_default();
            let best = known.get(task_id).map_or(0, |(_, attempt)| *attempt);
            if event.attempt >= best {
                known.insert(task_id.to_owned(), (event.run_id.clone(), event.attempt));
            }
        }
    }
    attempts
        .into_iter()
        .map(|(run_id, attempt)| {
            let continuation = Continuation {
                run_id: run_id.clone(),
                attempt,
                tasks: tasks.remove(&run_id).unwrap_or_default(),
            };
            (run_id, continuation)
        })
        .collect()
}
