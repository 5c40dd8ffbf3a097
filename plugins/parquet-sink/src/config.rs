//! The configuration: `{"path": "/abs/staging/name.parquet", "row_group_size": 1048576,
//! "compression": "snappy"}`.

use ldp_plugin_sdk::PluginError;
use ldp_plugin_sdk::config::{self, ConfigObject};
use parquet::basic::{BrotliLevel, Compression, GzipLevel};
use serde_json::Value;

/// The keys of the configuration, in the order the schema lists them.
pub const KEYS: &[&str] = &["path", "row_group_size", "compression"];

/// Rows per row group by default: pyarrow's `write_table` default (1024 × 1024).
pub const DEFAULT_ROW_GROUP_SIZE: usize = 1 << 20;

/// The codecs this build writes, by the names pyarrow gives them.
pub const CODECS: &[&str] = &["snappy", "gzip", "brotli", "lz4", "none"];

/// JSON Schema (draft 2020-12) of the configuration, for `describe`.
pub const SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "parquet-sink",
  "type": "object",
  "additionalProperties": false,
  "required": ["path"],
  "properties": {
    "path": {
      "type": "string",
      "minLength": 1,
      "description": "Absolute path of the Parquet file to write, in the staging folder the host granted; created, or truncated when it exists. The host moves it into place once the sink closed cleanly."
    },
    "row_group_size": {
      "type": "integer",
      "minimum": 1,
      "default": 1048576,
      "description": "Most rows per row group (pyarrow's default); a row group also ends once its encoded data passes 128 MiB, so memory stays bounded."
    },
    "compression": {
      "enum": ["snappy", "gzip", "brotli", "lz4", "none"],
      "default": "snappy",
      "description": "The codec of every column (pyarrow's default is snappy; zstd is not built into the plugin)."
    }
  }
}"#;

/// The validated configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The file to write.
    pub path: String,
    /// Most rows per row group.
    pub row_group_size: usize,
    /// The codec.
    pub compression: Compression,
}

impl Config {
    /// Parses and validates a configuration object text.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        let object = ConfigObject::parse(text, KEYS)?;
        let path = object.absolute_file_path("path", "Parquet file to write")?;
        let row_group_size = object
            .usize_in("row_group_size", 1..)?
            .unwrap_or(DEFAULT_ROW_GROUP_SIZE);
        let compression = match object.get("compression") {
            None => Compression::SNAPPY,
            Some(Value::String(name)) => codec(name)?,
            Some(other) => {
                return Err(config::expected(
                    "compression",
                    &format!("one of {}", CODECS.join(", ")),
                    other,
                ));
            }
        };
        Ok(Self {
            path: path.to_owned(),
            row_group_size,
            compression,
        })
    }
}

/// The codec a name gives, in any case (`uncompressed` is `none`).
fn codec(name: &str) -> Result<Compression, PluginError> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "snappy" => Compression::SNAPPY,
        "gzip" => Compression::GZIP(GzipLevel::default()),
        "brotli" => Compression::BROTLI(BrotliLevel::default()),
        "lz4" => Compression::LZ4_RAW,
        "none" | "uncompressed" => Compression::UNCOMPRESSED,
        "zstd" => {
            return Err(config::error(
                "compression",
                "zstd is not built into the parquet-sink plugin (its encoder is C code that this \
                 WebAssembly build leaves out); choose snappy (the default), gzip, brotli, lz4 \
                 or none",
            ));
        }
        _ => {
            return Err(config::error(
                "compression",
                format_args!(
                    "unknown codec {name:?}; choose one of {}",
                    CODECS.join(", ")
                ),
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        let e = Config::parse(text).expect_err("invalid");
        assert_eq!(e.kind, ldp_plugin_sdk::ErrorKind::Config);
        e.message
    }

    #[test]
    fn defaults_and_every_key() {
        let c = Config::parse(r#"{"path":"/s/o.parquet"}"#).expect("valid");
        assert_eq!(
            c,
            Config {
                path: "/s/o.parquet".into(),
                row_group_size: DEFAULT_ROW_GROUP_SIZE,
                compression: Compression::SNAPPY,
            }
        );
        let c = Config::parse(r#"{"path":"/o","row_group_size":10,"compression":"LZ4"}"#)
            .expect("valid");
        assert_eq!(
            (c.row_group_size, c.compression),
            (10, Compression::LZ4_RAW)
        );
    }

    #[test]
    fn bad_values_name_the_key() {
        assert!(err(r#"{"path":"o.parquet"}"#).contains("is not the absolute path"));
        assert!(err(r#"{"path":"/o","x":1}"#).starts_with("config.x: unknown key"));
        assert!(err(r#"{"path":"/o","row_group_size":0}"#).starts_with("config.row_group_size"));
        assert!(err(r#"{"path":"/o","compression":"zstd"}"#).contains("zstd is not built"));
        assert!(err(r#"{"path":"/o","compression":"lzo"}"#).contains("unknown codec \"lzo\""));
        assert!(err(r#"{"path":"/o","compression":1}"#).starts_with("config.compression"));
        assert!(err("{}").starts_with("config.path: required"));
        assert!(err("1").starts_with("config must be a JSON object"));
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
