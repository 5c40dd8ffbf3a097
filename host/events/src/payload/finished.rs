//! `run.finished` of a pipeline run.

use serde_json::{Map, Value};

use super::{EventPayload, opt_num, opt_str};

/// How a pipeline run ended; decides `status` and the keys after the common ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Written (`published`) or found already written (`skipped_duplicate`): adds
    /// `published_snapshot_id` and `quality_passed` (`null` for a duplicate found before
    /// reading).
    Written {
        /// The key was already published.
        skipped_duplicate: bool,
        /// The snapshot holding the run's effect (`null` for file targets).
        published_snapshot_id: Option<i64>,
        /// Whether the checks passed (`None`: they did not run).
        quality_passed: Option<bool>,
    },
    /// A failed check held the write back: adds `quality_passed: false`.
    BlockedQuality,
    /// An error: adds nothing.
    Failed,
}

impl Outcome {
    /// `published`, `skipped_duplicate`, `blocked_quality` or `failed`.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Written {
                skipped_duplicate: true,
                ..
            } => "skipped_duplicate",
            Outcome::Written { .. } => "published",
            Outcome::BlockedQuality => "blocked_quality",
            Outcome::Failed => "failed",
        }
    }
}

/// `run.finished`: `{status, duration_s, rows_read, rows_written, idempotency_key}` plus what
/// the [`Outcome`] adds.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// How the run ended.
    pub outcome: Outcome,
    /// Wall-clock seconds since the start (written to 3 decimals).
    pub duration_s: f64,
    /// Rows read (`None`: the source was not read).
    pub rows_read: Option<u64>,
    /// Rows written (`None`: the run failed before writing).
    pub rows_written: Option<u64>,
    /// The run's idempotency key.
    pub idempotency_key: Option<String>,
}

impl EventPayload for Finished {
    fn event_type(&self) -> &'static str {
        "run.finished"
    }

    fn to_payload(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("status".into(), Value::from(self.outcome.status()));
        payload.insert("duration_s".into(), duration_value(self.duration_s));
        payload.insert("rows_read".into(), opt_num(self.rows_read));
        payload.insert("rows_written".into(), opt_num(self.rows_written));
        payload.insert(
            "idempotency_key".into(),
            opt_str(self.idempotency_key.as_deref()),
        );
        match self.outcome {
            Outcome::Written {
                published_snapshot_id,
                quality_passed,
                ..
            } => {
                payload.insert(
                    "published_snapshot_id".into(),
                    opt_num(published_snapshot_id),
                );
                payload.insert("quality_passed".into(), opt_num(quality_passed));
            }
            Outcome::BlockedQuality => {
                payload.insert("quality_passed".into(), Value::from(false));
            }
            Outcome::Failed => {}
        }
        payload
    }
}

/// Python's `round(seconds, 3)`: the nearest value with 3 decimals (ties to even, on the exact
/// binary value).
pub fn round_duration(seconds: f64) -> f64 {
    if !seconds.is_finite() {
        return seconds;
    }
    format!("{seconds:.3}").parse().unwrap_or(seconds)
}

/// A duration as a JSON float (`0.541`, `0.0`).
pub(crate) fn duration_value(seconds: f64) -> Value {
    serde_json::Number::from_f64(round_duration(seconds)).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_round_like_python() {
        assert_eq!(round_duration(0.5414), 0.541);
        assert_eq!(round_duration(0.0005), 0.001);
        assert_eq!(round_duration(0.0625), 0.062);
        assert_eq!(round_duration(2.675), 2.675);
        assert_eq!(round_duration(0.0), 0.0);
    }
}
