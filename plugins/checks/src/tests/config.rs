//! The plugin's own config, `{"checks": [ITEM, ...]}`, read by the SDK's config rules.

use crate::Checks;
use ldp_plugin_sdk::prelude::*;
use std::sync::Arc;

fn error(config: &str) -> String {
    let input: SchemaRef = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
    match Checks::new(config, &input) {
        Ok(_) => panic!("accepted {config}"),
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::Config, "{e}");
            e.message
        }
    }
}

#[test]
fn the_config_is_an_object_with_an_array_of_checks() {
    assert!(error("{").starts_with("config is not valid JSON: "));
    assert_eq!(error("[]"), "config must be a JSON object, got an array");
    assert!(error("{}").starts_with("config.checks: required; give the check items"));
    assert_eq!(
        error(r#"{"checks": {}}"#),
        "config.checks: expected an array, got {}"
    );
    assert_eq!(
        error(r#"{"checks": [], "x": 1}"#),
        "config.x: unknown key; the only key is checks"
    );
}
