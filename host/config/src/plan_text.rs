//! How `ldp plan FILE` prints a [`Plan`]: `--json` as the Python tool's `json.dumps(plan,
//! indent=2)`, and the human form.
//!
//! The human form of a valid plan is `name  value` lines on stdout, the names padded to the
//! longest one plus two spaces, in this order: `config`, `identifier`, `apiVersion`,
//! `spec_hash`, `route` (`CSV -> ICEBERG [CSVToIceberg]`), `target`, `write_mode`, `catalog`
//! (when there is one), `quality` (`3 checks, on_failure=fail`), `sinks` (`jsonl`, or `none
//! (events are dropped)`), `schedule` (`5 2 * * * (from metadata.schedule)`, when there is
//! one), `window_size`, `window_column` and `timezone` (when a window is declared),
//! `source_path` (when templated), `window` and `idempotency_key` (with a window); then one
//! `note: …` line per note. An invalid plan prints `<file>: N problems:` (`1 problem:`) and
//! `  - <problem>` lines on stderr. Either way a `warning: …` line per key ldp ignores follows
//! on stderr.

use crate::canonical::python_json_pretty;
use crate::plan::Plan;
use crate::repr::py_str;

/// The human output of a plan: what goes to stdout and to stderr (each line ends with `\n`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlanText {
    /// The plan's lines and notes (empty for an invalid plan).
    pub stdout: String,
    /// The problems of an invalid plan, then the warnings.
    pub stderr: String,
}

impl Plan {
    /// The `--json` output (without the final newline `print` adds).
    pub fn to_json_text(&self) -> String {
        match serde_json::to_value(self) {
            Ok(value) => python_json_pretty(&value),
            Err(error) => format!("{{\"error\": {:?}}}", error.to_string()),
        }
    }

    /// The human output.
    pub fn render_text(&self) -> PlanText {
        let text = |value: &Option<String>| value.clone().unwrap_or_else(|| "None".to_owned());
        let config = text(&self.config);
        if !self.valid {
            let count = self.errors.len();
            let mut stderr = format!(
                "{config}: {count} problem{}:\n",
                if count == 1 { "" } else { "s" }
            );
            for error in &self.errors {
                stderr.push_str(&format!("  - {error}\n"));
            }
            stderr.push_str(&self.warning_lines());
            return PlanText {
                stdout: String::new(),
                stderr,
            };
        }
        let mut lines: Vec<(&str, String)> = vec![
            ("config", config),
            ("identifier", py_str(&self.identifier)),
            ("apiVersion", py_str(&self.api_version)),
            ("spec_hash", text(&self.spec_hash)),
            (
                "route",
                format!("{} [{}]", text(&self.route), text(&self.pipeline)),
            ),
            ("target", text(&self.target)),
            ("write_mode", text(&self.write_mode)),
        ];
        if let Some(catalog) = self.catalog_type.as_ref().filter(|c| !c.is_empty()) {
            lines.push(("catalog", catalog.clone()));
        }
        lines.push((
            "quality",
            format!(
                "{} checks, on_failure={}",
                self.checks,
                text(&self.on_failure)
            ),
        ));
        let sinks = if self.sinks.is_empty() {
            "none (events are dropped)".to_owned()
        } else {
            self.sinks.join(", ")
        };
        lines.push(("sinks", sinks));
        if let Some(schedule) = self.schedule.as_ref().filter(|s| !s.is_empty()) {
            lines.push((
                "schedule",
                format!("{schedule} (from {})", text(&self.schedule_from)),
            ));
        }
        if let Some(size) = self.window_size.as_ref().filter(|s| !s.is_empty()) {
            lines.push(("window_size", size.clone()));
            if let Some(column) = self.window_column.as_ref().filter(|c| !c.is_empty()) {
                lines.push(("window_column", column.clone()));
            }
            lines.push(("timezone", text(&self.timezone)));
        }
        if self
            .source_path_template
            .as_ref()
            .is_some_and(|template| !template.is_empty())
        {
            lines.push(("source_path", py_str(&self.source_path)));
        }
        if let Some(window) = self.window.as_ref().filter(|w| !w.is_empty()) {
            lines.push(("window", window.clone()));
            lines.push(("idempotency_key", text(&self.idempotency_key)));
        }
        for plugin in &self.plugins {
            lines.push(("plugin", plugin.summary()));
        }
        let width = lines.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
        let mut stdout = String::new();
        for (name, value) in lines {
            stdout.push_str(&format!("{name:<width$}  {value}\n"));
        }
        for note in &self.notes {
            stdout.push_str(&format!("note: {note}\n"));
        }
        PlanText {
            stdout,
            stderr: self.warning_lines(),
        }
    }

    fn warning_lines(&self) -> String {
        self.warnings
            .iter()
            .map(|warning| format!("warning: {warning}\n"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    #[test]
    fn invalid_plans_list_their_problems() {
        let mut plan = crate::plan::plan_document(
            &serde_json::json!({"identifier": "x"}),
            None,
            None,
            jiff::Timestamp::UNIX_EPOCH,
        )
        .expect("plan");
        assert_eq!(
            plan.render_text().stderr,
            "None: 1 problem:\n  - metadata: is required and must be an object with 'source' and 'target'\n"
        );
        plan.errors.push("second".to_owned());
        assert!(plan.render_text().stderr.starts_with("None: 2 problems:\n"));
        assert_eq!(plan.identifier, Value::from("x"));
    }
}
