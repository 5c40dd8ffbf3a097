//! Reading a workflow: a workflow file (kind `Workflow`), or a dataset config with a schedule,
//! which is a workflow of one task (the config's identifier as workflow and task id, its
//! schedule, window size and time zone, and retries).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::Workflow;
use super::validate::check_workflow;
use crate::error::ConfigError;
use crate::kind::{Kind, kind_of};
use crate::model::API_VERSION;
use crate::parse::{Document, load};
use crate::paths::PathContext;
use crate::repr::type_name;

/// Builds a [`Workflow`] from a workflow document. `base_dir` is the folder its task paths are
/// relative to; `path` the file it came from, if any (it names the file in the message).
///
/// # Errors
///
/// [`ConfigError::Workflow`] with the Python tool's lines: `nightly.json has 2 problems:` (`the
/// workflow has 1 problem:` without a file), then `  - <problem>` for each.
pub fn workflow_from_document(
    document: &Value,
    base_dir: &Path,
    path: Option<&Path>,
) -> Result<Workflow, ConfigError> {
    let (problems, tasks) = check_workflow(document);
    if !problems.is_empty() {
        let label = path
            .and_then(Path::file_name)
            .map_or("the workflow".to_owned(), |name| {
                name.to_string_lossy().into_owned()
            });
        let count = problems.len();
        let mut lines = vec![format!(
            "{label} has {count} problem{}:",
            if count == 1 { "" } else { "s" }
        )];
        lines.extend(problems.iter().map(|problem| format!("  - {problem}")));
        return Err(ConfigError::Workflow { lines });
    }
    Ok(Workflow::assemble(
        document.clone(),
        tasks,
        base_dir.to_path_buf(),
        path.map(Path::to_path_buf),
        false,
    ))
}

/// Reads a workflow file, or a dataset config with a schedule (a workflow of one task), as the
/// Python tool's `read_workflow` does. With `require_schedule` false (what `ldp backfill`
/// passes), a dataset config needs only a `metadata.window`.
///
/// # Errors
///
/// The lines that say why the file cannot be used: `workflow file not found: <path>`, `<path>
/// is not valid JSON: …`, `kind: …`, `daily.json is a dataset config with no schedule, so it
/// is not a workflow. …`, the first problem of a dataset config (the strict loader's), or the
/// lines of [`workflow_from_document`]'s error.
pub fn read_workflow(path: &Path, require_schedule: bool) -> Result<Workflow, Vec<String>> {
    let resolved = resolve(path);
    if !resolved.is_file() {
        return Err(vec![format!(
            "workflow file not found: {}",
            resolved.display()
        )]);
    }
    let name = resolved
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = std::fs::read_to_string(&resolved)
        .map_err(|error| vec![format!("{} could not be read: {error}", resolved.display())])?;
    let document = match Document::parse(&text, resolved.clone()) {
        Ok(document) => document.value,
        Err(ConfigError::Syntax {
            line,
            column,
            message,
            ..
        }) => {
            return Err(vec![format!(
                "{} is not valid JSON: {message}: line {line} column {column}",
                resolved.display()
            )]);
        }
        Err(other) => return Err(vec![other.to_string()]),
    };
    if !document.is_object() {
        return Err(vec![format!(
            "{name} must be a JSON object, got {}",
            type_name(&document)
        )]);
    }
    let base_dir = resolved.parent().unwrap_or(Path::new("/")).to_path_buf();
    match kind_of(&document) {
        Err(message) => Err(vec![format!("kind: {message}")]),
        Ok(Kind::Workflow) => workflow_from_document(&document, &base_dir, Some(&resolved))
            .map_err(|error| error.problems()),
        Ok(Kind::Pipeline) => {
            workflow_of_config(&document, &resolved, &name, &base_dir, require_schedule)
        }
    }
}

/// [`read_workflow`], with the problems as one error.
///
/// # Errors
///
/// [`ConfigError::Workflow`] with the lines of [`read_workflow`].
pub fn load_workflow(path: &Path, require_schedule: bool) -> Result<Workflow, ConfigError> {
    read_workflow(path, require_schedule).map_err(|lines| ConfigError::Workflow { lines })
}

/// A command-line file path resolved against the current folder, by the rules of
/// [`PathContext`] (`~` expanded, relative to the cwd, symlinks resolved).
pub(super) fn resolve(path: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    PathContext::new(None, &cwd)
        .resolve(&path.to_string_lossy())
        .path
}

/// A dataset config as a workflow of one task: the workflow's identifier and the task's id are
/// the config's identifier, the task runs the file by its name, and the workflow's metadata is
/// the config's schedule, the `size` and `timezone` of its window, and its retries.
fn workflow_of_config(
    document: &Value,
    path: &Path,
    name: &str,
    base_dir: &Path,
    require_schedule: bool,
) -> Result<Workflow, Vec<String>> {
    let config = load(document).map_err(|error| {
        error
            .to_string()
            .lines()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    })?;
    let schedule = config.schedule();
    if schedule.is_none() {
        if require_schedule {
            return Err(vec![format!(
                "{name} is a dataset config with no schedule, so it is not a workflow. Add \
                 metadata.schedule to run it as one, or name it as a task in a workflow file"
            )]);
        }
        if config.metadata.window.is_none() {
            return Err(vec![format!(
                "{name} is a dataset config with no metadata.window and no schedule, so it has \
                 no windows. Set metadata.window.size to day, hour or 15m"
            )]);
        }
    }
    let mut metadata = Map::new();
    if let Some(schedule) = schedule {
        metadata.insert("schedule".into(), Value::from(schedule.text.as_str()));
    }
    if let Some(window) = &config.metadata.window {
        metadata.insert(
            "window".into(),
            json!({"size": window.size.as_str(), "timezone": window.timezone}),
        );
    }
    if let Some(retries) = document["metadata"].get("retries").filter(|r| !r.is_null()) {
        metadata.insert("retries".into(), retries.clone());
    }
    let spec = json!({
        "apiVersion": API_VERSION,
        "kind": "Workflow",
        "identifier": config.identifier,
        "metadata": metadata,
        "tasks": [{"id": config.identifier, "pipeline": name}],
    });
    let (problems, tasks) = check_workflow(&spec);
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Workflow::assemble(
        spec,
        tasks,
        base_dir.to_path_buf(),
        Some(path.to_path_buf()),
        true,
    ))
}
