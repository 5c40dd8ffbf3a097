//! The Python tool's own sample configs and their plans (`tests/vectors`).

use ldp_config::{
    CatalogType, Check, CheckParams, Format, Kind, OnFailure, RowCountEquals, ScheduleFrom,
    Transform, WindowSize, WriteMode, check_params, load, plan_config, validate,
};
use serde_json::Value;

use crate::read_json;

/// `ldp plan bad_config.json --json`: every error of the expected plan comes from validation
/// (the plan adds its own only to a valid config), in this order, verbatim.
#[test]
fn bad_config_gives_the_reference_problems() {
    let expected = read_json("vectors", "bad_config.plan.expected.json");
    let expected: Vec<String> = expected["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|error| error.as_str().expect("string").to_owned())
        .collect();
    assert_eq!(expected.len(), 14);
    let validation = validate(&read_json("vectors", "bad_config.json"));
    assert_eq!(validation.kind, Some(Kind::Pipeline));
    assert_eq!(validation.problems, expected);
}

#[test]
fn bad_config_stops_at_its_first_problem_in_run() {
    let error = load(&read_json("vectors", "bad_config.json")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "config has unknown top-level keys: ['extra']"
    );
    assert_eq!(error.exit_code(), 1);
}

#[test]
fn valid_vectors_have_no_problems() {
    for file in [
        "v1_rides_csv_to_iceberg.json",
        "v3_daily_orders_paris.json",
        "daily_orders_config.json",
    ] {
        let document = read_json("vectors", file);
        let validation = validate(&document);
        assert_eq!(validation.problems, Vec::<String>::new(), "{file}");
        let planned = plan_config(&document).unwrap_or_else(|e| panic!("{file}: {e}"));
        let loaded = load(&document).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            planned, loaded,
            "{file}: both readers build the same config"
        );
        assert_eq!(loaded.raw, document);
    }
}

#[test]
fn v1_model() {
    let config = load(&read_json("vectors", "v1_rides_csv_to_iceberg.json")).expect("v1");
    assert_eq!(
        (config.identifier.as_str(), config.api_version()),
        ("rides", "ldp/v1")
    );
    assert_eq!(
        (
            config.who.as_deref(),
            config.how.as_deref(),
            config.when.as_deref()
        ),
        (Some("analyst"), Some("batch"), None)
    );
    let source = config.source();
    assert_eq!(
        (source.format, source.path.as_deref()),
        (Format::Csv, Some("data/rides.csv"))
    );
    let target = config.target();
    assert_eq!(
        (target.format, target.write_mode()),
        (Format::Iceberg, WriteMode::Upsert)
    );
    assert_eq!(target.join_cols, ["ride_id"]);
    assert_eq!(target.partition_by[0].transform, Transform::Day);
    assert!(target.schema_evolution);
    let catalog = target.catalog.as_ref().expect("catalog");
    assert_eq!(catalog.catalog_type, CatalogType::Local);
    assert_eq!(
        (catalog.catalog_name(), catalog.table_namespace()),
        ("nyc".to_owned(), Some("nyc"))
    );
    let quality = &config.metadata.quality;
    assert_eq!(quality.on_failure, OnFailure::Fail);
    let names: Vec<String> = quality
        .checks
        .iter()
        .map(|check| check.display_name())
        .collect();
    assert_eq!(
        names,
        [
            "not_null(ride_id, pickup_ts)",
            "unique(ride_id)",
            "range(fare)"
        ]
    );
    assert_eq!(config.metadata.sinks.len(), 1);
    assert_eq!(config.metadata.sinks[0].kind.as_str(), "jsonl");
    assert!(config.schedule().is_none());
    assert!(config.metadata.window.is_none());
    assert_eq!(config.metadata.retries, ldp_config::Retries::default());
}

