//! Reading a check's parameters with the reference's messages (`columns must name at least one
//! column`, `min must be a non-negative integer, got -1`...). Each helper returns the reason;
//! [`super::build`] prefixes `quality check #N (kind) is invalid: `.

use crate::py::json_repr;
use serde_json::{Map, Value};

/// A check item's parameters.
pub type Params = Map<String, Value>;

/// A parameter, `None` when absent or `null` (the constructor's default).
pub fn param<'a>(params: &'a Params, key: &str) -> Option<&'a Value> {
    params.get(key).filter(|value| !value.is_null())
}

/// A required parameter (`null` when absent, which the value checks refuse).
pub fn required<'a>(params: &'a Params, key: &str) -> &'a Value {
    params.get(key).unwrap_or(&Value::Null)
}

/// The reference's `_normalize_column`: a non-empty string.
pub fn column(value: &Value) -> Result<String, String> {
    match value.as_str() {
        Some(text) if !text.is_empty() => Ok(text.to_owned()),
        _ => Err(format!(
            "a column name must be a non-empty string, got {}",
            json_repr(value)
        )),
    }
}

/// The reference's `_normalize_columns`: a name or a list of names, de-duplicated in order.
pub fn columns(value: &Value) -> Result<Vec<String>, String> {
    let items: Vec<&Value> = match value {
        Value::String(_) => vec![value],
        Value::Array(items) => items.iter().collect(),
        other => {
            return Err(format!(
                "columns must be a column name or a list of names, got {}",
                json_repr(other)
            ));
        }
    };
    if items.is_empty() {
        return Err("columns must name at least one column".to_owned());
    }
    let mut names: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let name = column(item)?;
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(names)
}

/// The reference's `_require_count`: a non-negative integer.
pub fn count(label: &str, value: &Value) -> Result<u64, String> {
    match value {
        Value::Number(number) if !number.is_f64() => number.as_u64().ok_or_else(|| {
            format!(
                "{label} must be a non-negative integer, got {}",
                json_repr(value)
            )
        }),
        _ => Err(format!(
            "{label} must be a non-negative integer, got {}",
            json_repr(value)
        )),
    }
}

/// The parameters of each check, in the order the reference lists them, then `name`; and how
/// many of the first ones are required.
pub fn parameters(kind: &str) -> Option<(&'static [&'static str], usize)> {
    Some(match kind {
        "row_count" => (&["min", "max", "equals", "name"], 0),
        "not_null" | "unique" | "schema" => (&["columns", "name"], 1),
        "accepted_values" => (&["column", "values", "name"], 2),
        "range" => (&["column", "min", "max", "name"], 1),
        "freshness" => (&["column", "max_age_hours", "now", "name"], 2),
        "monotonic" => (&["column", "group_by", "strict", "order_by", "name"], 1),
        "max_skew" => (&["column_a", "column_b", "max_ms", "unit", "name"], 3),
        "rate_below" => (&["predicate_column", "max_rate", "group_by", "name"], 2),
        "max_gap" => (&["column", "max_ms", "group_by", "unit", "name"], 2),
        _ => return None,
    })
}

/// Python's `repr()` of a list of names: `['a', 'b']`.
pub fn names_repr(names: &[&str]) -> String {
    let inner: Vec<String> = names.iter().map(|n| crate::py::str_repr(n)).collect();
    format!("[{}]", inner.join(", "))
}
