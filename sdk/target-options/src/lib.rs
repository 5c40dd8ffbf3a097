//! The options a config's target block may give the built-in file sinks (ldp's own keys,
//! beyond `path`), and their validation. `ldp plan` checks a target block with the same
//! functions that the sinks parse their config with, so both accept and refuse the same values.
//!
//! - [`xlsx`]: the XLSX sink's options (`sheet`, `header`).

pub mod xlsx;

use serde_json::Value;

/// A value an option does not take: the key and what is wrong, with what to write instead.
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

pub(crate) fn error(key: &str, message: impl Into<String>) -> OptionError {
    OptionError {
        key: key.to_string(),
        message: message.into(),
    }
}

pub(crate) fn expected(key: &str, what: &str, got: &Value) -> OptionError {
    error(key, format!("expected {what}, got {got}"))
}
