//! One module per check, and [`build`], which reads one config item into its rule.
//!
//! [`build`] reads the item as the reference's `checks_from_config` does: the `check` name
//! (trimmed, lower-cased), unknown and missing parameters, the `name`, then the check's own
//! parameters; a bad item is a config error with the reference's message. A check whose columns
//! are missing from the input becomes the failed verdict of [`missing::column_problem`].

pub mod accepted_values;
pub mod freshness;
pub mod missing;
pub mod not_null;
pub mod params;
pub mod range;
pub mod row_count;
pub mod schema;
pub mod temporal;
pub mod unique;
pub mod value_set;

use crate::py::json_repr;
use crate::rule::Rule;
use ldp_plugin_sdk::prelude::*;
use params::{Params, param};

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
    let at = format!("quality check #{}", index + 1);
    let known = CHECK_NAMES.join(", ");
    let Some(map) = item.as_object() else {
        return Err(PluginError::config(format!(
            "{at} must be an object with a 'check' key, got {}",
            json_repr(item)
        )));
    };
    let kind = match map.get("check") {
        None | Some(serde_json::Value::Null) => {
            return Err(PluginError::config(format!(
                "{at} is missing 'check'; expected one of: {known}"
            )));
        }
        Some(kind) => kind,
    };
    let Some(kind) = kind
        .as_str()
        .map(|text| text.trim().to_lowercase())
        .filter(|name| CHECK_NAMES.contains(&name.as_str()))
    else {
        return Err(PluginError::config(format!(
            "{at} has unknown check {}; expected one of: {known}",
            json_repr(kind)
        )));
    };
    let (allowed, required) = params::parameters(&kind).unwrap_or((&[], 0));
    let mut unknown: Vec<&str> = map
        .keys()
        .map(String::as_str)
        .filter(|key| *key != "check" && !allowed.contains(key))
        .collect();
    unknown.sort_unstable();
    if !unknown.is_empty() {
        return Err(PluginError::config(format!(
            "{at} ({kind}) has unknown parameter(s) {}; allowed: {}",
            params::names_repr(&unknown),
            allowed.join(", ")
        )));
    }
    let missing: Vec<&str> = allowed[..required]
        .iter()
        .copied()
        .filter(|key| !map.contains_key(*key))
        .collect();
    if !missing.is_empty() {
        return Err(PluginError::config(format!(
            "{at} ({kind}) is missing required parameter(s) {}",
            params::names_repr(&missing)
        )));
    }
    let invalid =
        |reason: String| PluginError::config(format!("{at} ({kind}) is invalid: {reason}"));
    let name = display_name(map).map_err(invalid)?;
    if matches!(
        kind.as_str(),
        "monotonic" | "max_skew" | "rate_below" | "max_gap"
    ) {
        return temporal::build(&kind, map, name, input).map_err(|e| invalid(e.message));
    }
    let spec = parse(&kind, map).map_err(invalid)?;
    let name = name.unwrap_or_else(|| spec.default_name(&kind));
    let required = spec.required_columns();
    if let Some(problem) = missing::column_problem(&name, input, &required) {
        return Ok(problem);
    }
    Ok(spec.into_rule(name, input))
}

/// The `name` parameter: `None` when absent, else a non-blank string.
fn display_name(params: &Params) -> Result<Option<String>, String> {
    match param(params, "name") {
        None => Ok(None),
        Some(value) => match value.as_str().filter(|text| !text.trim().is_empty()) {
            Some(text) => Ok(Some(text.to_owned())),
            None => Err(format!(
                "name must be a non-empty string, got {}",
                json_repr(value)
            )),
        },
    }
}

/// The parameters of one of the seven non-temporal checks, validated.
enum Spec {
    RowCount(row_count::Params),
    NotNull(Vec<String>),
    Unique(Vec<String>),
    AcceptedValues(accepted_values::Params),
    Range(range::Params),
    Freshness(freshness::Params),
    Schema(schema::Params),
}

fn parse(kind: &str, params: &Params) -> Result<Spec, String> {
    let required = |key: &str| params::required(params, key);
    Ok(match kind {
        "row_count" => Spec::RowCount(row_count::Params::parse(params)?),
        "not_null" => Spec::NotNull(params::columns(required("columns"))?),
        "unique" => Spec::Unique(params::columns(required("columns"))?),
        "accepted_values" => Spec::AcceptedValues(accepted_values::Params::parse(params)?),
        "range" => Spec::Range(range::Params::parse(params)?),
        "freshness" => Spec::Freshness(freshness::Params::parse(params)?),
        "schema" => Spec::Schema(schema::Params::parse(params)?),
        other => return Err(format!("unknown check {}", crate::py::str_repr(other))),
    })
}

impl Spec {
    fn default_name(&self, kind: &str) -> String {
        match self {
            Spec::RowCount(_) | Spec::Schema(_) => kind.to_owned(),
            Spec::NotNull(columns) | Spec::Unique(columns) => {
                format!("{kind}({})", columns.join(", "))
            }
            Spec::AcceptedValues(p) => format!("{kind}({})", p.column),
            Spec::Range(p) => format!("{kind}({})", p.column),
            Spec::Freshness(p) => format!("{kind}({})", p.column),
        }
    }

    fn required_columns(&self) -> Vec<String> {
        match self {
            Spec::RowCount(_) | Spec::Schema(_) => Vec::new(),
            Spec::NotNull(columns) | Spec::Unique(columns) => columns.clone(),
            Spec::AcceptedValues(p) => vec![p.column.clone()],
            Spec::Range(p) => vec![p.column.clone()],
            Spec::Freshness(p) => vec![p.column.clone()],
        }
    }

    /// The rule, once every required column is in `input` exactly once.
    fn into_rule(self, name: String, input: &SchemaRef) -> Box<dyn Rule> {
        match self {
            Spec::RowCount(p) => Box::new(row_count::RowCount::new(name, p)),
            Spec::NotNull(columns) => Box::new(not_null::NotNull::new(name, columns, input)),
            Spec::Unique(columns) => unique::build(name, columns, input),
            Spec::AcceptedValues(p) => accepted_values::build(name, p, input),
            Spec::Range(p) => range::build(name, p, input),
            Spec::Freshness(p) => freshness::build(name, p, input),
            Spec::Schema(p) => Box::new(schema::Schema::new(name, p, input)),
        }
    }
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
