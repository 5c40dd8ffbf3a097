//! Python's view of JSON values, where the reference's behaviour depends on it: truthiness
//! (`a or b`), `str()`, and `int()`.

use serde_json::Value;

/// Python's `bool(value)`: `None`, `False`, `0`, `0.0`, `""`, `[]` and `{}` are false.
pub(crate) fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// Python's `str(value)`: a string as it is, anything else as its `repr()` (`None`, `True`,
/// `2.0`, `['a', 'b']`, `{'k': 1}`).
pub(crate) fn py_str(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => ldp_config::repr(other),
    }
}

/// Python's `str()` of an optional value (`None` when absent).
pub(crate) fn py_str_opt(value: Option<&Value>) -> String {
    value.map_or_else(|| "None".to_owned(), py_str)
}

/// Python's `int(value)`: integers as they are, floats cut toward zero, booleans as 0 and 1,
/// strings of a whole number (spaces, a sign and `_` between digits allowed). `None` where
/// Python raises.
pub(crate) fn py_int(value: &Value) -> Option<i64> {
    match value {
        Value::Bool(flag) => Some(i64::from(*flag)),
        Value::Number(number) => number.as_i64().or_else(|| {
            let float = number.as_f64()?;
            (float.is_finite() && float.abs() < 9.2e18).then_some(float.trunc() as i64)
        }),
        Value::String(text) => parse_int_text(text),
        _ => None,
    }
}

/// The reference's `_int_or_none`: `None` for `None` and booleans, else `int(value)` or `None`
/// where that fails.
pub(crate) fn int_or_none(value: Option<&Value>) -> Option<i64> {
    match value {
        None | Some(Value::Null | Value::Bool(_)) => None,
        Some(other) => py_int(other),
    }
}

fn parse_int_text(text: &str) -> Option<i64> {
    let text = text.trim();
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    let cleaned: String = digits.chars().filter(|c| *c != '_').collect();
    let magnitude: i64 = cleaned.parse().ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn truthiness_is_pythons() {
        for value in [
            json!(null),
            json!(false),
            json!(0),
            json!(0.0),
            json!(""),
            json!([]),
            json!({}),
        ] {
            assert!(!truthy(&value), "{value}");
        }
        for value in [
            json!(true),
            json!(1),
            json!(-0.5),
            json!("x"),
            json!([0]),
            json!({"a": 0}),
        ] {
            assert!(truthy(&value), "{value}");
        }
    }

    #[test]
    fn int_is_pythons() {
        assert_eq!(py_int(&json!(3)), Some(3));
        assert_eq!(py_int(&json!(2.9)), Some(2));
        assert_eq!(py_int(&json!(-2.9)), Some(-2));
        assert_eq!(py_int(&json!(" 1_000 ")), Some(1000));
        assert_eq!(py_int(&json!("-7")), Some(-7));
        assert_eq!(py_int(&json!("1.5")), None);
        assert_eq!(py_int(&json!("1__0")), None);
        assert_eq!(py_int(&json!(true)), Some(1));
        assert_eq!(int_or_none(Some(&json!(true))), None);
        assert_eq!(int_or_none(Some(&json!("12"))), Some(12));
        assert_eq!(int_or_none(Some(&json!([1]))), None);
        assert_eq!(int_or_none(None), None);
    }

    #[test]
    fn str_is_pythons() {
        assert_eq!(py_str(&json!("a")), "a");
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(["a", 1])), "['a', 1]");
        assert_eq!(py_str_opt(None), "None");
    }
}
