//! Small pieces of Python semantics the Python tool leans on when it reads raw JSON: truthiness
//! (`value or default`), `str.strip()` (Python's whitespace set, wider than Rust's by
//! `\x1c`–`\x1f`) and `str.split()`.

use serde_json::Value;

/// Whether Python's `str.isspace()` holds for a character.
pub(crate) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()` with no argument.
pub fn py_strip(text: &str) -> &str {
    text.trim_matches(is_py_space)
}

pub(crate) use ldp_pyrepr::py_truthy as truthy;

/// `value.get(key) or None`: the value of a key when it is truthy.
pub(crate) fn get_truthy<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.get(key).filter(|found| truthy(found))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_semantics() {
        assert_eq!(py_strip("\u{1c} a b\t\u{a0}"), "a b");
        for value in [
            json!(null),
            json!(false),
            json!(0),
            json!(0.0),
            json!(""),
            json!([]),
        ] {
            assert!(!truthy(&value), "{value}");
        }
        assert!(!truthy(&json!({})));
        for value in [
            json!(true),
            json!(-1),
            json!(0.5),
            json!(" "),
            json!([0]),
            json!({"a": 0}),
        ] {
            assert!(truthy(&value), "{value}");
        }
        assert_eq!(get_truthy(&json!({"a": ""}), "a"), None);
        assert_eq!(get_truthy(&json!({"a": "x"}), "a"), Some(&json!("x")));
    }
}
