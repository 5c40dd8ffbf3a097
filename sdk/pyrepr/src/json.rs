//! Python's `repr()` of a JSON value, as a config's value reads in Python: `'text'`, `5`,
//! `0.5`, `1e-05`, `True`, `None`, `['a', 1]`, `{'k': 'v'}` (object keys in document order).

use crate::{py_float, repr_str};
use serde_json::{Number, Value};

/// Python `repr()` of a JSON value.
pub fn repr_json(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(number) => repr_number(number),
        Value::String(text) => repr_str(text),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(repr_json).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(key, item)| format!("{}: {}", repr_str(key), repr_json(item)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// Python `repr()` (and `str()`) of a JSON number: an integer's digits, a float's shortest
/// form (`48`, `48.0`, `1e-05`).
pub fn repr_number(number: &Number) -> String {
    match (number.as_i64(), number.as_u64()) {
        (Some(int), _) => int.to_string(),
        (None, Some(int)) => int.to_string(),
        _ => py_float(number.as_f64().unwrap_or(f64::NAN)),
    }
}

/// Python `str()` of a JSON value: a string as it is, anything else as its `repr()` (`None`,
/// `True`, `2.0`, `['a', 'b']`, `{'k': 1}`).
pub fn py_str_json(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => repr_json(other),
    }
}

/// Python `bool()` of a JSON value: `None`, `False`, `0`, `0.0`, `""`, `[]` and `{}` are false.
pub fn py_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// Python `int()` of a JSON value: integers as they are, floats cut toward zero, booleans as 0
/// and 1, strings of a whole number (spaces around, a sign, `_` between digits). `None` where
/// Python raises.
pub fn py_int(value: &Value) -> Option<i64> {
    match value {
        Value::Bool(flag) => Some(i64::from(*flag)),
        Value::Number(number) => number.as_i64().or_else(|| {
            let float = number.as_f64()?;
            (float.is_finite() && float.abs() < 9.2e18).then_some(float.trunc() as i64)
        }),
        Value::String(text) => int_text(text),
        _ => None,
    }
}

fn int_text(text: &str) -> Option<i64> {
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

/// The name Python gives the type of a JSON value: `str`, `int`, `float`, `bool`, `list`,
/// `dict` or `NoneType`.
pub fn py_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(number) if number.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_like_python() {
        assert_eq!(repr_json(&json!("it's")), "\"it's\"");
        assert_eq!(
            repr_json(&json!(["a", 1, 2.0, 1e-5, null, true, {"k": "v"}])),
            "['a', 1, 2.0, 1e-05, None, True, {'k': 'v'}]"
        );
        assert_eq!(
            repr_number(&json!(18446744073709551615u64).as_number().unwrap().clone()),
            "18446744073709551615"
        );
    }

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
            assert!(!py_truthy(&value), "{value}");
        }
        for value in [
            json!(true),
            json!(1),
            json!(-0.5),
            json!("x"),
            json!([0]),
            json!({"a": 0}),
        ] {
            assert!(py_truthy(&value), "{value}");
        }
    }

    #[test]
    fn int_and_str_are_pythons() {
        assert_eq!(py_int(&json!(3)), Some(3));
        assert_eq!(py_int(&json!(2.9)), Some(2));
        assert_eq!(py_int(&json!(-2.9)), Some(-2));
        assert_eq!(py_int(&json!(" 1_000 ")), Some(1000));
        assert_eq!(py_int(&json!(" -3 ")), Some(-3));
        assert_eq!(py_int(&json!("1.5")), None);
        assert_eq!(py_int(&json!("1__0")), None);
        assert_eq!(py_int(&json!("x")), None);
        assert_eq!(py_int(&json!(true)), Some(1));
        assert_eq!(py_str_json(&json!(null)), "None");
        assert_eq!(py_str_json(&json!("a")), "a");
        assert_eq!(py_str_json(&json!(["a", 1.5])), "['a', 1.5]");
        assert_eq!(py_type_name(&json!(1.0)), "float");
        assert_eq!(py_type_name(&json!({})), "dict");
    }
}
