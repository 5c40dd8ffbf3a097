//! The options a file target block may give its built-in sink (ldp's own keys: an XLSX
//! target's `sheet` and `header`): checked by `ldp plan` with the rules the sink parses them
//! with ([`ldp_target_options`]), and handed to the sink as written.

use serde_json::{Map, Value};

use crate::model::{Block, Format, Sheet};
use crate::problems::{Problems, join};

/// The target-block keys a format's built-in sink takes, besides `path`.
pub fn keys(format: Format) -> &'static [&'static str] {
    match format {
        Format::Xlsx => ldp_target_options::xlsx::TARGET_KEYS,
        _ => &[],
    }
}

/// The options `block` (a file target) sets for its format's sink, as written.
pub fn of_block(block: &Block) -> Map<String, Value> {
    keys(block.format)
        .iter()
        .filter_map(|key| {
            let value = match (*key, &block.sheet) {
                ("sheet", Some(Sheet::Name(name))) => Value::String(name.clone()),
                ("sheet", _) => return None,
                _ => block.extra.get(*key)?.clone(),
            };
            Some((key.to_string(), value))
        })
        .collect()
}

/// Adds a problem at `<at>.<key>` for an option the sink would refuse; returns the sheet an
/// XLSX target names.
pub(crate) fn check(
    problems: &mut Problems,
    block: &Map<String, Value>,
    format: Format,
    at: &str,
) -> Option<Sheet> {
    let options: Map<String, Value> = keys(format)
        .iter()
        .filter_map(|key| Some((key.to_string(), block.get(*key)?.clone())))
        .collect();
    match format {
        Format::Xlsx => match ldp_target_options::xlsx::parse(&options) {
            Ok(_) => options
                .get("sheet")
                .and_then(Value::as_str)
                .map(|name| Sheet::Name(name.to_owned())),
            Err(e) => {
                problems.add(&join(at, &e.key), e.message);
                None
            }
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(block: Value) -> Vec<String> {
        let Value::Object(block) = block else {
            unreachable!()
        };
        let mut problems = Problems::default();
        check(&mut problems, &block, Format::Xlsx, "metadata.target");
        problems.into_vec()
    }

    #[test]
    fn the_sinks_rules_at_the_blocks_path() {
        assert_eq!(
            problems(json!({"path": "a.xlsx", "sheet": "a/b"})),
            [
                r#"metadata.target.sheet: "a/b" holds '/'; Excel allows none of [ ] : * ? / \ in a sheet name"#
            ]
        );
        assert_eq!(
            problems(json!({"path": "a.xlsx", "header": 1})),
            ["metadata.target.header: expected true or false, got 1"]
        );
        assert!(problems(json!({"path": "a.xlsx", "sheet": "Rides", "header": false})).is_empty());
    }
}
