//! The plugin's configuration and the SQL it asks the host to run.

use serde_json::{Map, Value};

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
    /// Parses the host's config text; messages as the reference's.
    pub fn parse(text: &str) -> Result<Config, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("the config is not JSON: {e}"))?;
        let Value::Object(map) = value else {
            return Err("the config must be a JSON object".to_string());
        };
        if let Some(key) = map
            .keys()
            .find(|k| !["name", "path", "relation", "sql", "query_file"].contains(&k.as_str()))
        {
            return Err(format!("unknown config key '{key}'"));
        }
        let name = string(&map, "name")?.unwrap_or_default();
        let Some(path) = string(&map, "path")?.filter(|p| !p.is_empty()) else {
            return Err(format!("DuckDB dataset '{name}' needs a path"));
        };
        let given: Vec<(&str, String)> = ["relation", "sql", "query_file"]
            .into_iter()
            .filter_map(|key| match string(&map, key) {
                Ok(Some(value)) => Some(Ok((key, value))),
                Ok(None) => None,
                Err(e) => Some(Err(e)),
            })
            .collect::<Result<_, _>>()?;
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
        if value.trim().is_empty() {
            return Err(format!(
                "DuckDB dataset '{name}': '{key}' must be a non-empty string"
            ));
        }
        let value = value.trim().to_string();
        let rows = match *key {
            "relation" => {
                relation_sql(&value)?;
                Rows::Relation(value)
            }
            "sql" => Rows::Sql(value),
            _ => Rows::QueryFile(value),
        };
        Ok(Config { name, path, rows })
    }
}

fn string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("'{key}' must be a string, got {other}")),
    }
}

/// `SELECT * FROM <relation>` with every part quoted, as the reference builds it.
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
