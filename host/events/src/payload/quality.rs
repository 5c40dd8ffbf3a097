//! `quality.evaluated`, and the boundary rules for check verdicts: no failing-value samples
//! (`metrics.sample`, `metrics.invalid_values`, the `; e.g.` part of `details`), no observed
//! bounds of non-numeric columns, and secrets redacted.

use serde_json::{Map, Value};

use super::EventPayload;
use super::schema::{SchemaField, list};
use crate::redact::{MAX_DETAILS, redact_text};

/// One check's verdict, as the check reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOutcome {
    /// The check's display name, e.g. `not_null(ride_id)`.
    pub name: String,
    /// Whether the data passed.
    pub passed: bool,
    /// Rows that failed.
    pub failing_rows: u64,
    /// The check's one-line details (the payload keeps the part before `; e.g.`, redacted).
    pub details: String,
    /// The check's metrics, a JSON object (the payload drops samples and text bounds).
    pub metrics: Value,
}

impl CheckOutcome {
    /// The result as the payload holds it: `{name, column, passed, failing_rows, details,
    /// metrics}`.
    pub fn to_value(&self) -> Value {
        let mut result = Map::new();
        result.insert("name".into(), Value::from(self.name.clone()));
        result.insert(
            "column".into(),
            check_column(&self.name).map_or(Value::Null, Value::from),
        );
        result.insert("passed".into(), Value::from(self.passed));
        result.insert("failing_rows".into(), Value::from(self.failing_rows));
        result.insert("details".into(), Value::from(redact_details(&self.details)));
        result.insert(
            "metrics".into(),
            Value::Object(redact_metrics(&self.metrics)),
        );
        Value::Object(result)
    }
}

/// `quality.evaluated`: `{rows, schema, null_counts, on_failure, passed, checks_run,
/// checks_failed, results}`, about the batch the checks saw (after transforms).
#[derive(Debug, Clone, PartialEq)]
pub struct QualityEvaluated {
    /// Rows checked.
    pub rows: u64,
    /// Their columns.
    pub schema: Vec<SchemaField>,
    /// Null values per column, in column order.
    pub null_counts: Vec<(String, u64)>,
    /// The config's `on_failure` (`fail`, `warn`).
    pub on_failure: String,
    /// The verdicts, in check order (none without checks: the report passed).
    pub results: Vec<CheckOutcome>,
}

impl EventPayload for QualityEvaluated {
    fn event_type(&self) -> &'static str {
        "quality.evaluated"
    }

    fn to_payload(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("rows".into(), Value::from(self.rows));
        payload.insert("schema".into(), list(&self.schema));
        let nulls: Map<String, Value> = self
            .null_counts
            .iter()
            .map(|(column, count)| (column.clone(), Value::from(*count)))
            .collect();
        payload.insert("null_counts".into(), Value::Object(nulls));
        payload.insert("on_failure".into(), Value::from(self.on_failure.clone()));
        let failed = self.results.iter().filter(|r| !r.passed).count();
        payload.insert("passed".into(), Value::from(failed == 0));
        payload.insert("checks_run".into(), Value::from(self.results.len()));
        payload.insert("checks_failed".into(), Value::from(failed));
        payload.insert(
            "results".into(),
            Value::Array(self.results.iter().map(CheckOutcome::to_value).collect()),
        );
        payload
    }
}

/// The column a check is about, for names of the form `check(column)` with one column
/// (`unique(ride_id)` → `ride_id`); `None` for `not_null(a, b)`, `row_count` and the like.
pub fn check_column(name: &str) -> Option<String> {
    // Python's `^[a-z_]+\(([^,()]+)\)$`, where `$` also matches before a final newline.
    let name = name.strip_suffix('\n').unwrap_or(name);
    let open = name.find('(')?;
    let (head, rest) = name.split_at(open);
    if head.is_empty() || !head.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
        return None;
    }
    let inner = rest.strip_prefix('(')?.strip_suffix(')')?;
    if inner.is_empty() || inner.contains([',', '(', ')']) {
        return None;
    }
    Some(inner.trim().to_owned())
}

/// A check's details as events carry them: the text before `; e.g.` (failing-value examples
/// stay in the run), secret-redacted, at most 500 characters.
pub fn redact_details(details: &str) -> String {
    let head = details
        .split_once("; e.g.")
        .map_or(details, |(head, _)| head);
    redact_text(head, Some(MAX_DETAILS))
}

/// A check's metrics as events carry them: without `sample` and `invalid_values`, and without
/// `observed_min` / `observed_max` unless they are numbers. Anything but an object gives `{}`.
pub fn redact_metrics(metrics: &Value) -> Map<String, Value> {
    let Value::Object(metrics) = metrics else {
        return Map::new();
    };
    metrics
        .iter()
        .filter(|(key, value)| match key.as_str() {
            "sample" | "invalid_values" => false,
            "observed_min" | "observed_max" => value.is_number(),
            _ => true,
        })
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn columns_come_from_single_column_names() {
        assert_eq!(check_column("unique(ride_id)").as_deref(), Some("ride_id"));
        assert_eq!(check_column("range( fare )").as_deref(), Some("fare"));
        assert_eq!(check_column("not_null(ride_id, pickup_ts)"), None);
        assert_eq!(check_column("row_count"), None);
        assert_eq!(check_column("Unique(x)"), None);
        assert_eq!(check_column("x()"), None);
        assert_eq!(check_column("f(a(b))"), None);
    }

    #[test]
    fn samples_stay_in_the_run() {
        assert_eq!(
            redact_details("ride_id has 2 duplicate keys; e.g. [1, 2]"),
            "ride_id has 2 duplicate keys"
        );
        let metrics = json!({"sample": [1], "invalid_values": ["x"], "observed_min": "a",
                             "observed_max": 3.5, "row_count": 3, "flag": true});
        assert_eq!(
            Value::Object(redact_metrics(&metrics)),
            json!({"observed_max": 3.5, "row_count": 3, "flag": true})
        );
        assert!(redact_metrics(&json!([1])).is_empty());
    }
}
