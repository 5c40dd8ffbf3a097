//! The plugin's configuration: `{"code": "<JavaScript>", "name": "<label>"}`.

use ldp_plugin_sdk::PluginError;
use ldp_plugin_sdk::config::{self, ConfigObject};

/// The JSON Schema (draft 2020-12) of the configuration, as `describe` reports it.
pub const CONFIG_SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "js transform",
  "description": "Runs JavaScript on every batch: the code defines transform(rows), called with an array of row objects {column: value}, returning the output rows; optionally schema(fields), called once with the input fields [{name, type, nullable}] and returning the output fields, and flush(), called once at the end of the stream and returning extra rows. No I/O; console.log writes to the run's log.",
  "type": "object",
  "required": ["code"],
  "additionalProperties": false,
  "properties": {
    "code": {
      "type": "string",
      "minLength": 1,
      "description": "JavaScript source (a script, not a module) that defines function transform(rows), and optionally function schema(fields) and function flush().",
      "examples": ["function transform(rows) { return rows.filter(r => r.fare >= 0); }"]
    },
    "name": {
      "type": "string",
      "minLength": 1,
      "description": "A label for this transform in messages and stack traces (the script is reported as <name>.js, or <name> when it ends in .js)."
    }
  }
}"#;

/// The keys a configuration may have.
const KEYS: [&str; 2] = ["code", "name"];

/// A parsed configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The JavaScript source.
    pub code: String,
    /// The label of the transform in messages, if the config gives one.
    pub name: Option<String>,
}

impl Config {
    /// Reads a configuration from its JSON text.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        let object = ConfigObject::parse(text, &KEYS)?;
        let code = object.required_string(
            "code",
            "give the JavaScript source that defines function transform(rows) { return rows; }",
        )?;
        if code.trim().is_empty() {
            return Err(config::error(
                "code",
                "the JavaScript source is empty; it must define function transform(rows)",
            ));
        }
        Ok(Self {
            code: code.to_owned(),
            name: object.non_empty_string("name")?.map(str::to_owned),
        })
    }

    /// The prefix of every message: `js transform 'mask_emails': `.
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => format!("js transform '{name}'"),
            None => "js transform".to_owned(),
        }
    }

    /// The file name the script has in stack traces: `<name>.js` (`name` itself when it ends in
    /// `.js`, e.g. the file a pipeline config names).
    pub fn script_path(&self) -> String {
        match &self.name {
            Some(name) if name.ends_with(".js") => name.clone(),
            Some(name) => format!("{name}.js"),
            None => "transform.js".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldp_plugin_sdk::ErrorKind;
    use serde_json::Value;

    fn err(text: &str) -> PluginError {
        match Config::parse(text) {
            Ok(c) => panic!("accepted {text}: {c:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn accepts() {
        let c = Config::parse(r#"{"code": "function transform(r) { return r; }", "name": "m"}"#);
        assert_eq!(
            c.map(|c| (c.name.clone(), c.label(), c.script_path())),
            Ok((Some("m".into()), "js transform 'm'".into(), "m.js".into()))
        );
        let c = Config::parse(r#"{"code": "x", "name": "fares.js"}"#);
        assert_eq!(c.map(|c| c.script_path()), Ok("fares.js".into()));
    }

    #[test]
    fn rejects() {
        let e = err(r#"{"code": "x", "cod": 1}"#);
        assert_eq!(e.kind, ErrorKind::Config);
        assert!(e.message.starts_with("config.cod: unknown key"), "{e}");
        assert!(
            err(r#"{"name": "x"}"#)
                .message
                .starts_with("config.code: required")
        );
        assert!(
            err(r#"{"code": 1}"#)
                .message
                .starts_with("config.code: expected a string, got 1")
        );
        assert!(err(r#"{"code": " "}"#).message.contains("empty"));
        assert!(
            err(r#"{"code": "x", "name": 3}"#)
                .message
                .starts_with("config.name")
        );
        assert!(err("[]").message.contains("JSON object"));
        assert!(err("{").message.contains("not valid JSON"));
    }

    #[test]
    fn schema_is_json() {
        let schema: Value = serde_json::from_str(CONFIG_SCHEMA).unwrap_or(Value::Null);
        assert_eq!(schema["required"][0], "code");
        assert_eq!(schema["additionalProperties"], false);
    }
}
