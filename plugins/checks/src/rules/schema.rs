//! `schema`: the input has the given columns and, optionally, exactly the given types (the
//! reference's `SchemaHas`); extra columns are allowed, `string` does not match `large_string`,
//! `timestamp[us]` does not match `timestamp[ns]` or `timestamp[us, tz=UTC]`.
//!
//! The verdict depends on the schema alone, so it is decided when the rule is built; kept across
//! batches: the row count.

use super::metrics_text;
use super::params::{self as p, required};
use crate::py::{fmt_names, json_repr};
use crate::rule::Rule;
use crate::types::{parse_type, type_name};
use arrow_schema::DataType;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value};

/// The parameters of `schema`: each column with its expected type, if any.
#[derive(Clone, Debug)]
pub struct Params {
    /// The columns in order, with the type each must have (`None`: any type).
    pub columns: Vec<(String, Option<DataType>)>,
}

impl Params {
    /// Reads and validates the parameters.
    ///
    /// # Errors
    ///
    /// The reference's reason (`unknown pyarrow type 'int65'; ...`).
    pub fn parse(params: &p::Params) -> Result<Params, String> {
        let value = required(params, "columns");
        let Some(map) = value.as_object() else {
            let names = p::columns(value)?;
            return Ok(Params {
                columns: names.into_iter().map(|n| (n, None)).collect(),
            });
        };
        if map.is_empty() {
            return Err("columns must name at least one column".to_owned());
        }
        let mut columns = Vec::with_capacity(map.len());
        for (name, spec) in map {
            let name = p::column(&Value::from(name.as_str()))?;
            let Some(text) = spec.as_str() else {
                return Err(format!(
                    "a column type must be a pyarrow type string such as 'int64', got {}",
                    json_repr(spec)
                ));
            };
            columns.push((name, Some(parse_type(text)?)));
        }
        Ok(Params { columns })
    }
}

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
    pub fn new(name: String, params: Params, input: &SchemaRef) -> Schema {
        let fields = input.fields();
        let count = |column: &str| fields.iter().filter(|f| f.name() == column).count();
        let missing: Vec<String> = params
            .columns
            .iter()
            .filter(|(c, _)| count(c) == 0)
            .map(|(c, _)| c.clone())
            .collect();
        let ambiguous: Vec<String> = params
            .columns
            .iter()
            .filter(|(c, _)| count(c) > 1)
            .map(|(c, _)| c.clone())
            .collect();
        let mut mismatches = Map::new();
        let mut problems_of_types = Vec::new();
        for (column, expected) in &params.columns {
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
        let names: Vec<String> = params.columns.iter().map(|(c, _)| c.clone()).collect();
        let passed = missing.is_empty() && mismatches.is_empty() && ambiguous.is_empty();
        let details = if passed {
            let typed = if params.columns.iter().any(|(_, t)| t.is_some()) {
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
