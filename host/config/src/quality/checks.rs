//! One quality check item: its name, its parameters (each check's list, in
//! `parameters`) and their validation.

use serde_json::Value;

use super::CHECK_NAMES;
use super::params::build;
use crate::repr::{repr, repr_list};

/// `row_count`'s `equals`: a number, or the rows read from the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowCountEquals {
    /// An exact row count.
    Rows(u64),
    /// `"source"`: the run's source row count.
    Source,
}

/// `schema`'s `columns`: names, or names with Arrow type strings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaColumns {
    /// The columns must exist.
    Names(Vec<String>),
    /// The columns must exist with exactly these types (`int64`, `timestamp[us, tz=UTC]`...).
    Typed(Vec<(String, String)>),
}

/// A time unit of `max_skew` and `max_gap` (default `ms`).
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

/// A check and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// Row count within bounds or equal to a number.
    RowCount {
        min: Option<u64>,
        max: Option<u64>,
        equals: Option<RowCountEquals>,
    },
    /// No nulls in these columns.
    NotNull { columns: Vec<String> },
    /// Each key combination appears once.
    Unique { columns: Vec<String> },
    /// Every non-null value is one of `values`.
    AcceptedValues { column: String, values: Vec<Value> },
    /// Every non-null value is within inclusive bounds (numbers, dates, ISO strings).
    Range {
        column: String,
        min: Option<Value>,
        max: Option<Value>,
    },
    /// The newest value is at most `max_age_hours` old (`max_age_hours_text` as written).
    Freshness {
        column: String,
        max_age_hours: f64,
        max_age_hours_text: String,
        now: Option<String>,
    },
    /// The table has these columns (and types).
    Schema { columns: SchemaColumns },
    /// Non-decreasing (strict: increasing) per group, in table or `order_by` order.
    Monotonic {
        column: String,
        group_by: Vec<String>,
        strict: bool,
        order_by: Option<String>,
    },
    /// `|a - b| <= max_ms` where both are present.
    MaxSkew {
        column_a: String,
        column_b: String,
        max_ms: f64,
        unit: TimeUnit,
    },
    /// The rate of true values is at most `max_rate`, per group.
    RateBelow {
        predicate_column: String,
        max_rate: f64,
        group_by: Vec<String>,
    },
    /// A check plugin file (`"check": "checks/late_rows.wasm"`), an ldp extension: the
    /// component runs in the sandbox on the same batches and its verdicts join the report.
    Plugin {
        /// The file, as written (relative to the config's folder).
        path: String,
        /// The sha256 the file must have (lower-case hex), when the config pins it.
        sha256: Option<String>,
        /// The plugin's own configuration (`{}` when absent).
        config: Value,
    },
    /// Consecutive sorted values are at most `max_ms` apart, per group.
    MaxGap {
        column: String,
        max_ms: f64,
        group_by: Vec<String>,
        unit: TimeUnit,
    },
}

impl Check {
    /// The config name of the check (`row_count`, `not_null`...).
    pub fn check_type(&self) -> &'static str {
        match self {
            Check::RowCount { .. } => "row_count",
            Check::NotNull { .. } => "not_null",
            Check::Unique { .. } => "unique",
            Check::AcceptedValues { .. } => "accepted_values",
            Check::Range { .. } => "range",
            Check::Freshness { .. } => "freshness",
            Check::Schema { .. } => "schema",
            Check::Monotonic { .. } => "monotonic",
            Check::MaxSkew { .. } => "max_skew",
            Check::RateBelow { .. } => "rate_below",
            Check::MaxGap { .. } => "max_gap",
            Check::Plugin { .. } => "plugin",
        }
    }

    /// The default display name: `row_count`, `not_null(a, b)`, `monotonic(c by g)`...
    pub fn default_name(&self) -> String {
        let by = |column: &str, group_by: &[String]| {
            if group_by.is_empty() {
                column.to_owned()
            } else {
                format!("{column} by {}", group_by.join(", "))
            }
        };
        let kind = self.check_type();
        match self {
            Check::RowCount { .. } | Check::Schema { .. } => kind.to_owned(),
            Check::NotNull { columns } | Check::Unique { columns } => {
                format!("{kind}({})", columns.join(", "))
            }
            Check::AcceptedValues { column, .. }
            | Check::Range { column, .. }
            | Check::Freshness { column, .. } => {
                format!("{kind}({column})")
            }
            Check::Monotonic {
                column, group_by, ..
            }
            | Check::MaxGap {
                column, group_by, ..
            } => {
                format!("{kind}({})", by(column, group_by))
            }
            Check::MaxSkew {
                column_a, column_b, ..
            } => format!("{kind}({column_a}, {column_b})"),
            Check::RateBelow {
                predicate_column,
                group_by,
                ..
            } => format!("{kind}({})", by(predicate_column, group_by)),
            Check::Plugin { path, .. } => path.clone(),
        }
    }
}

