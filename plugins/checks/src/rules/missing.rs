//! A check whose columns are missing or ambiguous: it cannot be evaluated, and fails with the
//! Python tool's `missing column(s) [...]; the table has [...]` (failing rows 0).

use crate::py::fmt_names;
use crate::rule::Rule;
use ldp_plugin_sdk::prelude::*;
use serde_json::json;

/// The failed rule for `name` when one of `required` is missing from `input` or appears more than
/// once; `None` when every required column is there once.
pub fn column_problem(name: &str, input: &SchemaRef, required: &[String]) -> Option<Box<dyn Rule>> {
    let names: Vec<String> = input.fields().iter().map(|f| f.name().clone()).collect();
    let count = |c: &String| names.iter().filter(|n| *n == c).count();
    let missing: Vec<String> = required.iter().filter(|c| count(c) == 0).cloned().collect();
    let ambiguous: Vec<String> = required.iter().filter(|c| count(c) > 1).cloned().collect();
    if missing.is_empty() && ambiguous.is_empty() {
        return None;
    }
    let mut problems = Vec::new();
    if !missing.is_empty() {
        problems.push(format!("missing column(s) {}", fmt_names(&missing, 10)));
    }
    if !ambiguous.is_empty() {
        problems.push(format!(
            "column(s) {} appear more than once",
            fmt_names(&ambiguous, 10)
        ));
    }
    let details = format!(
        "{}; the table has {}",
        problems.join("; "),
        fmt_names(&names, 20)
    );
    Some(Box::new(Missing {
        name: name.to_owned(),
        details,
        missing,
        ambiguous,
        rows: 0,
    }))
}

struct Missing {
    name: String,
    details: String,
    missing: Vec<String>,
    ambiguous: Vec<String>,
    rows: u64,
}

impl Rule for Missing {
    fn push(&mut self, batch: &RecordBatch) {
        self.rows += batch.num_rows() as u64;
    }

    fn finish(self: Box<Self>, _context: &CheckContext) -> CheckResult {
        let mut metrics = serde_json::Map::new();
        metrics.insert("row_count".into(), json!(self.rows));
        metrics.insert("missing_columns".into(), json!(self.missing));
        if !self.ambiguous.is_empty() {
            metrics.insert("ambiguous_columns".into(), json!(self.ambiguous));
        }
        CheckResult {
            name: self.name,
            passed: false,
            details: self.details,
            failing_rows: 0,
            metrics: serde_json::Value::Object(metrics).to_string(),
        }
    }
}
