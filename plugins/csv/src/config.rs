//! The plugin's configuration: parsed by hand from the JSON object so that every error names the
//! key at fault.

use ldp_plugin_sdk::PluginError;
use serde_json::{Map, Value};

/// The keys of the configuration, in the order the schema lists them.
pub const KEYS: &[&str] = &[
    "path",
    "has_header",
    "delimiter",
    "quote",
    "escape",
    "batch_size",
    "infer_rows",
];

/// The largest `batch_size` accepted: the CSV decoder reserves room for a whole batch up front.
pub const MAX_BATCH_SIZE: usize = 1 << 20;

/// JSON Schema (draft 2020-12) of the configuration, for `describe`.
pub const SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "csv source",
  "type": "object",
  "additionalProperties": false,
  "required": ["path"],
  "properties": {
    "path": {
      "type": "string",
      "minLength": 1,
      "description": "Absolute path of the CSV file (UTF-8)."
    },
    "has_header": {
      "type": "boolean",
      "default": true,
      "description": "Whether the first row holds the column names; without one the columns are named f0, f1, ..."
    },
    "delimiter": {
      "type": "string",
      "minLength": 1,
      "maxLength": 1,
      "default": ",",
      "description": "The field delimiter, one ASCII character."
    },
    "quote": {
      "type": "string",
      "minLength": 1,
      "maxLength": 1,
      "default": "\"",
      "description": "The quote character, one ASCII character; a quote inside a quoted field is doubled."
    },
    "escape": {
      "type": ["string", "null"],
      "minLength": 1,
      "maxLength": 1,
      "default": null,
      "description": "An escape character inside quoted fields (e.g. \"\\\\\"), or null for none."
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
      "description": "Rows to infer the column types from, or \"all\" to read the whole file first. Default: the first 1 MiB of the file."
    }
  }
}"#;

/// Where the column types are inferred from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InferRows {
    /// The first 1 MiB of the file (the default, as pyarrow's first block).
    FirstMiB,
    /// The first `n` data rows.
    Rows(usize),
    /// The whole file (a pass of its own before streaming).
    All,
}

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub path: String,
    pub has_header: bool,
    pub delimiter: u8,
    pub quote: u8,
    pub escape: Option<u8>,
    pub batch_size: usize,
    pub infer_rows: InferRows,
}

impl Config {
    /// Parses and validates a configuration object text.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| PluginError::config(format!("config is not valid JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(PluginError::config(format!(
                "config must be a JSON object, got {}",
                kind_of(&value)
            )));
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
                    "config.path: required; give the absolute path of the CSV file",
                ));
            }
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(other) => return Err(expected("path", "a non-empty string", other)),
        };
        let has_header = match map.get("has_header") {
            None => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(expected("has_header", "true or false", other)),
        };
        let delimiter = char_key(&map, "delimiter")?.unwrap_or(b',');
        let quote = char_key(&map, "quote")?.unwrap_or(b'"');
        let escape = match map.get("escape") {
            None | Some(Value::Null) => None,
            Some(_) => char_key(&map, "escape")?,
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
        let infer_rows = match map.get("infer_rows") {
            None => InferRows::FirstMiB,
            Some(Value::String(s)) if s == "all" => InferRows::All,
            Some(v) => match v.as_u64() {
                Some(n) if n >= 1 => InferRows::Rows(usize::try_from(n).unwrap_or(usize::MAX)),
                _ => return Err(expected("infer_rows", "an integer >= 1 or \"all\"", v)),
            },
        };
        if delimiter == quote {
            return Err(PluginError::config(format!(
                "config.quote: the quote {:?} is also the delimiter; choose another one",
                delimiter as char
            )));
        }
        if escape == Some(delimiter) {
            return Err(PluginError::config(format!(
                "config.escape: the escape {:?} is also the delimiter; choose another one",
                delimiter as char
            )));
        }
        Ok(Self {
            path,
            has_header,
            delimiter,
            quote,
            escape,
            batch_size,
            infer_rows,
        })
    }
}

