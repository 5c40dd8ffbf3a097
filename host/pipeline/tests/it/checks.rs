//! The quality check cases of `tests/checks/` (see its README) run through the embedded `checks`
//! component, as a run runs them: the same verdicts as the plugin's native test of the same
//! cases, now across the sandbox boundary in the wasm build that ships.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use ldp_plugin_runtime::{CheckContext, Sandbox};
use serde_json::Value;

use super::runtime;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/checks")
}

/// A pyarrow type string (`int64`, `timestamp[us, tz=UTC]`, `large_string`...) as Arrow's type.
fn data_type(text: &str) -> DataType {
    let unit = |u: &str| match u.trim() {
        "s" => TimeUnit::Second,
        "ms" => TimeUnit::Millisecond,
        "us" => TimeUnit::Microsecond,
        "ns" => TimeUnit::Nanosecond,
        other => panic!("unknown time unit {other:?} in {text:?}"),
    };
    let text = text.trim();
    if let Some(inner) = text
        .strip_prefix("timestamp[")
        .and_then(|t| t.strip_suffix(']'))
    {
        let (u, tz) = match inner.split_once(',') {
            Some((u, tz)) => (u, Some(tz.trim().trim_start_matches("tz=").trim().into())),
            None => (inner, None),
        };
        return DataType::Timestamp(unit(u), tz);
    }
    if let Some(inner) = text
        .strip_prefix("duration[")
        .and_then(|t| t.strip_suffix(']'))
    {
        return DataType::Duration(unit(inner));
    }
    if let Some(inner) = text
        .strip_prefix("decimal128(")
        .or_else(|| text.strip_prefix("decimal("))
        .and_then(|t| t.strip_suffix(')'))
    {
        let (p, s) = inner.split_once(',').expect("decimal(p, s)");
        return DataType::Decimal128(p.trim().parse().unwrap(), s.trim().parse().unwrap());
    }
    match text {
        "int8" => DataType::Int8,
        "int16" => DataType::Int16,
        "int32" => DataType::Int32,
        "int64" => DataType::Int64,
        "uint8" => DataType::UInt8,
        "uint16" => DataType::UInt16,
        "uint32" => DataType::UInt32,
        "uint64" => DataType::UInt64,
        "float" | "float32" => DataType::Float32,
        "double" | "float64" => DataType::Float64,
        "string" | "utf8" | "str" => DataType::Utf8,
        "large_string" | "large_utf8" => DataType::LargeUtf8,
        "bool" | "boolean" => DataType::Boolean,
        "date32" | "date32[day]" => DataType::Date32,
        "date64" | "date64[ms]" => DataType::Date64,
        "binary" => DataType::Binary,
        other => panic!("the case harness does not know the type {other:?}"),
    }
}

/// One column from the rows' JSON values: their text cast to the column's type by Arrow.
fn column(rows: &[Value], name: &str, to: &DataType) -> ArrayRef {
    let text: StringArray = rows
        .iter()
        .map(|row| match row.get(name) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        })
        .collect();
    // arrow-cast parses named zones only with chrono-tz: parse the instants at UTC, then label
    // them with the column's zone (the same physical values).
    // Durations are integers in the data: parse them as such and label them likewise.
    let physical = match to {
        DataType::Timestamp(unit, Some(_)) => {
            Some(DataType::Timestamp(*unit, Some("+00:00".into())))
        }
        DataType::Duration(_) => Some(DataType::Int64),
        _ => None,
    };
    if let Some(physical) = physical {
        let parsed = arrow_cast::cast(&text, &physical)
            .unwrap_or_else(|e| panic!("column {name} as {to}: {e}"));
        let data = parsed.to_data().into_builder().data_type(to.clone());
        return arrow_array::make_array(data.build().expect("same physical type"));
    }
    arrow_cast::cast(&text, to).unwrap_or_else(|e| panic!("column {name} as {to}: {e}"))
}

fn micros(iso: &str) -> i64 {
    let text = iso.trim();
    let ts: jiff::Timestamp = text.parse().unwrap_or_else(|_| {
        let civil: jiff::civil::DateTime = text.parse().expect("an ISO-8601 time");
        civil.to_zoned(jiff::tz::TimeZone::UTC).unwrap().timestamp()
    });
    ts.as_microsecond()
}

#[test]
fn check_cases_through_the_component() {
    let runtime = runtime();
    let builtin = ldp_builtin_plugins::get("checks").unwrap();
    let plugin = runtime
        .load_embedded("built-in plugin 'checks'", builtin.bytes, builtin.sha256)
        .unwrap();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 11,
        "too few cases in {}",
        cases_dir().display()
    );
    let mut failures = Vec::new();
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let case: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap())
                .unwrap_or_else(|e| panic!("{name}/case.json: {e}"));
        let rows: Vec<Value> = std::fs::read_to_string(dir.join("data.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}/data.jsonl: {e}")))
            .collect();
        let fields: Vec<Field> = case["schema"]
            .as_object()
            .unwrap_or_else(|| panic!("{name}: schema must be an object"))
            .iter()
            .map(|(col, ty)| Field::new(col, data_type(ty.as_str().unwrap()), true))
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let config = serde_json::json!({"checks": case["checks"]}).to_string();
        let mut stream = plugin
            .open_check(&config, &schema, &Sandbox::default())
            .unwrap_or_else(|e| panic!("{name}: open: {e}"));
        let batch_rows = case["batch_rows"].as_u64().unwrap_or(2).max(1) as usize;
        for chunk in rows.chunks(batch_rows) {
            let columns: Vec<ArrayRef> = schema
                .fields()
                .iter()
                .map(|f| column(chunk, f.name(), f.data_type()))
                .collect();
            let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
            stream
                .push(&batch)
                .unwrap_or_else(|e| panic!("{name}: push: {e}"));
        }
        let context = CheckContext {
            source_rows: case["context"]["source_rows"].as_u64(),
            now_micros: case["context"]["now"].as_str().map(micros),
        };
        let results = stream
            .finish(context)
            .unwrap_or_else(|e| panic!("{name}: finish: {e}"));
        let expected = case["expected"].as_array().unwrap();
        if results.len() != expected.len() {
            failures.push(format!(
                "{name}: {} verdicts, expected {}",
                results.len(),
                expected.len()
            ));
            continue;
        }
        for (got, want) in results.iter().zip(expected) {
            let mut check = |field: &str, got: Value| {
                if let Some(want) = want.get(field)
                    && *want != got
                {
                    failures.push(format!("{name}: {field}: got {got}, expected {want}"));
                }
            };
            check("name", Value::from(got.name.clone()));
            check("passed", Value::from(got.passed));
            check("details", Value::from(got.details.clone()));
            check("failing_rows", Value::from(got.failing_rows));
            if let Some(metrics) = want.get("metrics").and_then(Value::as_object) {
                for (key, value) in metrics {
                    if got.metrics.get(key) != Some(value) {
                        failures.push(format!(
                            "{name}: metrics.{key}: got {}, expected {value}",
                            got.metrics.get(key).unwrap_or(&Value::Null)
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
