//! The temporal checks (the reference's `quality/temporal.py`): `monotonic`, `max_skew`,
//! `rate_below` and `max_gap`, streaming over batches.
//!
//! What each keeps across batches:
//!
//! - `monotonic` in table order: per group its key, its last value and, over all groups, the
//!   first five violations (by group key order, then row), plus counts. With `order_by` the rows
//!   must be sorted, so it keeps per checked row its row index (8 bytes), `order_by` value and
//!   value (8 bytes each for numbers, the bytes for strings) and key id (4 bytes, with
//!   `group_by`), and sorts them at the end.
//! - `max_skew`: counts, the largest skew, the partial sums of Arrow's pairwise sum (for the
//!   mean; a few floats) and the first five rows over the limit.
//! - `rate_below`: the true and null counts, and per group its key and two counts.
//! - `max_gap`: sorts by time, so it keeps per checked row its row index and time value
//!   (8 bytes each) and key id (4 bytes, with `group_by`), plus each group's key.
//!
//! Group keys are looked up by their bytes, without allocating for a key seen before.
//! Rows with a null or NaN in a checked value are skipped and counted, groups follow Arrow's
//! equality (null keys form one group), and an Arrow error the reference would hit on the same
//! data (an integer overflow, a type it can't sort) gives its `could not be evaluated: ...`.

mod keys;
mod max_gap;
mod max_skew;
mod monotonic;
mod rate_below;
mod show;
#[cfg(test)]
mod tests;
mod time;
mod value;

use arrow_array::Array;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value};

use crate::rule::Rule;
use crate::rules::missing::column_problem;
use keys::{Equality, Groups};
use time::Unit;
use value::Reader;

/// Builds the rule of a temporal check: `check` is the lower-cased check name, `item` its config
/// object, `name` the configured display name (else the reference's default name is used).
pub fn build(
    check: &str,
    item: &Map<String, Value>,
    name: Option<String>,
    input: &SchemaRef,
) -> Result<Box<dyn Rule>, PluginError> {
    let params = Params { item };
    match check {
        "monotonic" => monotonic::build(&params, name, input),
        "max_skew" => max_skew::build(&params, name, input),
        "rate_below" => rate_below::build(&params, name, input),
        "max_gap" => max_gap::build(&params, name, input),
        other => Err(PluginError::config(format!(
            "unknown check {}",
            crate::py::str_repr(other)
        ))),
    }
}

/// The parameters of one check item, read with the reference's validation messages.
struct Params<'a> {
    item: &'a Map<String, Value>,
}

impl Params<'_> {
    /// A parameter; `None` when absent or null (the default).
    fn get(&self, key: &str) -> Option<&Value> {
        self.item.get(key).filter(|value| !value.is_null())
    }

    /// A required column name.
    fn column(&self, key: &str) -> Result<String, PluginError> {
        match self.get(key) {
            Some(Value::String(text)) if !text.is_empty() => Ok(text.clone()),
            other => Err(invalid(format!(
                "a column name must be a non-empty string, got {}",
                repr(other)
            ))),
        }
    }

    /// An optional column name.
    fn optional_column(&self, key: &str) -> Result<Option<String>, PluginError> {
        self.get(key).map(|_| self.column(key)).transpose()
    }

    /// An optional column name or list of names, de-duplicated in order (empty when absent).
    fn columns(&self, key: &str) -> Result<Vec<String>, PluginError> {
        let items: Vec<&Value> = match self.get(key) {
            None => return Ok(Vec::new()),
            Some(value @ Value::String(_)) => vec![value],
            Some(Value::Array(items)) if items.is_empty() => {
                return Err(invalid("columns must name at least one column".to_owned()));
            }
            Some(Value::Array(items)) => items.iter().collect(),
            Some(other) => {
                return Err(invalid(format!(
                    "columns must be a column name or a list of names, got {}",
                    repr(Some(other))
                )));
            }
        };
        let mut names: Vec<String> = Vec::new();
        for item in items {
            match item {
                Value::String(text) if !text.is_empty() => {
                    if !names.contains(text) {
                        names.push(text.clone());
                    }
                }
                other => {
                    return Err(invalid(format!(
                        "a column name must be a non-empty string, got {}",
                        repr(Some(other))
                    )));
                }
            }
        }
        Ok(names)
    }

    /// An optional boolean (false when absent).
    fn flag(&self, key: &str) -> Result<bool, PluginError> {
        match self.get(key) {
            None => Ok(false),
            Some(Value::Bool(flag)) => Ok(*flag),
            other => Err(invalid(format!(
                "{key} must be true or false, got {}",
                repr(other)
            ))),
        }
    }

    /// A required finite number accepted by `valid`, with the config's JSON value (printed as
    /// given: `3600000` or `0.5`).
    fn number(
        &self,
        key: &str,
        valid: fn(f64) -> bool,
        wanted: &str,
    ) -> Result<(f64, Value), PluginError> {
        match self.get(key) {
            Some(value @ Value::Number(number)) => match number.as_f64() {
                Some(x) if x.is_finite() && valid(x) => Ok((x, value.clone())),
                _ => Err(invalid(format!(
                    "{key} must be {wanted}, got {}",
                    repr(Some(value))
                ))),
            },
            other => Err(invalid(format!(
                "{key} must be a number, got {}",
                repr(other)
            ))),
        }
    }

    /// `unit` (`ms` when absent).
    fn unit(&self) -> Result<Unit, PluginError> {
        match self.get("unit") {
            None => Ok(Unit::Ms),
            Some(value) => value.as_str().and_then(Unit::parse).ok_or_else(|| {
                invalid(format!(
                    "unit must be one of ['s', 'ms', 'us', 'ns'], got {}",
                    repr(Some(value))
                ))
            }),
        }
    }
}

