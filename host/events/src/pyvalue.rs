//! Python's view of JSON values, where the Python tool's behaviour depends on it: truthiness
//! (`a or b`), `str()`, and `int()`.

pub(crate) use ldp_pyrepr::{py_int, py_str_json as py_str, py_truthy as truthy};
use serde_json::Value;

/// Python's `str()` of an optional value (`None` when absent).
pub(crate) fn py_str_opt(value: Option<&Value>) -> String {
    value.map_or_else(|| "None".to_owned(), py_str)
}

/// The Python tool's `_int_or_none`: `None` for `None` and booleans, else `int(value)` or `None`
/// where that fails.
pub(crate) fn int_or_none(value: Option<&Value>) -> Option<i64> {
    match value {
        None | Some(Value::Null | Value::Bool(_)) => None,
        Some(other) => py_int(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn int_or_none_is_the_python_tools() {
        assert_eq!(int_or_none(Some(&json!(true))), None);
        assert_eq!(int_or_none(Some(&json!("12"))), Some(12));
        assert_eq!(int_or_none(Some(&json!(2.9))), Some(2));
        assert_eq!(int_or_none(Some(&json!([1]))), None);
        assert_eq!(int_or_none(None), None);
        assert_eq!(py_str_opt(None), "None");
    }
}
