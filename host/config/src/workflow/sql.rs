//! The `sql` task kind (ldp's own; the Python tool delegates models to dbt): a SQL model over
//! Iceberg tables, run by DataFusion and published to an Iceberg table.
//!
//! ```json
//! {"id": "revenue", "depends_on": ["orders"],
//!  "sql": {"query": "SELECT day, sum(amount) AS revenue FROM shop.orders GROUP BY day",
//!          "target": {"name": "daily_revenue", "format": "ICEBERG",
//!                     "catalog": {"identifier": "shop", "warehouse_path": "warehouse"}},
//!          "write_mode": "overwrite"}}
//! ```
//!
//! * `query` or `query_file` (exactly one): one `SELECT` or `WITH` query, inline or in a file
//!   relative to the workflow file. Tables are named `namespace.table`.
//! * `target` (required): an Iceberg target block as in a dataset config (`name`, `format:
//!   ICEBERG`, `catalog`, optional `partition_by` and `schema_evolution`); its relative paths
//!   resolve against the workflow file's folder. `write_mode` and `join_cols` belong to the
//!   task, not to this block.
//! * `write_mode`: `overwrite` (the default: a model is rebuilt from its inputs) or `append`.
//!
//! The task's pipeline identifier, for its idempotency key, is `<workflow>.<task id>`
//! ([`sql_identifier`]). This module only reads and checks the task; running it is the
//! orchestration's.

use serde_json::Value;

use crate::block::check_block_at;
use crate::model::{Block, Format, Section, WriteMode};
use crate::problems::{Mode, Problems, check_string, get};
use crate::repr::{repr, repr_list, repr_str};

/// The keys of a sql task.
pub const SQL_KEYS: [&str; 4] = ["query", "query_file", "target", "write_mode"];

/// The write modes of a sql task, the default first.
pub const SQL_WRITE_MODES: [&str; 2] = ["overwrite", "append"];

/// Where a sql task's query is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SqlQuery {
    /// `query`: the text.
    Inline(String),
    /// `query_file`: a file relative to the workflow file, as written.
    File(String),
}

/// The value of a `sql` task.
#[derive(Clone, Debug, PartialEq)]
pub struct SqlTask {
    /// The query.
    pub query: SqlQuery,
    /// The Iceberg table it publishes to.
    pub target: Block,
    /// The target block as written (for its identity and key).
    pub raw_target: Value,
    /// `overwrite` or `append`.
    pub write_mode: WriteMode,
}

/// The pipeline identifier of a sql task, an input of its idempotency key: `<workflow>.<id>`.
pub fn sql_identifier(workflow: &str, task_id: &str) -> String {
    format!("{workflow}.{task_id}")
}

/// Checks that a query is one `SELECT` or `WITH` query (its first word after blanks, `(` and
/// SQL comments).
///
/// # Errors
///
/// The first word, when it is another.
pub fn query_start(query: &str) -> Result<(), String> {
    let mut rest = query;
    loop {
        let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '(');
        if let Some(comment) = trimmed.strip_prefix("--") {
            rest = comment.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(comment) = trimmed.strip_prefix("/*") {
            rest = comment.split_once("*/").map_or("", |(_, after)| after);
        } else {
            rest = trimmed;
            break;
        }
    }
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if ["select", "with"].contains(&word.to_lowercase().as_str()) {
        Ok(())
    } else {
        Err(word)
    }
}

/// The message for a query that is not one SELECT or WITH query.
pub(super) fn not_a_select(first_word: &str) -> String {
    format!(
        "must be one SELECT or WITH query; it starts with {}",
        repr_str(first_word)
    )
}

/// Checks the value of a `sql` task at `at` (`tasks[1].sql`).
pub(super) fn check_sql(problems: &mut Problems, value: &Value, at: &str) -> Option<SqlTask> {
    let Some(map) = value.as_object() else {
        problems.add(
            at,
            "must be an object with a 'query' or a 'query_file' and an Iceberg 'target'",
        );
        return None;
    };
    let before = problems.len();
    problems.reject_unknown_keys(at, map, &SQL_KEYS);
    let given: Vec<&str> = ["query", "query_file"]
        .into_iter()
        .filter(|key| get(map, key).is_some())
        .collect();
    match given.len() {
        1 => {}
        0 => problems.add(
            at,
            "needs exactly one of 'query' or 'query_file', and has none",
        ),
        n => problems.add(
            at,
            format!(
                "needs exactly one of 'query' or 'query_file', and has {n}: {}",
                repr_list(&given)
            ),
        ),
    }
    let query = check_string(problems, map, "query", at, false);
    if let Some(query) = &query
        && let Err(word) = query_start(query)
    {
        problems.add(&format!("{at}.query"), not_a_select(&word));
    }
    let query_file = check_string(problems, map, "query_file", at, false);
    let target = check_target(problems, map.get("target"), &format!("{at}.target"));
    let write_mode = match map.get("write_mode") {
        None => Some(WriteMode::Overwrite),
        Some(raw) => {
            let parsed = raw
                .as_str()
                .and_then(WriteMode::parse)
                .filter(|mode| SQL_WRITE_MODES.contains(&mode.as_str()));
            if parsed.is_none() {
                problems.add(
                    &format!("{at}.write_mode"),
                    format!(
                        "must be one of {}, got {}",
                        repr_list(&SQL_WRITE_MODES),
                        repr(raw)
                    ),
                );
            }
            parsed
        }
    };
    if problems.len() > before {
        return None;
    }
    let query = match (query, query_file) {
        (Some(text), None) => SqlQuery::Inline(text),
        (None, Some(file)) => SqlQuery::File(file),
        _ => return None,
    };
    Some(SqlTask {
        query,
        target: target?,
        raw_target: map.get("target").cloned().unwrap_or(Value::Null),
        write_mode: write_mode?,
    })
}

