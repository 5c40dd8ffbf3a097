//! How `ldp workflow plan FILE` prints a [`WorkflowPlan`]: `--json` as Python's
//! `json.dumps(plan, indent=2)` writes it (2-space indent, keys in document order, non-ASCII
//! escaped), and the human form.
//!
//! The human form of a plan whose file could be read is, on stdout, `name  value` lines
//! (`workflow`, `file`, `schedule` when there is one as `5 2 * * * (from metadata.schedule)`,
//! `timezone`, `window` when there is one, `tasks` and their count), a blank line, and the
//! table `order id kind depends_on runs target key` (the key cut to 12 characters, `-` for
//! none), with an `attempts` column when a task is retried, then `(N rows)`. On stderr: `N
//! problems:` (`1 problem:`) and `  - <error>` lines, then `warning: <warning>` lines.

use serde_json::Value;

use super::plan::{TaskPlan, WorkflowPlan};
use crate::canonical::python_json_pretty;

/// The human output of a workflow plan, one entry per line (without newlines).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkflowPlanText {
    /// What goes to stdout.
    pub stdout: Vec<String>,
    /// What goes to stderr: the problems, then the warnings.
    pub stderr: Vec<String>,
}

impl WorkflowPlan {
    /// The `--json` output (without the final newline `print` adds).
    pub fn to_json_text(&self) -> String {
        match serde_json::to_value(self) {
            Ok(value) => python_json_pretty(&value),
            Err(error) => format!("{{\"error\": {:?}}}", error.to_string()),
        }
    }

    /// The human output.
    pub fn render_lines(&self) -> WorkflowPlanText {
        let mut text = WorkflowPlanText::default();
        if let Some(workflow) = &self.workflow {
            let none = || "None".to_owned();
            let mut lines: Vec<(&str, String)> = vec![
                ("workflow", workflow.clone()),
                ("file", self.file.clone().unwrap_or_else(none)),
            ];
            if let Some(schedule) = self.schedule.as_ref().filter(|s| !s.is_empty()) {
                let from = self.schedule_from.clone().unwrap_or_else(none);
                lines.push(("schedule", format!("{schedule} (from {from})")));
            }
            lines.push(("timezone", self.timezone.clone().unwrap_or_else(none)));
            if let Some(window) = self.window.as_ref().filter(|w| !w.is_empty()) {
                lines.push(("window", window.clone()));
            }
            lines.push(("tasks", self.tasks.len().to_string()));
            let width = lines.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
            for (name, value) in lines {
                text.stdout.push(format!("{name:<width$}  {value}"));
            }
            text.stdout.push(String::new());
            text.stdout.extend(task_table(&self.tasks));
        }
        if !self.errors.is_empty() {
            let count = self.errors.len();
            text.stderr.push(format!(
                "{count} problem{}:",
                if count == 1 { "" } else { "s" }
            ));
            text.stderr
                .extend(self.errors.iter().map(|error| format!("  - {error}")));
        }
        text.stderr.extend(
            self.warnings
                .iter()
                .map(|warning| format!("warning: {warning}")),
        );
        text
    }
}

/// The first truthy string among a task's details.
fn detail(task: &TaskPlan, keys: &[&str]) -> String {
    keys.iter()
        .filter_map(|key| task.details.get(*key))
        .find_map(|value| match value {
            Value::String(text) if !text.is_empty() => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "-".to_owned())
}

/// The Python tool's `format_table` of the task rows: a header, dashes as wide as each column,
/// the rows (numbers right-aligned, two spaces between columns, trailing spaces stripped), and
/// `(N rows)`.
fn task_table(tasks: &[TaskPlan]) -> Vec<String> {
    if tasks.is_empty() {
        return vec!["(no columns)".to_owned()];
    }
    let retried = tasks.iter().any(|task| task.retries.is_some());
    let mut header = vec!["order", "id", "kind", "depends_on", "runs", "target", "key"];
    if retried {
        header.push("attempts");
    }
    let numeric: Vec<bool> = header
        .iter()
        .map(|name| matches!(*name, "order" | "attempts"))
        .collect();
    let rows: Vec<Vec<String>> = tasks
        .iter()
        .map(|task| {
            let depends_on = if task.depends_on.is_empty() {
                "-".to_owned()
            } else {
                task.depends_on.join(", ")
            };
            let key = detail(task, &["idempotency_key"]);
            let mut row = vec![
                task.order.to_string(),
                task.id.clone(),
                task.kind.clone(),
                depends_on,
                detail(task, &["config", "project", "query_file"]),
                detail(task, &["target", "table"]),
                key.chars().take(12).collect(),
            ];
            if retried {
                let attempts = task.retries.map_or(1, |retries| retries.max_attempts);
                row.push(attempts.to_string());
            }
            row
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|column| {
            rows.iter()
                .map(|row| row[column].chars().count())
                .chain([header[column].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let render = |cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .zip(&numeric)
            .map(|((cell, &width), &right)| {
                if right {
                    format!("{cell:>width$}")
                } else {
                    format!("{cell:<width$}")
                }
            })
            .collect();
        parts.join("  ").trim_end().to_owned()
    };
    let header: Vec<String> = header.iter().map(|name| (*name).to_owned()).collect();
    let mut lines = vec![
        render(&header),
        widths
            .iter()
            .map(|width| "-".repeat(*width))
            .collect::<Vec<_>>()
            .join("  "),
    ];
    lines.extend(rows.iter().map(|row| render(row)));
    let count = tasks.len();
    lines.push(format!(
        "({count} row{})",
        if count == 1 { "" } else { "s" }
    ));
    lines
}
