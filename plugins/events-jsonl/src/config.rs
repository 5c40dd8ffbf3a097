//! The configuration: `{"path": "/abs/path/events.jsonl"}`.

use ldp_plugin_sdk::PluginError;
use serde_json::Value;

/// JSON Schema (draft 2020-12) of the configuration, for `describe`.
pub const SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "events-jsonl sink",
  "type": "object",
  "additionalProperties": false,
  "required": ["path"],
  "properties": {
    "path": {
      "type": "string",
      "minLength": 1,
      "description": "Absolute path of the JSONL file; created when missing, appended to otherwise. Its folder must exist."
    }
  }
}"#;

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The file.
    pub path: String,
}

impl Config {
    /// Parses and validates a configuration object text.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| PluginError::config(format!("config is not valid JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(PluginError::config(
                "config must be a JSON object such as {\"path\": \"/abs/events.jsonl\"}",
            ));
        };
        if let Some(key) = map.keys().find(|key| key.as_str() != "path") {
            return Err(PluginError::config(format!(
                "config.{key}: unknown key; the only key is path"
            )));
        }
        match map.get("path") {
            Some(Value::String(path)) if path.starts_with('/') => Ok(Self { path: path.clone() }),
            Some(Value::String(path)) if !path.is_empty() => Err(PluginError::config(format!(
                "config.path: {path:?} is relative; give the absolute path of the events file"
            ))),
            None => Err(PluginError::config(
                "config.path: required; give the absolute path of the events file",
            )),
            Some(other) => Err(PluginError::config(format!(
                "config.path: expected a non-empty string, got {other}"
            ))),
        }
    }
}
