//! The row filter of a version: one SQL boolean expression (DataFusion's dialect), such as
//! `amount > 5 AND region = 'EU'`, stored as written and placed in a `WHERE` clause on read.
//!
//! The text is parsed as a single expression and must be consumed to its end, so it can never
//! close the `WHERE` clause and add to the query (`1=1; DROP …`, `x) UNION (SELECT …`).
//! Subqueries are refused too: a version reads one table.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{Expr, visit_expressions};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::Token;

use crate::error::{Error, Result};

/// Checks a row filter; returns it trimmed, or `None` when it is absent or blank (every row).
///
/// # Errors
///
/// [`Error::Config`] when the text is not exactly one SQL expression, or holds a subquery.
pub fn check_filter(text: Option<&str>) -> Result<Option<String>> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let invalid = |why: String| {
        Error::config(format!(
            "invalid row_filter {}: {why}",
            ldp_pyrepr::repr_str(text)
        ))
    };
    let mut parser = Parser::new(&GenericDialect {})
        .try_with_sql(text)
        .map_err(|e| invalid(e.to_string()))?;
    let expr = parser.parse_expr().map_err(|e| invalid(e.to_string()))?;
    let next = parser.peek_token();
    if next.token != Token::EOF {
        return Err(invalid(format!(
            "expected one SQL boolean expression, found {} after it (line {}, column {})",
            next.token, next.span.start.line, next.span.start.column
        )));
    }
    let subquery = visit_expressions(&expr, |e| match e {
        Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. } => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    });
    if subquery.is_break() {
        return Err(invalid(
            "subqueries are not allowed: a row filter reads the pinned table only".into(),
        ));
    }
    Ok(Some(text.to_string()))
}

/// The `WHERE` clause of a filter (empty without one). The filter stands on lines of its own,
/// so a trailing `-- comment` cannot swallow the closing parenthesis.
pub(crate) fn where_clause(filter: Option<&str>) -> String {
    filter.map_or_else(String::new, |f| format!(" WHERE (\n{f}\n)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_expression_passes_trimmed() {
        assert_eq!(check_filter(None).unwrap(), None);
        assert_eq!(check_filter(Some("  ")).unwrap(), None);
        assert_eq!(
            check_filter(Some(" amount > 5 AND region = 'EU' "))
                .unwrap()
                .as_deref(),
            Some("amount > 5 AND region = 'EU'")
        );
        assert!(check_filter(Some("name LIKE 'a%' OR id IN (1, 2) -- trailing")).is_ok());
        assert!(check_filter(Some("ts >= TIMESTAMP '2024-01-01 00:00:00'")).is_ok());
    }

    #[test]
    fn anything_that_could_leave_the_where_clause_is_refused() {
        for bad in [
            "amount > 5; DROP TABLE t",
            "amount > 5) UNION (SELECT 1",
            "1=1 UNION SELECT * FROM other",
            "amount > 5 ORDER BY amount",
            "amount >",
            "id IN (SELECT id FROM other)",
            "EXISTS (SELECT 1)",
            "amount > (SELECT max(amount) FROM other)",
            "amount > 5 /* unterminated",
        ] {
            let error = check_filter(Some(bad)).expect_err(bad);
            assert!(
                error.to_string().starts_with("invalid row_filter '"),
                "{error}"
            );
        }
    }

    #[test]
    fn comments_stay_inside_the_where_clause() {
        assert_eq!(where_clause(None), "");
        assert_eq!(where_clause(Some("a > 1 -- x")), " WHERE (\na > 1 -- x\n)");
    }
}
