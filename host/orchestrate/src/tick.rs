//! `ldp schedule tick DIR`: every window that is due at `now` and not done, for every
//! scheduled workflow and config under a folder, then return. A window that failed or was cut
//! short on an earlier tick is carried on as the next attempt of the same run, so a tick killed
//! in the middle of a window loads it exactly once: the next tick fences the killed attempt and
//! finds the keys that did publish. A non-blocking lock (`DIR/.ldp/locks/schedule.lock`) makes a
//! tick that starts while another runs do nothing.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::schedule_list::{Scheduled, discover};
use crate::scheduling::WorkflowSchedule;
use crate::window_state::backfill_states;
use jiff::Timestamp;
use ldp_config::format_instant;
use serde_json::{Value, json};

use crate::backfill::{WindowRun, WindowsOptions, outcome_counts, run_windows, status_of};
use crate::error::{Error, Result};
use crate::result::round3;
use crate::runner::RunSettings;

/// The lock of a folder's ticks, relative to the folder.
pub const LOCK_PATH: &str = ".ldp/locks/schedule.lock";

/// What a tick did for one workflow.
#[derive(Debug)]
pub struct WorkflowTick {
    /// The file.
    pub path: PathBuf,
    /// The workflow's id.
    pub workflow: String,
    /// `Workflow` or `Pipeline`.
    pub kind: &'static str,
    /// How many of the windows it looked at were not done.
    pub due: usize,
    /// The windows it looked at, with how each ended.
    pub windows: Vec<WindowRun>,
    /// Why it could not be ticked.
    pub error: Option<String>,
}

impl WorkflowTick {
    /// 1 when it could not be ticked or a window failed, 3 when a data gate blocked one, else 0.
    pub fn exit_code(&self) -> i32 {
        if self.error.is_some() {
            return 1;
        }
        status_of(&self.windows).1
    }
}

/// What a tick did.
#[derive(Debug)]
pub struct TickResult {
    /// The folder ticked.
    pub directory: PathBuf,
    /// The time of the tick.
    pub now: Timestamp,
    /// Another tick held the lock, so this one did nothing.
    pub overlapped: bool,
    /// Each scheduled workflow, by path.
    pub workflows: Vec<WorkflowTick>,
    /// Files with a schedule that cannot be used.
    pub problems: Vec<(PathBuf, Vec<String>)>,
    /// Seconds.
    pub duration_s: f64,
}

impl TickResult {
    /// 0 when nothing failed or was blocked (or another tick ran), 3 when only a data gate held
    /// a window back, else 1.
    pub fn exit_code(&self) -> i32 {
        let codes: Vec<i32> = self.workflows.iter().map(WorkflowTick::exit_code).collect();
        if !self.problems.is_empty() || codes.contains(&1) {
            1
        } else if codes.contains(&3) {
            3
        } else {
            0
        }
    }

