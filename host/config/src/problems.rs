//! The problem collector shared by the validator and the strict loader, and small helpers that
//! read JSON the way the Python tool reads Python objects (truthiness, `str.strip()`).

use serde_json::{Map, Value};

use crate::repr::repr;

/// Which reader is running: the full validator of `ldp plan`, or the strict loader of `ldp run`.
///
/// They share the section parsers; a few rules differ (the validator rejects catalog aliases the
/// runtime accepts, quality messages name `check` or `quality check #N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `ldp plan` / `validate_spec`: every problem, each prefixed by its JSON path.
    Plan,
    /// `ldp run`: the loader; the caller keeps the first problem.
    Run,
}

/// Problems in the order they were found, each already prefixed by its JSON path.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    items: Vec<String>,
}

impl Problems {
    /// Records `message` at the JSON path `at` (`at: message`, or the message alone at the root).
    /// Reports the keys of `map` that are not in `allowed`:
    /// `AT: has unknown keys ['x']; allowed: ['a', 'b']`.
    pub(crate) fn reject_unknown_keys(
        &mut self,
        at: &str,
        map: &Map<String, Value>,
        allowed: &[&str],
    ) {
        let unknown = unknown_keys(map, allowed);
        if !unknown.is_empty() {
            self.add(
                at,
                format!(
                    "has unknown keys {}; allowed: {}",
                    crate::repr_list(&unknown),
                    crate::repr_list(allowed)
                ),
            );
        }
    }

    pub(crate) fn add(&mut self, at: &str, message: impl AsRef<str>) {
        let message = message.as_ref();
        if at.is_empty() {
            self.items.push(message.to_owned());
        } else {
            self.items.push(format!("{at}: {message}"));
        }
    }

    /// How many problems have been found so far; compare before and after a section to know
    /// whether it was clean.
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(crate) fn into_vec(self) -> Vec<String> {
        self.items
    }

    pub(crate) fn first(&self) -> Option<&String> {
        self.items.first()
    }
}

/// `where.key`, or `key` at the root.
pub(crate) fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_owned()
    } else {
        format!("{at}.{key}")
    }
}

/// A value that is missing or JSON `null` (Python's `dict.get(key) is None`).
pub(crate) fn get<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|value| !value.is_null())
}

/// Python truthiness of a JSON value.
pub(crate) fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => *flag,
        Some(Value::Number(number)) => number.as_f64().is_some_and(|n| n != 0.0),
        Some(Value::String(text)) => !text.is_empty(),
        Some(Value::Array(items)) => !items.is_empty(),
        Some(Value::Object(map)) => !map.is_empty(),
    }
}

/// A string that is not blank after Python's `str.strip()`.
pub(crate) fn non_blank(value: &Value) -> Option<&str> {
    value.as_str().filter(|text| !text.trim().is_empty())
}

/// The Python tool's `_check_string`: `is required` when missing (and `required`), else a
/// non-empty string. Returns the string when it is one.
pub(crate) fn check_string(
    problems: &mut Problems,
    block: &Map<String, Value>,
    key: &str,
    at: &str,
    required: bool,
) -> Option<String> {
    match get(block, key) {
        None => {
            if required {
                problems.add(&join(at, key), "is required");
            }
            None
        }
        Some(value) => match non_blank(value) {
            Some(text) => Some(text.to_owned()),
            None => {
                problems.add(
                    &join(at, key),
                    format!("must be a non-empty string, got {}", repr(value)),
                );
                None
            }
        },
    }
}

/// A non-negative whole JSON number (not a bool, not a float such as `3.0`).
pub(crate) fn as_whole(value: &Value) -> Option<i128> {
    match value {
        Value::Number(number) if !number.is_f64() => number
            .as_i64()
            .map(i128::from)
            .or_else(|| number.as_u64().map(i128::from)),
        _ => None,
    }
}

/// A JSON number as `f64` (ints and floats; not bools).
pub(crate) fn as_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(number) => number.as_f64(),
        _ => None,
    }
}

/// Keys of `map` not in `allowed`, sorted as Python sorts strings (by code point).
pub(crate) fn unknown_keys(map: &Map<String, Value>, allowed: &[&str]) -> Vec<String> {
    let mut unknown: Vec<String> = map
        .keys()
        .filter(|key| !allowed.contains(&key.as_str()))
        .cloned()
        .collect();
    unknown.sort();
    unknown
}
