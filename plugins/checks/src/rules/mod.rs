//! One module per check, and [`build`], which reads one config item into its rule.
//!
//! [`build`] reads the item with `ldp_check_params`, the rule `ldp plan` applies too: the
//! `check` name (trimmed, lower-cased), unknown and missing parameters, the check's own
//! parameters, then the `name`; a bad item is a config error with the Python tool's message. A
//! check whose columns are missing from the input becomes the failed verdict of
//! [`missing::column_problem`].

pub mod accepted_values;
pub mod freshness;
pub mod missing;
pub mod not_null;
pub mod range;
pub mod row_count;
pub mod schema;
pub mod temporal;
pub mod unique;
pub mod value_set;

use crate::rule::Rule;
use ldp_check_params::CheckParams;
use ldp_plugin_sdk::prelude::*;

/// Builds the rule of config item `index` (0-based) for batches of `input`.
///
/// # Errors
///
/// A config error when the item is not a valid check (`quality check #1 (range) is invalid:
/// range needs at least one of min or max`).
pub fn build(
    index: usize,
    item: &serde_json::Value,
    input: &SchemaRef,
) -> Result<Box<dyn Rule>, PluginError> {
    let check = ldp_check_params::parse_check(item).map_err(|error| {
        PluginError::config(error.message(&format!("quality check #{}", index + 1)))
    })?;
    let name = check.display_name();
    if let Some(problem) = missing::column_problem(&name, input, &check.params.required_columns()) {
        return Ok(problem);
    }
    Ok(match check.params {
        CheckParams::RowCount(p) => Box::new(row_count::RowCount::new(name, p)),
        CheckParams::NotNull(p) => Box::new(not_null::NotNull::new(name, p.columns, input)),
        CheckParams::Unique(p) => unique::build(name, p.columns, input),
        CheckParams::AcceptedValues(p) => accepted_values::build(name, p, input),
        CheckParams::Range(p) => range::build(name, p, input),
        CheckParams::Freshness(p) => freshness::build(name, p, input),
        CheckParams::Schema(p) => Box::new(schema::Schema::new(name, &p, input)),
        CheckParams::Monotonic(p) => temporal::monotonic::build(p, name, input),
        CheckParams::MaxSkew(p) => temporal::max_skew::build(p, name, input),
        CheckParams::RateBelow(p) => temporal::rate_below::build(p, name, input),
        CheckParams::MaxGap(p) => temporal::max_gap::build(p, name, input),
    })
}

/// The index of a column known to be in `input` exactly once (checked by
/// [`missing::column_problem`]).
pub(crate) fn column_index(input: &SchemaRef, column: &str) -> usize {
    input
        .fields()
        .iter()
        .position(|field| field.name() == column)
        .unwrap_or(0)
}

/// The metrics object of a verdict as JSON text.
pub(crate) fn metrics_text(metrics: serde_json::Map<String, serde_json::Value>) -> String {
    serde_json::Value::Object(metrics).to_string()
}

/// A failed verdict for a check that could not run (`could not be evaluated: ...`).
pub(crate) fn not_evaluated(name: String, rows: u64, message: &str, error: &str) -> CheckResult {
    let mut metrics = serde_json::Map::new();
    metrics.insert("row_count".into(), rows.into());
    metrics.insert("error".into(), error.into());
    CheckResult {
        name,
        passed: false,
        details: format!("could not be evaluated: {message}"),
        failing_rows: 0,
        metrics: metrics_text(metrics),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    fn error(item: serde_json::Value) -> String {
        let input: SchemaRef = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
        match build(0, &item, &input) {
            Ok(_) => "ok".to_owned(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn bad_items_are_config_errors() {
        for (item, message) in [
            (
                json!({"check": "nope"}),
                "quality check #1 has unknown check 'nope'",
            ),
            (
                json!({"column": "a"}),
                "quality check #1 is missing 'check'",
            ),
            (
                json!({"check": "range", "column": "a", "x": 1}),
                "quality check #1 (range) has unknown parameter(s) ['x']; allowed: column, min, max, name",
            ),
            (
                json!({"check": "accepted_values"}),
                "quality check #1 (accepted_values) is missing required parameter(s) ['column', 'values']",
            ),
            (
                json!({"check": "range", "column": "a"}),
                "quality check #1 (range) is invalid: range needs at least one of min or max",
            ),
            (
                json!({"check": "row_count", "min": 5, "max": 3}),
                "quality check #1 (row_count) is invalid: min (5) is greater than max (3)",
            ),
            (
                json!({"check": "freshness", "column": "a", "max_age_hours": 0}),
                "quality check #1 (freshness) is invalid: max_age_hours must be a positive number, got 0",
            ),
            (
                json!({"check": "schema", "columns": {"a": "int65"}}),
                "quality check #1 (schema) is invalid: unknown pyarrow type 'int65'",
            ),
            (
                json!({"check": "unique", "columns": [], "name": "x"}),
                "quality check #1 (unique) is invalid: columns must name at least one column",
            ),
            (
                json!({"check": "not_null", "columns": "a", "name": " "}),
                "quality check #1 (not_null) is invalid: name must be a non-empty string, got ' '",
            ),
            (json!({"check": " Not_Null ", "columns": ["a", "a"]}), "ok"),
            (
                json!({"check": "range", "column": "missing", "min": 0}),
                "ok",
            ),
        ] {
            let got = error(item.clone());
            assert!(got.contains(message), "{item}: {got}");
        }
    }
}
