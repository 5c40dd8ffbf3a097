//! The options a config's source block may give the built-in CSV and JSON sources (ldp's own
//! keys, beyond the Python tool's `path`), and their validation. `ldp plan` checks a source
//! block with the same functions that the plugins parse their config with, so both accept and
//! refuse the same values; the host then hands the keys to the plugin as they are.
//!
//! - [`csv`]: the CSV source's options;
//! - [`json`]: the JSON source's options;
//! - [`ColumnType`]: the column types `columns` names;
//! - [`Encoding`]: the text encodings `encoding` names.

mod column_type;
pub mod csv;
mod encoding;
pub mod json;

pub use column_type::ColumnType;
pub use encoding::Encoding;

use serde_json::{Map, Value};

/// A value an option does not take: the key (`columns.zip` inside an object) and what is
/// wrong, with what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    pub key: String,
    pub message: String,
}

impl std::fmt::Display for OptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

impl std::error::Error for OptionError {}

impl OptionError {
    /// `key` is wrong: `message` says how, and what to write instead.
    pub fn new(key: &str, message: impl Into<String>) -> OptionError {
        OptionError {
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// `key` holds `got` where `what` is needed: `expected <what>, got <got>`.
    pub fn expected(key: &str, what: &str, got: &Value) -> OptionError {
        OptionError::new(key, format!("expected {what}, got {got}"))
    }
}

/// How many rows or records types are inferred from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InferRows {
    /// The source's default (for CSV the rows in the first 1 MiB, and at least the first 1000;
    /// for JSON every record).
    Default,
    /// The first `n`.
    Rows(usize),
    /// The whole file.
    All,
}

pub(crate) fn error(key: &str, message: impl Into<String>) -> OptionError {
    OptionError::new(key, message)
}

pub(crate) fn expected(key: &str, what: &str, got: &Value) -> OptionError {
    OptionError::expected(key, what, got)
}

/// `infer_rows`: an integer ≥ 1 or `"all"`.
pub(crate) fn infer_rows(map: &Map<String, Value>) -> Result<InferRows, OptionError> {
    Ok(match map.get("infer_rows") {
        None => InferRows::Default,
        Some(Value::String(s)) if s == "all" => InferRows::All,
        Some(v) => match v.as_u64() {
            Some(n) if n >= 1 => InferRows::Rows(usize::try_from(n).unwrap_or(usize::MAX)),
            _ => return Err(expected("infer_rows", "an integer >= 1 or \"all\"", v)),
        },
    })
}

/// `key` as a boolean, `default` when absent.
pub(crate) fn boolean(
    map: &Map<String, Value>,
    key: &str,
    default: bool,
) -> Result<bool, OptionError> {
    match map.get(key) {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(expected(key, "true or false", other)),
    }
}
