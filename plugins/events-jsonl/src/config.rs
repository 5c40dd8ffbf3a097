//! The configuration: `{"path": "/abs/path/events.jsonl"}`.

use ldp_plugin_sdk::{ConfigObject, PluginError};

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
        let object = ConfigObject::parse(text, &["path"])?;
        let path = object.absolute_file_path("path", "events file")?;
        Ok(Self {
            path: path.to_owned(),
        })
    }
}
