//! The configuration of a file sink: `{"path": "/abs/staging/name.jsonl"}`.

use ldp_plugin_sdk::PluginError;
use serde_json::Value;

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

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The file to write.
    pub path: String,
}

impl Config {
    /// Parses and validates a configuration object text.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| PluginError::config(format!("config is not valid JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(PluginError::config(
                "config must be a JSON object such as {\"path\": \"/abs/staging/out.jsonl\"}",
            ));
        };
        if let Some(key) = map.keys().find(|key| key.as_str() != "path") {
            return Err(PluginError::config(format!(
                "config.{key}: unknown key; the only key is path"
            )));
        }
        match map.get("path") {
            Some(Value::String(path)) if path.starts_with('/') && !path.ends_with('/') => {
                Ok(Self { path: path.clone() })
            }
            Some(Value::String(path)) if !path.is_empty() => Err(PluginError::config(format!(
                "config.path: {path:?} is not the absolute path of a file; give the absolute \
                 path of the JSON file to write"
            ))),
            None => Err(PluginError::config(
                "config.path: required; give the absolute path of the JSON file to write",
            )),
            Some(other) => Err(PluginError::config(format!(
                "config.path: expected a non-empty string, got {other}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        let e = Config::parse(text).expect_err("invalid");
        assert_eq!(e.kind, ldp_plugin_sdk::ErrorKind::Config);
        e.message
    }

    #[test]
    fn path_is_required_absolute_and_alone() {
        assert_eq!(
            Config::parse(r#"{"path":"/s/out.jsonl"}"#)
                .expect("valid")
                .path,
            "/s/out.jsonl"
        );
        assert!(err(r#"{"path":"out.jsonl"}"#).contains("is not the absolute path"));
        assert!(err(r#"{"path":"/s/"}"#).contains("is not the absolute path"));
        assert!(err(r#"{"path":"/s/o.jsonl","mode":"x"}"#).starts_with("config.mode: unknown key"));
        assert!(err("{}").starts_with("config.path: required"));
        assert!(err(r#"{"path":3}"#).starts_with("config.path: expected"));
        assert!(err(r#"{"path":""}"#).starts_with("config.path: expected"));
        assert!(err("[]").starts_with("config must be a JSON object"));
        let schema: Value = serde_json::from_str(SCHEMA).expect("JSON");
        assert_eq!(schema["required"][0], "path");
    }
}
