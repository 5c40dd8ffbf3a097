//! DuckDB's spellings in ldp's SQL. The Python tool ran its SQL (`ldp query`, `ldp mcp`, SQL
//! transforms) on DuckDB, so its users write DuckDB's dialect; ldp plans on DataFusion. Before a
//! statement plans, the spellings DuckDB has and DataFusion lacks are rewritten into
//! DataFusion's, in the parsed statement:
//!
//! * functions DuckDB names differently or builds from others ([`rules`]: `strftime`,
//!   `epoch`, `year`, `count_if`, `arg_max`, `date_diff`, `struct_pack`, `list`, …), and those
//!   DataFusion has no equivalent for refused with what to write instead;
//! * `GROUP BY ALL` (DataFusion's own fails when an aggregate has an alias) and `ORDER BY ALL`
//!   (DataFusion's generic dialect reads `ALL` as a column), as positions ([`clauses`]).
//!
//! What DataFusion already reads as DuckDB does (`SELECT * EXCLUDE (…)`, `* REPLACE (… AS …)`,
//! `QUALIFY`, `FROM t SELECT …`, list and struct literals, `date_trunc`, `list_contains`,
//! `median`, `string_agg`, `::` casts, `ILIKE`) is left as it is. `docs/query.md` lists both.

mod clauses;
mod rules;

use std::collections::HashSet;
use std::ops::ControlFlow;

use datafusion::execution::SessionState;
use datafusion::sql::parser::Statement as DfStatement;
use datafusion::sql::sqlparser::ast::{Expr, Query, VisitMut, VisitorMut};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;

use crate::error::{Error, Result};

/// Rewrites DuckDB's spellings in `statement` into DataFusion's, for a session whose aggregate
/// functions are those of `state`.
///
/// # Errors
///
/// [`Error::Sql`] for a DuckDB function DataFusion has no equivalent of (the message says what
/// to write instead), or a call whose arguments the rewrite cannot read (`date_diff` with a
/// part that is not a string).
pub(crate) fn rewrite(statement: &mut DfStatement, state: &SessionState) -> Result<()> {
    let DfStatement::Statement(inner) = statement else {
        return Ok(());
    };
    let aggregates = state
        .aggregate_functions()
        .iter()
        .flat_map(|(name, udaf)| {
            std::iter::once(name.to_ascii_lowercase())
                .chain(udaf.aliases().iter().map(|a| a.to_ascii_lowercase()))
        })
        .collect();
    let mut rewriter = Rewriter {
        aggregates,
        recursion_limit: state.config().options().sql_parser.recursion_limit,
    };
    match inner.visit(&mut rewriter) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(message) => Err(Error::Sql { message }),
    }
}

/// Rewrites calls after their arguments (post-order) and clauses after their query's
/// expressions, so a DuckDB aggregate is already DataFusion's when `GROUP BY ALL` looks for
/// aggregates.
struct Rewriter {
    /// Lower-case names of the session's aggregate functions.
    aggregates: HashSet<String>,
    recursion_limit: usize,
}

impl VisitorMut for Rewriter {
    type Break = String;

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<String> {
        if let Expr::Function(function) = expr {
            match rules::rewrite_call(function, self) {
                Ok(Some(new)) => *expr = new,
                Ok(None) => {}
                Err(message) => return ControlFlow::Break(message),
            }
        }
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<String> {
        match clauses::rewrite_all(query, self) {
            Ok(()) => ControlFlow::Continue(()),
            Err(message) => ControlFlow::Break(message),
        }
    }
}

impl Rewriter {
    /// Parses `sql`, an expression the rules wrote around arguments already parsed once.
    fn parse_expr(&self, sql: &str) -> std::result::Result<Expr, String> {
        Parser::new(&GenericDialect {})
            .with_recursion_limit(self.recursion_limit + 16)
            .try_with_sql(sql)
            .and_then(|mut parser| parser.parse_expr())
            .map_err(|e| format!("cannot rewrite DuckDB's spelling into {sql:?}: {e}"))
    }

