//! The options a source block may give the CSV and JSON sources (ldp's own keys, such as
//! `delimiter`, `encoding`, `null_values`, `columns`, `strict_types`): checked by `ldp plan`
//! with the rules the plugins parse them with ([`ldp_source_options`]), and handed to the
//! plugin as written.

use serde_json::{Map, Value};

use crate::model::Format;
use crate::problems::{Problems, join};

/// The source-block keys a format's plugin takes.
pub fn keys(format: Format) -> &'static [&'static str] {
    match format {
        Format::Csv => ldp_source_options::csv::SOURCE_KEYS,
        Format::Json => ldp_source_options::json::SOURCE_KEYS,
        _ => &[],
    }
}

/// The options `block` sets for its format's plugin, as written.
pub fn of_block(format: Format, block: &Map<String, Value>) -> Map<String, Value> {
    keys(format)
        .iter()
        .filter_map(|key| Some((key.to_string(), block.get(*key)?.clone())))
        .collect()
}

/// Adds a problem at `<at>.<key>` for an option the plugin would refuse.
pub(crate) fn check(problems: &mut Problems, block: &Map<String, Value>, format: Format, at: &str) {
    let options = of_block(format, block);
    let path = block.get("path").and_then(Value::as_str).unwrap_or("");
    let checked = match format {
        Format::Csv => ldp_source_options::csv::parse(&options, path).map(drop),
        Format::Json => ldp_source_options::json::parse(&options).map(drop),
        _ => Ok(()),
    };
    if let Err(e) = checked {
        problems.add(&join(at, &e.key), e.message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(block: Value, format: Format) -> Vec<String> {
        let Value::Object(block) = block else {
            unreachable!()
        };
        let mut problems = Problems::default();
        check(&mut problems, &block, format, "metadata.source");
        problems.into_vec()
    }

    #[test]
    fn the_plugins_rules_at_the_blocks_path() {
        assert_eq!(
            problems(json!({"path": "a.csv", "delimiter": ";;"}), Format::Csv),
            [r#"metadata.source.delimiter: expected one character, got ";;""#]
        );
        assert_eq!(
            problems(json!({"columns": {"zip": "varchar"}}), Format::Csv)[0],
            "metadata.source.columns.zip: expected a type (string, int64, double, bool, date, \
             time, timestamp, timestamptz), got \"varchar\""
        );
        assert!(
            problems(
                json!({"delimiter": ";", "encoding": "latin-1"}),
                Format::Csv
            )
            .is_empty()
        );
        assert_eq!(
            problems(json!({"strict_types": 1}), Format::Json),
            ["metadata.source.strict_types: expected true or false, got 1"]
        );
        // Another format's keys are not this plugin's.
        assert!(problems(json!({"delimiter": ";;"}), Format::Parquet).is_empty());
    }
}
