//! How each task kind is planned (the Python tool's `TaskKind.plan`): what `ldp workflow plan`
//! shows and checks about one task, and the Iceberg tables it reads and writes.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::plan::TableRef;
use super::sql::{SqlQuery, SqlTask, not_a_select, query_start, sql_identifier};
use super::tables::{config_tables, tables_of};
use super::{DbtTask, MaintainTask, Task, TaskKind, Workflow};
use crate::error::ConfigError;
use crate::identity::target_identity;
use crate::keys::{idempotency_key, replace_key};
use crate::parse::Document;
use crate::placeholders::find_placeholders;
use crate::plan::{Plan, plan_file};
use crate::python::{get_truthy, py_strip, truthy};
use crate::repr::py_str;
use crate::run_window::{Window, format_instant};

const FILE_TARGET_NOTE: &str = "its target is a file, which every run replaces whole, so the task \
     has no idempotency key and a second run of the window writes the file again";

/// What planning one task found.
#[derive(Debug, Default)]
pub(super) struct Planned {
    pub errors: Vec<String>,
    pub notes: Vec<String>,
    pub details: Map<String, Value>,
    pub reads: Vec<TableRef>,
    pub writes: Vec<TableRef>,
    /// A sql task's query, to find the tables it reads once every task is planned.
    pub query_text: Option<String>,
}

/// Plans one task of `workflow` for `window`.
pub(super) fn plan_task(
    workflow: &Workflow,
    task: &Task,
    window: Option<&Window>,
    replace: bool,
) -> Planned {
    match &task.kind {
        TaskKind::Pipeline(pipeline) => plan_pipeline(workflow, &pipeline.config, window, replace),
        TaskKind::Maintain(maintain) => plan_maintain(workflow, maintain),
        TaskKind::Dbt(dbt) => plan_dbt(dbt, window),
        TaskKind::Sql(sql) => plan_sql(workflow, task, sql, window),
    }
}

/// A file a task names that is not a dataset config: its errors, whether the file is valid as
/// what it is (a valid Workflow file), and its `identifier`.
struct NotAConfig {
    errors: Vec<String>,
    valid: bool,
    identifier: Value,
}

/// `ldp plan` of a config file that a task names; a Workflow file is an error of the task (its
/// own problems, or `x.json is a Workflow, not a dataset config` when it has none).
fn plan_config_file(path: &Path, value: &str, window: Option<&Window>) -> Result<Plan, NotAConfig> {
    let label = window.map(Window::label);
    // The window is given as UTC-Z bounds, so the clock a shortcut would need is never read.
    match plan_file(path, label.as_deref(), jiff::Timestamp::UNIX_EPOCH) {
        Ok(plan) => Ok(plan),
        Err(ConfigError::Invalid { .. }) => {
            let document = Document::read(path).map(|document| document.value);
            let identifier = document
                .as_ref()
                .ok()
                .and_then(|document| document.get("identifier"))
                .cloned()
                .unwrap_or(Value::Null);
            let errors = document
                .map(|document| super::validate_workflow(&document))
                .unwrap_or_default();
            if errors.is_empty() {
                return Err(NotAConfig {
                    errors: vec![format!("{value} is a Workflow, not a dataset config")],
                    valid: true,
                    identifier,
                });
            }
            Err(NotAConfig {
                errors,
                valid: false,
                identifier,
            })
        }
        Err(other) => Err(NotAConfig {
            errors: other.problems(),
            valid: false,
            identifier: Value::Null,
        }),
    }
}

fn plan_pipeline(
    workflow: &Workflow,
    value: &str,
    window: Option<&Window>,
    replace: bool,
) -> Planned {
    let path = workflow.resolve(value);
    let mut outcome = Planned::default();
    outcome.details.insert("config".into(), Value::from(value));
    let plan = match plan_config_file(&path, value, window) {
        Ok(plan) => plan,
        Err(not_a_config) => {
            // As the Python tool plans it: a valid Workflow file is a task that "publishes
            // directly" besides being an error.
            outcome.errors = not_a_config.errors;
            if !not_a_config.identifier.is_null() {
                outcome
                    .details
                    .insert("identifier".into(), not_a_config.identifier);
            }
            if not_a_config.valid {
                outcome.details.insert("publish".into(), "direct".into());
                outcome.notes.push(FILE_TARGET_NOTE.to_owned());
            }
            return outcome;
        }
    };
    outcome.errors.extend(plan.errors.iter().cloned());
    outcome.notes.extend(plan.notes.iter().cloned());
    if !plan.identifier.is_null() {
        outcome
            .details
            .insert("identifier".into(), plan.identifier.clone());
    }
    for (name, field) in [
        ("route", &plan.route),
        ("target", &plan.target),
        ("write_mode", &plan.write_mode),
    ] {
        if let Some(text) = field {
            outcome
                .details
                .insert(name.into(), Value::from(text.as_str()));
        }
    }
    if plan.catalog_type.is_some() {
        // An Iceberg target: the run publishes under the key of the window.
        outcome.details.insert("publish".into(), "staged".into());
        let mut key = plan.idempotency_key.clone();
        if replace {
            outcome.details.insert("replace".into(), Value::Bool(true));
            if plan.valid && plan.window_column.is_none() {
                outcome.errors.push(format!(
                    "{value} has no metadata.window.column, so replacing a window would add its \
                     rows again. Set window.column to the column that holds the time of each row, \
                     so that a replace overwrites only the rows of the window"
                ));
            } else if let (Some(found), Some(hash)) = (&key, &plan.spec_hash) {
                key = match replace_key(found, hash) {
                    Ok(replaced) => Some(replaced),
                    Err(error) => {
                        outcome.errors.push(error.to_string());
                        None
                    }
                };
            }
        }
        if let Some(key) = key {
            outcome.details.insert("idempotency_key".into(), key.into());
        }
    } else if plan.valid {
        outcome.details.insert("publish".into(), "direct".into());
        outcome.notes.push(FILE_TARGET_NOTE.to_owned());
    }
    (outcome.reads, outcome.writes) = config_tables(&path);
    if workflow.schedule.is_some() && outcome.errors.is_empty() && appends_every_window(&path) {
        outcome.notes.push(
            "it appends to its table, and nothing selects the rows of a window, so every window \
             of the workflow's schedule loads the same rows again; put {window_start:FORMAT} in \
             metadata.source.path or set metadata.window.column"
                .to_owned(),
        );
    }
    outcome
}

