//! Python `repr()` and `type(x).__name__` of JSON values, for messages that must read exactly
//! like the reference's (strings in single quotes, lists as `['a', 'b']`, `None`, `True`).

pub use ldp_pyrepr::{py_float, repr_json as repr, repr_str};
use serde_json::Value;

/// Python `str()` of a JSON value: a string as it is, anything else as [`repr`].
pub fn py_str(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => repr(other),
    }
}

/// Python `repr()` of a list of strings: `['a', 'b']`.
pub fn repr_list<S: AsRef<str>>(items: &[S]) -> String {
    let inner: Vec<String> = items.iter().map(|item| repr_str(item.as_ref())).collect();
    format!("[{}]", inner.join(", "))
}

/// The name Python gives the type of a JSON value: `str`, `int`, `float`, `bool`, `list`,
/// `dict` or `NoneType`.
pub fn type_name(value: &Value) -> &'static str {
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
        assert_eq!(repr(&json!("abc")), "'abc'");
        assert_eq!(repr(&json!("it's")), "\"it's\"");
        assert_eq!(repr(&json!("a'b\"c")), "'a\\'b\"c'");
        assert_eq!(repr(&json!("a\nb\\")), "'a\\nb\\\\'");
        assert_eq!(
            repr(&json!(["a", 1, 2.0, null, true])),
            "['a', 1, 2.0, None, True]"
        );
        assert_eq!(
            repr(&json!({"k": "v", "n": [false]})),
            "{'k': 'v', 'n': [False]}"
        );
        assert_eq!(repr(&json!([])), "[]");
        assert_eq!(repr_list(&["x", "y"]), "['x', 'y']");
        assert_eq!(type_name(&json!(1)), "int");
        assert_eq!(type_name(&json!(1.0)), "float");
        assert_eq!(type_name(&json!(null)), "NoneType");
        assert_eq!(py_str(&json!("x")), "x");
    }
}
