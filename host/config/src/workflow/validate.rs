//! Validation of a workflow file: every problem, each prefixed by its JSON path, in the order
//! the Python tool reports them: unknown top-level keys →
//! `apiVersion` → `identifier` → who…how types → `metadata` (unknown keys, schedule, window,
//! window column, catchup, start, catch-up without start, retries, observability) → `tasks`
//! (ids first, then each task's keys, kind, depends_on and retries) → the cycle (only when
//! nothing else is wrong) → inline secrets. No file is read: what the task paths point at is
//! checked by the plan.

use serde_json::{Map, Value};

use super::dbt::check_dbt;
use super::graph::find_cycle;
use super::maintain::check_maintain;
use super::sql::check_sql;
use super::task::{TASK_KEYS, TASK_KINDS, Task, TaskKind, check_pipeline};
use super::{WORKFLOW_KEYS, WORKFLOW_METADATA_KEYS};
use crate::isoformat::fromisoformat;
use crate::observability::sink_specs;
use crate::problems::{Problems, get, unknown_keys};
use crate::python::py_strip;
use crate::repr::{repr, repr_list, repr_str, type_name};
use crate::retries::check_retries;
use crate::schedule::{ScheduleFrom, parse_schedule};
use crate::secrets::find_inline_secrets;
use crate::validate::check_header;
use crate::window::check_window;

/// Every problem of a workflow document, each prefixed by its JSON path (empty when valid),
/// worded as the Python tool words them, e.g. `tasks[1].depends_on[0]: unknown task id 'b'; the
/// ids are ['a', 'c']` or `tasks: depend on each other in a cycle: a -> b -> a`.
pub fn validate_workflow(document: &Value) -> Vec<String> {
    check_workflow(document).0
}

/// The problems of a workflow document, and its tasks (in file order) when there are none.
pub(super) fn check_workflow(document: &Value) -> (Vec<String>, Vec<Task>) {
    let Some(spec) = document.as_object() else {
        return (
            vec![format!(
                "a workflow must be a JSON object, got {}",
                type_name(document)
            )],
            Vec::new(),
        );
    };
    let mut problems = Problems::default();
    check_header(&mut problems, spec, &WORKFLOW_KEYS);
    match spec.get("metadata") {
        None => {}
        Some(Value::Object(metadata)) => check_metadata(&mut problems, metadata),
        Some(other) => problems.add(
            "metadata",
            format!("must be an object, got {}", type_name(other)),
        ),
    }
    let mut tasks = Vec::new();
    match spec.get("tasks") {
        Some(Value::Array(items)) if !items.is_empty() => {
            tasks = check_tasks(&mut problems, items);
        }
        _ => problems.add(
            "tasks",
            "is required and must be a list of at least one task",
        ),
    }
    for secret in find_inline_secrets(document) {
        problems.add("", secret);
    }
    let problems = problems.into_vec();
    if !problems.is_empty() {
        tasks.clear();
    }
    (problems, tasks)
}

fn check_metadata(problems: &mut Problems, metadata: &Map<String, Value>) {
    problems.reject_unknown_keys("metadata", metadata, &WORKFLOW_METADATA_KEYS);
    if let Some(raw) = get(metadata, "schedule")
        && let Err(message) = parse_schedule(raw, ScheduleFrom::Metadata)
    {
        problems.add("metadata.schedule", message);
    }
    check_window(problems, metadata.get("window"));
    if let Some(Value::Object(window)) = metadata.get("window")
        && window.contains_key("column")
    {
        problems.add(
            "metadata.window.column",
            "does not belong in a workflow, because each dataset config names the window column \
             that selects its own rows",
        );
    }
    if let Some(catchup) = metadata.get("catchup")
        && !catchup.is_boolean()
    {
        problems.add(
            "metadata.catchup",
            format!("must be true or false, got {}", repr(catchup)),
        );
    }
    if let Some(start) = metadata.get("start")
        && !is_iso_date_or_time(start)
    {
        problems.add(
            "metadata.start",
            format!("must be an ISO-8601 date or time, got {}", repr(start)),
        );
    }
    if metadata.get("catchup") == Some(&Value::Bool(true)) && !metadata.contains_key("start") {
        problems.add(
            "metadata.catchup",
            "is true, and a catch-up needs metadata.start, the first window it runs",
        );
    }
    if metadata.contains_key("retries") {
        check_retries(problems, metadata.get("retries"), "metadata.retries");
    }
    if let Some(observability) = metadata.get("observability") {
        let mut only = Map::new();
        only.insert("observability".to_owned(), observability.clone());
        if let Err(message) = sink_specs(&only) {
            problems.add("", message);
        }
    }
}

/// Python's `datetime.fromisoformat` of the trimmed text with `Z` read as `+00:00`.
fn is_iso_date_or_time(value: &Value) -> bool {
    let Some(text) = value.as_str().map(py_strip).filter(|text| !text.is_empty()) else {
        return false;
    };
    fromisoformat(&text.replace(['Z', 'z'], "+00:00")).is_some()
}

