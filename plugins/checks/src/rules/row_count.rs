//! `row_count`: the number of rows is within inclusive bounds, or equals a number or the rows
//! read from the source (the Python tool's `RowCount`).
//!
//! Kept across batches: the row count.

use super::metrics_text;
use crate::rule::Rule;
use ldp_check_params::{RowCount as Params, RowCountEquals as Equals};
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value};

/// The rule: counts rows.
pub struct RowCount {
    name: String,
    params: Params,
    rows: u64,
}

impl RowCount {
    /// A rule named `name`.
    pub fn new(name: String, params: Params) -> RowCount {
        RowCount {
            name,
            params,
            rows: 0,
        }
    }
}

impl Rule for RowCount {
    fn push(&mut self, batch: &RecordBatch) {
        self.rows += batch.num_rows() as u64;
    }

    fn finish(self: Box<Self>, context: &CheckContext) -> CheckResult {
        let rows = self.rows;
        let mut metrics = Map::new();
        metrics.insert("row_count".into(), rows.into());
        let mut expectations: Vec<(String, bool)> = Vec::new();
        if let Some(min) = self.params.min {
            metrics.insert("min".into(), min.into());
            expectations.push((format!(">= {min}"), rows >= min));
        }
        if let Some(max) = self.params.max {
            metrics.insert("max".into(), max.into());
            expectations.push((format!("<= {max}"), rows <= max));
        }
        if let Some(equals) = self.params.equals {
            let (expected, label) = match equals {
                Equals::Rows(expected) => (expected, format!("== {expected}")),
                Equals::Source => {
                    let Some(source) = context.source_rows else {
                        return CheckResult {
                            name: self.name,
                            passed: false,
                            details: format!(
                                "{}; equals='source' needs an integer context['source_rows'], got None",
                                crate::py::rows(rows)
                            ),
                            failing_rows: 0,
                            metrics: metrics_text(metrics),
                        };
                    };
                    metrics.insert("source_rows".into(), source.into());
                    (source, format!("== {source} (source rows)"))
                }
            };
            metrics.insert("expected".into(), expected.into());
            metrics.insert(
                "difference".into(),
                (i128::from(rows) - i128::from(expected))
                    .try_into()
                    .map(|d: i64| Value::from(d))
                    .unwrap_or(Value::Null),
            );
            expectations.push((label, rows == expected));
        }
        let passed = expectations.iter().all(|(_, ok)| *ok);
        let wanted: Vec<&str> = expectations
            .iter()
            .map(|(label, _)| label.as_str())
            .collect();
        let wanted = wanted.join(" and ");
        let details = if passed {
            format!("{} (expected {wanted})", crate::py::rows(self.rows))
        } else {
            format!("{}, expected {wanted}", crate::py::rows(self.rows))
        };
        CheckResult {
            name: self.name,
            passed,
            details,
            failing_rows: 0,
            metrics: metrics_text(metrics),
        }
    }
}
