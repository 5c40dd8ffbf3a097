//! The parameters of ldp's built-in quality checks and their validation: the one rule that
//! `ldp plan` (the host's config validation) and the checks plugin (which runs the checks in
//! `ldp run`) both apply, so both accept and refuse the same items with the same messages
//! (the Python tool's).
//!
//! [`parse_check`] reads one `metadata.quality.checks` item, `{"check": "range", "column":
//! "fare", "min": 0, "name"?: ...}`, in the Python tool's order: the item is an object; `check`
//! names one of [`CHECK_NAMES`] (blanks and case ignored); no unknown key and no missing
//! required one ([`parameters`]); then the check's own parameters, then `name`. A parameter
//! given as `null` counts as absent.
//!
//! - [`CheckParams`]: the typed parameters of each of the eleven checks;
//! - [`ArrowType`]: the type strings of `schema`;
//! - [`iso`]: ISO-8601 dates and datetimes as Python's `fromisoformat` reads them;
//! - [`repr`]: Python's `repr()` of a config value, as the messages print it.

mod arrow_type;
mod checks;
pub mod iso;
mod read;
pub mod repr;

pub use arrow_type::ArrowType;
pub use checks::{
    AcceptedValues, CheckParams, Freshness, MaxGap, MaxSkew, Monotonic, NotNull, Range, RateBelow,
    RowCount, RowCountEquals, Schema, Unique,
};

use serde_json::Value;

use crate::repr::{repr, repr_names};

/// The check names, sorted (as messages list them).
pub const CHECK_NAMES: [&str; 11] = [
    "accepted_values",
    "freshness",
    "max_gap",
    "max_skew",
    "monotonic",
    "not_null",
    "range",
    "rate_below",
    "row_count",
    "schema",
    "unique",
];

/// The keys a check takes, in the order messages list them (its parameters, then `name`), and
/// how many of the first ones are required; `None` for an unknown check.
pub fn parameters(check: &str) -> Option<(&'static [&'static str], usize)> {
    Some(match check {
        "row_count" => (&["min", "max", "equals", "name"], 0),
        "not_null" | "unique" | "schema" => (&["columns", "name"], 1),
        "accepted_values" => (&["column", "values", "name"], 2),
        "range" => (&["column", "min", "max", "name"], 1),
        "freshness" => (&["column", "max_age_hours", "now", "name"], 2),
        "monotonic" => (&["column", "group_by", "strict", "order_by", "name"], 1),
        "max_skew" => (&["column_a", "column_b", "max_ms", "unit", "name"], 3),
        "rate_below" => (&["predicate_column", "max_rate", "group_by", "name"], 2),
        "max_gap" => (&["column", "max_ms", "group_by", "unit", "name"], 2),
        _ => return None,
    })
}

/// A time unit of `max_skew` and `max_gap` (default `ms`), and of Arrow time types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TimeUnit {
    /// Seconds.
    S,
    /// Milliseconds.
    #[default]
    Ms,
    /// Microseconds.
    Us,
    /// Nanoseconds.
    Ns,
}

impl TimeUnit {
    /// Every unit, in the order messages list them.
    pub const ALL: [TimeUnit; 4] = [TimeUnit::S, TimeUnit::Ms, TimeUnit::Us, TimeUnit::Ns];

    /// `s`, `ms`, `us` or `ns`.
    pub fn as_str(self) -> &'static str {
        match self {
            TimeUnit::S => "s",
            TimeUnit::Ms => "ms",
            TimeUnit::Us => "us",
            TimeUnit::Ns => "ns",
        }
    }
}

/// A number parameter: its value, and the number as the config wrote it (`48` or `48.0`),
/// which verdicts and plans print back.
#[derive(Clone, Debug, PartialEq)]
pub struct NumberParam {
    pub value: f64,
    pub json: serde_json::Number,
}

impl NumberParam {
    /// Python's `str()` of the number as written: `48`, `48.0`, `0.5`.
    pub fn text(&self) -> String {
        repr::number_text(&self.json)
    }
}

/// A parameter value a check refuses: the key (`min`, `group_by`...) and the Python tool's
/// message (`min must be a non-negative integer, got -1`), which is what it displays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub key: &'static str,
    pub message: String,
}

impl std::fmt::Display for ParamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParamError {}

/// Why a check item is refused. [`CheckError::message`] words it after a subject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckError {
    /// The item is not an object (its repr).
    NotAnObject(String),
    /// The item has no `check`, or `check: null`.
    MissingCheck,
    /// `check` names no check (its repr).
    UnknownCheck(String),
    /// Keys the check does not take, sorted.
    UnknownParameters {
        check: &'static str,
        keys: Vec<String>,
    },
    /// Required keys the item lacks, in the check's order.
    MissingParameters {
        check: &'static str,
        keys: Vec<&'static str>,
    },
    /// A parameter value the check refuses.
    Invalid {
        check: &'static str,
        error: ParamError,
    },
}