fn check_target(problems: &mut Problems, value: Option<&Value>, at: &str) -> Option<Block> {
    if let Some(Value::Object(block)) = value {
        let format = block.get("format").and_then(Value::as_str);
        if let Some(format) = format.and_then(Format::parse)
            && format != Format::Iceberg
        {
            problems.add(
                &format!("{at}.format"),
                format!(
                    "must be 'ICEBERG': a sql task publishes to an Iceberg table, got {}",
                    repr(&block["format"])
                ),
            );
            return None;
        }
        let before = problems.len();
        if block.contains_key("write_mode") {
            problems.add(
                &format!("{at}.write_mode"),
                "is not used by a sql task; set write_mode on the task: 'overwrite' or 'append'",
            );
        }
        if block.contains_key("join_cols") {
            problems.add(
                &format!("{at}.join_cols"),
                "is not used by a sql task, which overwrites or appends",
            );
        }
        let checked = check_block_at(problems, value, Section::Target, Mode::Plan, at);
        return checked.filter(|_| problems.len() == before);
    }
    check_block_at(problems, value, Section::Target, Mode::Plan, at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sql(value: Value) -> Result<SqlTask, Vec<String>> {
        let mut problems = Problems::default();
        check_sql(&mut problems, &value, "tasks[1].sql").ok_or_else(|| problems.into_vec())
    }

    fn target() -> Value {
        json!({"name": "daily_revenue", "format": "iceberg",
               "catalog": {"identifier": "shop", "warehouse_path": "warehouse"}})
    }

    #[test]
    fn a_model() {
        let task =
            sql(json!({"query": "  -- revenue\n (SELECT 1)", "target": target()})).expect("valid");
        assert_eq!(task.write_mode, WriteMode::Overwrite);
        assert_eq!(task.target.name, "daily_revenue");
        assert_eq!(
            task.query,
            SqlQuery::Inline("  -- revenue\n (SELECT 1)".into())
        );
        let task =
            sql(json!({"query_file": "models/r.sql", "target": target(), "write_mode": "Append"}))
                .expect("valid");
        assert_eq!(
            (task.query, task.write_mode),
            (SqlQuery::File("models/r.sql".into()), WriteMode::Append)
        );
        assert_eq!(
            query_start("/* x */ with a as (select 1) select * from a"),
            Ok(())
        );
        assert_eq!(query_start("DROP TABLE t"), Err("DROP".into()));
        assert_eq!(sql_identifier("nightly", "revenue"), "nightly.revenue");
    }

    #[test]
    fn messages() {
        assert_eq!(
            sql(json!("SELECT 1")).unwrap_err(),
            [
                "tasks[1].sql: must be an object with a 'query' or a 'query_file' and an Iceberg 'target'"
            ]
        );
        assert_eq!(
            sql(json!({"sql": "SELECT 1"})).unwrap_err(),
            [
                "tasks[1].sql: has unknown keys ['sql']; allowed: ['query', 'query_file', 'target', 'write_mode']",
                "tasks[1].sql: needs exactly one of 'query' or 'query_file', and has none",
                "tasks[1].sql.target: is required and must be an object",
            ]
        );
        assert_eq!(
            sql(json!({"query": "DELETE FROM t", "query_file": "", "target": target(), "write_mode": "upsert"}))
                .unwrap_err(),
            [
                "tasks[1].sql: needs exactly one of 'query' or 'query_file', and has 2: ['query', 'query_file']",
                "tasks[1].sql.query: must be one SELECT or WITH query; it starts with 'DELETE'",
                "tasks[1].sql.query_file: must be a non-empty string, got ''",
                "tasks[1].sql.write_mode: must be one of ['overwrite', 'append'], got 'upsert'",
            ]
        );
        assert_eq!(
            sql(json!({"query": "SELECT 1", "target": {"name": "x", "format": "CSV", "path": "x.csv"}}))
                .unwrap_err(),
            ["tasks[1].sql.target.format: must be 'ICEBERG': a sql task publishes to an Iceberg table, got 'CSV'"]
        );
        assert_eq!(
            sql(
                json!({"query": "SELECT 1", "target": {"name": "a.b", "format": "ICEBERG",
                        "write_mode": "append", "join_cols": "id", "catalog": {"type": "rest"}}})
            )
            .unwrap_err(),
            [
                "tasks[1].sql.target.write_mode: is not used by a sql task; set write_mode on the task: 'overwrite' or 'append'",
                "tasks[1].sql.target.join_cols: is not used by a sql task, which overwrites or appends",
                "tasks[1].sql.target.name: must not contain '.'; set the namespace in the catalog",
                "tasks[1].sql.target.catalog: a 'rest' catalog needs a 'namespace' (or 'identifier')",
                "tasks[1].sql.target.catalog.uri: is required",
            ]
        );
    }
}
