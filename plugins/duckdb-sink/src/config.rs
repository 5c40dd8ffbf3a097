//! The plugin's configuration: the file, the table, and whether it is replaced.

use ldp_plugin_sdk::ConfigObject;

/// The keys of the configuration.
pub const KEYS: &[&str] = &["path", "table", "mode"];

/// The configuration's JSON Schema (`ldp plugins` shows it).
pub const SCHEMA: &str = r#"{
  "type": "object",
  "required": ["path", "table"],
  "properties": {
    "path": {"type": "string", "description": "the DuckDB file, absolute, in the folder the host granted"},
    "table": {"type": "string", "description": "the table, in the file's main schema"},
    "mode": {"enum": ["append", "overwrite"], "description": "append rows (default), or replace the table"}
  },
  "additionalProperties": false
}"#;

/// The parsed configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The DuckDB file.
    pub path: String,
    /// The table.
    pub table: String,
    /// Whether the table is replaced (`overwrite`) rather than appended to.
    pub replace: bool,
}

impl Config {
    /// Parses the host's config text, with the SDK's messages for a wrong key or value.
    pub fn parse(text: &str) -> Result<Config, String> {
        let object = ConfigObject::parse(text, KEYS).map_err(|e| e.message)?;
        let path = object
            .absolute_file_path("path", "the DuckDB file")
            .map_err(|e| e.message)?
            .to_owned();
        let table = object
            .required_non_empty_string("table", "the table to write")
            .map_err(|e| e.message)?
            .to_owned();
        let replace = match object.string("mode").map_err(|e| e.message)? {
            None | Some("append") => false,
            Some("overwrite") => true,
            Some(other) => {
                return Err(format!(
                    "config.mode: expected \"append\" or \"overwrite\", got {other:?}"
                ));
            }
        };
        Ok(Config {
            path,
            table,
            replace,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_appended_to_unless_overwrite_is_asked() {
        let config = Config::parse(r#"{"path": "/s/shop.duckdb", "table": "rides"}"#).unwrap();
        assert_eq!(
            config,
            Config {
                path: "/s/shop.duckdb".into(),
                table: "rides".into(),
                replace: false
            }
        );
        let config =
            Config::parse(r#"{"path": "/s/a.duckdb", "table": "t", "mode": "overwrite"}"#).unwrap();
        assert!(config.replace);
    }

    #[test]
    fn a_wrong_mode_or_a_missing_table_names_its_key() {
        let e = Config::parse(r#"{"path": "/s/a.duckdb", "table": "t", "mode": "upsert"}"#)
            .unwrap_err();
        assert!(e.starts_with("config.mode:"), "{e}");
        let e = Config::parse(r#"{"path": "/s/a.duckdb"}"#).unwrap_err();
        assert!(e.contains("table"), "{e}");
    }
}
