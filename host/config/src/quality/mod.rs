//! `metadata.quality`: a list of checks, or `{on_failure: fail|warn, checks: [...]}`
//! (`on_failure` defaults to `fail`).
//!
//! Each check is `{"check": <name>, ...params, "name"?: <display name>}`; [`parse_check`] reads
//! one with the Python tool's messages for unknown checks, unknown and missing parameters and
//! invalid values. The built-in checks' rules live in `ldp_check_params`, which the checks plugin
//! applies too, so `ldp plan` refuses exactly the items `ldp run` refuses.

mod checks;

pub use checks::{Check, CheckSpec, parse_check};
pub use ldp_check_params::{CHECK_NAMES, CheckParams, RowCountEquals, TimeUnit};

use serde_json::Value;

use crate::problems::{Mode, Problems};
use crate::repr::repr;

/// Whether a text names an Arrow type the `schema` check understands (`int64`,
/// `timestamp[us, tz=UTC]`, `decimal(10, 2)`...).
pub fn is_arrow_type(text: &str) -> bool {
    ldp_check_params::ArrowType::parse(text).is_ok()
}

/// What a failed check does to the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum OnFailure {
    /// Nothing is written and the run exits with 3 (the default).
    #[default]
    Fail,
    /// A warning is logged and the data is written.
    Warn,
}

impl OnFailure {
    /// `fail` or `warn`.
    pub fn as_str(self) -> &'static str {
        match self {
            OnFailure::Fail => "fail",
            OnFailure::Warn => "warn",
        }
    }
}

/// The quality block, normalised.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Quality {
    /// `on_failure` (default `fail`).
    pub on_failure: OnFailure,
    /// The checks, in config order.
    pub checks: Vec<CheckSpec>,
}

/// Checks `metadata.quality` and returns it normalised (no checks when absent).
pub(crate) fn check_quality(
    problems: &mut Problems,
    value: Option<&Value>,
    mode: Mode,
) -> Option<Quality> {
    let at = "metadata.quality";
    let before = problems.len();
    let mut quality = Quality::default();
    let checks: &[Value] = match value {
        None | Some(Value::Null) => return Some(quality),
        Some(Value::Array(items)) => items,
        Some(Value::Object(block)) => {
            let on_failure = block
                .get("on_failure")
                .cloned()
                .unwrap_or_else(|| Value::from("fail"));
            match on_failure.as_str() {
                Some("fail") => quality.on_failure = OnFailure::Fail,
                Some("warn") => quality.on_failure = OnFailure::Warn,
                _ => {
                    let message = format!("must be 'fail' or 'warn', got {}", repr(&on_failure));
                    match mode {
                        Mode::Plan => problems.add(&format!("{at}.on_failure"), message),
                        Mode::Run => problems.add("", format!("quality.on_failure {message}")),
                    }
                }
            }
            match block.get("checks") {
                None => &[],
                Some(Value::Array(items)) => items,
                Some(_) => {
                    match mode {
                        Mode::Plan => problems.add(&format!("{at}.checks"), "must be a list"),
                        Mode::Run => problems.add("", "quality.checks must be a list"),
                    }
                    return None;
                }
            }
        }
        Some(_) => {
            match mode {
                Mode::Plan => problems.add(
                    at,
                    "must be a list of checks or an object with 'on_failure' and 'checks'",
                ),
                Mode::Run => {
                    problems.add("", "config metadata 'quality' must be a list or an object")
                }
            }
            return None;
        }
    };
    for (index, item) in checks.iter().enumerate() {
        match parse_check(item) {
            Ok(check) => quality.checks.push(check),
            Err(tail) => match mode {
                Mode::Plan => {
                    problems.add(&format!("{at}.checks[{index}]"), format!("check{tail}"))
                }
                Mode::Run => problems.add("", format!("quality check #{}{tail}", index + 1)),
            },
        }
    }
    (problems.len() == before).then_some(quality)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn quality(value: Value, mode: Mode) -> Result<Quality, Vec<String>> {
        let mut problems = Problems::default();
        check_quality(&mut problems, Some(&value), mode).ok_or_else(|| problems.into_vec())
    }

    #[test]
    fn forms_and_messages() {
        let listed = quality(json!([{"check": "row_count", "min": 1}]), Mode::Plan).unwrap();
        assert_eq!(
            (listed.on_failure, listed.checks.len()),
            (OnFailure::Fail, 1)
        );
        let warn = quality(json!({"on_failure": "warn"}), Mode::Plan).unwrap();
        assert_eq!((warn.on_failure, warn.checks.len()), (OnFailure::Warn, 0));
        let bad = json!({"on_failure": "explode", "checks": [{"check": "range", "column": "fare"}, {"check": "nope"}]});
        assert_eq!(
            quality(bad.clone(), Mode::Plan).unwrap_err(),
            [
                "metadata.quality.on_failure: must be 'fail' or 'warn', got 'explode'",
                "metadata.quality.checks[0]: check (range) is invalid: range needs at least one of min or max",
                "metadata.quality.checks[1]: check has unknown check 'nope'; expected one of: accepted_values, freshness, max_gap, max_skew, monotonic, not_null, range, rate_below, row_count, schema, unique",
            ]
        );
        let run = quality(bad, Mode::Run).unwrap_err();
        assert_eq!(
            run[0],
            "quality.on_failure must be 'fail' or 'warn', got 'explode'"
        );
        assert_eq!(
            run[1],
            "quality check #1 (range) is invalid: range needs at least one of min or max"
        );
        assert_eq!(
            quality(json!("x"), Mode::Plan).unwrap_err(),
            [
                "metadata.quality: must be a list of checks or an object with 'on_failure' and 'checks'"
            ]
        );
    }
}
