//! Python's `repr()` of a config value, as the reference's messages print it: `'text'`, `5`,
//! `0.5`, `True`, `None`, `['a', 1]`, `{'k': 'v'}` (object keys in document order).

use ldp_pyrepr::{py_float, repr_str};
use serde_json::{Number, Value};

/// Python `repr()` of a JSON value.
pub fn repr(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(number) => number_text(number),
        Value::String(text) => repr_str(text),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(repr).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(key, item)| format!("{}: {}", repr_str(key), repr(item)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// Python `repr()` (and `str()`) of a number: an integer's digits, a float's shortest form
/// (`48`, `48.0`, `1e-05`).
pub fn number_text(number: &Number) -> String {
    match (number.as_i64(), number.as_u64()) {
        (Some(int), _) => int.to_string(),
        (None, Some(int)) => int.to_string(),
        _ => py_float(number.as_f64().unwrap_or(f64::NAN)),
    }
}

/// Python `repr()` of a list of names: `['a', 'b']`.
pub fn repr_names<S: AsRef<str>>(names: &[S]) -> String {
    ldp_pyrepr::repr_list(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_like_python() {
        assert_eq!(repr(&json!("it's")), "\"it's\"");
        assert_eq!(
            repr(&json!(["a", 1, 2.0, 1e-5, null, true])),
            "['a', 1, 2.0, 1e-05, None, True]"
        );
        assert_eq!(repr(&json!({"k": [false]})), "{'k': [False]}");
        assert_eq!(repr_names(&["x", "y"]), "['x', 'y']");
    }
}
