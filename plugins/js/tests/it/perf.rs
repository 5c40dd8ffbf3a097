//! Throughput of a simple map on a rides-like batch (run with --release --ignored to measure).

use crate::common::{open, rides};
use ldp_plugin_sdk::Transform;
use ldp_plugin_sdk::prelude::*;
use std::time::Instant;

/// Seconds this thread has been on a CPU (Linux), so that other load on the machine does not
/// count; wall time elsewhere.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos / 1e9)
}

/// Pushes `input` once to warm up, then `rounds` times: the best (CPU seconds, wall seconds).
fn measure(t: &mut impl Transform, input: &RecordBatch, rounds: usize) -> (f64, f64) {
    let _ = t.push(input.clone());
    let mut best = (f64::MAX, f64::MAX);
    for _ in 0..rounds {
        let (cpu, wall) = (cpu_seconds(), Instant::now());
        let out = t.push(input.clone()).expect("push");
        let wall = wall.elapsed().as_secs_f64();
        let cpu = cpu.zip(cpu_seconds()).map(|(a, b)| b - a).unwrap_or(wall);
        assert!(out.iter().map(RecordBatch::num_rows).sum::<usize>() > 0 || out.is_empty());
        best = (best.0.min(cpu), best.1.min(wall));
    }
    best
}

#[test]
#[ignore = "a measurement: cargo test --release -- --ignored --nocapture perf"]
fn perf_100k_rows() {
    let input = rides(100_000);
    for (what, code) in [
        (
            "rows in, none out",
            "function transform(rows) { return []; }",
        ),
        ("identity", "function transform(rows) { return rows; }"),
        (
            "filter",
            "function transform(rows) { return rows.filter(r => r.fare >= 0); }",
        ),
        (
            "map with spread (example b)",
            "function schema(f) { return [...f, { name: 'fare_per_km', type: 'double' }]; }
             function transform(rows) {
               return rows.filter(r => r.fare >= 0)
                 .map(r => ({ ...r, fare_per_km: Math.round(r.fare / r.distance_km * 100) / 100 }));
             }",
        ),
        (
            "map in place",
            "function schema(f) { return [...f, { name: 'fare_per_km', type: 'double' }]; }
             function transform(rows) {
               for (const r of rows) r.fare_per_km = Math.round(r.fare / r.distance_km * 100) / 100;
               return rows;
             }",
        ),
        ("mask email (example a)", crate::contract::mask_email()),
    ] {
        let mut t = open(code, &input).expect("open");
        let (cpu, wall) = measure(&mut t, &input, 3);
        eprintln!(
            "{what:28}: 100000 rows, {cpu:.3} s CPU = {:>7.0} rows/s ({wall:.3} s wall)",
            100_000.0 / cpu
        );
    }
}

#[test]
#[ignore = "a measurement: cargo test --release -- --ignored --nocapture perf"]
fn perf_open() {
    let input = rides(1);
    let start = Instant::now();
    for _ in 0..10 {
        let _ = open("function transform(rows) { return rows; }", &input).expect("open");
    }
    eprintln!("open: {:.1} ms", start.elapsed().as_secs_f64() * 100.0);
}
