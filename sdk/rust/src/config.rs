//! A plugin's configuration: a JSON object text with a fixed set of keys, read key by key with
//! one message per kind of mistake.
//!
//! [`ConfigObject::parse`] refuses a text that is not JSON, a value that is not an object and a
//! key the plugin does not take (naming it and listing the keys it takes). The getters then read
//! one key each; a JSON `null` counts as absent. Every error is a [`PluginError`] of kind
//! [`Config`](crate::ErrorKind::Config) that names the key and says what it takes:
//!
//! | mistake | message |
//! |---|---|
//! | not JSON | `config is not valid JSON: EOF while parsing an object at line 1 column 1` |
//! | not an object | `config must be a JSON object, got an array` |
//! | an unknown key | `config.mode: unknown key; the keys are path, compression` |
//! | a missing key | `config.path: required; give the absolute path of the CSV file` |
//! | a wrong value | `config.batch_size: expected an integer from 1 to 1048576, got 0` |
//!
//! A plugin's own rules use [`error`] and [`expected`], so that they read the same way:
//!
//! ```
//! use ldp_plugin_sdk::config::{self, ConfigObject};
//!
//! let text = r#"{"path": "/data/in.csv", "delimiter": ";;"}"#;
//! let config = ConfigObject::parse(text, &["path", "delimiter"]).unwrap();
//! let path = config.required_non_empty_string("path", "give the absolute path of the file");
//! assert_eq!(path.unwrap(), "/data/in.csv");
//! let delimiter = config.get("delimiter").unwrap();
//! let error = config::expected("delimiter", "a string of one character", delimiter);
//! assert_eq!(error.message, r#"config.delimiter: expected a string of one character, got ";;""#);
//! ```

use crate::PluginError;
use serde_json::{Map, Value};
use std::fmt::Display;
use std::ops::{Bound, RangeBounds};

/// A configuration object whose keys are all known to the plugin.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigObject {
    map: Map<String, Value>,
}

/// The error at `key`: `config.<key>: <message>`.
pub fn error(key: &str, message: impl Display) -> PluginError {
    PluginError::config(format!("config.{key}: {message}"))
}

/// A value `key` does not take: `config.<key>: expected <what>, got <value as JSON>`.
pub fn expected(key: &str, what: &str, got: &Value) -> PluginError {
    error(key, format_args!("expected {what}, got {got}"))
}

