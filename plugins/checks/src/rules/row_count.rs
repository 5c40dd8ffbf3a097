//! `row_count`: the number of rows is within inclusive bounds, or equals a number or the rows
//! read from the source (the reference's `RowCount`).
//!
//! Kept across batches: the row count.

use super::metrics_text;
use super::params::{self as p, param};
use crate::rule::Rule;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value};

/// `equals`: a number, or `"source"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Equals {
    /// An exact row count.
    Rows(u64),
    /// The run's source row count.
    Source,
}

/// The parameters of `row_count`.
#[derive(Clone, Debug)]
pub struct Params {
    /// The fewest rows allowed.
    pub min: Option<u64>,
    /// The most rows allowed.
    pub max: Option<u64>,
    /// An exact row count.
    pub equals: Option<Equals>,
}

impl Params {
    /// Reads and validates the parameters.
    ///
    /// # Errors
    ///
    /// The reference's reason (`row_count needs at least one of min, max or equals`...).
    pub fn parse(params: &p::Params) -> Result<Params, String> {
        let (min, max, equals) = (
            param(params, "min"),
            param(params, "max"),
            param(params, "equals"),
        );
        if min.is_none() && max.is_none() && equals.is_none() {
            return Err("row_count needs at least one of min, max or equals".to_owned());
        }
        let min = min.map(|value| p::count("min", value)).transpose()?;
        let max = max.map(|value| p::count("max", value)).transpose()?;
        if let (Some(low), Some(high)) = (min, max)
            && low > high
        {
            return Err(format!("min ({low}) is greater than max ({high})"));
        }
        let equals = match equals {
            None => None,
            Some(Value::String(text)) if text == "source" => Some(Equals::Source),
            Some(value @ Value::String(_)) => {
                return Err(format!(
                    "equals must be a non-negative integer or 'source', got {}",
                    crate::py::json_repr(value)
                ));
            }
            Some(value) => Some(Equals::Rows(p::count("equals", value)?)),
        };
        Ok(Params { min, max, equals })
    }
}

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