/// A configured check: the check and its optional display name.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckSpec {
    /// The check.
    pub check: Check,
    /// The item as the config wrote it (what the built-in checks plugin is given).
    pub item: Value,
    /// `name`, replacing the default name in results.
    pub name: Option<String>,
}

impl CheckSpec {
    /// The name used in results: `name`, else [`Check::default_name`].
    pub fn display_name(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| self.check.default_name())
    }
}

/// The parameters of each check, in the order its messages list them, then `name`; and how
/// many of the first ones are required.
fn parameters(kind: &str) -> (&'static [&'static str], usize) {
    match kind {
        "row_count" => (&["min", "max", "equals", "name"], 0),
        "not_null" | "unique" | "schema" => (&["columns", "name"], 1),
        "accepted_values" => (&["column", "values", "name"], 2),
        "range" => (&["column", "min", "max", "name"], 1),
        "freshness" => (&["column", "max_age_hours", "now", "name"], 2),
        "monotonic" => (&["column", "group_by", "strict", "order_by", "name"], 1),
        "max_skew" => (&["column_a", "column_b", "max_ms", "unit", "name"], 3),
        "rate_below" => (&["predicate_column", "max_rate", "group_by", "name"], 2),
        "max_gap" => (&["column", "max_ms", "group_by", "unit", "name"], 2),
        _ => (&[], 0),
    }
}