/// What a value is, for messages: `null`, `a boolean`, `a number`, `a string`, `an array`,
/// `an object`.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl ConfigObject {
    /// Parses a configuration text: a JSON object whose keys are all among `keys` (listed in
    /// that order when one is not).
    pub fn parse(text: &str, keys: &[&str]) -> Result<Self, PluginError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| PluginError::config(format!("config is not valid JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(PluginError::config(format!(
                "config must be a JSON object, got {}",
                kind_of(&value)
            )));
        };
        if let Some(key) = map.keys().find(|key| !keys.contains(&key.as_str())) {
            let allowed = match keys {
                [] => "the config takes no key".to_owned(),
                [only] => format!("the only key is {only}"),
                _ => format!("the keys are {}", keys.join(", ")),
            };
            return Err(error(key, format_args!("unknown key; {allowed}")));
        }
        Ok(Self { map })
    }

    /// The whole object, for rules that read several keys at once.
    pub fn map(&self) -> &Map<String, Value> {
        &self.map
    }

    /// The value of `key`; `None` when it is absent or `null`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|value| !value.is_null())
    }

    /// The value of `key`, which must be given: `hint` says what to give
    /// (`config.path: required; <hint>`).
    pub fn required(&self, key: &str, hint: &str) -> Result<&Value, PluginError> {
        self.get(key)
            .ok_or_else(|| error(key, format_args!("required; {hint}")))
    }

    /// `key` as a string.
    pub fn string(&self, key: &str) -> Result<Option<&str>, PluginError> {
        self.get(key).map(|value| as_string(key, value)).transpose()
    }

    /// `key` as a string, which must be given.
    pub fn required_string(&self, key: &str, hint: &str) -> Result<&str, PluginError> {
        as_string(key, self.required(key, hint)?)
    }

    /// `key` as a string with something besides white space.
    pub fn non_empty_string(&self, key: &str) -> Result<Option<&str>, PluginError> {
        self.get(key)
            .map(|value| as_non_empty_string(key, value))
            .transpose()
    }

    /// `key` as a string with something besides white space, which must be given.
    pub fn required_non_empty_string(&self, key: &str, hint: &str) -> Result<&str, PluginError> {
        as_non_empty_string(key, self.required(key, hint)?)
    }

    /// `key` as the absolute path of a file (it starts with `/` and does not end with one),
    /// which must be given; `what` names the file in messages (`CSV file to write`).
    pub fn absolute_file_path(&self, key: &str, what: &str) -> Result<&str, PluginError> {
        let hint = format!("give the absolute path of the {what}");
        let path = self.required_non_empty_string(key, &hint)?;
        if path.starts_with('/') && !path.ends_with('/') {
            Ok(path)
        } else {
            Err(error(
                key,
                format_args!("{path:?} is not the absolute path of a file; {hint}"),
            ))
        }
    }

    /// `key` as a whole number in `range`.
    pub fn u64_in(
        &self,
        key: &str,
        range: impl RangeBounds<u64>,
    ) -> Result<Option<u64>, PluginError> {
        let (low, high) = inclusive(range.start_bound().cloned(), range.end_bound().cloned());
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        match value.as_u64() {
            Some(n) if (low..=high).contains(&n) => Ok(Some(n)),
            _ => Err(expected(key, &integer_range(low, high), value)),
        }
    }

    /// `key` as a whole number in `range`; a range without an end takes any number, as many as
    /// a `usize` holds.
    pub fn usize_in(
        &self,
        key: &str,
        range: impl RangeBounds<usize>,
    ) -> Result<Option<usize>, PluginError> {
        let widen = |bound: Bound<&usize>| bound.cloned().map(|n| n as u64);
        let n = self.u64_in(key, (widen(range.start_bound()), widen(range.end_bound())))?;
        Ok(n.map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
    }

    /// `key` as a number.
    pub fn number(&self, key: &str) -> Result<Option<f64>, PluginError> {
        self.get(key)
            .map(|value| {
                value
                    .as_f64()
                    .ok_or_else(|| expected(key, "a number", value))
            })
            .transpose()
    }

    /// `key` as an array of strings; an item that is not one is named by its position
    /// (`config.columns[1]: expected a string, got 1`).
    pub fn string_list(&self, key: &str) -> Result<Option<Vec<String>>, PluginError> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let Value::Array(items) = value else {
            return Err(expected(key, "an array of strings", value));
        };
        items
            .iter()
            .enumerate()
            .map(|(index, item)| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(expected(&format!("{key}[{index}]"), "a string", other)),
            })
            .collect::<Result<_, _>>()
            .map(Some)
    }

    /// `key` as an array, which must be given.
    pub fn required_array(&self, key: &str, hint: &str) -> Result<&[Value], PluginError> {
        match self.required(key, hint)? {
            Value::Array(items) => Ok(items),
            other => Err(expected(key, "an array", other)),
        }
    }
}

fn as_string<'a>(key: &str, value: &'a Value) -> Result<&'a str, PluginError> {
    value
        .as_str()
        .ok_or_else(|| expected(key, "a string", value))
}

fn as_non_empty_string<'a>(key: &str, value: &'a Value) -> Result<&'a str, PluginError> {
    match value.as_str() {
        Some(s) if !s.trim().is_empty() => Ok(s),
        _ => Err(expected(key, "a non-empty string", value)),
    }
}

/// The bounds of a range as the first and last number it holds (`u64::MAX` when it has no end).
fn inclusive(start: Bound<u64>, end: Bound<u64>) -> (u64, u64) {
    let low = match start {
        Bound::Included(n) => n,
        Bound::Excluded(n) => n.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let high = match end {
        Bound::Included(n) => n,
        Bound::Excluded(n) => n.saturating_sub(1),
        Bound::Unbounded => u64::MAX,
    };
    (low, high)
}

/// `an integer from 1 to 10`, or `an integer >= 1` for a range without an end.
fn integer_range(low: u64, high: u64) -> String {
    if high == u64::MAX {
        format!("an integer >= {low}")
    } else {
        format!("an integer from {low} to {high}")
    }
}

#[cfg(test)]
mod tests;
