//! A timing of the demo's seven checks over many rows (run with
//! `cargo test --release -p ldp-checks -- --ignored --nocapture demo_checks_speed`).

use crate::Checks;
use arrow_array::{Float64Array, Int64Array, StringArray, TimestampMicrosecondArray};
use arrow_schema::{Field, Schema, TimeUnit};
use ldp_plugin_sdk::prelude::*;
use std::sync::Arc;
use std::time::Instant;

fn run(rows: usize, shuffled: bool) {
    let schema: SchemaRef = Arc::new(Schema::new(vec![
        Field::new("ride_id", DataType::Int64, true),
        Field::new(
            "pickup_ts",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            true,
        ),
        Field::new("city", DataType::Utf8, true),
        Field::new("fare", DataType::Float64, true),
    ]));
    let cities = ["NYC", "BKK", "LDN", "SFO"];
    let batch_rows = 8192;
    let mut batches = Vec::new();
    let mut state: u64 = 42;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for start in (0..rows).step_by(batch_rows) {
        let n = batch_rows.min(rows - start);
        let ids: Vec<i64> = (start..start + n)
            .map(|i| {
                if shuffled {
                    // A bijection of 0..2^64 keeps ids distinct.
                    (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) as i64
                } else {
                    i as i64 + 1
                }
            })
            .collect();
        let ts: Vec<i64> = (start..start + n)
            .map(|i| 1_704_067_200_000_000 + i as i64 * 60_000)
            .collect();
        let city: Vec<&str> = (0..n).map(|_| cities[(next() % 4) as usize]).collect();
        let fare: Vec<f64> = (0..n).map(|_| (next() % 10_000) as f64 / 100.0).collect();
        batches.push(
            RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(Int64Array::from(ids)),
                    Arc::new(TimestampMicrosecondArray::from(ts)),
                    Arc::new(StringArray::from(city)),
                    Arc::new(Float64Array::from(fare)),
                ],
            )
            .unwrap(),
        );
    }
    let config = serde_json::json!({"checks": [
        {"check": "row_count", "min": 1},
        {"check": "not_null", "columns": ["ride_id", "pickup_ts", "fare"]},
        {"check": "unique", "columns": ["ride_id"]},
        {"check": "accepted_values", "column": "city", "values": ["NYC", "BKK", "LDN", "SFO"]},
        {"check": "range", "column": "fare", "min": 0},
        {"check": "freshness", "column": "pickup_ts", "max_age_hours": 48, "now": "2024-01-08T00:00:00"},
        {"check": "schema", "columns": {"ride_id": "int64", "city": "string", "fare": "double"}},
    ]});
    let each: Vec<(&str, serde_json::Value)> = config["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["check"].as_str().unwrap(),
                serde_json::json!({"checks": [c]}),
            )
        })
        .collect();
    for (name, config) in each.iter().chain([("all", config.clone())].iter()) {
        let started = Instant::now();
        let mut checks = Checks::new(&config.to_string(), &schema).unwrap();
        for batch in &batches {
            Check::push(&mut checks, batch).unwrap();
        }
        let results = Check::finish(checks, &CheckContext::default()).unwrap();
        let passed = results.iter().all(|r| r.passed);
        println!(
            "{rows} rows, shuffled ids {shuffled}: {name:<16} {:>8.3} s passed={passed}",
            started.elapsed().as_secs_f64()
        );
    }
}

#[test]
#[ignore]
fn demo_checks_speed() {
    run(10_000_000, false);
    run(10_000_000, true);
}