impl CheckError {
    /// The message about `subject` (`check` in `ldp plan`, `quality check #2` in `ldp run`):
    /// `quality check #2 (range) is invalid: range needs at least one of min or max`.
    pub fn message(&self, subject: &str) -> String {
        let known = CHECK_NAMES.join(", ");
        match self {
            CheckError::NotAnObject(got) => {
                format!("{subject} must be an object with a 'check' key, got {got}")
            }
            CheckError::MissingCheck => {
                format!("{subject} is missing 'check'; expected one of: {known}")
            }
            CheckError::UnknownCheck(got) => {
                format!("{subject} has unknown check {got}; expected one of: {known}")
            }
            CheckError::UnknownParameters { check, keys } => format!(
                "{subject} ({check}) has unknown parameter(s) {}; allowed: {}",
                repr_names(keys),
                parameters(check)
                    .map_or(&[][..], |(allowed, _)| allowed)
                    .join(", ")
            ),
            CheckError::MissingParameters { check, keys } => format!(
                "{subject} ({check}) is missing required parameter(s) {}",
                repr_names(keys)
            ),
            CheckError::Invalid { check, error } => {
                format!("{subject} ({check}) is invalid: {error}")
            }
        }
    }

    /// The parameter the error is about (`check` when the item names no check).
    pub fn key(&self) -> Option<&str> {
        match self {
            CheckError::NotAnObject(_) => None,
            CheckError::MissingCheck | CheckError::UnknownCheck(_) => Some("check"),
            CheckError::UnknownParameters { keys, .. } => keys.first().map(String::as_str),
            CheckError::MissingParameters { keys, .. } => keys.first().copied(),
            CheckError::Invalid { error, .. } => Some(error.key),
        }
    }
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message("check"))
    }
}

impl std::error::Error for CheckError {}

/// A check item, read and validated.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckItem {
    /// The check and its parameters.
    pub params: CheckParams,
    /// `name`, replacing the default name in results.
    pub name: Option<String>,
}

impl CheckItem {
    /// The check's config name (`range`).
    pub fn kind(&self) -> &'static str {
        self.params.kind()
    }

    /// The name results use: `name`, else [`CheckParams::default_name`].
    pub fn display_name(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| self.params.default_name())
    }
}

/// Reads one `metadata.quality.checks` item of a built-in check.
///
/// # Errors
///
/// The first thing wrong with the item, in the Python tool's order (see the crate's docs).
pub fn parse_check(item: &Value) -> Result<CheckItem, CheckError> {
    let Some(map) = item.as_object() else {
        return Err(CheckError::NotAnObject(repr(item)));
    };
    let kind = match map.get("check") {
        None | Some(Value::Null) => return Err(CheckError::MissingCheck),
        Some(kind) => kind,
    };
    let Some(check) = kind.as_str().and_then(|text| {
        let name = text.trim().to_lowercase();
        CHECK_NAMES.into_iter().find(|known| *known == name)
    }) else {
        return Err(CheckError::UnknownCheck(repr(kind)));
    };
    let (allowed, required) = parameters(check).unwrap_or((&[], 0));
    let mut unknown: Vec<String> = map
        .keys()
        .filter(|key| *key != "check" && !allowed.contains(&key.as_str()))
        .cloned()
        .collect();
    unknown.sort_unstable();
    if !unknown.is_empty() {
        return Err(CheckError::UnknownParameters {
            check,
            keys: unknown,
        });
    }
    let missing: Vec<&'static str> = allowed[..required]
        .iter()
        .copied()
        .filter(|key| !map.contains_key(*key))
        .collect();
    if !missing.is_empty() {
        return Err(CheckError::MissingParameters {
            check,
            keys: missing,
        });
    }
    let invalid = |error: ParamError| CheckError::Invalid { check, error };
    let params = CheckParams::parse(check, map).map_err(invalid)?;
    let name = parse_name(map).map_err(invalid)?;
    Ok(CheckItem { params, name })
}

/// An item's `name` (any check's, a check plugin file's too): absent, or a string that is not
/// blank.
///
/// # Errors
///
/// `name must be a non-empty string, got ' '`.
pub fn parse_name(item: &serde_json::Map<String, Value>) -> Result<Option<String>, ParamError> {
    match read::param(item, "name") {
        None => Ok(None),
        Some(value) => match value.as_str().filter(|text| !text.trim().is_empty()) {
            Some(text) => Ok(Some(text.to_owned())),
            None => Err(read::error(
                "name",
                format!("name must be a non-empty string, got {}", repr(value)),
            )),
        },
    }
}

#[cfg(test)]
mod tests;
