//! The plugin's configuration, read with the SDK's config rules (the options by
//! `ldp_source_options`, the rule `ldp plan` applies too), so that every error names the key at
//! fault.

use ldp_plugin_sdk::PluginError;
use ldp_plugin_sdk::config::{self, ConfigObject};
use ldp_source_options::{InferRows, json};

/// The keys of the configuration, in the order the schema lists them.
pub const KEYS: &[&str] = &["path", "batch_size", "infer_rows", "strict_types"];

/// The largest `batch_size` accepted.
pub const MAX_BATCH_SIZE: usize = 1 << 20;

/// JSON Schema (draft 2020-12) of the configuration, for `describe`.
pub const SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "json source",
  "type": "object",
  "additionalProperties": false,
  "required": ["path"],
  "properties": {
    "path": {
      "type": "string",
      "minLength": 1,
      "description": "Absolute path of the JSON file (UTF-8): one object per line (.jsonl, .ndjson, or any file that does not start with '['), or one array of objects."
    },
    "batch_size": {
      "type": "integer",
      "minimum": 1,
      "maximum": 1048576,
      "default": 8192,
      "description": "Rows per batch."
    },
    "infer_rows": {
      "oneOf": [
        { "type": "integer", "minimum": 1 },
        { "const": "all" }
      ],
      "default": "all",
      "description": "Records to infer the column types from: \"all\" (the default, as pyarrow.json does; the file is read twice) or the first N records (a later record with another key or type is then an error)."
    },
    "strict_types": {
      "type": "boolean",
      "default": false,
      "description": "Refuse a key that holds scalars of two kinds (a number and a string), as pyarrow does, instead of reading it as a string column with a warning, as DuckDB does."
    }
  }
}"#;

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The file.
    pub path: String,
    /// Rows per batch.
    pub batch_size: usize,
    /// Records to infer the types from; `None` for all of them.
    pub infer_rows: Option<usize>,
    /// Whether a key holding scalars of two kinds is an error.
    pub strict_types: bool,
}

impl Config {
    /// Parses and validates a configuration object text.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        let object = ConfigObject::parse(text, KEYS)?;
        let path =
            object.required_non_empty_string("path", "give the absolute path of the JSON file")?;
        let batch_size = object
            .usize_in("batch_size", 1..=MAX_BATCH_SIZE)?
            .unwrap_or(8192);
        let options = json::parse(object.map()).map_err(|e| config::error(&e.key, &e.message))?;
        let infer_rows = match options.infer_rows {
            InferRows::Rows(n) => Some(n),
            InferRows::Default | InferRows::All => None,
        };
        Ok(Self {
            path: path.to_owned(),
            batch_size,
            infer_rows,
            strict_types: options.strict_types,
        })
    }

    /// Whether the file is newline-delimited by its name (`.jsonl`, `.ndjson`).
    pub fn lines_by_name(&self) -> bool {
        let lower = self.path.to_ascii_lowercase();
        lower.ends_with(".jsonl") || lower.ends_with(".ndjson")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldp_plugin_sdk::ErrorKind;
    use serde_json::Value;

    fn err(text: &str) -> String {
        let e = Config::parse(text).expect_err("invalid");
        assert_eq!(e.kind, ErrorKind::Config, "{e}");
        e.message
    }

    #[test]
    fn defaults_and_every_key() {
        let c = Config::parse(r#"{"path":"/d/a.JSONL"}"#).expect("valid");
        assert_eq!(
            c,
            Config {
                path: "/d/a.JSONL".into(),
                batch_size: 8192,
                infer_rows: None,
                strict_types: false,
            }
        );
        assert!(c.lines_by_name());
        let c =
            Config::parse(r#"{"path":"/d/a.json","batch_size":3,"infer_rows":10}"#).expect("valid");
        assert_eq!((c.batch_size, c.infer_rows), (3, Some(10)));
        assert!(!c.lines_by_name());
        let c = Config::parse(r#"{"path":"/a.ndjson","infer_rows":"all","strict_types":true}"#)
            .expect("valid");
        assert_eq!((c.infer_rows, c.strict_types), (None, true));
        assert!(c.lines_by_name());
    }

    #[test]
    fn bad_values_name_the_key() {
        assert!(err(r#"{"path":"/a","rows":1}"#).starts_with("config.rows: unknown key"));
        assert!(err(r#"{"batch_size":1}"#).starts_with("config.path: required"));
        assert!(err(r#"{"path":1}"#).starts_with("config.path: expected"));
        assert!(err(r#"{"path":"/a","batch_size":0}"#).starts_with("config.batch_size:"));
        assert!(err(r#"{"path":"/a","infer_rows":0}"#).starts_with("config.infer_rows:"));
        assert!(err(r#"{"path":"/a","infer_rows":"some"}"#).starts_with("config.infer_rows:"));
        assert!(err(r#"{"path":"/a","strict_types":1}"#).starts_with("config.strict_types:"));
        assert!(err("[]").starts_with("config must be a JSON object"));
        assert!(err("{").starts_with("config is not valid JSON"));
    }

    #[test]
    fn schema_is_json_and_lists_every_key() {
        let schema: Value = serde_json::from_str(SCHEMA).expect("JSON");
        let mut keys: Vec<&str> = schema["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        let mut expected = KEYS.to_vec();
        expected.sort_unstable();
        assert_eq!(keys, expected);
    }
}
