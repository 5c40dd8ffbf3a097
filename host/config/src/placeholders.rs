//! Window placeholders: `{window_start:FORMAT}` and `{window_end:FORMAT}` (FORMAT a Python
//! strftime format, rendered in the window's time zone) name the file of one window. They work
//! only in `metadata.source.path`, and always need a format.

use jiff::tz::TimeZone;
use serde_json::Value;

use crate::error::ConfigError;
use crate::problems::Problems;
use crate::repr::repr_str;
use crate::run_window::Window;
use crate::strftime::py_strftime;

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

/// The window placeholders of a template, in order, found as the Python tool's pattern
/// `\{(window_start|window_end)(?::([^{}]*))?\}` finds them (a format holds no brace; `{{` is
/// not an escape).
pub fn find_placeholders(template: &str) -> Vec<Placeholder> {
    let mut found = Vec::new();
    let bytes = template.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] != b'{' {
            index += 1;
            continue;
        }
        let rest = &template[index + 1..];
        let Some(name) = PLACEHOLDERS.iter().find(|name| rest.starts_with(**name)) else {
            index += 1;
            continue;
        };
        let after = index + 1 + name.len();
        let (format, close) = match bytes.get(after) {
            Some(b'}') => (None, after),
            Some(b':') => match template[after + 1..].find(['{', '}']) {
                Some(offset) if bytes[after + 1 + offset] == b'}' => (
                    Some(&template[after + 1..after + 1 + offset]),
                    after + 1 + offset,
                ),
                _ => {
                    index += 1;
                    continue;
                }
            },
            _ => {
                index += 1;
                continue;
            }
        };
        found.push(Placeholder {
            name: (*name).to_owned(),
            format: format
                .filter(|format| !format.is_empty())
                .map(str::to_owned),
            span: (index, close + 1),
        });
        index = close + 1;
    }
    found
}

/// Fills the window placeholders of a template for a window: each becomes the Python
/// `strftime` of its bound shown in `time_zone`
/// (`drops/orders_{window_start:%Y-%m-%d}.csv` → `drops/orders_2026-08-01.csv`).
///
/// # Errors
///
/// [`ConfigError::Spec`] for a placeholder without a format (`{window_start} needs a strftime
/// format, for example {window_start:%Y-%m-%d}`) or a directive [`py_strftime`] refuses.
pub fn fill_placeholders(
    template: &str,
    window: &Window,
    time_zone: &TimeZone,
) -> Result<String, ConfigError> {
    let mut out = String::new();
    let mut copied = 0;
    for placeholder in find_placeholders(template) {
        let (start, end) = placeholder.span;
        out.push_str(&template[copied..start]);
        let Some(format) = &placeholder.format else {
            return Err(ConfigError::Spec {
                message: format!(
                    "{} needs a strftime format, for example {{{}:%Y-%m-%d}}",
                    &template[start..end],
                    placeholder.name
                ),
            });
        };
        let bound = if placeholder.name == "window_start" {
            window.start
        } else {
            window.end
        };
        out.push_str(&py_strftime(&bound.to_zoned(time_zone.clone()), format)?);
        copied = end;
    }
    out.push_str(&template[copied..]);
    Ok(out)
}

/// Whether a text mentions a window placeholder at all (`{window_start` or `{window_end`).
pub fn mentions_placeholder(text: &str) -> bool {
    PLACEHOLDERS
        .iter()
        .any(|name| text.contains(&format!("{{{name}")))
}

