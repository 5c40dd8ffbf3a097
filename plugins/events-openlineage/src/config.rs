//! The configuration: `{"path": "/abs/openlineage.jsonl", "namespace": "ldp"}`, with the other
//! options of the `openlineage` sink block (`url`, `api_key_env`, `timeout`) accepted as the
//! config language has them. This build writes files only: `url` is refused.

use ldp_plugin_sdk::PluginError;
use serde_json::Value;

use crate::json::truthy;

/// The keys of the configuration.
pub const KEYS: &[&str] = &["path", "url", "namespace", "api_key_env", "timeout"];

/// JSON Schema (draft 2020-12) of the configuration, for `describe`.
pub const SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "events-openlineage sink",
  "type": "object",
  "additionalProperties": false,
  "required": ["path"],
  "properties": {
    "path": {
      "type": "string",
      "minLength": 1,
      "description": "Absolute path of the JSONL file the OpenLineage events are appended to. Its folder must exist."
    },
    "namespace": {
      "type": ["string", "null"],
      "default": "ldp",
      "description": "The OpenLineage job namespace."
    },
    "url": {
      "type": ["string", "null"],
      "description": "Not read by the plugin: a config's openlineage sink with a url is posted by the host (http:// only), which hands the plugin a path."
    },
    "api_key_env": {
      "type": ["string", "null"],
      "description": "For url only."
    },
    "timeout": {
      "type": ["number", "null"],
      "description": "For url only, seconds."
    }
  }
}"#;

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The file.
    pub path: String,
    /// The job namespace.
    pub namespace: String,
}

impl Config {
    /// Parses and validates a configuration object text.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| PluginError::config(format!("config is not valid JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(PluginError::config(
                "config must be a JSON object such as {\"path\": \"/abs/openlineage.jsonl\"}",
            ));
        };
        if let Some(key) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(PluginError::config(format!(
                "config.{key}: unknown key; the keys are {}",
                KEYS.join(", ")
            )));
        }
        if map.get("url").is_some_and(truthy) {
            return Err(PluginError::config(
                "config.url: sending OpenLineage events over HTTP is not supported in this build \
                 (plugins have no network access); only 'path' is supported: give the absolute \
                 path of a JSONL file instead",
            ));
        }
        let path = match map.get("path") {
            Some(Value::String(path)) if path.starts_with('/') => path.clone(),
            Some(Value::String(path)) if !path.is_empty() => {
                return Err(PluginError::config(format!(
                    "config.path: {path:?} is relative; give the absolute path of the OpenLineage file"
                )));
            }
            None | Some(Value::Null) => {
                return Err(PluginError::config(
                    "config.path: required; give the absolute path of the OpenLineage file",
                ));
            }
            Some(other) => {
                return Err(PluginError::config(format!(
                    "config.path: expected a non-empty string, got {other}"
                )));
            }
        };
        let namespace = match map.get("namespace") {
            Some(Value::String(namespace)) if !namespace.is_empty() => namespace.clone(),
            Some(other) if truthy(other) => {
                return Err(PluginError::config(
                    "config.namespace: the OpenLineage job namespace must be a non-empty string",
                ));
            }
            _ => "ldp".to_owned(),
        };
        for (key, fits) in [
            ("api_key_env", Value::is_string as fn(&Value) -> bool),
            ("timeout", Value::is_number),
        ] {
            if let Some(value) = map.get(key).filter(|v| !v.is_null() && !fits(v)) {
                return Err(PluginError::config(format!(
                    "config.{key}: unexpected value {value}"
                )));
            }
        }
        Ok(Self { path, namespace })
    }
}
