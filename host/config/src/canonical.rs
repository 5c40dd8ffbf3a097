//! Canonical JSON, the text the spec hash and the keys are sha256 digests of, written as
//! Python's `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
//! allow_nan=False)` writes it:
//!
//! * object keys sorted by code point (whatever order the document had: this workspace's
//!   `serde_json` keeps insertion order, so the keys are sorted here);
//! * no whitespace; `,` between items and `:` between a key and its value;
//! * strings with `"`, `\` and the control characters below U+0020 escaped (`\n`, `\r`, `\t`,
//!   `\b`, `\f`, else `\u00XX`), everything else (non-ASCII included) written raw;
//! * integers as integers, floats as Python's `repr` (`0.0`, `2.5`, `1e-05`, `1e+100`), so `1`
//!   and `1.0` differ; NaN and the infinities are refused.
//!
//! The same writer gives [`python_json_pretty`], Python's `json.dumps(value, indent=2)`, the
//! shape of the Python tool's `--json` outputs.
//!
//! A number beyond the 64-bit integers is read by `serde_json` as a float, where Python keeps
//! an integer: such a config hashes differently from the Python tool (no real config has one).

use serde_json::{Number, Value};
use sha2::{Digest, Sha256};

use crate::error::ConfigError;
use crate::repr::py_float;

/// The canonical JSON text of a value.
///
/// # Errors
///
/// [`ConfigError::Spec`] for a NaN or infinite float (Python's `Out of range float values are
/// not JSON compliant`). A [`serde_json::Value`] cannot normally hold one; the check is kept
/// so that the rule stands in the code.
pub fn canonical_json(value: &Value) -> Result<String, ConfigError> {
    let mut out = String::new();
    let style = Style {
        sort_keys: true,
        indent: None,
        ensure_ascii: false,
        spaced: false,
    };
    write_value(&mut out, value, style, 0)?;
    Ok(out)
}

/// Python's `json.dumps(value, sort_keys=True)`: one line, keys sorted, `", "` between items and
/// `": "` after keys, non-ASCII as `\uXXXX` escapes (how `ldp catalog test` prints a spec).
pub fn python_json_sorted(value: &Value) -> String {
    let mut out = String::new();
    let style = Style {
        sort_keys: true,
        indent: None,
        ensure_ascii: true,
        spaced: true,
    };
    if write_value(&mut out, value, style, 0).is_err() {
        out.clear();
        out.push_str("NaN");
    }
    out
}

/// The lower-case hex sha256 of the canonical JSON of a value.
///
/// # Errors
///
/// As [`canonical_json`].
pub fn canonical_sha256(value: &Value) -> Result<String, ConfigError> {
    Ok(sha256_hex(canonical_json(value)?.as_bytes()))
}

/// The lower-case hex sha256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Python's `json.dumps(value, indent=2)`, the Python tool's `--json` outputs: keys in document
/// order, two-space indentation, `, `-free item separators, `": "` after keys, non-ASCII
/// written as `\uXXXX` escapes (surrogate pairs above U+FFFF), floats as Python's `repr`.
pub fn python_json_pretty(value: &Value) -> String {
    let mut out = String::new();
    let style = Style {
        sort_keys: false,
        indent: Some(2),
        ensure_ascii: true,
        spaced: false,
    };
    // Only a NaN or infinite float fails, and a `Value` holds none; Python would write `NaN`.
    if write_value(&mut out, value, style, 0).is_err() {
        out.clear();
        out.push_str("NaN");
    }
    out
}

#[derive(Clone, Copy)]
struct Style {
    sort_keys: bool,
    indent: Option<usize>,
    ensure_ascii: bool,
    /// Without indentation: `", "` and `": "` (Python's default separators) instead of `,` `:`.
    spaced: bool,
}

impl Style {
    /// Between two items of an array or object.
    fn item_separator(self) -> &'static str {
        if self.spaced && self.indent.is_none() {
            ", "
        } else {
            ","
        }
    }

    /// After an object's key.
    fn key_separator(self) -> &'static str {
        if self.spaced || self.indent.is_some() {
            ": "
        } else {
            ":"
        }
    }

    fn newline(self, out: &mut String, level: usize) {
        if let Some(indent) = self.indent {
            out.push('\n');
            out.push_str(&" ".repeat(indent * level));
        }
    }
}

