//! The plugin's configuration, read with the SDK's config rules, so that every error names the key
//! at fault.

use ldp_plugin_sdk::PluginError;
use ldp_plugin_sdk::config::{self, ConfigObject};
use serde_json::Value;

/// The keys of the configuration, in the order the schema lists them.
pub const KEYS: &[&str] = &["path", "sheet", "header_row", "batch_size"];

/// The largest `batch_size` accepted.
pub const MAX_BATCH_SIZE: usize = 1 << 20;

/// The default `batch_size`.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

/// JSON Schema (draft 2020-12) of the configuration, for `describe`.
pub const SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "xlsx source",
  "type": "object",
  "additionalProperties": false,
  "required": ["path"],
  "properties": {
    "path": {
      "type": "string",
      "minLength": 1,
      "description": "Absolute path of the workbook (.xlsx, .xlsm, .xltx or .xltm; an old .xls is refused)."
    },
    "sheet": {
      "oneOf": [
        { "type": "string", "pattern": "\\S" },
        { "type": "integer", "minimum": 0 },
        { "type": "null" }
      ],
      "default": null,
      "description": "The sheet: its name (case is ignored) or its position from 0. The first sheet by default."
    },
    "header_row": {
      "type": "integer",
      "minimum": 1,
      "default": 1,
      "description": "The row that holds the column names, counted from 1; the rows above it are skipped."
    },
    "batch_size": {
      "type": "integer",
      "minimum": 1,
      "maximum": 1048576,
      "default": 8192,
      "description": "Rows per batch."
    }
  }
}"#;

/// Which sheet to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SheetChoice {
    /// The first worksheet (no `sheet` key, or `null`).
    First,
    /// By name; Excel ignores case in sheet names, and so does the lookup.
    Name(String),
    /// By position among the worksheets, from 0.
    Index(u64),
}

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The workbook.
    pub path: String,
    /// The sheet to read.
    pub sheet: SheetChoice,
    /// The header row, counted from 1.
    pub header_row: u64,
    /// Rows per batch.
    pub batch_size: usize,
}

impl Config {
    /// Parses and validates a configuration object text.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        let object = ConfigObject::parse(text, KEYS)?;
        let path = object
            .required_non_empty_string("path", "give the absolute path of the .xlsx workbook")?;
        let sheet = match object.get("sheet") {
            None => SheetChoice::First,
            Some(Value::String(s)) if !s.trim().is_empty() => SheetChoice::Name(s.clone()),
            Some(v) => match v.as_u64() {
                Some(n) => SheetChoice::Index(n),
                None => {
                    return Err(config::expected(
                        "sheet",
                        "a sheet name or a position from 0",
                        v,
                    ));
                }
            },
        };
        Ok(Self {
            path: path.to_owned(),
            sheet,
            header_row: object.u64_in("header_row", 1..)?.unwrap_or(1),
            batch_size: object
                .usize_in("batch_size", 1..=MAX_BATCH_SIZE)?
                .unwrap_or(DEFAULT_BATCH_SIZE),
        })
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
        let c = Config::parse(r#"{"path":"/d/a.xlsx"}"#).unwrap();
        assert_eq!(
            c,
            Config {
                path: "/d/a.xlsx".into(),
                sheet: SheetChoice::First,
                header_row: 1,
                batch_size: 8192,
            }
        );
        let c = Config::parse(r#"{"path":"/d/a.xlsx","sheet":null}"#).unwrap();
        assert_eq!(c.sheet, SheetChoice::First);
    }

    #[test]
    fn every_key() {
        let c =
            Config::parse(r#"{"path":"/a.xlsx","sheet":"Sales","header_row":3,"batch_size":5}"#)
                .unwrap();
        assert_eq!(c.sheet, SheetChoice::Name("Sales".into()));
        assert_eq!((c.header_row, c.batch_size), (3, 5));
        let c = Config::parse(r#"{"path":"/a.xlsx","sheet":0}"#).unwrap();
        assert_eq!(c.sheet, SheetChoice::Index(0));
    }

    #[test]
    fn bad_values_name_the_key() {
        assert_eq!(
            err(r#"{"path":"/a","sheet":-1}"#),
            "config.sheet: expected a sheet name or a position from 0, got -1"
        );
        assert!(err(r#"{"path":"/a","sheet":"  "}"#).starts_with("config.sheet:"));
        assert!(err(r#"{"path":"/a","sheet":true}"#).starts_with("config.sheet:"));
        assert!(err(r#"{"path":"/a","sheet":1.5}"#).starts_with("config.sheet:"));
        assert_eq!(
            err(r#"{"path":"/a","header_row":0}"#),
            "config.header_row: expected an integer >= 1, got 0"
        );
        assert!(err(r#"{"path":"/a","header_row":"2"}"#).starts_with("config.header_row:"));
        assert!(err(r#"{"path":"/a","batch_size":0}"#).starts_with("config.batch_size:"));
        assert!(err(r#"{"path":"/a","batch_size":2000000}"#).starts_with("config.batch_size:"));
        assert!(err(r#"{"sheet":0}"#).starts_with("config.path: required"));
        assert!(err(r#"{"path":""}"#).starts_with("config.path:"));
        assert!(err(r#"{"path":"/a","sheets":1}"#).starts_with("config.sheets: unknown key"));
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
    }
}
