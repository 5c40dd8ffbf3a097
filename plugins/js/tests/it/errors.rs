//! Every error names what is at fault and says what to do; its kind is right.

use crate::common::{batch, open, rides, run_err};
use js::JsTransform;
use ldp_plugin_sdk::arrow_array::types::Int32Type;
use ldp_plugin_sdk::arrow_array::{Array, Int64Array, ListArray};
use ldp_plugin_sdk::prelude::*;
use std::sync::Arc;

fn open_err(code: &str) -> PluginError {
    match open(code, &rides(1)) {
        Ok(_) => panic!("open accepted {code}"),
        Err(e) => e,
    }
}

#[test]
fn wrong_output_type() {
    let e = run_err(
        "function transform(rows) { return rows.map(r => ({ ...r, fare: String(r.fare) })); }",
        rides(3),
    );
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Data);
    assert_eq!(
        e.message,
        "js transform: output row 0 of batch 1: column 'fare' is double and takes a Number, but \
         the value is the string \"5\"; convert it in transform(rows) (e.g. Number(row.fare)) \
         or declare the column with another type in schema(fields)"
    );
}

#[test]
fn wrong_output_type_names_the_row_and_range() {
    let code = r#"
      function schema(f) { return [{ name: "n", type: "int8" }]; }
      function transform(rows) { return rows.map((r, i) => ({ n: i === 2 ? 300 : i === 1 ? 1.5 : i })); }"#;
    let e = run_err(code, rides(3));
    eprintln!("{e}");
    assert!(
        e.message
            .contains("output row 1 of batch 1: column 'n' is int8"),
        "{e}"
    );
    assert!(
        e.message.contains("the number 1.5 (it is not an integer)"),
        "{e}"
    );
    let code = code.replace("1.5", "1");
    let e = run_err(&code, rides(3));
    assert!(e.message.contains("output row 2 of batch 1"), "{e}");
    assert!(e.message.contains("(300 is out of range)"), "{e}");
}

#[test]
fn undeclared_key() {
    let e = run_err(
        "function transform(rows) { return rows.map(r => ({ ...r, fare_per_km: r.fare / r.distance_km })); }",
        rides(3),
    );
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Data);
    assert_eq!(
        e.message,
        "js transform: output row 0 of batch 1 has the key 'fare_per_km', which is not a column \
         of the output schema [ride_id, pickup_ts, city, distance_km, fare, email]; declare it \
         in schema(fields), e.g. function schema(fields) { return [...fields, {name: \
         \"fare_per_km\", type: \"double\"}]; } (or delete row.fare_per_km before returning the \
         row)"
    );
}

#[test]
fn syntax_error_at_open() {
    let e = open_err("function transform(rows) {\n  return rows.map(r => { r.x = ; });\n}");
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Config);
    assert!(
        e.message
            .starts_with("js transform: config.code does not parse: SyntaxError"),
        "{e}"
    );
    assert!(e.message.contains("line 2"), "{e}");
    assert!(!e.message.contains("(native)"), "{e}");
}

#[test]
fn thrown_error_in_transform() {
    let code = "function transform(rows) {\n  for (const row of rows) {\n    if (row.ride_id === 2) throw new Error(\"bad ride \" + row.ride_id);\n  }\n  return rows;\n}";
    let config = serde_json::json!({ "code": code, "name": "check_rides" }).to_string();
    let input = rides(3);
    let mut t = JsTransform::open(&config, input.schema()).expect("open");
    let e = t.push(input).expect_err("an error");
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message.starts_with(
            "js transform 'check_rides': transform(rows) on batch 1 threw Error: bad ride 2"
        ),
        "{e}"
    );
    assert!(e.message.contains("check_rides.js:3:"), "{e}");
}

#[test]
fn runtime_type_error_has_a_position() {
    let e = run_err(
        "function transform(rows) {\n  return rows.map(r => r.nope.x);\n}",
        rides(1),
    );
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(e.message.contains("threw TypeError"), "{e}");
    assert!(e.message.contains("transform.js:2:"), "{e}");
}

#[test]
fn thrown_string() {
    let e = run_err(
        "function transform(rows) { throw 'no rows wanted'; }",
        rides(1),
    );
    eprintln!("{e}");
    assert!(e.message.contains("threw \"no rows wanted\""), "{e}");
}

#[test]
fn errors_at_open_are_config_errors() {
    let e = open_err("throw new RangeError('top');\nfunction transform(r) { return r; }");
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Config);
    assert!(
        e.message
            .contains("the script's top-level code threw RangeError: top"),
        "{e}"
    );

    let e = open_err(
        "function schema(f) { return [{ name: 'x', type: 'number' }]; }\nfunction transform(r) { return r; }",
    );
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Config);
    assert!(
        e.message
            .contains("field 'x' has type \"number\"; give one of bool,"),
        "{e}"
    );

    let e = open_err(
        "function schema(f) { return f.map(x => x.name); }\nfunction transform(r) { return r; }",
    );
    eprintln!("{e}");
    assert!(e.message.contains("schema(fields) item 0 is string"), "{e}");

    let e = open_err(
        "function schema(f) { return [...f, ...f]; }\nfunction transform(r) { return r; }",
    );
    assert!(e.message.contains("the column 'ride_id' twice"), "{e}");
}

