//! The lexical half of ldp's read-only SQL guard, with the Python tool's rules and messages
//! (`docs/compatibility.md`, "The read-only SQL guard"): at most [`MAX_SQL_CHARS`]
//! characters, and the first token after comments and opening parentheses is `SELECT` or `WITH`.
//!
//! It refuses `PRAGMA`, `DESCRIBE`, `SHOW`, `FROM`-first and `VALUES` text, which some parsers
//! rewrite into SELECT statements, and `IMPORT DATABASE` before a parser reads files. It is only
//! the first half: each engine then parses the text with its own parser and requires exactly one
//! statement, a query (`ldp-sql` with DataFusion's, `ldp-duckdb` with DuckDB's).

/// SQL text the guard refuses, with the message for the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Rejected {
    /// Why, in the Python tool's words.
    pub message: String,
}

/// Longest SQL text accepted.
pub const MAX_SQL_CHARS: usize = 100_000;

/// Checks the text of `sql` before an engine parses it.
///
/// # Errors
///
/// [`Rejected`] with the Python tool's messages: `sql is N characters; the limit is 100000`,
/// `sql is empty`, `only read-only SELECT or WITH queries are allowed; this statement starts
/// with 'COPY'`.
pub fn check_text(sql: &str) -> Result<(), Rejected> {
    let chars = sql.chars().count();
    if chars > MAX_SQL_CHARS {
        return Err(Rejected {
            message: format!("sql is {chars} characters; the limit is {MAX_SQL_CHARS}"),
        });
    }
    let keyword = first_keyword(sql);
    if keyword.is_empty() {
        return Err(Rejected {
            message: "sql is empty".to_string(),
        });
    }
    if keyword != "select" && keyword != "with" {
        return Err(Rejected {
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
    fn the_python_tools_messages() {
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
