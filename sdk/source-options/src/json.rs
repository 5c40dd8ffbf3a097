//! The JSON source's options.

use crate::{InferRows, OptionError, boolean, infer_rows};
use serde_json::{Map, Value};

/// The keys a config's source block may set for a JSON source.
pub const SOURCE_KEYS: &[&str] = &["infer_rows", "strict_types"];

/// The validated options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub infer_rows: InferRows,
    /// Whether a key holding values of two kinds (a number and a string) is an error rather
    /// than a string column.
    pub strict_types: bool,
}

/// Parses the options of `map` (its other keys are not looked at).
pub fn parse(map: &Map<String, Value>) -> Result<Options, OptionError> {
    Ok(Options {
        infer_rows: infer_rows(map)?,
        strict_types: boolean(map, "strict_types", false)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        let Value::Object(map) = serde_json::json!({"strict_types": true, "infer_rows": 5}) else {
            unreachable!()
        };
        let o = parse(&map).unwrap();
        assert!(o.strict_types);
        assert_eq!(o.infer_rows, InferRows::Rows(5));
        let Value::Object(map) = serde_json::json!({"strict_types": "yes"}) else {
            unreachable!()
        };
        assert_eq!(
            parse(&map).unwrap_err().to_string(),
            "strict_types: expected true or false, got \"yes\""
        );
    }
}
