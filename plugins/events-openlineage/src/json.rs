//! JSON as the reference writes and reads it: `json.dumps(value, sort_keys=True,
//! separators=(",", ":"), ensure_ascii=False)` (floats as Python's `repr`), and Python's view of
//! values where the reference's output depends on it (truthiness, `str()`, `int()`).

use ldp_pyrepr::{py_float, repr_str};
use serde_json::{Number, Value};

/// Compact JSON with sorted keys, raw UTF-8 and Python's float repr.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn number_text(number: &Number) -> String {
    if let Some(int) = number.as_i64() {
        return int.to_string();
    }
    if let Some(int) = number.as_u64() {
        return int.to_string();
    }
    py_float(number.as_f64().unwrap_or(f64::NAN))
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Number(number) => out.push_str(&number_text(number)),
        Value::String(text) => write_str(out, text),
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
                write_str(out, key);
                out.push(':');
                write_value(out, &map[key]);
            }
            out.push('}');
        }
    }
}

fn write_str(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Python's `bool(value)`.
pub fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// `value or default`, Python's way.
pub fn or<'a>(value: Option<&'a Value>, default: &'a Value) -> &'a Value {
    value.filter(|v| truthy(v)).unwrap_or(default)
}

/// Python's `repr()` of a JSON value.
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

/// Python's `str()` of a JSON value.
pub fn py_str(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => repr(other),
    }
}

/// Python's `int()` of a JSON value; `None` where Python raises.
pub fn py_int(value: &Value) -> Option<i64> {
    match value {
        Value::Bool(flag) => Some(i64::from(*flag)),
        Value::Number(number) => number.as_i64().or_else(|| {
            let float = number.as_f64()?;
            (float.is_finite() && float.abs() < 9.2e18).then_some(float.trunc() as i64)
        }),
        Value::String(text) => {
            let text = text.trim();
            let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
            if digits.is_empty()
                || digits.starts_with('_')
                || digits.ends_with('_')
                || digits.contains("__")
                || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
            {
                return None;
            }
            let cleaned: String = text.chars().filter(|c| *c != '_').collect();
            cleaned.parse().ok()
        }
        _ => None,
    }
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