/// A one-character key: a string of one ASCII character that is not a line break.
fn char_key(map: &Map<String, Value>, key: &str) -> Result<Option<u8>, PluginError> {
    let Some(value) = map.get(key) else {
        return Ok(None);
    };
    let Value::String(s) = value else {
        return Err(expected(key, "a string of one character", value));
    };
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c == '\n' || c == '\r' => Err(PluginError::config(format!(
            "config.{key}: a line break cannot be the {key}"
        ))),
        (Some(c), None) if c.is_ascii() => Ok(Some(c as u8)),
        (Some(c), None) => Err(PluginError::config(format!(
            "config.{key}: expected one ASCII character, got {c:?} (the CSV reader splits bytes)"
        ))),
        _ => Err(PluginError::config(format!(
            "config.{key}: expected one character, got {}",
            Value::String(s.clone())
        ))),
    }
}

fn expected(key: &str, what: &str, got: &Value) -> PluginError {
    PluginError::config(format!("config.{key}: expected {what}, got {got}"))
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldp_plugin_sdk::ErrorKind;

    fn err(text: &str) -> String {
        let e = Config::parse(text).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Config, "{e}");
        e.message
    }

    #[test]
    fn defaults() {
        let c = Config::parse(r#"{"path":"/d/a.csv"}"#).unwrap();
        assert_eq!(
            c,
            Config {
                path: "/d/a.csv".into(),
                has_header: true,
                delimiter: b',',
                quote: b'"',
                escape: None,
                batch_size: 8192,
                infer_rows: InferRows::FirstMiB,
            }
        );
    }

    #[test]
    fn every_key() {
        let c = Config::parse(
            r#"{"path":"/d/a.csv","has_header":false,"delimiter":";","quote":"'",
                "escape":"\\","batch_size":10,"infer_rows":"all"}"#,
        )
        .unwrap();
        assert!(!c.has_header);
        assert_eq!((c.delimiter, c.quote, c.escape), (b';', b'\'', Some(b'\\')));
        assert_eq!((c.batch_size, c.infer_rows), (10, InferRows::All));
        let c = Config::parse(r#"{"path":"/a","escape":null,"infer_rows":100}"#).unwrap();
        assert_eq!((c.escape, c.infer_rows), (None, InferRows::Rows(100)));
    }

    #[test]
    fn unknown_key() {
        let m = err(r#"{"path":"/a","delimeter":";"}"#);
        assert!(m.starts_with("config.delimeter: unknown key"), "{m}");
    }

    #[test]
    fn bad_values_name_the_key() {
        assert_eq!(
            err(r#"{"path":"/a","delimiter":";;"}"#),
            r#"config.delimiter: expected one character, got ";;""#
        );
        assert!(err(r#"{"path":"/a","delimiter":""}"#).starts_with("config.delimiter:"));
        assert!(err(r#"{"path":"/a","quote":"«"}"#).starts_with("config.quote:"));
        assert!(err(r#"{"path":"/a","escape":1}"#).starts_with("config.escape:"));
        assert!(err(r#"{"path":"/a","has_header":"yes"}"#).starts_with("config.has_header:"));
        assert!(err(r#"{"path":"/a","batch_size":0}"#).starts_with("config.batch_size:"));
        assert!(err(r#"{"path":"/a","batch_size":1.5}"#).starts_with("config.batch_size:"));
        assert!(err(r#"{"path":"/a","infer_rows":0}"#).starts_with("config.infer_rows:"));
        assert!(err(r#"{"path":"/a","infer_rows":"some"}"#).starts_with("config.infer_rows:"));
        assert!(err(r#"{"has_header":true}"#).starts_with("config.path: required"));
        assert!(err(r#"{"path":""}"#).starts_with("config.path:"));
        assert!(err(r#"{"path":"/a","quote":","}"#).starts_with("config.quote:"));
        assert!(err("[1]").starts_with("config must be a JSON object"));
        assert!(err("{").starts_with("config is not valid JSON"));
    }

    #[test]
    fn schema_is_json_and_lists_every_key() {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        let props = schema["properties"].as_object().unwrap();
        let mut keys: Vec<&str> = props.keys().map(String::as_str).collect();
        let mut expected = KEYS.to_vec();
        keys.sort_unstable();
        expected.sort_unstable();
        assert_eq!(keys, expected);
        assert_eq!(schema["additionalProperties"], Value::Bool(false));
    }
}
