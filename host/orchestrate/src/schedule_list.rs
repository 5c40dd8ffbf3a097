//! What `ldp schedule list DIR` shows, without printing it: the scheduled workflow
//! files and dataset configs under a folder ([`discover`]), and for each its schedule, next
//! fire, last window and how it ended, the windows that are due and the windows that were
//! missed with the commands that fill them ([`list_scheduled`]). Nothing is written.
//!
//! Discovery, as in the Python tool: every `*.json` under the folder, recursively, except in a
//! folder whose name starts with a dot or is `node_modules`, `__pycache__`, `site-packages`,
//! `venv` or `env`, `*.metadata.json`, files larger than 1 MB and files that are not JSON
//! objects. A file counts when its kind is `Workflow`, or `Pipeline` (written, or with both
//! `metadata.source` and `metadata.target`), and it has a schedule (`metadata.schedule`, or a
//! `when` of hourly/daily/weekly/monthly). One that has a schedule and cannot be used is a
//! problem, and the others are still listed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::scheduling::{WorkflowSchedule, boundary_text, parse_boundary, read_windows};
use jiff::Timestamp;
use jiff::tz::TimeZone;
use ldp_config::{
    ConfigError, Kind, ScheduleFrom, Window, Workflow, alias_for_when, format_instant, kind_of,
    parse_schedule, read_workflow,
};
use serde_json::{Map, Value, json};

use crate::window_state::backfill_states;
use ldp_pipeline::Error;

/// Folders that discovery does not enter (besides those whose name starts with a dot).
pub const SKIPPED_FOLDERS: [&str; 5] = [
    "node_modules",
    "__pycache__",
    "site-packages",
    "venv",
    "env",
];

/// Files larger than this are not read.
pub const MAX_SPEC_BYTES: u64 = 1_000_000;

/// A scheduled workflow file or dataset config.
#[derive(Clone, Debug)]
pub struct Scheduled {
    /// The file, spelled as the searched folder spells it.
    pub path: PathBuf,
    /// The workflow, or the one-task workflow of the config.
    pub workflow: Workflow,
    /// `Workflow` or `Pipeline`.
    pub kind: &'static str,
}

/// What a folder holds.
#[derive(Clone, Debug, Default)]
pub struct Discovery {
    /// The scheduled workflows and configs, sorted by path.
    pub scheduled: Vec<Scheduled>,
    /// `(path, lines)` of each file that has a schedule and cannot be used.
    pub problems: Vec<(PathBuf, Vec<String>)>,
}

/// Finds every scheduled workflow file and dataset config under `directory`.
///
/// # Errors
///
/// `<directory> is not a folder`.
pub fn discover(directory: &Path) -> Result<Discovery, Error> {
    if !directory.is_dir() {
        return Err(not_a_folder(directory));
    }
    let mut files = Vec::new();
    json_files(directory, &mut files);
    files.sort();
    let mut found = Discovery::default();
    for path in files {
        let Some(document) = read_json(&path) else {
            continue;
        };
        let Ok(kind) = kind_of(&document) else {
            continue;
        };
        let empty = Map::new();
        let metadata = document
            .get("metadata")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        if kind == Kind::Pipeline
            && document.get("kind").is_none()
            && !(metadata.contains_key("source") && metadata.contains_key("target"))
        {
            continue;
        }
        match metadata.get("schedule").filter(|value| !value.is_null()) {
            Some(value) => {
                if let Err(message) = parse_schedule(value, ScheduleFrom::Metadata) {
                    found
                        .problems
                        .push((path, vec![format!("metadata.schedule: {message}")]));
                    continue;
                }
            }
            None => {
                let when = document.get("when").and_then(Value::as_str);
                if when.and_then(alias_for_when).is_none() {
                    continue;
                }
            }
        }
        match read_workflow(&path, true) {
            Ok(workflow) => found.scheduled.push(Scheduled {
                path,
                workflow,
                kind: match kind {
                    Kind::Workflow => "Workflow",
                    Kind::Pipeline => "Pipeline",
                },
            }),
            Err(lines) => found.problems.push((path, lines)),
        }
    }
    Ok(found)
}

fn not_a_folder(directory: &Path) -> Error {
    Error::Config(ConfigError::Window {
        message: format!("{} is not a folder", directory.display()),
    })
}

/// The `*.json` files under `folder` that discovery reads, unsorted.
fn json_files(folder: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() {
            if !name.starts_with('.') && !SKIPPED_FOLDERS.contains(&name.as_str()) {
                json_files(&path, out);
            }
            continue;
        }
        // A link to a folder is not entered (os.walk does not follow links).
        if file_type.is_symlink() && path.is_dir() {
            continue;
        }
        if name.ends_with(".json") && !name.ends_with(".metadata.json") {
            out.push(path);
        }
    }
}

/// A file's JSON object, or `None` when it is too large, unreadable, not JSON or not an object.
fn read_json(path: &Path) -> Option<Value> {
    let size = std::fs::metadata(path).ok()?.len();
    if size > MAX_SPEC_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    value.is_object().then_some(value)
}

