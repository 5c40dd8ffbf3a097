//! Building a check from its parameters: the value checks of each check's constructor, with
//! the reference's messages (`range needs at least one of min or max`, `min (5) is greater
//! than max (3)`, `columns must name at least one column`...).

use serde_json::{Map, Value};

use super::checks::{Check, CheckSpec, RowCountEquals, SchemaColumns, TimeUnit};
use super::types::is_arrow_type;
use crate::repr::{py_float, py_str, repr};

/// A parameter, `None` when absent or `null` (the constructor's default).
fn param<'a>(params: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    params.get(key).filter(|value| !value.is_null())
}

pub(super) fn build(
    kind: &str,
    params: &Map<String, Value>,
    item: &Value,
) -> Result<CheckSpec, String> {
    let required = |key: &str| params.get(key).unwrap_or(&Value::Null);
    let check = match kind {
        "row_count" => row_count(params)?,
        "not_null" => Check::NotNull {
            columns: columns(required("columns"))?,
        },
        "unique" => Check::Unique {
            columns: columns(required("columns"))?,
        },
        "accepted_values" => {
            let column = column(required("column"))?;
            Check::AcceptedValues {
                column,
                values: accepted_values(required("values"))?,
            }
        }
        "range" => range(params)?,
        "freshness" => freshness(params)?,
        "schema" => Check::Schema {
            columns: schema_columns(required("columns"))?,
        },
        "monotonic" => Check::Monotonic {
            column: column(required("column"))?,
            group_by: optional_columns(params, "group_by")?,
            strict: match param(params, "strict") {
                None => false,
                Some(Value::Bool(flag)) => *flag,
                Some(other) => {
                    return Err(format!("strict must be true or false, got {}", repr(other)));
                }
            },
            // One column, as the reference (`a column name must be a non-empty string`).
            order_by: param(params, "order_by").map(column).transpose()?,
        },
        "max_skew" => Check::MaxSkew {
            column_a: column(required("column_a"))?,
            column_b: column(required("column_b"))?,
            max_ms: number(
                required("max_ms"),
                "max_ms",
                |n| n >= 0.0,
                "a non-negative number",
            )?,
            unit: unit(params)?,
        },
        "rate_below" => Check::RateBelow {
            predicate_column: column(required("predicate_column"))?,
            max_rate: number(
                required("max_rate"),
                "max_rate",
                |n| (0.0..=1.0).contains(&n),
                "a number from 0 to 1",
            )?,
            group_by: optional_columns(params, "group_by")?,
        },
        "max_gap" => Check::MaxGap {
            column: column(required("column"))?,
            max_ms: number(
                required("max_ms"),
                "max_ms",
                |n| n > 0.0,
                "a positive number",
            )?,
            group_by: optional_columns(params, "group_by")?,
            unit: unit(params)?,
        },
        _ => return Err(format!("unknown check {}", repr(&Value::from(kind)))),
    };
    Ok(CheckSpec {
        check,
        name: display_name(params)?,
        item: item.clone(),
    })
}

fn display_name(params: &Map<String, Value>) -> Result<Option<String>, String> {
    match param(params, "name") {
        None => Ok(None),
        Some(value) => match value.as_str().filter(|text| !text.trim().is_empty()) {
            Some(text) => Ok(Some(text.to_owned())),
            None => Err(format!(
                "name must be a non-empty string, got {}",
                repr(value)
            )),
        },
    }
}

/// A check plugin item: `{"check": "PATH.wasm", "sha256"?: HEX, "config"?: {...}, "name"?: ...}`.
/// `params` is the item without `check`. Errors are the tail of the message, as
/// [`super::parse_check`] returns them.
pub(super) fn plugin(
    path: &str,
    params: &Map<String, Value>,
    item: &Value,
) -> Result<CheckSpec, String> {
    const ALLOWED: [&str; 3] = ["sha256", "config", "name"];
    let unknown = crate::problems::unknown_keys(params, &ALLOWED);
    if !unknown.is_empty() {
        return Err(format!(
            " (plugin {path}) has unknown parameter(s) {}; allowed: check, {}",
            crate::repr::repr_list(&unknown),
            ALLOWED.join(", ")
        ));
    }
    let invalid = |reason: String| format!(" (plugin {path}) is invalid: {reason}");
    let sha256 = match param(params, "sha256") {
        None => None,
        Some(Value::String(hex))
            if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            Some(hex.to_ascii_lowercase())
        }
        Some(other) => {
            return Err(invalid(format!(
                "sha256 must be 64 hexadecimal digits, got {}",
                repr(other)
            )));
        }
    };
    let config = match param(params, "config") {
        None => Value::Object(Map::new()),
        Some(value @ Value::Object(_)) => value.clone(),
        Some(other) => {
            return Err(invalid(format!(
                "config must be an object, got {}",
                repr(other)
            )));
        }
    };
    Ok(CheckSpec {
        check: Check::Plugin {
            path: path.to_owned(),
            sha256,
            config,
        },
        name: display_name(params).map_err(invalid)?,
        item: item.clone(),
    })
}

