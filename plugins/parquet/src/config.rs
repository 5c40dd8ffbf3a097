//! The plugin's configuration, read with the SDK's config rules, so that every error names the key
//! at fault.

use ldp_plugin_sdk::PluginError;
use ldp_plugin_sdk::config::{self, ConfigObject};

/// The keys of the configuration, in the order the schema lists them.
pub const KEYS: &[&str] = &["path", "batch_size", "columns"];

/// The largest `batch_size` accepted.
pub const MAX_BATCH_SIZE: usize = 1 << 20;

/// JSON Schema (draft 2020-12) of the configuration, for `describe`.
pub const SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "parquet source",
  "type": "object",
  "additionalProperties": false,
  "required": ["path"],
  "properties": {
    "path": {
      "type": "string",
      "minLength": 1,
      "description": "Absolute path of a Parquet file, or of a folder whose Parquet files (found recursively, in name order, skipping names that start with '.' or '_') all have the same schema."
    },
    "batch_size": {
      "type": "integer",
      "minimum": 1,
      "maximum": 1048576,
      "default": 8192,
      "description": "Rows per batch."
    },
    "columns": {
      "type": "array",
      "items": { "type": "string" },
      "uniqueItems": true,
      "minItems": 1,
      "description": "Top-level columns to read, in this order; all of them by default."
    }
  }
}"#;

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The file or folder.
    pub path: String,
    /// Rows per batch.
    pub batch_size: usize,
    /// The projection, in output order; `None` for every column.
    pub columns: Option<Vec<String>>,
}

impl Config {
    /// Parses and validates a configuration object text.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        let object = ConfigObject::parse(text, KEYS)?;
        let path = object
            .required_non_empty_string("path", "give the absolute path of the Parquet file")?;
        let batch_size = object
            .usize_in("batch_size", 1..=MAX_BATCH_SIZE)?
            .unwrap_or(8192);
        let columns = match object.string_list("columns")? {
            None => None,
            Some(names) if names.is_empty() => {
                return Err(config::error(
                    "columns",
                    "expected a non-empty array of column names, got []",
                ));
            }
            Some(names) => {
                if let Some((i, name)) = names
                    .iter()
                    .enumerate()
                    .find(|(i, name)| names[..*i].contains(name))
                {
                    return Err(config::error(
                        &format!("columns[{i}]"),
                        format_args!("the column {name:?} is listed twice"),
                    ));
                }
                Some(names)
            }
        };
        Ok(Self {
            path: path.to_owned(),
            batch_size,
            columns,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldp_plugin_sdk::ErrorKind;
    use serde_json::Value;

    fn err(text: &str) -> String {
        let e = Config::parse(text).expect_err("an invalid config");
        assert_eq!(e.kind, ErrorKind::Config, "{e}");
        e.message
    }

    #[test]
    fn defaults_and_every_key() {
        let c = Config::parse(r#"{"path":"/d/a.parquet"}"#).expect("valid");
        assert_eq!(
            c,
            Config {
                path: "/d/a.parquet".into(),
                batch_size: 8192,
                columns: None,
            }
        );
        let c =
            Config::parse(r#"{"path":"/d","batch_size":5,"columns":["b","a"]}"#).expect("valid");
        assert_eq!(c.batch_size, 5);
        assert_eq!(c.columns, Some(vec!["b".to_string(), "a".to_string()]));
    }

    #[test]
    fn bad_values_name_the_key() {
        assert!(err(r#"{"path":"/a","colums":["x"]}"#).starts_with("config.colums: unknown key"));
        assert!(err(r#"{"batch_size":1}"#).starts_with("config.path: required"));
        assert!(err(r#"{"path":""}"#).starts_with("config.path:"));
        assert!(err(r#"{"path":"/a","batch_size":0}"#).starts_with("config.batch_size:"));
        assert!(err(r#"{"path":"/a","columns":[]}"#).starts_with("config.columns:"));
        assert!(err(r#"{"path":"/a","columns":"x"}"#).starts_with("config.columns:"));
        assert!(err(r#"{"path":"/a","columns":["x",1]}"#).starts_with("config.columns[1]:"));
        assert!(err(r#"{"path":"/a","columns":["x","x"]}"#).contains("listed twice"));
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
