//! `metadata.retries`: `{max_attempts ≥ 1 (1), delay_s ≥ 0 (30), backoff ≥ 1 (2.0)}`, defaults
//! in parentheses; any other key is an error.
//!
//! As in the Python tool, a key that is present is checked even when it is `null` (`"retries":
//! null` is not an object, `"max_attempts": null` is not a whole number).

use serde::Serialize;
use serde_json::Value;

use crate::problems::{Problems, as_number, as_whole, join};
use crate::repr::repr;

/// The keys a retries object may have.
pub const RETRY_KEYS: [&str; 3] = ["max_attempts", "delay_s", "backoff"];

/// The longest wait between two attempts, in seconds, whatever the delay and the backoff come to.
pub const MAX_DELAY_S: f64 = 86_400.0;

/// How a failed run is tried again (by a workflow or schedule). Serialised as the Python tool's
/// `ldp workflow plan --json` shows it: `{"max_attempts": 2, "delay_s": 0.0, "backoff": 2.0}`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Retries {
    /// The attempts in all; 1 means no retry.
    pub max_attempts: u64,
    /// The longest wait before the first retry, in seconds (full jitter).
    pub delay_s: f64,
    /// What the longest wait is multiplied by for each retry after the first.
    pub backoff: f64,
}

impl Default for Retries {
    fn default() -> Self {
        Retries {
            max_attempts: 1,
            delay_s: 30.0,
            backoff: 2.0,
        }
    }
}

impl Retries {
    /// The longest wait after attempt `attempt` (from 1): `delay_s * backoff^(attempt - 1)`.
    pub fn max_delay_after(&self, attempt: u64) -> f64 {
        let exponent = i32::try_from(attempt.saturating_sub(1)).unwrap_or(i32::MAX);
        self.delay_s * self.backoff.powi(exponent)
    }

    /// The longest wait after attempt `attempt` (from 1) failed, capped at [`MAX_DELAY_S`]: a
    /// full-jitter wait is a random time from 0 to this.
    pub fn delay_cap(&self, attempt: u64) -> f64 {
        let delay = self.max_delay_after(attempt);
        if delay.is_finite() {
            delay.min(MAX_DELAY_S)
        } else {
            MAX_DELAY_S
        }
    }

    /// Whether a failed attempt is followed by another one (`max_attempts` > 1).
    pub fn enabled(&self) -> bool {
        self.max_attempts > 1
    }
}

/// Checks `metadata.retries` at `at`; the defaults when absent, `None` when invalid.
pub(crate) fn check_retries(
    problems: &mut Problems,
    value: Option<&Value>,
    at: &str,
) -> Option<Retries> {
    let Some(value) = value else {
        return Some(Retries::default());
    };
    let Some(map) = value.as_object() else {
        problems.add(
            at,
            format!(
                "must be an object such as {{'max_attempts': 3, 'delay_s': 30}}, got {}",
                repr(value)
            ),
        );
        return None;
    };
    let before = problems.len();
    problems.reject_unknown_keys(at, map, &RETRY_KEYS);
    let mut retries = Retries::default();
    if let Some(raw) = map.get("max_attempts") {
        match as_whole(raw) {
            Some(n) if n >= 1 => retries.max_attempts = u64::try_from(n).unwrap_or(u64::MAX),
            _ => problems.add(
                &join(at, "max_attempts"),
                format!("must be a whole number from 1, got {}", repr(raw)),
            ),
        }
    }
    if let Some(raw) = map.get("delay_s") {
        match as_number(raw) {
            Some(n) if n >= 0.0 && n.is_finite() => retries.delay_s = n,
            _ => problems.add(
                &join(at, "delay_s"),
                format!("must be a number from 0, got {}", repr(raw)),
            ),
        }
    }
    if let Some(raw) = map.get("backoff") {
        match as_number(raw) {
            Some(n) if n >= 1.0 && n.is_finite() => retries.backoff = n,
            _ => problems.add(
                &join(at, "backoff"),
                format!("must be a number from 1, got {}", repr(raw)),
            ),
        }
    }
    (problems.len() == before).then_some(retries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn retries(value: Value) -> Result<Retries, Vec<String>> {
        let mut problems = Problems::default();
        check_retries(&mut problems, Some(&value), "metadata.retries")
            .ok_or_else(|| problems.into_vec())
    }

    #[test]
    fn defaults_and_bounds() {
        assert_eq!(retries(json!({})), Ok(Retries::default()));
        let parsed = retries(json!({"max_attempts": 3, "delay_s": 0, "backoff": 1.5})).unwrap();
        assert_eq!(
            (parsed.max_attempts, parsed.delay_s, parsed.backoff),
            (3, 0.0, 1.5)
        );
        assert_eq!(parsed.max_delay_after(3), 0.0);
        assert_eq!(
            retries(json!({"max_attempts": 0, "delay_s": -1, "backoff": true, "x": 1}))
                .unwrap_err(),
            [
                "metadata.retries: has unknown keys ['x']; allowed: ['max_attempts', 'delay_s', 'backoff']",
                "metadata.retries.max_attempts: must be a whole number from 1, got 0",
                "metadata.retries.delay_s: must be a number from 0, got -1",
                "metadata.retries.backoff: must be a number from 1, got True",
            ]
        );
        assert_eq!(
            retries(json!({"max_attempts": 2.0})).unwrap_err(),
            ["metadata.retries.max_attempts: must be a whole number from 1, got 2.0"]
        );
        assert_eq!(
            retries(json!(null)).unwrap_err(),
            [
                "metadata.retries: must be an object such as {'max_attempts': 3, 'delay_s': 30}, got None"
            ]
        );
        assert_eq!(
            retries(json!({"delay_s": null})).unwrap_err(),
            ["metadata.retries.delay_s: must be a number from 0, got None"]
        );
        let capped = Retries {
            max_attempts: 9,
            delay_s: 3600.0,
            backoff: 10.0,
        };
        assert_eq!(capped.delay_cap(1), 3600.0);
        assert_eq!(capped.delay_cap(3), MAX_DELAY_S);
        assert!(capped.enabled() && !Retries::default().enabled());
    }
}