#[test]
fn transform_missing_or_not_a_function() {
    let e = open_err("function transfrom(rows) { return rows; }");
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Config);
    assert!(e.message.contains("does not define transform(rows)"), "{e}");
    let e = open_err("var transform = 3;");
    assert!(
        e.message
            .contains("defines transform as number, not a function"),
        "{e}"
    );
}

#[test]
fn unknown_config_key() {
    let input = rides(1);
    let e = JsTransform::open(
        r#"{"code": "function transform(r) { return r; }", "lang": "js"}"#,
        input.schema(),
    )
    .err()
    .expect("an error");
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Config);
    assert!(e.message.starts_with("config.lang: unknown key"), "{e}");
}

#[test]
fn not_an_array_or_not_objects() {
    let e = run_err(
        "function transform(rows) { rows.forEach(r => r.fare *= 2); }",
        rides(1),
    );
    eprintln!("{e}");
    assert!(
        e.message
            .contains("transform(rows) on batch 1 returned undefined, not an array"),
        "{e}"
    );
    let e = run_err(
        "function transform(rows) { return rows.map(r => r.fare); }",
        rides(1),
    );
    eprintln!("{e}");
    assert!(
        e.message
            .contains("output row 0 of batch 1 is the number 5, not a row object"),
        "{e}"
    );
}

#[test]
fn async_transform_is_refused() {
    let e = run_err("async function transform(rows) { return rows; }", rides(1));
    eprintln!("{e}");
    assert!(e.message.contains("returned a Promise"), "{e}");
}

#[test]
fn int64_beyond_2_pow_53() {
    let input = batch(
        vec![Field::new("id", DataType::Int64, true)],
        vec![Arc::new(Int64Array::from(vec![
            Some(1),
            None,
            Some(9_007_199_254_740_993),
        ]))],
    );
    let e = run_err("function transform(rows) { return rows; }", input);
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(
        e.message
            .contains("input row 2 of batch 1: column 'id' (int64) holds 9007199254740993"),
        "{e}"
    );
}

#[test]
fn unsupported_input_type() {
    let list = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1)])]);
    let input = batch(
        vec![Field::new("tags", list.data_type().clone(), true)],
        vec![Arc::new(list)],
    );
    let e = open("function transform(rows) { return rows; }", &input)
        .err()
        .expect("an error");
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Config);
    assert!(
        e.message
            .contains("input column 'tags' has type list<item: int32>"),
        "{e}"
    );
}

#[test]
fn not_nullable_column_needs_a_value() {
    let e = run_err(
        "function transform(rows) { return rows.map(({ ride_id, ...r }) => r); }",
        rides(1),
    );
    eprintln!("{e}");
    assert!(
        e.message
            .contains("column 'ride_id' is not nullable, but the row gives it no value"),
        "{e}"
    );
}

#[test]
fn no_modules() {
    let e = open_err("import fs from 'fs';\nfunction transform(r) { return r; }");
    eprintln!("{e}");
    assert_eq!(e.kind, ErrorKind::Config);
    assert!(e.message.contains("does not parse"), "{e}");
    // A dynamic import gives a promise that is never settled with a module: no file is read.
    let code = "function transform(rows) { const p = import('./Cargo.toml'); return rows.map(r => ({ ...r, city: String(p) })); }";
    let out = crate::common::run(code, rides(1)).expect("run");
    assert_eq!(
        crate::common::rows(&out[0])[0]["city"],
        serde_json::json!("[object Promise]")
    );
}

#[test]
fn a_huge_sparse_array_is_refused_without_reserving_it() {
    let e = run_err(
        "function transform(rows) { const out = [rows[0]]; out.length = 4294967295; return out; }",
        rides(1),
    );
    eprintln!("{e}");
    assert!(
        e.message
            .contains("output row 1 of batch 1 is undefined, not a row object"),
        "{e}"
    );
    let e = open_err(
        "function schema(f) { const s = [...f]; s.length = 4294967295; return s; }\nfunction transform(r) { return r; }",
    );
    assert!(e.message.contains("item 6 is undefined"), "{e}");
}

#[test]
fn a_huge_thrown_message_is_cut() {
    let e = run_err(
        "function transform(rows) { throw new Error('x'.repeat(100000)); }",
        rides(1),
    );
    assert!(e.message.len() < 5_000, "{}", e.message.len());
    assert!(
        e.message.ends_with("[...]"),
        "{}",
        &e.message[e.message.len() - 20..]
    );
}