    /// `overlapped`, `failed`, `blocked_quality` or `succeeded`.
    pub fn status(&self) -> &'static str {
        if self.overlapped {
            return "overlapped";
        }
        match self.exit_code() {
            0 => "succeeded",
            3 => "blocked_quality",
            _ => "failed",
        }
    }

    /// Windows by outcome over every workflow.
    pub fn counts(&self) -> Vec<(&'static str, usize)> {
        let all: Vec<WindowRun> = self
            .workflows
            .iter()
            .flat_map(|w| w.windows.iter().cloned())
            .collect();
        outcome_counts(&all)
    }

    /// The Python tool's `ldp schedule tick --json` document.
    pub fn to_json(&self) -> Value {
        let counts: serde_json::Map<String, Value> = self
            .counts()
            .into_iter()
            .map(|(name, n)| (name.to_owned(), Value::from(n)))
            .collect();
        json!({
            "directory": self.directory.display().to_string(),
            "now": format_instant(self.now),
            "status": self.status(),
            "exit_code": self.exit_code(),
            "overlapped": self.overlapped,
            "duration_s": round3(self.duration_s),
            "counts": counts,
            "workflows": self.workflows.iter().map(|w| json!({
                "file": w.path.display().to_string(),
                "workflow": w.workflow,
                "kind": w.kind,
                "due": w.due,
                "exit_code": w.exit_code(),
                "error": w.error,
                "windows": w.windows.iter().map(WindowRun::to_json).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "problems": self.problems.iter().map(|(path, lines)| json!({
                "file": path.display().to_string(), "lines": lines,
            })).collect::<Vec<_>>(),
        })
    }
}

/// A held tick lock; dropping it releases it.
#[derive(Debug)]
pub struct TickLock {
    _file: File,
}

impl TickLock {
    /// Takes the folder's tick lock without waiting: `None` when another tick holds it.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the lock file cannot be created or locked.
    pub fn try_acquire(directory: &Path) -> Result<Option<TickLock>> {
        let path = directory.join(LOCK_PATH);
        let io = |source| Error::Io {
            what: "cannot take the tick lock",
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(TickLock { _file: file })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(source)) => Err(io(source)),
        }
    }
}

/// Runs every due window that is not done, at most `max_windows` per workflow; `on_window` is
/// told of each window that ran or was skipped.
///
/// # Errors
///
/// `directory` is not a folder, or the lock cannot be taken. A workflow that cannot be ticked
/// is recorded in its [`WorkflowTick`] and does not stop the others.
pub fn tick(
    directory: &Path,
    now: Timestamp,
    max_windows: usize,
    settings: &RunSettings,
    mut on_window: impl FnMut(&Scheduled, &WindowRun, usize, usize),
) -> Result<TickResult> {
    let started = Instant::now();
    let mut result = TickResult {
        directory: directory.to_path_buf(),
        now,
        overlapped: false,
        workflows: Vec::new(),
        problems: Vec::new(),
        duration_s: 0.0,
    };
    if !directory.is_dir() {
        return Err(Error::Config(ldp_config::ConfigError::Window {
            message: format!("{} is not a folder", directory.display()),
        }));
    }
    let Some(_lock) = TickLock::try_acquire(directory)? else {
        result.overlapped = true;
        result.duration_s = started.elapsed().as_secs_f64();
        return Ok(result);
    };
    let found = discover(directory)?;
    result.problems = found.problems;
    for item in &found.scheduled {
        let mut done = WorkflowTick {
            path: item.path.clone(),
            workflow: item.workflow.identifier.clone(),
            kind: item.kind,
            due: 0,
            windows: Vec::new(),
            error: None,
        };
        match tick_workflow(item, now, max_windows, settings, &mut on_window) {
            Ok(windows) => {
                done.due = windows
                    .iter()
                    .filter(|w| w.state.state != "published")
                    .count();
                done.windows = windows;
            }
            Err(error) => done.error = Some(format!("{error:#}")),
        }
        result.workflows.push(done);
    }
    result.duration_s = started.elapsed().as_secs_f64();
    Ok(result)
}

fn tick_workflow(
    item: &Scheduled,
    now: Timestamp,
    max_windows: usize,
    settings: &RunSettings,
    on_window: &mut impl FnMut(&Scheduled, &WindowRun, usize, usize),
) -> Result<Vec<WindowRun>> {
    let due = WorkflowSchedule::of(&item.workflow)?.due_windows(now)?;
    if due.is_empty() {
        return Ok(Vec::new());
    }
    let plan = ldp_config::workflow::plan_loaded_workflow(&item.workflow, Some(&due[0]), false);
    if !plan.valid {
        return Err(Error::Invalid {
            workflow: item.workflow.identifier.clone(),
            problems: plan.errors,
        });
    }
    let states = backfill_states(&item.workflow, &due, false)?;
    let options = WindowsOptions {
        stop_on_failure: false,
        max_pending: Some(max_windows),
        continue_runs: true,
    };
    Ok(run_windows(
        &item.workflow,
        states,
        settings,
        &options,
        |run, index, total| on_window(item, run, index, total),
    ))
}
