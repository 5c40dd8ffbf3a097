//! `schema`: the input has the given columns and, optionally, exactly the given types (the
//! Python tool's `SchemaHas`); extra columns are allowed, `string` does not match `large_string`,
//! `timestamp[us]` does not match `timestamp[ns]` or `timestamp[us, tz=UTC]`.
//!
//! The verdict depends on the schema alone, so it is decided when the rule is built; kept across
//! batches: the row count.

use super::metrics_text;
use crate::py::fmt_names;
use crate::rule::Rule;
use crate::types::{data_type, type_name};
use arrow_schema::DataType;
use ldp_check_params::Schema as Params;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value};

/// The rule: the verdict, decided from the schema, and the row count.
pub struct Schema {
    name: String,
    passed: bool,
    details: String,
    missing: Vec<String>,
    ambiguous: Vec<String>,
    mismatches: Map<String, Value>,
    rows: u64,
}

impl Schema {
    /// The rule for batches of `input`.
    pub fn new(name: String, params: &Params, input: &SchemaRef) -> Schema {
        let columns: Vec<(String, Option<DataType>)> = params
            .columns
            .iter()
            .map(|(column, expected)| (column.clone(), expected.as_ref().map(data_type)))
            .collect();
        let fields = input.fields();
        let count = |column: &str| fields.iter().filter(|f| f.name() == column).count();
        let missing: Vec<String> = columns
            .iter()
            .filter(|(c, _)| count(c) == 0)
            .map(|(c, _)| c.clone())
            .collect();
        let ambiguous: Vec<String> = columns
            .iter()
            .filter(|(c, _)| count(c) > 1)
            .map(|(c, _)| c.clone())
            .collect();
        let mut mismatches = Map::new();
        let mut problems_of_types = Vec::new();
        for (column, expected) in &columns {
            let Some(expected) = expected else { continue };
            if missing.contains(column) {
                continue;
            }
            let actual: Vec<&DataType> = fields
                .iter()
                .filter(|f| f.name() == column)
                .map(|f| f.data_type())
                .collect();
            if actual.iter().all(|t| *t == expected) {
                continue;
            }
            let actual: Vec<String> = actual.iter().map(|t| type_name(t)).collect();
            let (expected, actual) = (type_name(expected), actual.join(", "));
            problems_of_types.push(format!("{column} is {actual}, expected {expected}"));
            let mut item = Map::new();
            item.insert("expected".into(), expected.into());
            item.insert("actual".into(), actual.into());
            mismatches.insert(column.clone(), Value::Object(item));
        }
        let names: Vec<String> = columns.iter().map(|(c, _)| c.clone()).collect();
        let passed = missing.is_empty() && mismatches.is_empty() && ambiguous.is_empty();
        let details = if passed {
            let typed = if columns.iter().any(|(_, t)| t.is_some()) {
                " with the expected types"
            } else {
                ""
            };
            format!(
                "has the expected column(s) {}{typed}",
                fmt_names(&names, 10)
            )
        } else {
            let mut problems = Vec::new();
            if !missing.is_empty() {
                problems.push(format!("missing column(s) {}", fmt_names(&missing, 10)));
            }
            problems.extend(problems_of_types);
            if !ambiguous.is_empty() {
                problems.push(format!(
                    "column(s) {} appear more than once",
                    fmt_names(&ambiguous, 10)
                ));
            }
            problems.join("; ")
        };
        Schema {
            name,
            passed,
            details,
            missing,
            ambiguous,
            mismatches,
            rows: 0,
        }
    }
}

impl Rule for Schema {
    fn push(&mut self, batch: &RecordBatch) {
        self.rows += batch.num_rows() as u64;
    }

    fn finish(self: Box<Self>, _context: &CheckContext) -> CheckResult {
        let mut metrics = Map::new();
        metrics.insert("row_count".into(), self.rows.into());
        metrics.insert("missing_columns".into(), self.missing.into());
        metrics.insert("type_mismatches".into(), Value::Object(self.mismatches));
        if !self.ambiguous.is_empty() {
            metrics.insert("ambiguous_columns".into(), self.ambiguous.into());
        }
        CheckResult {
            name: self.name,
            passed: self.passed,
            details: self.details,
            failing_rows: 0,
            metrics: metrics_text(metrics),
        }
    }
}
