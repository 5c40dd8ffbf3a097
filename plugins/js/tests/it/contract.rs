//! The README's examples and the shape of the contract: schema(fields), flush(), globals.

use crate::common::{open, rides, rows, run};
use ldp_plugin_sdk::prelude::*;
use serde_json::json;

/// The README, whose examples the tests run as they are written there.
const README: &str = include_str!("../../README.md");

/// The first ```js block after `marker` in the README.
fn readme_example(marker: &str) -> &'static str {
    let after = README.split_once(marker).map_or("", |(_, rest)| rest);
    let block = after.split_once("```js\n").map_or("", |(_, rest)| rest);
    block.split_once("```").map_or("", |(code, _)| code)
}

/// README example (a): mask the local part of `email`, add `email_domain`.
pub fn mask_email() -> &'static str {
    readme_example("(a) Mask the local part")
}

/// README example (b): `fare_per_km = round(fare / distance_km, 2)`, rows with fare < 0 dropped.
pub fn fare_per_km() -> &'static str {
    readme_example("(b) Add `fare_per_km")
}

#[test]
fn example_mask_email() {
    let input = crate::common::batch(
        vec![
            Field::new("id", DataType::Int64, false),
            Field::new("email", DataType::Utf8, true),
        ],
        vec![
            std::sync::Arc::new(ldp_plugin_sdk::arrow_array::Int64Array::from(vec![
                1, 2, 3, 4,
            ])),
            std::sync::Arc::new(ldp_plugin_sdk::arrow_array::StringArray::from(vec![
                Some("alice@example.com"),
                None,
                Some("bob.smith@mail.example.org"),
                Some("not an address"),
            ])),
        ],
    );
    assert!(mask_email().contains("function transform(rows)"));
    let mut t = open(mask_email(), &input).expect("open");
    let names: Vec<_> = t
        .output_schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(names, ["id", "email", "email_domain"]);
    let out = t.push(input).expect("push");
    assert_eq!(
        rows(&out[0]),
        [
            json!({"id": 1, "email": "a***@example.com", "email_domain": "example.com"}),
            json!({"id": 2, "email": null, "email_domain": null}),
            json!({"id": 3, "email": "b***@mail.example.org", "email_domain": "mail.example.org"}),
            json!({"id": 4, "email": "not an address", "email_domain": null}),
        ]
    );
}

#[test]
fn example_fare_per_km() {
    assert!(fare_per_km().contains("function transform(rows)"));
    let out = run(fare_per_km(), rides(20)).expect("run");
    let rows = rows(&out[0]);
    // Rows 9 and 19 have fare -1.
    assert_eq!(rows.len(), 18);
    assert!(rows.iter().all(|r| r["fare"].as_f64() >= Some(0.0)));
    assert_eq!(rows[0]["fare_per_km"], json!(5.0));
    // Row 3: fare 5 + 3*0.61 = 6.83, distance 1 + 3*0.37 = 2.11: 3.2369... -> 3.24.
    assert_eq!(rows[3]["fare_per_km"], json!(3.24));
    assert_eq!(
        rows[3]["pickup_ts"],
        json!(1_704_070_478_000_000i64 + 3 * 61_000_000)
    );
}

#[test]
fn schema_declares_columns_types_order_and_nullability() {
    let code = r#"
      function schema(fields) {
        const keep = fields.filter(f => f.name !== "email");
        return [
          { name: "label", type: "string", nullable: false },
          ...keep,
          { name: "n", type: "int32" },
          { name: "ok", type: "bool" },
          { name: "day", type: "date32[day]" },
          { name: "at", type: "timestamp[ms, tz=UTC]" },
        ];
      }
      function transform(rows) {
        return rows.map(({ email, ...row }) => ({ ...row, label: row.city + "-" + row.ride_id,
          n: row.ride_id * 2, ok: row.fare > 0, day: "2024-02-29", at: "2024-02-29T12:00:00Z" }));
      }"#;
    let input = rides(3);
    let mut t = open(code, &input).expect("open");
    let schema = t.output_schema();
    let described: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| format!("{} {} {}", f.name(), f.data_type(), f.is_nullable()))
        .collect();
    assert_eq!(
        described,
        [
            "label Utf8 false",
            "ride_id Int64 false",
            "pickup_ts Timestamp(µs) true",
            "city Utf8 true",
            "distance_km Float64 true",
            "fare Float64 true",
            "n Int32 true",
            "ok Boolean true",
            "day Date32 true",
            "at Timestamp(ms, \"UTC\") true",
        ]
    );
    let out = t.push(input).expect("push");
    let r = rows(&out[0]);
    assert_eq!(r[1]["label"], json!("NYC-2"));
    assert_eq!(r[1]["n"], json!(4));
    assert_eq!(r[1]["ok"], json!(true));
    assert_eq!(r[1]["day"], json!(19_782));
}