fn write_value(
    out: &mut String,
    value: &Value,
    style: Style,
    level: usize,
) -> Result<(), ConfigError> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => out.push_str(&number_text(number)?),
        Value::String(text) => ldp_pyrepr::push_json_string(out, text, style.ensure_ascii),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(style.item_separator());
                }
                style.newline(out, level + 1);
                write_value(out, item, style, level + 1)?;
            }
            style.newline(out, level);
            out.push(']');
        }
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if style.sort_keys {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (index, (key, item)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push_str(style.item_separator());
                }
                style.newline(out, level + 1);
                ldp_pyrepr::push_json_string(out, key, style.ensure_ascii);
                out.push_str(style.key_separator());
                write_value(out, item, style, level + 1)?;
            }
            style.newline(out, level);
            out.push('}');
        }
    }
    Ok(())
}

fn number_text(number: &Number) -> Result<String, ConfigError> {
    if let Some(int) = number.as_i64() {
        return Ok(int.to_string());
    }
    if let Some(int) = number.as_u64() {
        return Ok(int.to_string());
    }
    match number.as_f64() {
        Some(float) if float.is_finite() => Ok(py_float(float)),
        _ => Err(ConfigError::Spec {
            message: "Out of range float values are not JSON compliant".to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(value: Value) -> String {
        canonical_json(&value).expect("canonical")
    }

    #[test]
    fn sorted_json_reads_like_python_default_dumps() {
        let value = json!({"b": [1, 2.5], "a": {"y": "\u{e9}", "x": null}});
        assert_eq!(
            python_json_sorted(&value),
            r#"{"a": {"x": null, "y": "\u00e9"}, "b": [1, 2.5]}"#
        );
    }

    #[test]
    fn floats_read_like_python_repr() {
        assert_eq!(text(json!(0.0)), "0.0");
        assert_eq!(text(json!(-0.0)), "-0.0");
        assert_eq!(text(json!(2.5)), "2.5");
        assert_eq!(text(json!(1e-5)), "1e-05");
        assert_eq!(text(json!(1e100)), "1e+100");
        assert_eq!(text(json!(1e16)), "1e+16");
        assert_eq!(text(json!(1e15)), "1000000000000000.0");
        assert_eq!(text(json!(0.0001)), "0.0001");
        assert_eq!(text(json!(0.1)), "0.1");
        assert_eq!(text(json!(100000.0)), "100000.0");
    }

    #[test]
    fn ints_stay_ints() {
        assert_eq!(text(json!([1, 1.0, -3, 0])), "[1,1.0,-3,0]");
        assert_eq!(text(json!(u64::MAX)), "18446744073709551615");
        assert_eq!(text(json!(i64::MIN)), "-9223372036854775808");
        let parsed: Value = serde_json::from_str("[1e5, 10, 1.50]").expect("json");
        assert_eq!(text(parsed), "[100000.0,10,1.5]");
    }

    #[test]
    fn keys_sorted_by_code_point_and_no_whitespace() {
        let parsed: Value =
            serde_json::from_str(r#"{"b": 1, "a": {"z": [true, null], "Z": "x"}, "é": 2, "B": 3}"#)
                .expect("json");
        assert_eq!(
            text(parsed),
            r#"{"B":3,"a":{"Z":"x","z":[true,null]},"b":1,"é":2}"#
        );
    }

    #[test]
    fn strings_escape_as_python_json() {
        assert_eq!(
            text(json!(
                "a\"b\\c\nd\re\tf\u{8}g\u{c}h\u{1}i\u{1f}\u{7f}é€😀\u{2028}"
            )),
            "\"a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh\\u0001i\\u001f\u{7f}é€😀\u{2028}\""
        );
    }

    #[test]
    fn pretty_json_reads_like_python_json_dumps_indent_2() {
        let parsed: Value = serde_json::from_str(
            r#"{"b": [1, 2.0, {"x": []}], "a": {}, "é": "€😀\u0007", "n": null}"#,
        )
        .expect("json");
        assert_eq!(
            python_json_pretty(&parsed),
            "{\n  \"b\": [\n    1,\n    2.0,\n    {\n      \"x\": []\n    }\n  ],\n  \"a\": {},\n  \"\\u00e9\": \"\\u20ac\\ud83d\\ude00\\u0007\",\n  \"n\": null\n}"
        );
    }

    #[test]
    fn the_key_preimage_of_the_reference() {
        let preimage = json!([
            "ldp/v1",
            "idempotency",
            "rides",
            "iceberg:nyc.rides",
            "2026-08-01T00:00:00Z",
            "2026-08-02T00:00:00Z"
        ]);
        assert_eq!(
            text(preimage.clone()),
            r#"["ldp/v1","idempotency","rides","iceberg:nyc.rides","2026-08-01T00:00:00Z","2026-08-02T00:00:00Z"]"#
        );
        assert_eq!(
            canonical_sha256(&preimage).expect("hash"),
            "62831bc16852034866a7b4b9869fcdabe016ba9bfdac1f07d73a9d265f3315c6"
        );
    }
}
