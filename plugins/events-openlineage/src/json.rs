//! JSON as the Python tool writes and reads it: `json.dumps(value, sort_keys=True,
//! separators=(",", ":"), ensure_ascii=False)` (floats as Python's `repr`), and Python's view of
//! values where the Python tool's output depends on it (truthiness, `str()`, `int()`).

use ldp_pyrepr::{push_json_string, repr_number};
pub use ldp_pyrepr::{py_int, py_str_json as py_str, py_truthy as truthy};
use serde_json::Value;

/// Compact JSON with sorted keys, raw UTF-8 and Python's float repr.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Number(number) => out.push_str(&repr_number(number)),
        Value::String(text) => push_json_string(out, text, false),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (index, key) in keys.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                push_json_string(out, key, false);
                out.push(':');
                write_value(out, &map[key]);
            }
            out.push('}');
        }
    }
}

/// `value or default`, Python's way.
pub fn or<'a>(value: Option<&'a Value>, default: &'a Value) -> &'a Value {
    value.filter(|v| truthy(v)).unwrap_or(default)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_is_pythons() {
        let value = json!({"b": [1, 2.0, 1e-5, "é\n\u{1}"], "a": null, "A": true});
        assert_eq!(
            canonical(&value),
            r#"{"A":true,"a":null,"b":[1,2.0,1e-05,"é\n\u0001"]}"#
        );
    }

    #[test]
    fn python_values() {
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(["a", 1.5])), "['a', 1.5]");
        assert_eq!(py_int(&json!("1_757")), Some(1757));
        assert_eq!(py_int(&json!(" -3 ")), Some(-3));
        assert_eq!(py_int(&json!("x")), None);
        assert_eq!(py_int(&json!(2.7)), Some(2));
        assert!(!truthy(&json!("")));
    }
}
