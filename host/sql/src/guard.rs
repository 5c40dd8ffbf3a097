//! Read-only SQL, checked before anything plans (the MCP server's statement guard, with the
//! Python tool's rules and messages): at most [`MAX_SQL_CHARS`] characters; the first
//! significant token (comments and opening parentheses skipped) `SELECT` or `WITH`; and,
//! parsed by DataFusion's own parser, exactly one statement, nested no deeper than the limits
//! of [`crate::nesting`] (so that planning it cannot overflow the stack), and that a query. A
//! session that runs it also refuses DDL, DML and `SET`-style statements and has no file or URL
//! table functions, so what the guard lets through can only read the tables registered in it.

use datafusion::sql::parser::{DFParser, Statement as DfStatement};
use datafusion::sql::sqlparser::ast::Statement;
use datafusion::sql::sqlparser::dialect::GenericDialect;

use crate::error::{Error, Result};

/// The longest SQL accepted, in characters.
pub const MAX_SQL_CHARS: usize = ldp_sql_guard::MAX_SQL_CHARS;

/// Checks that `sql` is exactly one read-only query.
///
/// # Errors
///
/// [`Error::Rejected`] with the Python tool's words: `sql is N characters; the limit is
/// 100000`, `sql is empty`, `only read-only SELECT or WITH queries are allowed; this statement
/// starts with 'COPY'`, `sql does not parse: …`, `exactly one statement is allowed; found 2`,
/// and the nesting limits' `the query nests more than 2000 levels deep …`.
pub fn check_read_only(sql: &str) -> Result<()> {
    let reject = |message: String| Err(Error::Rejected { message });
    // The lexical half (length, first token), shared with DuckDB sources.
    if let Err(e) = ldp_sql_guard::check_text(sql) {
        return reject(e.message);
    }
    let statements = match DFParser::parse_sql_with_dialect(sql, &GenericDialect {}) {
        Ok(statements) => statements,
        Err(e) => {
            let text = e.to_string();
            return reject(format!(
                "sql does not parse: {}",
                text.lines().next().unwrap_or_default()
            ));
        }
    };
    // Before anything else walks or drops the statements (a kind is found by printing one).
    let statements = crate::nesting::check_parsed(statements)?;
    if statements.len() != 1 {
        return reject(format!(
            "exactly one statement is allowed; found {}",
            statements.len()
        ));
    }
    match &statements[0] {
        DfStatement::Statement(statement) if matches!(**statement, Statement::Query(_)) => Ok(()),
        other => reject(format!(
            "only read-only SELECT or WITH queries are allowed; this is a {} statement",
            statement_kind(other)
        )),
    }
}

/// A short name of a statement's kind (`EXPLAIN`, `COPY`, `CREATE EXTERNAL TABLE`).
fn statement_kind(statement: &DfStatement) -> String {
    match statement {
        DfStatement::Statement(inner) => inner
            .to_string()
            .split_whitespace()
            .next()
            .unwrap_or("unknown")
            .to_uppercase(),
        DfStatement::CreateExternalTable(_) => "CREATE EXTERNAL TABLE".to_owned(),
        DfStatement::CopyTo(_) => "COPY".to_owned(),
        DfStatement::Explain(_) => "EXPLAIN".to_owned(),
        _ => "other".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(sql: &str) -> String {
        match check_read_only(sql) {
            Err(Error::Rejected { message }) => message,
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn one_query_passes() {
        for sql in [
            "SELECT 1",
            "  -- a comment\n select * from t",
            "/* c */ (SELECT 1)",
            "WITH a AS (SELECT 1 AS x) SELECT x FROM a",
            "SELECT 1;",
        ] {
            assert!(check_read_only(sql).is_ok(), "{sql}");
        }
    }

    #[test]
    fn the_reference_refusals() {
        assert_eq!(
            rejected("COPY orders TO '/tmp/x.csv'"),
            "only read-only SELECT or WITH queries are allowed; this statement starts with 'COPY'"
        );
        assert_eq!(
            rejected("SELECT 1; SELECT 2"),
            "exactly one statement is allowed; found 2"
        );
        assert_eq!(rejected("  -- nothing\n"), "sql is empty");
        assert!(rejected("ATTACH 'x.db' AS x").contains("starts with 'ATTACH'"));
        assert!(rejected("SELECT 1; DROP TABLE t").contains("found 2"));
        assert!(rejected("SELECT FROM WHERE (").starts_with("sql does not parse"));
        assert!(rejected(&"SELECT 1 ".repeat(20_000)).contains("the limit is 100000"));
    }
}