#[test]
fn schema_sees_input_fields() {
    let code = r#"
      let seen;
      function schema(fields) { seen = JSON.stringify(fields); return fields; }
      function transform(rows) { return [{ ...rows[0], city: seen }]; }"#;
    let out = run(code, rides(1)).expect("run");
    let seen: serde_json::Value =
        serde_json::from_str(rows(&out[0])[0]["city"].as_str().unwrap_or("null")).expect("json");
    assert_eq!(
        seen,
        json!([
            {"name": "ride_id", "type": "int64", "nullable": false},
            {"name": "pickup_ts", "type": "timestamp[us]", "nullable": true},
            {"name": "city", "type": "string", "nullable": true},
            {"name": "distance_km", "type": "double", "nullable": true},
            {"name": "fare", "type": "double", "nullable": true},
            {"name": "email", "type": "string", "nullable": true},
        ])
    );
}

#[test]
fn without_schema_the_output_schema_is_the_input_schema() {
    let input = rides(2);
    let t = open("function transform(rows) { return rows; }", &input).expect("open");
    assert_eq!(t.output_schema(), input.schema());
}

#[test]
fn filter_to_nothing_gives_no_batch_and_rows_may_be_added() {
    assert!(
        run("function transform(rows) { return []; }", rides(5))
            .expect("run")
            .is_empty()
    );
    let out = run("const transform = rows => [...rows, ...rows];", rides(5)).expect("run");
    assert_eq!(out[0].num_rows(), 10);
}

#[test]
fn globals_persist_across_batches_and_flush_adds_rows() {
    let code = r#"
      let total = 0, batches = 0;
      function schema(fields) { return [{ name: "city", type: "string" }, { name: "fare", type: "double" }]; }
      function transform(rows) {
        batches += 1;
        for (const row of rows) total += row.fare;
        return [];
      }
      function flush() { return [{ city: "ALL (" + batches + " batches)", fare: total }]; }"#;
    let input = rides(4);
    let mut t = open(code, &input).expect("open");
    assert!(t.push(input.clone()).expect("push").is_empty());
    assert!(t.push(input).expect("push").is_empty());
    let out = t.flush().expect("flush");
    let fares = 2.0 * (5.0 + 5.61 + 6.22 + 6.83);
    let r = rows(&out[0]);
    assert_eq!(r[0]["city"], json!("ALL (2 batches)"));
    assert!((r[0]["fare"].as_f64().unwrap_or(0.0) - fares).abs() < 1e-9);
}

#[test]
fn console_log_is_there() {
    let code = r#"function transform(rows) { console.log("rows:", rows.length, rows[0]);
      console.warn({a: 1}); console.error("x".repeat(10000)); return rows; }"#;
    assert_eq!(run(code, rides(2)).expect("run")[0].num_rows(), 2);
}

#[test]
fn no_io_globals() {
    let code = r#"
      function transform(rows) {
        const names = ["fetch", "require", "process", "setTimeout", "XMLHttpRequest", "Deno", "Bun"];
        return rows.map(r => ({ ...r, city: names.filter(n => typeof globalThis[n] !== "undefined").join(",") }));
      }"#;
    let out = run(code, rides(1)).expect("run");
    assert_eq!(rows(&out[0])[0]["city"], json!(""));
}

#[test]
fn modern_javascript_works() {
    let code = r#"
      class Acc { #n = 0; add(x) { this.#n += x; return this; } get n() { return this.#n; } }
      function transform(rows) {
        const checks = {
          destructuring: (() => { const { city, ...rest } = rows[0]; return city === "LDN" && !("city" in rest); })(),
          optional: rows[0]?.missing?.deep === undefined && (rows[0].missing ?? 1) === 1,
          template: `${rows[0].city}-${rows[0].ride_id}` === "LDN-1",
          classes: new Acc().add(2).add(3).n === 5,
          map_set: new Map([["a", 1]]).get("a") === 1 && new Set([1, 1, 2]).size === 2,
          group_by: Object.groupBy(rows, r => r.city).NYC.length === 1,
          at: rows.at(-1).ride_id === 4,
          find_last: rows.findLast(r => r.fare > 0).ride_id === 4,
          to_sorted: rows.toSorted((a, b) => b.ride_id - a.ride_id)[0].ride_id === 4,
          strings: "a-b-c".replaceAll("-", "+") === "a+b+c" && "7".padStart(3, "0") === "007",
          regexp: /(?<user>[^@]+)@(?<domain>.+)/.exec("a@b.c").groups.domain === "b.c",
          json: JSON.parse(JSON.stringify({ x: [1, 2] })).x[1] === 2,
          math: Math.round(2.675 * 100) / 100 === 2.68 && Math.max(...[1, 5, 3]) === 5,
          to_fixed: (3.14159).toFixed(2) === "3.14",
          dates: new Date(Date.UTC(2024, 0, 31)).toISOString() === "2024-01-31T00:00:00.000Z"
            && new Date("2024-01-31T08:30:00Z").getUTCHours() === 8,
          bigint: (2n ** 64n).toString() === "18446744073709551616",
          generators: [...(function* () { yield 1; yield 2; })()].length === 2,
          entries: Object.fromEntries(Object.entries({ a: 1 }).map(([k, v]) => [k, v + 1])).a === 2,
        };
        const failed = Object.entries(checks).filter(([, ok]) => !ok).map(([name]) => name);
        return [{ ...rows[0], city: failed.join(",") || "all ok" }];
      }"#;
    let out = run(code, rides(4)).expect("run");
    assert_eq!(rows(&out[0])[0]["city"], json!("all ok"));
}