/// What `ldp schedule list` says about one scheduled workflow.
#[derive(Clone, Debug)]
pub struct ScheduleEntry {
    /// The file.
    pub path: PathBuf,
    /// The workflow's identifier.
    pub workflow: String,
    /// `Workflow` or `Pipeline`.
    pub kind: &'static str,
    /// The schedule as written (blanks collapsed).
    pub cron: String,
    /// The time zone of the schedule.
    pub timezone: String,
    /// `day`, `hour`, `15m`, or `None` when a window is the time between two fires.
    pub window_size: Option<&'static str>,
    /// `metadata.catchup`.
    pub catchup: bool,
    /// `metadata.start`, read in the time zone.
    pub start: Option<Timestamp>,
    /// The next fire.
    pub next_fire: Option<Timestamp>,
    /// The latest window a run started, `START/END`.
    pub last_window: Option<String>,
    /// How the last run of that window ended.
    pub last_status: Option<&'static str>,
    /// The windows the next tick runs (not published).
    pub due: Vec<Window>,
    /// The windows before the latest fire that are not published and not due, at most the limit.
    pub missed: Vec<Window>,
    /// Whether there are more missed windows than `missed` holds.
    pub more_missed: bool,
    /// The commands that fill the missed windows.
    pub commands: Vec<String>,
    /// Why the schedule could not be evaluated.
    pub error: Option<String>,
}

impl ScheduleEntry {
    fn bare(item: &Scheduled) -> ScheduleEntry {
        ScheduleEntry {
            path: item.path.clone(),
            workflow: item.workflow.identifier.clone(),
            kind: item.kind,
            cron: item
                .workflow
                .schedule
                .as_ref()
                .map_or(String::new(), |schedule| schedule.text.clone()),
            timezone: item.workflow.timezone_name(),
            window_size: None,
            catchup: false,
            start: None,
            next_fire: None,
            last_window: None,
            last_status: None,
            due: Vec::new(),
            missed: Vec::new(),
            more_missed: false,
            commands: Vec::new(),
            error: None,
        }
    }

    /// The entry as the Python tool's JSON, the next fire also in `local` time.
    pub fn to_json(&self, local: &TimeZone) -> Value {
        json!({
            "file": self.path.display().to_string(),
            "workflow": self.workflow,
            "kind": self.kind,
            "schedule": self.cron,
            "timezone": self.timezone,
            "window_size": self.window_size,
            "catchup": self.catchup,
            "start": self.start.map(format_instant),
            "next_fire": self.next_fire.map(format_instant),
            "next_fire_local": self.next_fire.map(|fire| local_iso(fire, local)),
            "last_window": self.last_window,
            "last_status": self.last_status,
            "due": self.due.iter().map(Window::label).collect::<Vec<_>>(),
            "missed": self.missed.iter().map(Window::label).collect::<Vec<_>>(),
            "more_missed": self.more_missed,
            "commands": self.commands,
            "error": self.error,
        })
    }
}

/// Python's `isoformat(timespec="seconds")` of an instant in a time zone:
/// `2026-08-06T00:05:00+00:00`.
pub fn local_iso(instant: Timestamp, local: &TimeZone) -> String {
    instant
        .to_zoned(local.clone())
        .strftime("%Y-%m-%dT%H:%M:%S%:z")
        .to_string()
}

/// What `ldp schedule list` found under a folder.
#[derive(Clone, Debug)]
pub struct Listing {
    /// The folder, as given (normalised as a Python `Path`).
    pub directory: PathBuf,
    /// The time of the listing.
    pub now: Timestamp,
    /// One entry per scheduled workflow, by path.
    pub items: Vec<ScheduleEntry>,
    /// `(path, lines)` of each file with a schedule that is not valid.
    pub problems: Vec<(PathBuf, Vec<String>)>,
}

impl Listing {
    /// The listing as the Python tool's JSON.
    pub fn to_json(&self, local: &TimeZone) -> Value {
        let problems: Vec<Value> = self
            .problems
            .iter()
            .map(|(path, lines)| json!({"file": path.display().to_string(), "lines": lines}))
            .collect();
        json!({
            "directory": self.directory.display().to_string(),
            "now": format_instant(self.now),
            "scheduled": self.items.iter().map(|item| item.to_json(local)).collect::<Vec<_>>(),
            "problems": problems,
        })
    }
}

/// A folder path as Python's `Path(text)` spells it: `.` parts and trailing slashes dropped.
fn python_path(directory: &Path) -> PathBuf {
    let normal: PathBuf = directory
        .components()
        .filter(|part| !matches!(part, std::path::Component::CurDir))
        .collect();
    if normal.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        normal
    }
}

