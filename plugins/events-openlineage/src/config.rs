//! The configuration: `{"path": "/abs/openlineage.jsonl", "namespace": "ldp"}`, with the other
//! options of the `openlineage` sink block (`url`, `api_key_env`, `timeout`) accepted as the
//! config language has them. This build writes files only: `url` is refused.

use ldp_plugin_sdk::PluginError;
use ldp_plugin_sdk::config::{self, ConfigObject};
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
    /// Parses and validates a configuration object text. `url` and `namespace` are read as the
    /// Python tool reads them, by truthiness: an empty `url` is no url, an empty `namespace` is
    /// `ldp`.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        let object = ConfigObject::parse(text, KEYS)?;
        if object.get("url").is_some_and(truthy) {
            return Err(config::error(
                "url",
                "sending OpenLineage events over HTTP is not supported in this build (plugins \
                 have no network access); only 'path' is supported: give the absolute path of a \
                 JSONL file instead",
            ));
        }
        let path = object.absolute_file_path("path", "OpenLineage file")?;
        let namespace = match object.get("namespace") {
            Some(Value::String(namespace)) if !namespace.is_empty() => namespace.clone(),
            Some(other) if truthy(other) => {
                return Err(config::expected(
                    "namespace",
                    "a non-empty string (the OpenLineage job namespace)",
                    other,
                ));
            }
            _ => "ldp".to_owned(),
        };
        object.string("api_key_env")?;
        object.number("timeout")?;
        Ok(Self {
            path: path.to_owned(),
            namespace,
        })
    }
}
