//! The plugin's configuration and the SQL it asks the host to run.

use ldp_plugin_sdk::ConfigObject;

/// The keys of the configuration.
pub const KEYS: &[&str] = &["name", "path", "relation", "sql", "query_file"];

/// The configuration's JSON Schema (`ldp plugins` shows it).
pub const SCHEMA: &str = r#"{
  "type": "object",
  "required": ["name", "path"],
  "properties": {
    "name": {"type": "string", "description": "the source's name, for messages"},
    "path": {"type": "string", "description": "the DuckDB file, absolute (the host grants its folder)"},
    "relation": {"type": "string", "description": "table, schema.table or catalog.schema.table"},
    "sql": {"type": "string", "description": "one SELECT or WITH query"},
    "query_file": {"type": "string", "description": "a file holding one SELECT or WITH query, absolute"}
  },
  "additionalProperties": false
}"#;

/// What to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rows {
    /// Every row of a table or view.
    Relation(String),
    /// One query.
    Sql(String),
    /// One query in a file (its path).
    QueryFile(String),
}

/// The parsed configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The source's name.
    pub name: String,
    /// The DuckDB file.
    pub path: String,
    /// What to read.
    pub rows: Rows,
}

impl Config {
    /// Parses the host's config text: the SDK's messages for a text that is not a JSON object,
    /// an unknown key or a value that is not a string; the Python tool's for the rest.
    pub fn parse(text: &str) -> Result<Config, String> {
        let object = ConfigObject::parse(text, KEYS).map_err(|e| e.message)?;
        let string = |key: &str| object.string(key).map_err(|e| e.message);
        let name = string("name")?.unwrap_or_default().to_owned();
        let Some(path) = string("path")?.filter(|p| !p.is_empty()) else {
            return Err(format!("DuckDB dataset '{name}' needs a path"));
        };
        let mut given = Vec::new();
        for key in ["relation", "sql", "query_file"] {
            if let Some(value) = string(key)? {
                given.push((key, value));
            }
        }
        let [(key, value)] = given.as_slice() else {
            return Err(format!(
                "DuckDB dataset '{name}' needs exactly one of 'relation', 'sql' and 'query_file', got {}",
                if given.is_empty() {
                    "neither"
                } else {
                    "more than one"
                }
            ));
        };
        let value = value.trim().to_string();
        if value.is_empty() {
            return Err(format!(
                "DuckDB dataset '{name}': '{key}' must be a non-empty string"
            ));
        }
        let rows = match *key {
            "relation" => {
                relation_sql(&value)?;
                Rows::Relation(value)
            }
            "sql" => Rows::Sql(value),
            _ => Rows::QueryFile(value),
        };
        Ok(Config {
            name,
            path: path.to_owned(),
            rows,
        })
    }
}

/// `SELECT * FROM <relation>` with every part quoted, as the Python tool builds it.
pub fn relation_sql(relation: &str) -> Result<String, String> {
    let parts: Vec<&str> = relation.split('.').collect();
    if parts.len() > 3 || parts.iter().any(|p| p.trim().is_empty()) {
        return Err(format!(
            "DuckDB relation '{relation}' must be table, schema.table or catalog.schema.table"
        ));
    }
    let quoted: Vec<String> = parts
        .iter()
        .map(|p| format!("\"{}\"", p.trim().replace('"', "\"\"")))
        .collect();
    Ok(format!("SELECT * FROM {}", quoted.join(".")))
}

/// Whether a message is DuckDB's own (`Parser Error: …`, `Binder Error: …`) rather than the
/// host's guard's.
pub fn is_duckdb_error(message: &str) -> bool {
    message.split_once(" Error: ").is_some_and(|(head, _)| {
        !head.is_empty() && head.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relations_are_quoted_part_by_part() {
        assert_eq!(relation_sql("t").unwrap(), r#"SELECT * FROM "t""#);
        assert_eq!(
            relation_sql("shop.sales.\"odd\"").unwrap(),
            r#"SELECT * FROM "shop"."sales"."""odd""""#
        );
        assert_eq!(
            relation_sql("a.b.c.d").unwrap_err(),
            "DuckDB relation 'a.b.c.d' must be table, schema.table or catalog.schema.table"
        );
        assert!(relation_sql("a..b").is_err());
    }

    #[test]
    fn exactly_one_way_to_choose_rows() {
        let parse = |text: &str| Config::parse(text);
        assert_eq!(
            parse(r#"{"name": "o", "path": "/d/x.duckdb", "sql": " select 1 "}"#)
                .unwrap()
                .rows,
            Rows::Sql("select 1".into())
        );
        assert_eq!(
            parse(r#"{"name": "o", "path": "/d/x.duckdb"}"#).unwrap_err(),
            "DuckDB dataset 'o' needs exactly one of 'relation', 'sql' and 'query_file', got neither"
        );
        assert_eq!(
            parse(r#"{"name": "o", "path": "/d/x.duckdb", "sql": "select 1", "relation": "t"}"#)
                .unwrap_err(),
            "DuckDB dataset 'o' needs exactly one of 'relation', 'sql' and 'query_file', got more than one"
        );
        assert_eq!(
            parse(r#"{"name": "o", "path": "", "sql": "x"}"#).unwrap_err(),
            "DuckDB dataset 'o' needs a path"
        );
    }

    #[test]
    fn the_text_keys_and_types_are_the_sdks_messages() {
        let parse = |text: &str| Config::parse(text).unwrap_err();
        assert_eq!(parse("[]"), "config must be a JSON object, got an array");
        assert!(parse("{").starts_with("config is not valid JSON: "));
        assert_eq!(
            parse(r#"{"name": "o", "table": "t"}"#),
            "config.table: unknown key; the keys are name, path, relation, sql, query_file"
        );
        assert_eq!(
            parse(r#"{"name": "o", "path": "/d/x.duckdb", "sql": 1}"#),
            "config.sql: expected a string, got 1"
        );
        assert_eq!(
            parse(r#"{"name": "o", "path": "/d/x.duckdb", "sql": null, "relation": " "}"#),
            "DuckDB dataset 'o': 'relation' must be a non-empty string"
        );
    }

    #[test]
    fn duckdb_errors_are_told_from_the_guards() {
        assert!(is_duckdb_error(
            "Parser Error: syntax error at or near \"FORM\""
        ));
        assert!(is_duckdb_error(
            "Catalog Error: Table with name nope does not exist!"
        ));
        assert!(!is_duckdb_error(
            "exactly one statement is allowed; found 2"
        ));
        assert!(!is_duckdb_error(
            "only read-only SELECT or WITH queries are allowed; this is a INSERT statement"
        ));
    }
}