/// A config error with the reference's reason (`max_ms must be a positive number, got 0`); the
/// caller prefixes it with the item (`quality check #1 (max_gap) is invalid: `).
fn invalid(message: String) -> PluginError {
    PluginError::config(message)
}

/// Python's `repr` of a config value (`None`, `True`, `'x'`, `[1, 2]`).
fn repr(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => "None".to_owned(),
        Some(Value::Bool(true)) => "True".to_owned(),
        Some(Value::Bool(false)) => "False".to_owned(),
        Some(Value::Number(_)) => time::number_text(value.unwrap_or(&Value::Null)),
        Some(Value::String(text)) => crate::py::str_repr(text),
        Some(Value::Array(items)) => {
            let inner: Vec<String> = items.iter().map(|v| repr(Some(v))).collect();
            format!("[{}]", inner.join(", "))
        }
        Some(Value::Object(map)) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", crate::py::str_repr(k), repr(Some(v))))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// `_by`: ` by g1, g2`, or nothing without groups.
fn by(groups: &[String]) -> String {
    if groups.is_empty() {
        String::new()
    } else {
        format!(" by {}", groups.join(", "))
    }
}

/// `_within`: ` within each g1, g2`, or nothing without groups.
fn within(groups: &[String]) -> String {
    if groups.is_empty() {
        String::new()
    } else {
        format!(" within each {}", groups.join(", "))
    }
}

/// The required columns, de-duplicated in order, and the failed rule when one is missing.
fn required(name: &str, columns: &[&String], input: &SchemaRef) -> Result<(), Box<dyn Rule>> {
    let mut unique: Vec<String> = Vec::new();
    for column in columns {
        if !unique.contains(column) {
            unique.push((*column).clone());
        }
    }
    match column_problem(name, input, &unique) {
        Some(rule) => Err(rule),
        None => Ok(()),
    }
}

/// The index of a column known to be in `input` once.
fn index(input: &SchemaRef, column: &str) -> usize {
    input
        .fields()
        .iter()
        .position(|field| field.name() == column)
        .unwrap_or(0)
}

/// The key columns of `groups` in `input`, grouped with `equality`.
fn groups(input: &SchemaRef, groups: &[String], equality: Equality) -> Groups {
    let columns: Vec<usize> = groups.iter().map(|g| index(input, g)).collect();
    let types = columns
        .iter()
        .map(|&i| input.field(i).data_type().clone())
        .collect();
    Groups::new(columns, groups.to_vec(), types, equality)
}

/// Whether row `i` of `array` (read by `reader` when readable) is neither null nor NaN.
fn present(array: &dyn Array, reader: Option<&Reader<'_>>, i: usize) -> bool {
    match reader {
        Some(reader) => reader.get(i).is_some_and(|raw| !raw.is_nan()),
        None => array.is_valid(i),
    }
}

/// A metrics object as JSON text.
fn metrics_text(metrics: Map<String, Value>) -> String {
    Value::Object(metrics).to_string()
}