/// Lists every scheduled workflow and config under `directory` at `now`; `max_windows` caps
/// the missed windows named per workflow.
///
/// # Errors
///
/// `directory` is not a folder, or `max_windows` is 0.
pub fn list_scheduled(
    directory: &Path,
    now: Timestamp,
    max_windows: usize,
) -> Result<Listing, Error> {
    if max_windows < 1 {
        return Err(Error::Config(ConfigError::Window {
            message: format!("max_windows must be a whole number from 1, got {max_windows}"),
        }));
    }
    let directory = python_path(directory);
    let found = discover(&directory)?;
    let items = found
        .scheduled
        .iter()
        .map(|item| {
            entry_of(item, now, max_windows).unwrap_or_else(|error| {
                let mut entry = ScheduleEntry::bare(item);
                entry.error = Some(error_text(&error));
                entry
            })
        })
        .collect();
    Ok(Listing {
        directory,
        now,
        items,
        problems: found.problems,
    })
}

/// `ConfigError: <message>`, as the Python tool names an exception.
fn error_text(error: &Error) -> String {
    match error {
        Error::Config(inner) => format!("ConfigError: {inner}"),
        other => format!("Error: {other}"),
    }
}

fn entry_of(item: &Scheduled, now: Timestamp, limit: usize) -> Result<ScheduleEntry, Error> {
    let workflow = &item.workflow;
    let schedule = WorkflowSchedule::of(workflow)?;
    let time_zone = workflow.time_zone();
    let mut entry = ScheduleEntry::bare(item);
    entry.window_size = schedule.size.map(|size| size.as_str());
    entry.catchup = schedule.catchup;
    entry.start = schedule.start;
    entry.next_fire = schedule.next_fire(now);
    let records = read_windows(&workflow.ledger_path(), &workflow.identifier);
    let task_ids: Vec<&str> = workflow.tasks.iter().map(|task| task.id.as_str()).collect();
    let mut last: Option<(&(String, String), _)> = None;
    for (window, record) in &records {
        if last.is_none_or(|(best, _)| window.1 > best.1) {
            last = Some((window, record));
        }
    }
    if let Some(((start, end), record)) = last {
        entry.last_window = Some(format!("{start}/{end}"));
        entry.last_status = Some(record.status(&task_ids));
    }
    let due = schedule.due_windows(now)?;
    let mut lower = schedule.start;
    if lower.is_none()
        && let Some((first, _)) = records.keys().min_by(|a, b| a.0.cmp(&b.0))
    {
        lower = Some(parse_boundary(first, &time_zone, "the first window")?);
    }
    let considered = match lower {
        Some(_) => schedule.enumerate(lower, now)?,
        None => Vec::new(),
    };
    let mut seen = BTreeSet::new();
    let candidates: Vec<Window> = considered
        .iter()
        .chain(due.iter())
        .filter(|window| seen.insert((window.start, window.end)))
        .copied()
        .collect();
    if candidates.is_empty() {
        return Ok(entry);
    }
    let pending: BTreeSet<(Timestamp, Timestamp)> = backfill_states(workflow, &candidates, false)?
        .iter()
        .filter(|state| state.state != "published")
        .map(|state| (state.window.start, state.window.end))
        .collect();
    let is_pending = |window: &Window| pending.contains(&(window.start, window.end));
    entry.due = due.iter().copied().filter(is_pending).collect();
    let due_set: BTreeSet<(Timestamp, Timestamp)> = due
        .iter()
        .map(|window| (window.start, window.end))
        .collect();
    let missed: Vec<Window> = considered
        .iter()
        .copied()
        .filter(|window| is_pending(window) && !due_set.contains(&(window.start, window.end)))
        .collect();
    entry.more_missed = missed.len() > limit;
    entry.missed = missed.into_iter().take(limit).collect();
    entry.commands = fill_commands(&item.path, workflow, &entry.missed);
    Ok(entry)
}

/// The commands that fill missed windows: one `ldp backfill` over them when the windows have a
/// size, else an `ldp workflow run … --window A/B` for each.
pub fn fill_commands(path: &Path, workflow: &Workflow, missed: &[Window]) -> Vec<String> {
    let (Some(first), Some(last)) = (missed.first(), missed.last()) else {
        return Vec::new();
    };
    let file = shell_quote(&path.display().to_string());
    if workflow.window_size().is_none() {
        return missed
            .iter()
            .map(|window| format!("ldp workflow run {file} --window {}", window.label()))
            .collect();
    }
    let time_zone = workflow.time_zone();
    vec![format!(
        "ldp backfill {file} --from {} --to {}",
        boundary_text(first.start, &time_zone),
        boundary_text(last.end, &time_zone)
    )]
}

/// Python's `shlex.quote`.
pub fn shell_quote(text: &str) -> String {
    if text.is_empty() {
        return "''".to_owned();
    }
    let safe = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c));
    if safe {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\"'\"'"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_like_shlex() {
        assert_eq!(shell_quote("shop/nightly.json"), "shop/nightly.json");
        assert_eq!(shell_quote("my shop/a.json"), "'my shop/a.json'");
        assert_eq!(shell_quote("it's"), "'it'\"'\"'s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn folder_paths_are_spelled_as_python_does() {
        assert_eq!(python_path(Path::new("shop/")), PathBuf::from("shop"));
        assert_eq!(python_path(Path::new("./shop")), PathBuf::from("shop"));
        assert_eq!(python_path(Path::new(".")), PathBuf::from("."));
    }
}
