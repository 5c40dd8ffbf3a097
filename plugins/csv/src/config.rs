//! The plugin's configuration, read with the SDK's config rules (the options by
//! `ldp_source_options`, the rule `ldp plan` applies too), so that every error names the key at
//! fault.

use crate::value::NullValues;
use ldp_plugin_sdk::PluginError;
use ldp_plugin_sdk::config::{self, ConfigObject};
pub use ldp_source_options::{ColumnType, Encoding, InferRows, csv};

/// The keys of the configuration: the file and rows per batch, which the host sets, and the
/// options a config's source block may set.
pub fn keys() -> Vec<&'static str> {
    [&["path", "batch_size"][..], csv::SOURCE_KEYS].concat()
}

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
      "description": "Absolute path of the CSV file (UTF-8 unless encoding says otherwise)."
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
      "description": "Rows to infer the column types from, or \"all\" to read the whole file first. Default: the rows in the first 1 MiB of the file, and at least the first 1000 rows."
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

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub path: String,
    pub has_header: bool,
    pub delimiter: u8,
    pub quote: u8,
    pub escape: Option<u8>,
    pub batch_size: usize,
    /// Rows to infer the types from: by default those in the first 1 MiB, and at least the
    /// first 1000 ([`crate::read::MIN_INFER_ROWS`]).
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
        let object = ConfigObject::parse(text, &keys())?;
        let path =
            object.required_non_empty_string("path", "give the absolute path of the CSV file")?;
        let options =
            csv::parse(object.map(), path).map_err(|e| config::error(&e.key, &e.message))?;
        Ok(Self {
            path: path.to_owned(),
            has_header: options.has_header,
            delimiter: options.delimiter,
            quote: options.quote,
            escape: options.escape,
            batch_size: options.batch_size,
            infer_rows: options.infer_rows,
            null_values: options
                .null_values
                .map_or_else(NullValues::default, NullValues::new),
            columns: options.columns,
            encoding: options.encoding,
            skip_rows: options.skip_rows,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldp_plugin_sdk::ErrorKind;
    use serde_json::Value;

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
                infer_rows: InferRows::Default,
                null_values: NullValues::default(),
                columns: Vec::new(),
                encoding: Encoding::Utf8,
                skip_rows: 0,
            }
        );
    }

    #[test]
    fn options_are_parsed_by_the_shared_rules() {
        let c = Config::parse(r#"{"path":"/d/a.tsv","null_values":["-"],"skip_rows":2}"#).unwrap();
        assert_eq!(c.delimiter, b'\t');
        assert_eq!(c.null_values, NullValues::new(vec!["-".into()]));
        assert_eq!(c.skip_rows, 2);
    }

    #[test]
    fn errors_name_the_key() {
        let m = err(r#"{"path":"/a","delimeter":";"}"#);
        assert!(m.starts_with("config.delimeter: unknown key"), "{m}");
        assert_eq!(
            err(r#"{"path":"/a","delimiter":";;"}"#),
            r#"config.delimiter: expected one character, got ";;""#
        );
        assert!(err(r#"{"has_header":true}"#).starts_with("config.path: required"));
        assert!(err(r#"{"path":""}"#).starts_with("config.path:"));
        assert!(err("[1]").starts_with("config must be a JSON object"));
        assert!(err("{").starts_with("config is not valid JSON"));
    }

    #[test]
    fn schema_is_json_and_lists_every_key() {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        let props = schema["properties"].as_object().unwrap();
        let mut keys: Vec<&str> = props.keys().map(String::as_str).collect();
        let mut expected = super::keys();
        keys.sort_unstable();
        expected.sort_unstable();
        assert_eq!(keys, expected);
        assert_eq!(schema["additionalProperties"], Value::Bool(false));
    }
}
