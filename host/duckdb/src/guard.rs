//! The statement guard: only one read-only `SELECT` or `WITH` query gets through.
//!
//! Two checks, as the reference's (the Python tool's MCP guard, which its DuckDB source uses):
//!
//! 1. **Lexical** ([`check_text`]): at most 100,000 characters, and the first token after
//!    comments and opening parentheses is `SELECT` or `WITH`. This refuses `PRAGMA`,
//!    `DESCRIBE`, `SHOW`, `FROM`-first and `VALUES` text, which DuckDB's parser rewrites into
//!    SELECT statements, and `IMPORT DATABASE` before the parser reads files.
//! 2. **Parsed** (in [`crate::Query::open`]): DuckDB's own `extract_statements` must give
//!    exactly one statement, and it must prepare as a SELECT. This refuses several statements
//!    however they are hidden in comments or strings, and `WITH x AS (...) INSERT ...`.
//!
//! The database is also opened read-only with external access off, so even a statement that
//! got through could not write, read other files, attach databases or load extensions.

use crate::error::{Error, Result};

/// Longest SQL text accepted.
pub const MAX_SQL_CHARS: usize = 100_000;

/// Checks the text of `sql` before DuckDB parses it.
///
/// # Errors
///
/// [`Error::Rejected`] with the reference's message.
pub fn check_text(sql: &str) -> Result<()> {
    let chars = sql.chars().count();
    if chars > MAX_SQL_CHARS {
        return Err(Error::Rejected {
            message: format!("sql is {chars} characters; the limit is {MAX_SQL_CHARS}"),
        });
    }
    let keyword = first_keyword(sql);
    if keyword.is_empty() {
        return Err(Error::Rejected {
            message: "sql is empty".to_string(),
        });
    }
    if keyword != "select" && keyword != "with" {
        return Err(Error::Rejected {
            message: format!(
                "only read-only SELECT or WITH queries are allowed; this statement starts with '{}'",
                keyword.to_uppercase()
            ),
        });
    }
    Ok(())
}

/// The first significant token of `sql`, lower-cased: a word (`[A-Za-z_]+`), else its first
/// character; comments (`-- …`, `/* … */`), white space and `(` are skipped; `""` when the
/// text holds no token.
pub fn first_keyword(sql: &str) -> String {
    let mut rest = sql;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.find('\n').map_or("", |end| &after[end + 1..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |end| &after[end + 2..]);
        } else if let Some(after) = rest.strip_prefix('(') {
            rest = after;
        } else {
            break;
        }
    }
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic() || *c == '_')
        .collect();
    if word.is_empty() {
        rest.chars().next().map(String::from).unwrap_or_default()
    } else {
        word.to_lowercase()
    }
}

/// The name of a `duckdb_statement_type`, as Python's `duckdb.StatementType` names it.
pub(crate) fn statement_type_name(code: u32) -> &'static str {
    const NAMES: [&str; 28] = [
        "INVALID",
        "SELECT",
        "INSERT",
        "UPDATE",
        "EXPLAIN",
        "DELETE",
        "PREPARE",
        "CREATE",
        "EXECUTE",
        "ALTER",
        "TRANSACTION",
        "COPY",
        "ANALYZE",
        "VARIABLE_SET",
        "CREATE_FUNC",
        "DROP",
        "EXPORT",
        "PRAGMA",
        "VACUUM",
        "CALL",
        "SET",
        "LOAD",
        "RELATION",
        "EXTENSION",
        "LOGICAL_PLAN",
        "ATTACH",
        "DETACH",
        "MULTI",
    ];
    NAMES.get(code as usize).copied().unwrap_or("UNKNOWN")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_keywords() {
        for (sql, keyword) in [
            ("SELECT 1", "select"),
            ("  ((with x as (select 1) select * from x))", "with"),
            ("-- a comment\n/* another */ Select 2", "select"),
            ("PRAGMA version", "pragma"),
            ("FROM t", "from"),
            ("", ""),
            ("   -- only a comment", ""),
            ("; select 1", ";"),
        ] {
            assert_eq!(first_keyword(sql), keyword, "{sql:?}");
        }
    }

    #[test]
    fn the_reference_messages() {
        let message = |sql: &str| check_text(sql).unwrap_err().to_string();
        assert_eq!(message("  "), "sql is empty");
        assert_eq!(
            message("copy t to 'x.csv'"),
            "only read-only SELECT or WITH queries are allowed; this statement starts with 'COPY'"
        );
        assert_eq!(
            message(&"x".repeat(100_001)),
            "sql is 100001 characters; the limit is 100000"
        );
        assert!(check_text("with a as (select 1) select * from a").is_ok());
    }
}