/// Parses one `quality.checks` item.
///
/// # Errors
///
/// The message after its subject, which the caller prepends (`check` in `ldp plan`, `quality
/// check #N` at run time): ` (range) is invalid: range needs at least one of min or max`,
/// ` has unknown check 'nope'; expected one of: ...`, ` (range) has unknown parameter(s) ['x'];
/// allowed: column, min, max, name`, ` (range) is missing required parameter(s) ['column']`.
pub fn parse_check(item: &Value) -> Result<CheckSpec, String> {
    let known = CHECK_NAMES.join(", ");
    let Some(map) = item.as_object() else {
        return Err(format!(
            " must be an object with a 'check' key, got {}",
            repr(item)
        ));
    };
    let mut params = map.clone();
    let kind = match params.remove("check") {
        None | Some(Value::Null) => {
            return Err(format!(" is missing 'check'; expected one of: {known}"));
        }
        Some(kind) => kind,
    };
    if let Some(path) = kind
        .as_str()
        .map(str::trim)
        .filter(|k| k.ends_with(".wasm"))
    {
        return super::params::plugin(path, &params, item);
    }
    let name = kind
        .as_str()
        .map(|text| text.trim().to_lowercase())
        .filter(|name| CHECK_NAMES.contains(&name.as_str()));
    let Some(kind) = name else {
        return Err(format!(
            " has unknown check {}; expected one of: {known}",
            repr(&kind)
        ));
    };
    let (allowed, required) = parameters(&kind);
    let unknown = crate::problems::unknown_keys(&params, allowed);
    if !unknown.is_empty() {
        return Err(format!(
            " ({kind}) has unknown parameter(s) {}; allowed: {}",
            repr_list(&unknown),
            allowed.join(", ")
        ));
    }
    let missing: Vec<&str> = allowed[..required]
        .iter()
        .copied()
        .filter(|key| !params.contains_key(*key))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            " ({kind}) is missing required parameter(s) {}",
            repr_list(&missing)
        ));
    }
    build(&kind, &params, item).map_err(|reason| format!(" ({kind}) is invalid: {reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(item: Value) -> String {
        format!("check{}", parse_check(&item).unwrap_err())
    }

    #[test]
    fn parameter_messages() {
        assert_eq!(
            error(json!({"check": "range", "column": "fare", "x": 1, "a": 2})),
            "check (range) has unknown parameter(s) ['a', 'x']; allowed: column, min, max, name"
        );
        assert_eq!(
            error(json!({"check": "range", "min": 0})),
            "check (range) is missing required parameter(s) ['column']"
        );
        assert_eq!(
            error(json!({"check": "accepted_values"})),
            "check (accepted_values) is missing required parameter(s) ['column', 'values']"
        );
        assert_eq!(
            error(json!({"check": 5})).split(';').next(),
            Some("check has unknown check 5")
        );
        assert_eq!(
            error(json!({"column": "x"})).split(';').next(),
            Some("check is missing 'check'")
        );
        assert_eq!(
            error(json!("x")),
            "check must be an object with a 'check' key, got 'x'"
        );
        assert_eq!(
            error(json!({"check": "row_count", "min": 5, "max": 3})),
            "check (row_count) is invalid: min (5) is greater than max (3)"
        );
        assert_eq!(
            error(json!({"check": "row_count", "min": -1})),
            "check (row_count) is invalid: min must be a non-negative integer, got -1"
        );
        assert_eq!(
            error(json!({"check": "row_count", "equals": "src"})),
            "check (row_count) is invalid: equals must be a non-negative integer or 'source', got 'src'"
        );
        assert_eq!(
            error(json!({"check": "not_null", "columns": []})),
            "check (not_null) is invalid: columns must name at least one column"
        );
        assert_eq!(
            error(
                json!({"check": "range", "column": "d", "min": "2026-02-01", "max": "2026-01-01"})
            ),
            "check (range) is invalid: min ('2026-02-01') is greater than max ('2026-01-01')"
        );
        assert_eq!(
            error(json!({"check": "freshness", "column": "ts", "max_age_hours": 0})),
            "check (freshness) is invalid: max_age_hours must be a positive number, got 0"
        );
        assert_eq!(
            error(json!({"check": "schema", "columns": {"a": "int65"}})),
            "check (schema) is invalid: unknown pyarrow type 'int65'; use a name such as 'int64', 'double', 'string', 'bool', 'date32', 'timestamp[us]', 'timestamp[us, tz=UTC]' or 'decimal128(10, 2)'"
        );
        assert_eq!(
            error(json!({"check": "unique", "columns": "id", "name": " "})),
            "check (unique) is invalid: name must be a non-empty string, got ' '"
        );
        assert_eq!(
            error(json!({"check": "max_gap", "column": "ts", "max_ms": 10, "unit": "h"})),
            "check (max_gap) is invalid: unit must be one of ['s', 'ms', 'us', 'ns'], got 'h'"
        );
    }

    #[test]
    fn typed_checks_and_names() {
        let parse = |item: Value| parse_check(&item).unwrap();
        assert_eq!(
            parse(json!({"check": " NOT_NULL ", "columns": ["a", "b", "a"]})).display_name(),
            "not_null(a, b)"
        );
        assert_eq!(
            parse(json!({"check": "row_count", "equals": "source"})).display_name(),
            "row_count"
        );
        let monotonic =
            parse(json!({"check": "monotonic", "column": "ts", "group_by": "g", "strict": true}));
        assert_eq!(monotonic.display_name(), "monotonic(ts by g)");
        let fresh = parse(
            json!({"check": "freshness", "column": "ts", "max_age_hours": 24, "now": "2026-08-01T00:00:00Z"}),
        );
        assert!(
            matches!(fresh.check, Check::Freshness { ref max_age_hours_text, .. } if max_age_hours_text == "24")
        );
        let typed = parse(
            json!({"check": "schema", "columns": {"t": "timestamp[us, tz=UTC]", "d": "decimal(10, 2)"}}),
        );
        assert!(
            matches!(typed.check, Check::Schema { columns: SchemaColumns::Typed(ref cols) } if cols.len() == 2)
        );
        assert_eq!(
            parse(json!({"check": "range", "column": "f", "min": 0, "name": "fare ok"}))
                .display_name(),
            "fare ok"
        );
    }

    #[test]
    fn plugin_items() {
        let spec =
            parse_check(&json!({"check": " checks/late.wasm ", "config": {"x": 1}})).unwrap();
        assert_eq!(
            spec.check,
            Check::Plugin {
                path: "checks/late.wasm".into(),
                sha256: None,
                config: json!({"x": 1})
            }
        );
        assert_eq!(spec.display_name(), "checks/late.wasm");
        assert_eq!(
            error(json!({"check": "a.wasm", "column": "x"})),
            "check (plugin a.wasm) has unknown parameter(s) ['column']; allowed: check, sha256, config, name"
        );
        assert_eq!(
            error(json!({"check": "a.wasm", "sha256": "abc"})),
            "check (plugin a.wasm) is invalid: sha256 must be 64 hexadecimal digits, got 'abc'"
        );
    }
}
