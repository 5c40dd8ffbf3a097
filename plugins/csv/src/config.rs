//! The plugin's configuration: parsed by hand from the JSON object so that every error names the
//! key at fault.

use crate::encoding::Encoding;
use crate::value::{ColumnType, NullValues};
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
    "null_values",
    "columns",
    "encoding",
    "skip_rows",
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
    },
    "null_values": {
      "type": "array",
      "items": { "type": "string" },
      "description": "The values read as null in columns that are not text. Default: pyarrow's list (\"\", NA, N/A, NULL, nan, NaN, #N/A, null, ...)."
    },
    "columns": {
      "type": "object",
      "additionalProperties": {
        "enum": ["string", "int64", "double", "bool", "date", "time", "timestamp", "timestamptz"]
      },
      "description": "Types of the columns it names, instead of inferred ones (e.g. {\"zip\": \"string\"})."
    },
    "encoding": {
      "enum": ["utf-8", "utf-16", "utf-16le", "utf-16be", "latin-1", "windows-1252"],
      "default": "utf-8",
      "description": "The file's text encoding."
    },
    "skip_rows": {
      "type": "integer",
      "minimum": 0,
      "default": 0,
      "description": "Lines to skip before the header (a title or notes above the table)."
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
    pub null_values: NullValues,
    /// Column types set by name, in the config's order.
    pub columns: Vec<(String, ColumnType)>,
    pub encoding: Encoding,
    pub skip_rows: usize,
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
        let null_values = match map.get("null_values") {
            None => NullValues::default(),
            Some(Value::Array(items)) => NullValues::new(
                items
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(s.clone()),
                        other => Err(expected("null_values", "a list of strings", other)),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            Some(other) => return Err(expected("null_values", "a list of strings", other)),
        };
        let columns = match map.get("columns") {
            None => Vec::new(),
            Some(Value::Object(columns)) => columns
                .iter()
                .map(|(name, t)| match t.as_str().and_then(ColumnType::parse) {
                    Some(t) => Ok((name.clone(), t)),
                    None => Err(PluginError::config(format!(
                        "config.columns.{name}: expected a type ({}), got {t}",
                        ColumnType::NAMES
                    ))),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(expected(
                    "columns",
                    "an object of column names to types",
                    other,
                ));
            }
        };
        let encoding = match map.get("encoding") {
            None => Encoding::Utf8,
            Some(v) => v
                .as_str()
                .and_then(Encoding::parse)
                .ok_or_else(|| expected("encoding", &format!("one of {}", Encoding::NAMES), v))?,
        };
        let skip_rows = match map.get("skip_rows") {
            None => 0,
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| expected("skip_rows", "an integer >= 0", v))?,
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
            null_values,
            columns,
            encoding,
            skip_rows,
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
                null_values: NullValues::default(),
                columns: Vec::new(),
                encoding: Encoding::Utf8,
                skip_rows: 0,
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
        let c = Config::parse(
            r#"{"path":"/a","null_values":["-"],"columns":{"zip":"string","n":"long"},
                "encoding":"latin-1","skip_rows":2}"#,
        )
        .unwrap();
        assert_eq!(c.null_values, NullValues::new(vec!["-".into()]));
        assert_eq!(
            c.columns,
            vec![
                ("zip".into(), ColumnType::Utf8),
                ("n".into(), ColumnType::Int64)
            ]
        );
        assert_eq!((c.encoding, c.skip_rows), (Encoding::Latin1, 2));
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
        assert!(err(r#"{"path":"/a","null_values":"NA"}"#).starts_with("config.null_values:"));
        assert!(err(r#"{"path":"/a","null_values":[1]}"#).starts_with("config.null_values:"));
        assert!(
            err(r#"{"path":"/a","columns":{"zip":"varchar"}}"#)
                .starts_with("config.columns.zip: expected a type")
        );
        assert!(err(r#"{"path":"/a","encoding":"ebcdic"}"#).starts_with("config.encoding:"));
        assert!(err(r#"{"path":"/a","skip_rows":-1}"#).starts_with("config.skip_rows:"));
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
