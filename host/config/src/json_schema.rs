//! The JSON Schema of each kind of file (`ldp schema [--kind KIND]`), as the Python tool prints
//! it: the files under `host/config/schemas/` are the Python tool's own output, so editors that
//! validate configs against either tool's schema agree.

use crate::kind::{Kind, kind_of};
use serde_json::Value;

const PIPELINE: &str = include_str!("../schemas/pipeline.json");
const WORKFLOW: &str = include_str!("../schemas/workflow.json");

/// The JSON Schema of `kind`, as the text `ldp schema` prints (2-space indent, no final
/// newline).
pub fn kind_schema(kind: Kind) -> &'static str {
    match kind {
        Kind::Pipeline => PIPELINE.trim_end(),
        Kind::Workflow => WORKFLOW.trim_end(),
    }
}

/// The kind named `name` on the command line, with the Python tool's message for any other
/// name (`unknown kind 'x'; the kinds are ['Pipeline', 'Workflow']`).
///
/// # Errors
///
/// A name that is not a registered kind.
pub fn parse_kind(name: &str) -> Result<Kind, String> {
    let mut document = serde_json::Map::new();
    document.insert("kind".into(), Value::from(name));
    kind_of(&Value::Object(document))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_json_and_kinds_parse() {
        for kind in [Kind::Pipeline, Kind::Workflow] {
            let value: Value = serde_json::from_str(kind_schema(kind)).expect("valid JSON");
            assert!(value.get("$schema").is_some());
        }
        assert_eq!(parse_kind("Workflow"), Ok(Kind::Workflow));
        assert!(parse_kind("Metrics").unwrap_err().contains("reserved"));
    }
}