    /// Whether `name` (any case) is an aggregate function.
    fn is_aggregate(&self, name: &str) -> bool {
        self.aggregates.contains(&name.to_ascii_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use datafusion::prelude::SessionContext;

    use super::*;

    /// `sql` rewritten, printed back.
    fn rewritten(sql: &str) -> std::result::Result<String, String> {
        let context = SessionContext::new();
        let state = context.state();
        let mut statement = state
            .sql_to_statement(sql, &datafusion::common::config::Dialect::Generic)
            .unwrap();
        match rewrite(&mut statement, &state) {
            Ok(()) => Ok(statement.to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn duckdb_functions_become_datafusions() {
        for (duckdb, datafusion) in [
            (
                "SELECT strftime(ts, '%Y-%m-%d') FROM t",
                "SELECT to_char(ts, '%Y-%m-%d') FROM t",
            ),
            (
                "SELECT epoch(ts) FROM t",
                "SELECT date_part('epoch', ts) FROM t",
            ),
            (
                "SELECT year(ts), hour(ts) FROM t",
                "SELECT date_part('year', ts), date_part('hour', ts) FROM t",
            ),
            (
                "SELECT dayname(ts) FROM t",
                "SELECT to_char(ts, '%A') FROM t",
            ),
            (
                "SELECT count_if(x > 1) FROM t",
                "SELECT count(CASE WHEN (x > 1) THEN 1 END) FROM t",
            ),
            (
                "SELECT arg_max(city, fare), min_by(city, fare) FROM t",
                "SELECT first_value(city ORDER BY fare DESC NULLS LAST), first_value(city ORDER BY fare ASC NULLS LAST) FROM t",
            ),
            (
                "SELECT list(x ORDER BY x) FILTER (WHERE x > 0) FROM t",
                "SELECT array_agg(x ORDER BY x) FILTER (WHERE x > 0) FROM t",
            ),
            (
                "SELECT struct_pack(a := 1, b := 'x')",
                "SELECT named_struct('a', 1, 'b', 'x')",
            ),
            (
                "SELECT year(max(ts)) FROM t",
                "SELECT date_part('year', max(ts)) FROM t",
            ),
        ] {
            assert_eq!(rewritten(duckdb).unwrap(), datafusion, "{duckdb}");
        }
    }

    #[test]
    fn date_diff_counts_boundaries_per_part() {
        let sql = rewritten("SELECT date_diff('month', a, b) FROM t").unwrap();
        assert_eq!(
            sql,
            "SELECT CAST((date_part('year', b) - date_part('year', a)) * 12 + date_part('month', b) - date_part('month', a) AS BIGINT) FROM t"
        );
        let error = rewritten("SELECT date_diff(p, a, b) FROM t").unwrap_err();
        assert!(error.contains("date_diff"), "{error}");
        let error = rewritten("SELECT date_diff('fortnight', a, b) FROM t").unwrap_err();
        assert!(error.contains("'fortnight'"), "{error}");
    }

    #[test]
    fn all_in_group_by_and_order_by_becomes_positions() {
        assert_eq!(
            rewritten("SELECT city, count(*) AS n FROM t GROUP BY ALL ORDER BY ALL").unwrap(),
            "SELECT city, count(*) AS n FROM t GROUP BY 1 ORDER BY 1, 2"
        );
        assert_eq!(
            rewritten("SELECT a, b, sum(x) + 1 FROM t GROUP BY ALL ORDER BY ALL DESC").unwrap(),
            "SELECT a, b, sum(x) + 1 FROM t GROUP BY 1, 2 ORDER BY 1 DESC, 2 DESC, 3 DESC"
        );
        // A quoted "all" is a column.
        assert_eq!(
            rewritten("SELECT \"all\" FROM t ORDER BY \"all\"").unwrap(),
            "SELECT \"all\" FROM t ORDER BY \"all\""
        );
    }

    #[test]
    fn what_datafusion_cannot_do_says_what_to_write() {
        for (sql, says) in [
            (
                "SELECT mode(city) FROM t",
                "GROUP BY city ORDER BY count(*) DESC LIMIT 1",
            ),
            ("SELECT histogram(city) FROM t", "count(*)"),
            ("SELECT COLUMNS('a.*') FROM t", "EXCLUDE"),
        ] {
            let error = rewritten(sql).unwrap_err();
            assert!(error.contains(says), "{sql}: {error}");
            assert!(error.contains("DuckDB"), "{sql}: {error}");
        }
    }
}
