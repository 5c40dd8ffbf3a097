//! Reading one parameter value, with the Python tool's messages (its `_normalize_column`,
//! `_normalize_columns`, `_require_count`, `_require_number` and `_require_unit`). Each
//! returns a [`ParamError`] naming the key it read.

use serde_json::{Map, Value};

use crate::repr::repr;
use crate::{NumberParam, ParamError, TimeUnit};

/// A check item's parameters (the item without `check`).
pub(crate) type Params = Map<String, Value>;

pub(crate) fn error(key: &'static str, message: impl Into<String>) -> ParamError {
    ParamError {
        key,
        message: message.into(),
    }
}

/// A parameter; `None` when absent or `null` (the check's default).
pub(crate) fn param<'a>(params: &'a Params, key: &str) -> Option<&'a Value> {
    params.get(key).filter(|value| !value.is_null())
}

/// A required parameter; `null` when absent (which every value check refuses).
pub(crate) fn required<'a>(params: &'a Params, key: &str) -> &'a Value {
    params.get(key).unwrap_or(&Value::Null)
}

/// A column name: a non-empty string.
pub(crate) fn column(key: &'static str, value: &Value) -> Result<String, ParamError> {
    match value.as_str() {
        Some(text) if !text.is_empty() => Ok(text.to_owned()),
        _ => Err(error(
            key,
            format!(
                "a column name must be a non-empty string, got {}",
                repr(value)
            ),
        )),
    }
}

/// A column name or a non-empty list of names, de-duplicated in order. The message says
/// `columns` whatever the key (`group_by` too), as the Python tool's.
pub(crate) fn columns(key: &'static str, value: &Value) -> Result<Vec<String>, ParamError> {
    let items: Vec<&Value> = match value {
        Value::String(_) => vec![value],
        Value::Array(items) => items.iter().collect(),
        other => {
            return Err(error(
                key,
                format!(
                    "columns must be a column name or a list of names, got {}",
                    repr(other)
                ),
            ));
        }
    };
    if items.is_empty() {
        return Err(error(key, "columns must name at least one column"));
    }
    let mut names: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let name = column(key, item)?;
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(names)
}

/// An optional list of columns (`group_by`): empty when absent.
pub(crate) fn optional_columns(
    params: &Params,
    key: &'static str,
) -> Result<Vec<String>, ParamError> {
    param(params, key).map_or_else(|| Ok(Vec::new()), |value| columns(key, value))
}

/// A non-negative integer (a float such as `1.0` is refused).
pub(crate) fn count(key: &'static str, value: &Value) -> Result<u64, ParamError> {
    match value {
        Value::Number(number) if !number.is_f64() => number.as_u64(),
        _ => None,
    }
    .ok_or_else(|| {
        error(
            key,
            format!("{key} must be a non-negative integer, got {}", repr(value)),
        )
    })
}

/// A finite number, at least 0 (`positive`: above 0). A non-number (a bool, `null`) is `KEY
/// must be a number`, a number out of range `KEY must be a positive number`.
pub(crate) fn number(
    key: &'static str,
    value: &Value,
    positive: bool,
) -> Result<NumberParam, ParamError> {
    let Value::Number(number) = value else {
        return Err(error(
            key,
            format!("{key} must be a number, got {}", repr(value)),
        ));
    };
    let x = number.as_f64().unwrap_or(f64::NAN);
    if !x.is_finite() || x < 0.0 || (positive && x == 0.0) {
        let wanted = if positive { "positive" } else { "non-negative" };
        return Err(error(
            key,
            format!("{key} must be a {wanted} number, got {}", repr(value)),
        ));
    }
    Ok(NumberParam {
        value: x,
        json: number.clone(),
    })
}

/// `true` or `false`; `false` when absent.
pub(crate) fn flag(params: &Params, key: &'static str) -> Result<bool, ParamError> {
    match param(params, key) {
        None => Ok(false),
        Some(Value::Bool(flag)) => Ok(*flag),
        Some(other) => Err(error(
            key,
            format!("{key} must be true or false, got {}", repr(other)),
        )),
    }
}

/// `unit`: `s`, `ms`, `us` or `ns`; `ms` when absent.
pub(crate) fn unit(params: &Params) -> Result<TimeUnit, ParamError> {
    let Some(value) = param(params, "unit") else {
        return Ok(TimeUnit::Ms);
    };
    TimeUnit::ALL
        .into_iter()
        .find(|unit| value.as_str() == Some(unit.as_str()))
        .ok_or_else(|| {
            error(
                "unit",
                format!(
                    "unit must be one of ['s', 'ms', 'us', 'ns'], got {}",
                    repr(value)
                ),
            )
        })
}
