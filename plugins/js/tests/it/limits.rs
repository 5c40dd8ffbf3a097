//! Runtime limits end a call with an error of kind `limit` that names the limit.

use crate::common::{open, rides, run, run_err};
use js::{JsTransform, Limits};
use ldp_plugin_sdk::prelude::*;
use std::time::Instant;

/// The default limits, but loops stop after a million iterations (a debug build runs the
/// default 10^8 in about a minute).
fn small_loops() -> Limits {
    Limits {
        loop_iterations: 1_000_000,
        ..Limits::default()
    }
}

fn run_limited(code: &str, limits: Limits) -> PluginError {
    let input = rides(1);
    let config = serde_json::json!({ "code": code }).to_string();
    match JsTransform::open_with_limits(&config, input.schema(), limits)
        .and_then(|mut t| t.push(input))
    {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

#[test]
fn endless_loop_hits_the_loop_limit() {
    let e = run_limited(
        "function transform(rows) { while (true) {} }",
        small_loops(),
    );
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Limit);
    assert_eq!(
        e.message,
        "js transform: transform(rows) on batch 1 stopped at the loop iteration limit: more \
         than 1000000 loop iterations in one function call (an endless loop?)"
    );
}

#[test]
#[ignore = "10^8 iterations: seconds in release, a minute in debug; cargo test --release -- --ignored"]
fn endless_loop_hits_the_default_loop_limit() {
    let start = Instant::now();
    let e = run_err("function transform(rows) { while (true) {} }", rides(1));
    eprintln!("{e} ({:?})", start.elapsed());
    assert_eq!(e.kind, ErrorKind::Limit);
    assert!(e.message.contains(&format!(
        "more than {} loop iterations",
        js::LOOP_ITERATION_LIMIT
    )));
}

#[test]
fn loop_limit_cannot_be_caught() {
    let e = run_limited(
        "function transform(rows) { try { for (;;) {} } catch (e) { return rows; } }",
        small_loops(),
    );
    assert_eq!(e.kind, ErrorKind::Limit);
}

#[test]
fn endless_loop_at_top_level() {
    let config = serde_json::json!({ "code": "for (;;) {}\nfunction transform(r) { return r; }" })
        .to_string();
    let e = JsTransform::open_with_limits(&config, rides(1).schema(), small_loops())
        .err()
        .expect("an error");
    assert_eq!(e.kind, ErrorKind::Limit);
    assert!(
        e.message
            .contains("the script's top-level code stopped at the loop iteration limit"),
        "{e}"
    );
}

#[test]
fn the_loop_limit_counts_per_call() {
    // 600k iterations per call, three calls: each call stays below a million.
    let code = "let calls = 0; function transform(rows) { calls++; for (let i = 0; i < 600000; i++) {} return rows; }";
    let input = rides(1);
    let config = serde_json::json!({ "code": code }).to_string();
    let mut t =
        JsTransform::open_with_limits(&config, input.schema(), small_loops()).expect("open");
    for _ in 0..3 {
        assert_eq!(t.push(input.clone()).expect("push").len(), 1);
    }
}

#[test]
fn endless_recursion_hits_the_recursion_limit() {
    let e = run_err(
        "function f(n) { return f(n + 1) + 1; }\nfunction transform(rows) { f(0); return rows; }",
        rides(1),
    );
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Limit);
    assert!(
        e.message
            .contains("the recursion limit: more than 1000 nested function calls"),
        "{e}"
    );
}

#[test]
fn recursion_through_native_callbacks() {
    // Each level goes through Array.prototype.map: native frames on the Rust stack, which are
    // large in a debug build; give the test a stack like the component's.
    let code = "function f(n) { return [n].map(x => f(x + 1))[0]; }\nfunction transform(rows) { f(0); return rows; }";
    let e = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || run_err(code, rides(1)))
        .expect("thread")
        .join()
        .expect("no panic");
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Limit);
}

#[test]
fn spreading_a_large_array_fits_the_stack() {
    let code = "function transform(rows) { const m = Math.max(...rows.map(r => r.fare)); return rows.map(r => ({...r, fare: m})); }";
    let out = run(code, rides(100_000)).expect("run");
    assert_eq!(out[0].num_rows(), 100_000);
}

#[test]
fn loops_over_a_batch_are_fine() {
    // 10k rows x 50 inner iterations = 500k loop iterations in one call.
    let code = "function transform(rows) { let s = 0; for (const r of rows) { for (let i = 0; i < 50; i++) s += i; } return rows.slice(0, 1).map(r => ({...r, fare: s})); }";
    let input = rides(10_000);
    let config = serde_json::json!({ "code": code }).to_string();
    let out = JsTransform::open_with_limits(&config, input.schema(), small_loops())
        .and_then(|mut t| t.push(input))
        .expect("run");
    assert_eq!(out[0].num_rows(), 1);
}

#[test]
fn open_is_used() {
    // The helpers' open() takes the default limits.
    assert!(open("function transform(r) { return r; }", &rides(1)).is_ok());
}
