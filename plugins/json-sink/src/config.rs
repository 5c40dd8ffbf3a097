//! The configuration of a file sink: `{"path": "/abs/staging/name.jsonl"}`.

use ldp_plugin_sdk::PluginError;

/// JSON Schema (draft 2020-12) of the configuration, for `describe`.
pub const SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "json-sink",
  "type": "object",
  "additionalProperties": false,
  "required": ["path"],
  "properties": {
    "path": {
      "type": "string",
      "minLength": 1,
      "description": "Absolute path of the newline-delimited JSON file to write, in the staging folder the host granted; created, or truncated when it exists. The host moves it into place once the sink closed cleanly."
    }
  }
}"#;

/// The validated configuration: the one file the sink writes.
pub type Config = ldp_sink_text::FileConfig;

/// Parses and validates a configuration object text.
pub fn parse(text: &str) -> Result<Config, PluginError> {
    Config::parse(text, "JSON file")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        let e = parse(text).expect_err("invalid");
        assert_eq!(e.kind, ldp_plugin_sdk::ErrorKind::Config);
        e.message
    }

    #[test]
    fn path_is_required_absolute_and_alone() {
        assert_eq!(
            parse(r#"{"path":"/s/out.jsonl"}"#).expect("valid").path,
            "/s/out.jsonl"
        );
        assert!(err(r#"{"path":"out.jsonl"}"#).contains("is not the absolute path"));
        assert!(err(r#"{"path":"/s/"}"#).contains("is not the absolute path"));
        assert!(err(r#"{"path":"/s/o.jsonl","mode":"x"}"#).starts_with("config.mode: unknown key"));
        assert!(err("{}").starts_with("config.path: required"));
        assert!(err(r#"{"path":3}"#).starts_with("config.path: expected"));
        assert!(err(r#"{"path":""}"#).starts_with("config.path: expected"));
        assert!(err("[]").starts_with("config must be a JSON object"));
        let schema: serde_json::Value = serde_json::from_str(SCHEMA).expect("JSON");
        assert_eq!(schema["required"][0], "path");
    }
}