fn column(value: &Value) -> Result<String, String> {
    match value.as_str() {
        Some(text) if !text.is_empty() => Ok(text.to_owned()),
        _ => Err(format!(
            "a column name must be a non-empty string, got {}",
            repr(value)
        )),
    }
}

/// A column name or a list of names, de-duplicated in order.
fn columns_as(value: &Value, label: &str) -> Result<Vec<String>, String> {
    let items: Vec<&Value> = match value {
        Value::String(_) => vec![value],
        Value::Array(items) => items.iter().collect(),
        other => {
            return Err(format!(
                "{label} must be a column name or a list of names, got {}",
                repr(other)
            ));
        }
    };
    if items.is_empty() {
        return Err(format!("{label} must name at least one column"));
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

fn columns(value: &Value) -> Result<Vec<String>, String> {
    columns_as(value, "columns")
}

fn optional_columns(params: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    param(params, key).map_or_else(|| Ok(Vec::new()), |value| columns_as(value, key))
}

fn count(label: &str, value: &Value) -> Result<u64, String> {
    match value {
        Value::Number(number) if !number.is_f64() => number.as_u64().ok_or_else(|| {
            format!(
                "{label} must be a non-negative integer, got {}",
                repr(value)
            )
        }),
        _ => Err(format!(
            "{label} must be a non-negative integer, got {}",
            repr(value)
        )),
    }
}

fn row_count(params: &Map<String, Value>) -> Result<Check, String> {
    let (min, max, equals) = (
        param(params, "min"),
        param(params, "max"),
        param(params, "equals"),
    );
    if min.is_none() && max.is_none() && equals.is_none() {
        return Err("row_count needs at least one of min, max or equals".to_owned());
    }
    let min = min.map(|value| count("min", value)).transpose()?;
    let max = max.map(|value| count("max", value)).transpose()?;
    if let (Some(low), Some(high)) = (min, max)
        && low > high
    {
        return Err(format!("min ({low}) is greater than max ({high})"));
    }
    let equals = match equals {
        None => None,
        Some(Value::String(text)) if text == "source" => Some(RowCountEquals::Source),
        Some(value @ Value::String(_)) => {
            return Err(format!(
                "equals must be a non-negative integer or 'source', got {}",
                repr(value)
            ));
        }
        Some(value) => Some(RowCountEquals::Rows(count("equals", value)?)),
    };
    Ok(Check::RowCount { min, max, equals })
}

fn accepted_values(value: &Value) -> Result<Vec<Value>, String> {
    let Some(values) = value.as_array() else {
        return Err(format!(
            "values must be a list of accepted values, e.g. ['NYC', 'BKK'], got {}",
            repr(value)
        ));
    };
    if values.is_empty() {
        return Err("values must list at least one accepted value".to_owned());
    }
    let family = |value: &Value| match value {
        Value::Null => None,
        Value::Bool(_) => Some("bool"),
        Value::Number(_) => Some("number"),
        Value::String(_) => Some("str"),
        Value::Array(_) => Some("list"),
        Value::Object(_) => Some("dict"),
    };
    let mut families = values.iter().filter_map(family);
    if let Some(first) = families.next()
        && families.any(|other| other != first)
    {
        return Err(format!(
            "values must all have the same type, got {}",
            repr(value)
        ));
    }
    Ok(values.clone())
}

fn range(params: &Map<String, Value>) -> Result<Check, String> {
    let column = column(params.get("column").unwrap_or(&Value::Null))?;
    let (min, max) = (param(params, "min"), param(params, "max"));
    if min.is_none() && max.is_none() {
        return Err("range needs at least one of min or max".to_owned());
    }
    for (label, bound) in [("min", min), ("max", max)] {
        if let Some(bound @ Value::Bool(_)) = bound {
            return Err(format!(
                "{label} must be a number, a date or a string, got {}",
                repr(bound)
            ));
        }
    }
    if let (Some(low), Some(high)) = (min, max) {
        let inverted = match (low, high) {
            (Value::Number(a), Value::Number(b)) => {
                a.as_f64().zip(b.as_f64()).is_some_and(|(a, b)| a > b)
            }
            (Value::String(a), Value::String(b)) => a > b,
            _ => false,
        };
        if inverted {
            return Err(format!(
                "min ({}) is greater than max ({})",
                repr(low),
                repr(high)
            ));
        }
    }
    Ok(Check::Range {
        column,
        min: min.cloned(),
        max: max.cloned(),
    })
}

fn freshness(params: &Map<String, Value>) -> Result<Check, String> {
    let column = column(params.get("column").unwrap_or(&Value::Null))?;
    let hours_value = params.get("max_age_hours").unwrap_or(&Value::Null);
    let Some(hours) = hours_value.as_f64().filter(|_| hours_value.is_number()) else {
        return Err(format!(
            "max_age_hours must be a number, got {}",
            repr(hours_value)
        ));
    };
    if !hours.is_finite() || hours <= 0.0 {
        return Err(format!(
            "max_age_hours must be a positive number, got {}",
            repr(hours_value)
        ));
    }
    let now = match param(params, "now") {
        None => None,
        Some(Value::String(text)) if is_iso_datetime(text.trim()) => Some(text.clone()),
        Some(value @ Value::String(_)) => {
            return Err(format!(
                "now must be an ISO-8601 datetime, got {}",
                repr(value)
            ));
        }
        Some(value) => {
            return Err(format!(
                "now must be a datetime, an ISO-8601 string or None, got {}",
                repr(value)
            ));
        }
    };
    let max_age_hours_text = if hours_value.as_f64().is_some() && !hours_value.is_f64() {
        py_str(hours_value)
    } else {
        py_float(hours)
    };
    Ok(Check::Freshness {
        column,
        max_age_hours: hours,
        max_age_hours_text,
        now,
    })
}

/// An ISO-8601 date or date-time as Python's `datetime.fromisoformat` reads it (a date, a
/// date and time with `T` or a blank, an optional offset or `Z`).
fn is_iso_datetime(text: &str) -> bool {
    text.parse::<jiff::civil::DateTime>().is_ok()
        || text.parse::<jiff::civil::Date>().is_ok()
        || text.parse::<jiff::Timestamp>().is_ok()
}

fn schema_columns(value: &Value) -> Result<SchemaColumns, String> {
    let Some(map) = value.as_object() else {
        return columns(value).map(SchemaColumns::Names);
    };
    if map.is_empty() {
        return Err("columns must name at least one column".to_owned());
    }
    let mut typed = Vec::with_capacity(map.len());
    for (name, spec) in map {
        let name = column(&Value::from(name.as_str()))?;
        match spec.as_str().filter(|text| !text.trim().is_empty()) {
            None => {
                return Err(format!(
                    "a column type must be a pyarrow type string such as 'int64', got {}",
                    repr(spec)
                ));
            }
            Some(text) if !is_arrow_type(text) => {
                return Err(format!(
                    "unknown pyarrow type {}; use a name such as 'int64', 'double', 'string', 'bool', 'date32', \
                     'timestamp[us]', 'timestamp[us, tz=UTC]' or 'decimal128(10, 2)'",
                    repr(spec)
                ));
            }
            Some(text) => typed.push((name, text.trim().to_owned())),
        }
    }
    Ok(SchemaColumns::Typed(typed))
}

fn number(
    value: &Value,
    label: &str,
    ok: impl Fn(f64) -> bool,
    wanted: &str,
) -> Result<f64, String> {
    match value {
        Value::Number(number) => match number.as_f64() {
            Some(n) if n.is_finite() && ok(n) => Ok(n),
            _ => Err(format!("{label} must be {wanted}, got {}", repr(value))),
        },
        _ => Err(format!("{label} must be {wanted}, got {}", repr(value))),
    }
}

fn unit(params: &Map<String, Value>) -> Result<TimeUnit, String> {
    let units = [TimeUnit::S, TimeUnit::Ms, TimeUnit::Us, TimeUnit::Ns];
    match param(params, "unit") {
        None => Ok(TimeUnit::Ms),
        Some(value) => units
            .into_iter()
            .find(|unit| value.as_str() == Some(unit.as_str()))
            .ok_or_else(|| {
                format!(
                    "unit must be one of ['s', 'ms', 'us', 'ns'], got {}",
                    repr(value)
                )
            }),
    }
}