/// Checks the ids, then each task; then, when nothing at all is wrong so far, the cycle.
fn check_tasks(problems: &mut Problems, items: &[Value]) -> Vec<Task> {
    let mut ids: Vec<String> = Vec::new();
    for (position, item) in items.iter().enumerate() {
        let here = format!("tasks[{position}]");
        let Some(task) = item.as_object() else {
            problems.add(&here, "must be an object with an 'id'");
            continue;
        };
        match task.get("id").and_then(Value::as_str) {
            Some(id) if !py_strip(id).is_empty() => {
                if ids.iter().any(|seen| seen == id) {
                    problems.add(
                        &format!("{here}.id"),
                        format!("{} is the id of an earlier task", repr_str(id)),
                    );
                } else {
                    ids.push(id.to_owned());
                }
            }
            _ => problems.add(
                &format!("{here}.id"),
                "is required and must be a non-empty string",
            ),
        }
    }
    let mut tasks = Vec::new();
    for (position, item) in items.iter().enumerate() {
        if let Some(task) = item.as_object()
            && let Some(task) = check_task(problems, position, task, &ids)
        {
            tasks.push(task);
        }
    }
    if !problems.is_empty() {
        return Vec::new();
    }
    let graph: Vec<(&str, &[String])> = tasks
        .iter()
        .map(|task| (task.id.as_str(), task.depends_on.as_slice()))
        .collect();
    if let Some(cycle) = find_cycle(&graph) {
        problems.add(
            "tasks",
            format!("depend on each other in a cycle: {}", cycle.join(" -> ")),
        );
        return Vec::new();
    }
    tasks
}

fn check_task(
    problems: &mut Problems,
    position: usize,
    task: &Map<String, Value>,
    ids: &[String],
) -> Option<Task> {
    let here = format!("tasks[{position}]");
    let before = problems.len();
    let allowed: Vec<&str> = TASK_KEYS.iter().chain(TASK_KINDS.iter()).copied().collect();
    let unknown = unknown_keys(task, &allowed);
    if !unknown.is_empty() {
        problems.add(
            &here,
            format!(
                "has unknown keys {}; a task has an id, depends_on, retries and one task kind of {}",
                repr_list(&unknown),
                repr_list(&TASK_KINDS)
            ),
        );
    }
    let present: Vec<&str> = TASK_KINDS
        .iter()
        .copied()
        .filter(|kind| task.contains_key(*kind))
        .collect();
    if present.len() != 1 {
        let has = if present.is_empty() {
            "none".to_owned()
        } else {
            format!("{}: {}", present.len(), repr_list(&present))
        };
        problems.add(
            &here,
            format!(
                "needs exactly one task kind of {}, and has {has}",
                repr_list(&TASK_KINDS)
            ),
        );
    }
    let kind = present.first().and_then(|&name| {
        let value = &task[name];
        let at = format!("{here}.{name}");
        match name {
            "pipeline" => check_pipeline(problems, value, &at).map(TaskKind::Pipeline),
            "maintain" => check_maintain(problems, value, &at).map(TaskKind::Maintain),
            "dbt" => check_dbt(problems, value, &at).map(TaskKind::Dbt),
            _ => check_sql(problems, value, &at).map(|sql| TaskKind::Sql(Box::new(sql))),
        }
    });
    let own_id = task.get("id");
    let depends_on = match task.get("depends_on") {
        None => Vec::new(),
        Some(Value::Array(items)) => {
            for (place, dependency) in items.iter().enumerate() {
                let label = format!("{here}.depends_on[{place}]");
                let Some(name) = dependency.as_str() else {
                    problems.add(
                        &label,
                        format!("must be a task id, got {}", repr(dependency)),
                    );
                    continue;
                };
                if Some(dependency) == own_id {
                    problems.add(&label, format!("{} is the task itself", repr_str(name)));
                } else if !ids.iter().any(|id| id == name) {
                    problems.add(
                        &label,
                        format!(
                            "unknown task id {}; the ids are {}",
                            repr_str(name),
                            repr_list(ids)
                        ),
                    );
                } else if items[..place].contains(dependency) {
                    problems.add(&label, format!("{} is listed twice", repr_str(name)));
                }
            }
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        }
        Some(other) => {
            problems.add(
                &format!("{here}.depends_on"),
                format!("must be a list of task ids, got {}", repr(other)),
            );
            return None;
        }
    };
    if task.contains_key("retries") {
        check_retries(problems, task.get("retries"), &format!("{here}.retries"));
    }
    if problems.len() > before {
        return None;
    }
    Some(Task {
        id: task.get("id").and_then(Value::as_str)?.to_owned(),
        index: position,
        depends_on,
        retries: task.get("retries").cloned(),
        kind: kind?,
    })
}
