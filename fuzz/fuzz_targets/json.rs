//! The JSON source plugin (plugins/json) on any file: the first byte picks the file name and
//! the options, the rest is the file.

#![no_main]

use ldp_fuzz::{drive_source, temp_file};
use libfuzzer_sys::fuzz_target;

/// File names and extra config keys.
const OPTIONS: &[(&str, &str)] = &[
    ("data.jsonl", ""),
    ("data.json", ""),
    ("data.ndjson", r#""batch_size":1"#),
    ("data.jsonl", r#""infer_rows":1"#),
    ("data.json", r#""strict_types":true"#),
    (
        "data.jsonl",
        r#""infer_rows":"all","batch_size":3,"strict_types":true"#,
    ),
    ("data.json", r#""infer_rows":2,"batch_size":2"#),
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, content)) = data.split_first() else {
        return;
    };
    let (name, extra) = OPTIONS[usize::from(pick) % OPTIONS.len()];
    let path = serde_json::Value::from(temp_file(name, content));
    let config = if extra.is_empty() {
        format!("{{\"path\":{path}}}")
    } else {
        format!("{{\"path\":{path},{extra}}}")
    };
    drive_source::<json::Json>(&config);
});
