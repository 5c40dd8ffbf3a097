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
}
