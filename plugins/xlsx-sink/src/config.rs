//! The configuration of the XLSX sink: `{"path": "/abs/staging/name.xlsx", "sheet": "Sheet1",
//! "header": true}`. `sheet` and `header` are a target block's options, checked by the rules
//! `ldp plan` checks them with ([`ldp_target_options::xlsx`]).

use ldp_plugin_sdk::{ConfigObject, PluginError};
use ldp_target_options::xlsx;

/// JSON Schema (draft 2020-12) of the configuration, for `describe`.
pub const SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "xlsx-sink",
  "type": "object",
  "additionalProperties": false,
  "required": ["path"],
  "properties": {
    "path": {
      "type": "string",
      "minLength": 1,
      "description": "Absolute path of the .xlsx workbook to write, in the staging folder the host granted; created, or replaced when it exists. The host moves it into place once the sink closed cleanly."
    },
    "sheet": {
      "type": "string",
      "minLength": 1,
      "maxLength": 31,
      "description": "The name of the workbook's one sheet (default Sheet1): at most 31 characters, none of [ ] : * ? / \\, not starting or ending with an apostrophe, as Excel requires."
    },
    "header": {
      "type": "boolean",
      "description": "Whether the first row holds the column names (default true)."
    }
  }
}"#;

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The workbook to write.
    pub path: String,
    /// The sheet and the header row.
    pub options: xlsx::Options,
}

/// Parses and validates a configuration object text.
pub fn parse(text: &str) -> Result<Config, PluginError> {
    let mut keys = vec!["path"];
    keys.extend(xlsx::TARGET_KEYS);
    let object = ConfigObject::parse(text, &keys)?;
    let path = object
        .absolute_file_path("path", "XLSX workbook to write")?
        .to_owned();
    let options =
        xlsx::parse(object.map()).map_err(|e| ldp_plugin_sdk::config::error(&e.key, e.message))?;
    Ok(Config { path, options })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        let e = parse(text).expect_err("invalid");
        assert_eq!(e.kind, ldp_plugin_sdk::ErrorKind::Config);
        e.message
    }

    #[test]
    fn path_sheet_and_header() {
        let config = parse(r#"{"path":"/s/out.xlsx"}"#).expect("valid");
        assert_eq!(
            (
                config.path.as_str(),
                config.options.sheet.as_str(),
                config.options.header
            ),
            ("/s/out.xlsx", "Sheet1", true)
        );
        let config =
            parse(r#"{"path":"/s/o.xlsx","sheet":"Rides","header":false}"#).expect("valid");
        assert_eq!(
            (config.options.sheet.as_str(), config.options.header),
            ("Rides", false)
        );
        assert!(err(r#"{"path":"o.xlsx"}"#).contains("is not the absolute path"));
        assert!(err(r#"{"path":"/s/o.xlsx","mode":"x"}"#).starts_with("config.mode: unknown key"));
        assert!(
            err(r#"{"path":"/s/o.xlsx","sheet":"a:b"}"#)
                .starts_with("config.sheet: \"a:b\" holds ':'")
        );
        let schema: serde_json::Value = serde_json::from_str(SCHEMA).expect("JSON");
        assert_eq!(schema["properties"]["sheet"]["maxLength"], 31);
    }
}