#[test]
fn v3_model() {
    let config = load(&read_json("vectors", "daily_orders_config.json")).expect("daily orders");
    let schedule = config.schedule().expect("schedule");
    assert_eq!(
        (schedule.text.as_str(), schedule.from),
        ("5 2 * * *", ScheduleFrom::Metadata)
    );
    assert!(
        schedule
            .cron
            .matches(jiff::civil::date(2026, 8, 1).at(2, 5, 0, 0))
    );
    let window = config.metadata.window.as_ref().expect("window");
    assert_eq!(
        (
            window.size,
            window.column.as_deref(),
            window.timezone.as_str()
        ),
        (WindowSize::Day, Some("ordered_at"), "Europe/Paris")
    );
    assert_eq!(config.target().write_mode(), WriteMode::Overwrite);
    assert_eq!(
        (
            config.metadata.retries.max_attempts,
            config.metadata.retries.delay_s,
            config.metadata.retries.backoff
        ),
        (3, 30.0, 2.0)
    );
    let placeholders = ldp_config::find_placeholders(config.source().path.as_deref().unwrap_or(""));
    assert_eq!(placeholders[0].format.as_deref(), Some("%Y-%m-%d"));
    assert_eq!(
        config.metadata.quality.checks[1].check,
        Check::Builtin(CheckParams::RowCount(check_params::RowCount {
            min: Some(1),
            max: None,
            equals: None
        }))
    );
    assert!(!matches!(
        config.metadata.quality.checks[1].check,
        Check::Builtin(CheckParams::RowCount(check_params::RowCount {
            equals: Some(RowCountEquals::Source),
            ..
        }))
    ));
}

#[test]
fn when_means_a_schedule_without_metadata_schedule() {
    let mut document = read_json("vectors", "v3_daily_orders_paris.json");
    if let Some(metadata) = document["metadata"].as_object_mut() {
        metadata.remove("schedule");
    }
    let config = load(&document).expect("config");
    let schedule = config.schedule().expect("schedule from when");
    assert_eq!(
        (schedule.text.as_str(), schedule.cron.expression.as_str()),
        ("@daily", "0 0 * * *")
    );
    assert_eq!(schedule.from.as_str(), "when");
    document["when"] = Value::from("every night");
    assert!(load(&document).expect("config").schedule().is_none());
}

#[test]
fn a_workflow_is_recognised() {
    let workflow = read_json("vectors", "workflow_nightly.json");
    let validation = validate(&workflow);
    assert_eq!(
        (validation.kind, validation.problems.len()),
        (Some(Kind::Workflow), 0)
    );
    assert_eq!(
        load(&workflow).unwrap_err().to_string(),
        "'nightly' is a Workflow, not a dataset config (kind Pipeline)"
    );
}

#[test]
fn unknown_metadata_keys_are_kept_for_the_hash() {
    let mut document = read_json("vectors", "v1_rides_csv_to_iceberg.json");
    document["metadata"]["lineage"] = serde_json::json!({"upstream": ["a"]});
    let config = plan_config(&document).expect("valid");
    assert_eq!(
        config.metadata.extra.keys().collect::<Vec<_>>(),
        ["lineage"]
    );
}

/// `metadata.docs` (the contract) is checked and left out of the spec hash: editing it keeps
/// the hash, and a config without it keeps the Python tool's.
#[test]
fn the_contract_is_checked_and_not_hashed() {
    let document = read_json("vectors", "v1_rides_csv_to_iceberg.json");
    let plain = ldp_config::spec_hash(&document, None).expect("hash");
    let mut documented = document.clone();
    documented["metadata"]["docs"] = serde_json::json!({"layer": "gold", "grain": "one ride"});
    let config = plan_config(&documented).expect("valid");
    let contract = config.metadata.docs.expect("a contract");
    assert_eq!(contract.grain.as_deref(), Some("one ride"));
    assert_eq!(
        ldp_config::spec_hash(&documented, None).expect("hash"),
        plain
    );
    documented["metadata"]["docs"]["grain"] = Value::from("one ride, edited");
    assert_eq!(
        ldp_config::spec_hash(&documented, None).expect("hash"),
        plain
    );
    documented["metadata"]["docs"] = Value::from("x");
    assert!(plan_config(&documented).is_err());
}
