//! JSON text as Python's `json.dumps` writes it, in the three shapes the datasets use:
//!
//! * [`manifest_text`]: `json.dumps(value, indent=2, sort_keys=True)` (the manifest files);
//! * [`inline_sorted`]: `json.dumps(value, sort_keys=True)` (the `ldp.dataset` Parquet metadata);
//! * [`compact_sorted`]: `json.dumps(value, sort_keys=True, separators=(",", ":"))` (the schema
//!   fingerprint's payload);
//!
//! all with `ensure_ascii=True` (non-ASCII as `\uXXXX`), and [`row_line`] for a JSONL row:
//! `json.dumps(row, ensure_ascii=False)`, keys in column order. Floats are Python's `repr`.

use serde_json::Value;

#[derive(Clone, Copy)]
struct Style {
    sort_keys: bool,
    indent: Option<usize>,
    item_separator: &'static str,
    key_separator: &'static str,
    ensure_ascii: bool,
}

/// `json.dumps(value, indent=2, sort_keys=True)`.
pub(crate) fn manifest_text(value: &Value) -> String {
    render(
        value,
        Style {
            sort_keys: true,
            indent: Some(2),
            item_separator: ",",
            key_separator: ": ",
            ensure_ascii: true,
        },
    )
}

/// `json.dumps(value, sort_keys=True)`.
pub(crate) fn inline_sorted(value: &Value) -> String {
    render(
        value,
        Style {
            sort_keys: true,
            indent: None,
            item_separator: ", ",
            key_separator: ": ",
            ensure_ascii: true,
        },
    )
}

/// `json.dumps(value, sort_keys=True, separators=(",", ":"))`.
pub(crate) fn compact_sorted(value: &Value) -> String {
    render(
        value,
        Style {
            sort_keys: true,
            indent: None,
            item_separator: ",",
            key_separator: ":",
            ensure_ascii: true,
        },
    )
}

/// `json.dumps(row, ensure_ascii=False)`: keys in the order given.
pub(crate) fn row_line(value: &Value) -> String {
    render(
        value,
        Style {
            sort_keys: false,
            indent: None,
            item_separator: ", ",
            key_separator: ": ",
            ensure_ascii: false,
        },
    )
}

fn render(value: &Value, style: Style) -> String {
    let mut out = String::new();
    write_value(&mut out, value, style, 0);
    out
}

fn newline(out: &mut String, style: Style, level: usize) {
    if let Some(indent) = style.indent {
        out.push('\n');
        out.push_str(&" ".repeat(indent * level));
    }
}

fn write_value(out: &mut String, value: &Value, style: Style, level: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(number) => {
            if let Some(int) = number.as_i64() {
                out.push_str(&int.to_string());
            } else if let Some(int) = number.as_u64() {
                out.push_str(&int.to_string());
            } else {
                match number.as_f64() {
                    Some(float) if float.is_finite() => out.push_str(&ldp_pyrepr::py_float(float)),
                    _ => out.push_str("null"),
                }
            }
        }
        Value::String(text) => ldp_pyrepr::push_json_string(out, text, style.ensure_ascii),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(style.item_separator);
                }
                newline(out, style, level + 1);
                write_value(out, item, style, level + 1);
            }
            newline(out, style, level);
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
                    out.push_str(style.item_separator);
                }
                newline(out, style, level + 1);
                ldp_pyrepr::push_json_string(out, key, style.ensure_ascii);
                out.push_str(style.key_separator);
                write_value(out, item, style, level + 1);
            }
            newline(out, style, level);
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes_read_like_python() {
        let value = json!({"b": [1, 2.0], "a": {"z": null, "y": "é"}, "e": {}});
        assert_eq!(
            compact_sorted(&value),
            r#"{"a":{"y":"\u00e9","z":null},"b":[1,2.0],"e":{}}"#
        );
        assert_eq!(
            inline_sorted(&value),
            r#"{"a": {"y": "\u00e9", "z": null}, "b": [1, 2.0], "e": {}}"#
        );
        assert_eq!(
            manifest_text(&value),
            "{\n  \"a\": {\n    \"y\": \"\\u00e9\",\n    \"z\": null\n  },\n  \"b\": [\n    1,\n    2.0\n  ],\n  \"e\": {}\n}"
        );
        assert_eq!(
            row_line(&json!({"b": "é", "a": 1e-5})),
            r#"{"b": "é", "a": 1e-05}"#
        );
    }
}
