//! The data-driven check cases of `tests/checks/<case>/` (see `tests/checks/README.md`): each
//! case's rows are read into batches of its schema, run through the plugin, and every verdict is
//! compared field by field with the expected one (the Python tool's output for the same data).

use crate::Checks;
use crate::types::parse_type;
use arrow_schema::{Field, Schema, TimeUnit};
use ldp_plugin_sdk::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/checks")
}

/// A column read as a naive timestamp, with the zone of `data_type`.
fn zoned(column: &ArrayRef, data_type: &DataType) -> ArrayRef {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    let DataType::Timestamp(unit, Some(tz)) = data_type else {
        return column.clone();
    };
    let tz = tz.clone();
    match unit {
        TimeUnit::Second => Arc::new(
            column
                .as_primitive::<TimestampSecondType>()
                .clone()
                .with_timezone(tz),
        ),
        TimeUnit::Millisecond => Arc::new(
            column
                .as_primitive::<TimestampMillisecondType>()
                .clone()
                .with_timezone(tz),
        ),
        TimeUnit::Microsecond => Arc::new(
            column
                .as_primitive::<TimestampMicrosecondType>()
                .clone()
                .with_timezone(tz),
        ),
        TimeUnit::Nanosecond => Arc::new(
            column
                .as_primitive::<TimestampNanosecondType>()
                .clone()
                .with_timezone(tz),
        ),
    }
}

/// Runs one case; the differences found, as messages.
fn run_case(dir: &Path) -> Result<Vec<String>, String> {
    let case: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("case.json")).map_err(|e| format!("case.json: {e}"))?,
    )
    .map_err(|e| format!("case.json: {e}"))?;
    let schema_spec = case
        .get("schema")
        .and_then(Value::as_object)
        .ok_or("case.json needs a \"schema\" object")?;
    let fields: Vec<Field> = schema_spec
        .iter()
        .map(|(name, spec)| {
            let data_type = parse_type(spec.as_str().unwrap_or_default())?;
            Ok(Field::new(name, data_type, true))
        })
        .collect::<Result<_, String>>()?;
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let data = std::fs::read_to_string(dir.join("data.jsonl")).unwrap_or_default();
    let batch_rows = case.get("batch_rows").and_then(Value::as_u64).unwrap_or(2) as usize;
    // arrow-json reads zoned timestamps only with chrono-tz: read them naive (UTC), then zone them.
    let naive: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Timestamp(unit, Some(_)) => f
                .as_ref()
                .clone()
                .with_data_type(DataType::Timestamp(*unit, None)),
            _ => f.as_ref().clone(),
        })
        .collect();
    let reader = arrow_json::ReaderBuilder::new(Arc::new(Schema::new(naive)))
        .with_batch_size(batch_rows.max(1))
        .build(std::io::Cursor::new(data.into_bytes()))
        .map_err(|e| format!("data.jsonl: {e}"))?;
    let batches: Vec<RecordBatch> = reader
        .map(|batch| {
            let batch = batch.map_err(|e| format!("data.jsonl: {e}"))?;
            let columns = batch
                .columns()
                .iter()
                .zip(schema.fields())
                .map(|(column, field)| zoned(column, field.data_type()))
                .collect();
            RecordBatch::try_new(schema.clone(), columns).map_err(|e| e.to_string())
        })
        .collect::<Result<_, String>>()?;
    let config = serde_json::json!({"checks": case.get("checks").cloned().unwrap_or_default()});
    let mut checks = Checks::new(&config.to_string(), &schema).map_err(|e| format!("{e:?}"))?;
    for batch in &batches {
        Check::push(&mut checks, batch).map_err(|e| format!("{e:?}"))?;
    }
    let context = case.get("context");
    let now_micros = match context.and_then(|c| c.get("now")).and_then(Value::as_str) {
        Some(text) => Some(crate::time::parse_datetime(text)?.utc_us()),
        None => None,
    };
    let context = CheckContext {
        source_rows: context
            .and_then(|c| c.get("source_rows"))
            .and_then(Value::as_u64),
        now_micros,
    };
    let results = Check::finish(checks, &context).map_err(|e| format!("{e:?}"))?;
    let expected = case
        .get("expected")
        .and_then(Value::as_array)
        .ok_or("case.json needs an \"expected\" list")?;
    let mut problems = Vec::new();
    if expected.len() != results.len() {
        problems.push(format!(
            "{} verdicts, expected {}",
            results.len(),
            expected.len()
        ));
    }
    for (index, (result, want)) in results.iter().zip(expected).enumerate() {
        let mut differ = |field: &str, got: Value, want: Option<&Value>| {
            if let Some(want) = want
                && *want != got
            {
                problems.push(format!(
                    "verdict #{index} ({}): {field} is {got}, expected {want}",
                    result.name
                ));
            }
        };
        differ("name", result.name.clone().into(), want.get("name"));
        differ("passed", result.passed.into(), want.get("passed"));
        differ(
            "details",
            result.details.clone().into(),
            want.get("details"),
        );
        differ(
            "failing_rows",
            result.failing_rows.into(),
            want.get("failing_rows"),
        );
        let metrics: Value = serde_json::from_str(&result.metrics)
            .map_err(|e| format!("metrics are not JSON: {e}: {}", result.metrics))?;
        if let Some(want_metrics) = want.get("metrics").and_then(Value::as_object) {
            for (key, value) in want_metrics {
                differ(
                    &format!("metrics.{key}"),
                    metrics.get(key).cloned().unwrap_or(Value::Null),
                    Some(value),
                );
            }
            // The keys listed come in the same order as in the verdict (Python's insertion order).
            let got: Vec<&String> = metrics
                .as_object()
                .map(|m| m.keys().filter(|k| want_metrics.contains_key(*k)).collect())
                .unwrap_or_default();
            let wanted: Vec<&String> = want_metrics.keys().filter(|k| got.contains(k)).collect();
            if got != wanted {
                problems.push(format!(
                    "verdict #{index} ({}): metrics keys come as {got:?}, expected {wanted:?}",
                    result.name
                ));
            }
        }
    }
    Ok(problems)
}

