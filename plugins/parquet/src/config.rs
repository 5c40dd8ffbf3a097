//! The plugin's configuration, parsed by hand from the JSON object so that every error names
//! the key at fault.

use ldp_plugin_sdk::PluginError;
use serde_json::Value;

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
        let value: Value = serde_json::from_str(text)
            .map_err(|e| PluginError::config(format!("config is not valid JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(PluginError::config(
                "config must be a JSON object such as {\"path\": \"/abs/data.parquet\"}",
            ));
        };
        if let Some(key) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(PluginError::config(format!(
                "config.{key}: unknown key; the keys are {}",
                KEYS.join(", ")
            )));
        }
        let path = match map.get("path") {
            None => {
                return Err(PluginError::config(
                    "config.path: required; give the absolute path of the Parquet file",
                ));
            }
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(other) => return Err(expected("path", "a non-empty string", other)),
        };
        let batch_size = match map.get("batch_size") {
            None => 8192,
            Some(v) => match v.as_u64() {
                Some(n) if n >= 1 && n <= MAX_BATCH_SIZE as u64 => n as usize,
                _ => {
                    return Err(expected(
                        "batch_size",
                        &format!("an integer from 1 to {MAX_BATCH_SIZE}"),
                        v,
                    ));
                }
            },
        };
        let columns = match map.get("columns") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) if !items.is_empty() => {
                let mut names: Vec<String> = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let Value::String(name) = item else {
                        return Err(expected(&format!("columns[{i}]"), "a column name", item));
                    };
                    if names.contains(name) {
                        return Err(PluginError::config(format!(
                            "config.columns[{i}]: the column {name:?} is listed twice"
                        )));
                    }
                    names.push(name.clone());
                }
                Some(names)
            }
            Some(other) => {
                return Err(expected(
                    "columns",
                    "a non-empty array of column names",
                    other,
                ));
            }
        };
        Ok(Self {
            path,
            batch_size,
            columns,
        })
    }
}

fn expected(key: &str, what: &str, got: &Value) -> PluginError {
    PluginError::config(format!("config.{key}: expected {what}, got {got}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldp_plugin_sdk::ErrorKind;

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
