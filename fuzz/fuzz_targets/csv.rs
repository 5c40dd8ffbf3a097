//! The CSV source plugin (plugins/csv) on any file: the first byte picks the file name and
//! the options, the rest is the file.

#![no_main]

use ldp_fuzz::{drive_source, temp_file};
use libfuzzer_sys::fuzz_target;

/// File names (the extension picks the default delimiter) and extra config keys.
const OPTIONS: &[(&str, &str)] = &[
    ("data.csv", ""),
    ("data.tsv", ""),
    ("data.csv", r#""has_header":false"#),
    ("data.csv", r#""delimiter":";","quote":"'","escape":"\\""#),
    ("data.csv", r#""batch_size":2,"infer_rows":1"#),
    (
        "data.csv",
        r#""infer_rows":"all","null_values":["","-","NA"],"skip_rows":1"#,
    ),
    ("data.csv", r#""encoding":"utf-16""#),
    (
        "data.csv",
        r#""encoding":"utf-16be","has_header":false,"batch_size":1"#,
    ),
    ("data.csv", r#""encoding":"latin-1","delimiter":"\t""#),
    (
        "data.csv",
        r#""encoding":"windows-1252","batch_size":3,"infer_rows":2"#,
    ),
    (
        "data.csv",
        r#""columns":{"a":"int64","b":"double","c":"timestamp","d":"date","e":"bool","f":"time","g":"timestamptz","fare":"int64","city":"string","pickup_ts":"timestamp"}"#,
    ),
    (
        "data.csv",
        r#""delimiter":"|","batch_size":1,"has_header":false,"skip_rows":2"#,
    ),
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
    drive_source::<csv::Csv>(&config);
});