/// Whether a config run by a scheduled workflow appends to an Iceberg table and selects no rows
/// of a window (no placeholder in its source path, no `window.column`).
fn appends_every_window(path: &Path) -> bool {
    let Ok(document) = Document::read(path) else {
        return false;
    };
    let Some(metadata) = document.value.get("metadata").filter(|m| m.is_object()) else {
        return false;
    };
    let Some(target) = metadata.get("target").filter(|t| t.is_object()) else {
        return false;
    };
    let format = target.get("format").map(py_str).unwrap_or_default();
    if py_strip(&format).to_uppercase() != "ICEBERG" {
        return false;
    }
    let mode = get_truthy(target, "write_mode").map_or("append".to_owned(), py_str);
    let source_path = metadata
        .get("source")
        .and_then(|source| source.get("path"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if py_strip(&mode).to_lowercase() != "append" || !find_placeholders(source_path).is_empty() {
        return false;
    }
    !metadata
        .get("window")
        .filter(|window| window.is_object())
        .and_then(|window| window.get("column"))
        .is_some_and(truthy)
}

fn plan_maintain(workflow: &Workflow, maintain: &MaintainTask) -> Planned {
    let value = &maintain.config;
    let path = workflow.resolve(value);
    let mut outcome = Planned::default();
    outcome
        .details
        .insert("config".into(), Value::from(value.as_str()));
    outcome
        .details
        .insert("dry_run".into(), Value::Bool(!maintain.apply));
    let valid = match plan_config_file(&path, value, None) {
        Ok(plan) => {
            outcome.errors.extend(plan.errors);
            plan.valid
        }
        Err(not_a_config) => {
            outcome.errors.extend(not_a_config.errors);
            not_a_config.valid
        }
    };
    let (reads, writes) = config_tables(&path);
    let table = if writes.is_empty() { reads } else { writes };
    if valid && table.is_empty() {
        outcome
            .errors
            .push(format!("{value} has no Iceberg table to maintain"));
    } else {
        let name = table.first().map(|table| Value::from(table.name.as_str()));
        outcome
            .details
            .insert("table".into(), name.unwrap_or(Value::Null));
    }
    outcome
}

fn plan_dbt(dbt: &DbtTask, window: Option<&Window>) -> Planned {
    let mut outcome = Planned::default();
    let details = &mut outcome.details;
    details.insert("project".into(), Value::from(dbt.project.as_str()));
    details.insert("command".into(), Value::from(dbt.command.as_str()));
    details.insert("target".into(), format!("dbt {}", dbt.command).into());
    if !dbt.select.is_empty() {
        details.insert("select".into(), dbt.select.join(" ").into());
    }
    if !dbt.exclude.is_empty() {
        details.insert("exclude".into(), dbt.exclude.join(" ").into());
    }
    if let Some(window) = window {
        details.insert(
            "window_vars".into(),
            json!({"window_start": format_instant(window.start), "window_end": format_instant(window.end)}),
        );
    }
    outcome
}

fn plan_sql(workflow: &Workflow, task: &Task, sql: &SqlTask, window: Option<&Window>) -> Planned {
    let mut outcome = Planned::default();
    let identifier = sql_identifier(&workflow.identifier, &task.id);
    outcome
        .details
        .insert("identifier".into(), Value::from(identifier.as_str()));
    match &sql.query {
        SqlQuery::Inline(text) => outcome.query_text = Some(text.clone()),
        SqlQuery::File(file) => {
            outcome
                .details
                .insert("query_file".into(), Value::from(file.as_str()));
            let path = workflow.resolve(file);
            match std::fs::read_to_string(&path) {
                Ok(text) => {
                    if let Err(word) = query_start(&text) {
                        outcome.errors.push(format!(
                            "the SQL file {} {}",
                            path.display(),
                            not_a_select(&word)
                        ));
                    }
                    outcome.query_text = Some(text);
                }
                Err(_) if !path.is_file() => outcome
                    .errors
                    .push(format!("the SQL file {} does not exist", path.display())),
                Err(error) => outcome.errors.push(format!(
                    "the SQL file {} cannot be read: {error}",
                    path.display()
                )),
            }
        }
    }
    let document = json!({"metadata": {"target": sql.raw_target}});
    let tables = tables_of(&document, &workflow.base_dir);
    if let Some(table) = tables.1.first() {
        outcome
            .details
            .insert("target".into(), Value::from(table.name.as_str()));
    }
    outcome
        .details
        .insert("write_mode".into(), sql.write_mode.as_str().into());
    outcome.details.insert("publish".into(), "staged".into());
    if let Some(window) = window {
        let key = target_identity(&document, Some(&workflow.base_dir))
            .and_then(|target| idempotency_key(&identifier, &target, Some(window)));
        match key {
            Ok(key) => {
                outcome.details.insert("idempotency_key".into(), key.into());
            }
            Err(error) => outcome.errors.push(error.to_string()),
        }
    }
    outcome.writes = tables.1;
    outcome
}