/// Checks `metadata.source.path` as the Python tool does: each placeholder needs a format with a
/// strftime directive, and none may be left open.
pub(crate) fn check_source_path(problems: &mut Problems, path: Option<&Value>) {
    let Some(path) = path.and_then(Value::as_str) else {
        return;
    };
    let at = "metadata.source.path";
    let found = find_placeholders(path);
    for placeholder in &found {
        let written = &path[placeholder.span.0..placeholder.span.1];
        let name = &placeholder.name;
        match &placeholder.format {
            None => problems.add(
                at,
                format!("{written} needs a strftime format, for example {{{name}:%Y-%m-%d}}"),
            ),
            Some(format) if !format.contains('%') => problems.add(
                at,
                format!(
                    "{written} has the format {}, which has no strftime directive such as %Y; \
                     for example {{{name}:%Y-%m-%d}}",
                    repr_str(format)
                ),
            ),
            Some(_) => {}
        }
    }
    let mut rest = String::new();
    let mut copied = 0;
    for placeholder in &found {
        rest.push_str(&path[copied..placeholder.span.0]);
        copied = placeholder.span.1;
    }
    rest.push_str(&path[copied..]);
    if mentions_placeholder(&rest) {
        problems.add(
            at,
            "has a placeholder that is not closed; write it as {window_start:FORMAT} or \
             {window_end:FORMAT}",
        );
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
                let here = format!("{at}.{key}");
                if here != "metadata.source.path" {
                    walk(problems, child, &here);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                walk(problems, item, &format!("{at}[{index}]"));
            }
        }
        Value::String(text) if mentions_placeholder(text) => {
            problems.add(
                at,
                "has a window placeholder, which works only in metadata.source.path; \
                 to select the rows of a window, set metadata.window.column",
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
    fn fills_placeholders_in_the_window_time_zone() {
        let window = Window::new(
            "2026-07-31T22:00:00Z".parse().expect("start"),
            "2026-08-01T22:00:00Z".parse().expect("end"),
        )
        .expect("window");
        let paris = jiff::tz::db().get("Europe/Paris").expect("zone");
        let template = "drops/{{x}}/orders_{window_start:%Y-%m-%d}_{window_end:%d %H%z}.csv";
        assert_eq!(
            fill_placeholders(template, &window, &paris).expect("fill"),
            "drops/{{x}}/orders_2026-08-01_02 00+0200.csv"
        );
        assert_eq!(
            fill_placeholders(template, &window, &TimeZone::UTC).expect("fill"),
            "drops/{{x}}/orders_2026-07-31_01 22+0000.csv"
        );
        assert_eq!(
            fill_placeholders("a_{window_end:}.csv", &window, &paris)
                .unwrap_err()
                .to_string(),
            "{window_end:} needs a strftime format, for example {window_end:%Y-%m-%d}"
        );
    }

    #[test]
    fn finds_placeholders() {
        let found = find_placeholders(
            "drops/{{x}}/orders_{window_start:%Y-%m-%d}_{window_end}_{other}.csv",
        );
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].format.as_deref(), Some("%Y-%m-%d"));
        assert_eq!(found[1].format, None);
        let found =
            find_placeholders("{{window_start:%Y}}{window_end:%d{x}{window_start:}{window_end:%H}");
        let spans: Vec<(usize, usize)> = found.iter().map(|found| found.span).collect();
        assert_eq!(spans, [(1, 18), (36, 51), (51, 66)]);
        assert_eq!(found[1].format, None);
        assert_eq!(found[2].format.as_deref(), Some("%H"));
    }

    #[test]
    fn messages() {
        let mut problems = Problems::default();
        check_source_path(
            &mut problems,
            Some(&json!(
                "a_{window_start}_{window_start:}_{window_end:YY}_{window_end:%d}{window_end.csv"
            )),
        );
        check_elsewhere(
            &mut problems,
            &json!({"source": {"path": ["{window_start:%Y}"]}, "target": {"path": "out_{window_end:%Y}.csv"}}),
        );
        assert_eq!(
            problems.into_vec(),
            [
                "metadata.source.path: {window_start} needs a strftime format, for example {window_start:%Y-%m-%d}",
                "metadata.source.path: {window_start:} needs a strftime format, for example {window_start:%Y-%m-%d}",
                "metadata.source.path: {window_end:YY} has the format 'YY', which has no strftime directive such as %Y; for example {window_end:%Y-%m-%d}",
                "metadata.source.path: has a placeholder that is not closed; write it as {window_start:FORMAT} or {window_end:FORMAT}",
                "metadata.target.path: has a window placeholder, which works only in metadata.source.path; to select the rows of a window, set metadata.window.column",
            ]
        );
    }
}