#[test]
fn check_cases() {
    let dir = cases_dir();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.join("case.json").is_file())
        .collect();
    entries.sort();
    assert!(!entries.is_empty(), "no cases in {}", dir.display());
    let mut failures = Vec::new();
    for path in &entries {
        let case = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match run_case(path) {
            Ok(problems) => failures.extend(problems.into_iter().map(|p| format!("{case}: {p}"))),
            Err(error) => failures.push(format!("{case}: {error}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        entries.len(),
        failures.join("\n")
    );
}

/// The parameter table `tests/checks/params.json`, which `ldp plan` must agree with (see the
/// config crate's test of the same table): the plugin builds each accepted item for the
/// columns of `examples/data/rides.csv`, and refuses each other with `quality check #1 ` and the
/// message the table gives.
#[test]
fn parameter_table() {
    let path = cases_dir().join("params.json");
    let table: Value = serde_json::from_str(
        &std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let fields: Vec<Field> = [
        ("ride_id", "int64"),
        ("pickup_ts", "timestamp[us]"),
        ("city", "string"),
        ("distance_km", "double"),
        ("fare", "double"),
    ]
    .iter()
    .map(|(name, spec)| Field::new(*name, parse_type(spec).expect("a type"), true))
    .collect();
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let cases = table["cases"].as_array().expect("a list of cases");
    assert!(cases.len() >= 50, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let config = serde_json::json!({"checks": [case["item"]]});
        let got = Checks::new(&config.to_string(), &schema)
            .err()
            .map(|e| e.to_string());
        let want = case["error"]
            .as_str()
            .map(|tail| format!("quality check #1 {tail}"));
        if got != want {
            failures.push(format!(
                "{}\n  expected {want:?}\n  got      {got:?}",
                case["item"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
