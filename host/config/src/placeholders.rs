//! Window placeholders: `{window_start:FORMAT}` and `{window_end:FORMAT}` (FORMAT a Python
//! strftime format, rendered in the window's time zone) name the file of one window. They work
//! only in `metadata.source.path`, and always need a format.

use serde_json::Value;

use crate::problems::Problems;

/// The placeholder names.
pub const PLACEHOLDERS: [&str; 2] = ["window_start", "window_end"];

/// One placeholder found in a path template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placeholder {
    /// `window_start` or `window_end`.
    pub name: String,
    /// The strftime format after `:`, when there is one.
    pub format: Option<String>,
    /// Byte range of the whole `{...}` in the template.
    pub span: (usize, usize),
}

/// The window placeholders of a template, in order. `{{` and `}}` are literal braces.
pub fn find_placeholders(template: &str) -> Vec<Placeholder> {
    let mut found = Vec::new();
    let bytes = template.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'{' if bytes.get(index + 1) == Some(&b'{') => index += 2,
            b'{' => {
                let Some(close) = template[index..].find('}') else {
                    break;
                };
                let inner = &template[index + 1..index + close];
                let (name, format) = match inner.split_once(':') {
                    Some((name, format)) => (name, Some(format)),
                    None => (inner, None),
                };
                if PLACEHOLDERS.contains(&name) {
                    found.push(Placeholder {
                        name: name.to_owned(),
                        format: format
                            .filter(|format| !format.is_empty())
                            .map(str::to_owned),
                        span: (index, index + close + 1),
                    });
                }
                index += close + 1;
            }
            _ => index += 1,
        }
    }
    found
}

/// Whether a text mentions a window placeholder at all (`{window_start` or `{window_end`).
pub fn mentions_placeholder(text: &str) -> bool {
    PLACEHOLDERS
        .iter()
        .any(|name| text.contains(&format!("{{{name}")))
}

/// Checks `metadata.source.path`: every placeholder needs a format.
pub(crate) fn check_source_path(problems: &mut Problems, path: Option<&Value>) {
    let Some(path) = path.and_then(Value::as_str) else {
        return;
    };
    let mut reported: Vec<&str> = Vec::new();
    for placeholder in find_placeholders(path) {
        if placeholder.format.is_none() && !reported.contains(&placeholder.name.as_str()) {
            let name = if placeholder.name == "window_start" {
                "window_start"
            } else {
                "window_end"
            };
            reported.push(name);
            problems.add(
                "metadata.source.path",
                format!("{{{name}}} needs a strftime format, for example {{{name}:%Y-%m-%d}}"),
            );
        }
    }
}

/// Checks every other string of `metadata` for placeholders, which only `metadata.source.path`
/// may hold.
pub(crate) fn check_elsewhere(problems: &mut Problems, metadata: &Value) {
    walk(problems, metadata, "metadata");
}

fn walk(problems: &mut Problems, value: &Value, at: &str) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                walk(problems, child, &format!("{at}.{key}"));
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                walk(problems, item, &format!("{at}[{index}]"));
            }
        }
        Value::String(text) if at != "metadata.source.path" && mentions_placeholder(text) => {
            problems.add(
                at,
                "has a window placeholder, which works only in metadata.source.path; \
                 write this value without {window_start:...} or {window_end:...}",
            );
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_placeholders() {
        let found = find_placeholders(
            "drops/{{x}}/orders_{window_start:%Y-%m-%d}_{window_end}_{other}.csv",
        );
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].format.as_deref(), Some("%Y-%m-%d"));
        assert_eq!(found[1].format, None);
    }

    #[test]
    fn messages() {
        let mut problems = Problems::default();
        check_source_path(
            &mut problems,
            Some(&json!("a_{window_start}_{window_start}.csv")),
        );
        check_elsewhere(
            &mut problems,
            &json!({"source": {"path": "{window_start:%Y}"}, "target": {"path": "out_{window_end:%Y}.csv"}}),
        );
        assert_eq!(
            problems.into_vec(),
            [
                "metadata.source.path: {window_start} needs a strftime format, for example {window_start:%Y-%m-%d}",
                "metadata.target.path: has a window placeholder, which works only in metadata.source.path; write this value without {window_start:...} or {window_end:...}",
            ]
        );
    }
}
