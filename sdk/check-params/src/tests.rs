//! The messages of each kind of refusal, and the typed parameters of accepted items.

use serde_json::{Value, json};

use super::*;

fn refused(item: Value) -> String {
    parse_check(&item).unwrap_err().message("check")
}

fn parsed(item: Value) -> CheckItem {
    parse_check(&item).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn item_messages() {
    for (item, message) in [
        (
            json!("x"),
            "check must be an object with a 'check' key, got 'x'",
        ),
        (
            json!({"column": "x"}),
            "check is missing 'check'; expected one of: accepted_values, freshness, max_gap, \
             max_skew, monotonic, not_null, range, rate_below, row_count, schema, unique",
        ),
        (
            json!({"check": 5}),
            "check has unknown check 5; expected one of: accepted_values, freshness, max_gap, \
             max_skew, monotonic, not_null, range, rate_below, row_count, schema, unique",
        ),
        (
            json!({"check": "range", "column": "fare", "x": 1, "a": 2}),
            "check (range) has unknown parameter(s) ['a', 'x']; allowed: column, min, max, name",
        ),
        (
            json!({"check": "accepted_values"}),
            "check (accepted_values) is missing required parameter(s) ['column', 'values']",
        ),
        (
            json!({"check": "unique", "columns": [], "name": " "}),
            "check (unique) is invalid: columns must name at least one column",
        ),
        (
            json!({"check": "unique", "columns": "id", "name": " "}),
            "check (unique) is invalid: name must be a non-empty string, got ' '",
        ),
    ] {
        assert_eq!(refused(item), message);
    }
    let error =
        parse_check(&json!({"check": "monotonic", "column": "t", "group_by": [1]})).unwrap_err();
    assert_eq!(error.key(), Some("group_by"));
    assert_eq!(
        error.message("quality check #3"),
        "quality check #3 (monotonic) is invalid: a column name must be a non-empty string, got 1"
    );
}

#[test]
fn parameter_messages() {
    for (item, reason) in [
        (
            json!({"check": "row_count", "min": 5, "max": 3}),
            "min (5) is greater than max (3)",
        ),
        (
            json!({"check": "row_count", "min": -1}),
            "min must be a non-negative integer, got -1",
        ),
        (
            json!({"check": "row_count", "equals": "src"}),
            "equals must be a non-negative integer or 'source', got 'src'",
        ),
        (
            json!({"check": "range", "column": "d", "min": "2026-02-01", "max": "2026-01-01"}),
            "min ('2026-02-01') is greater than max ('2026-01-01')",
        ),
        (
            json!({"check": "range", "column": "f", "max": [1]}),
            "max must be a number, a date or a string, got [1]",
        ),
        (
            json!({"check": "freshness", "column": "ts", "max_age_hours": 0}),
            "max_age_hours must be a positive number, got 0",
        ),
        (
            json!({"check": "freshness", "column": "ts", "max_age_hours": 1, "now": "soon"}),
            "now must be an ISO-8601 datetime, got 'soon'",
        ),
        (
            json!({"check": "schema", "columns": {"a": 5}}),
            "a column type must be a pyarrow type string such as 'int64', got 5",
        ),
        (
            json!({"check": "max_gap", "column": "ts", "max_ms": 10, "unit": "h"}),
            "unit must be one of ['s', 'ms', 'us', 'ns'], got 'h'",
        ),
        (
            json!({"check": "max_skew", "column_a": "a", "column_b": "b", "max_ms": null}),
            "max_ms must be a number, got None",
        ),
        (
            json!({"check": "rate_below", "predicate_column": "p", "max_rate": 2}),
            "max_rate must be between 0 and 1, got 2",
        ),
        (
            json!({"check": "monotonic", "column": "t", "strict": "yes"}),
            "strict must be true or false, got 'yes'",
        ),
    ] {
        let kind = item["check"].as_str().unwrap_or_default().to_owned();
        assert_eq!(
            refused(item),
            format!("check ({kind}) is invalid: {reason}")
        );
    }
}

#[test]
fn typed_parameters_and_names() {
    assert_eq!(
        parsed(json!({"check": " NOT_NULL ", "columns": ["a", "b", "a"]})).display_name(),
        "not_null(a, b)"
    );
    assert_eq!(
        parsed(json!({"check": "row_count", "equals": "source", "min": null})).params,
        CheckParams::RowCount(RowCount {
            min: None,
            max: None,
            equals: Some(RowCountEquals::Source)
        })
    );
    let monotonic = parsed(
        json!({"check": "monotonic", "column": "ts", "group_by": ["g", "ts"], "order_by": "g"}),
    );
    assert_eq!(monotonic.display_name(), "monotonic(ts by g, ts)");
    assert_eq!(monotonic.params.required_columns(), ["ts", "g"]);
    let fresh = parsed(
        json!({"check": "freshness", "column": "ts", "max_age_hours": 24, "now": "2026-08-01T00:00:00Z"}),
    );
    let CheckParams::Freshness(fresh) = fresh.params else {
        panic!("freshness")
    };
    assert_eq!(fresh.max_age_hours.text(), "24");
    assert_eq!(fresh.now.map(|now| now.offset), Some(Some(0)));
    let gap = parsed(json!({"check": "max_gap", "column": "t", "max_ms": 1.5, "unit": "s"}));
    let CheckParams::MaxGap(gap) = gap.params else {
        panic!("max_gap")
    };
    assert_eq!(
        (gap.max_ms.value, gap.max_ms.text(), gap.unit),
        (1.5, "1.5".to_owned(), TimeUnit::S)
    );
    let schema = parsed(json!({"check": "schema", "columns": {"t": "timestamp[us, tz=UTC]"}}));
    assert_eq!(
        schema.params,
        CheckParams::Schema(Schema {
            columns: vec![(
                "t".into(),
                Some(ArrowType::Timestamp(TimeUnit::Us, Some("UTC".into())))
            )]
        })
    );
    assert_eq!(
        parsed(json!({"check": "range", "column": "f", "min": 0, "name": "fare ok"}))
            .display_name(),
        "fare ok"
    );
    for kind in CHECK_NAMES {
        assert!(parameters(kind).is_some(), "{kind}");
    }
}
