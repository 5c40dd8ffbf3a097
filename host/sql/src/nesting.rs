//! The nesting limit, checked on the parsed statement before anything plans: a query may nest
//! at most [`MAX_NESTING`] levels (each query, `UNION`/`INTERSECT`/`EXCEPT` in a chain,
//! expression and table in the FROM clause, within one another) and hold at most
//! [`MAX_SET_OPERATIONS`] set operations. DataFusion's planner and sqlparser recurse over the
//! statement's tree, and a tree thousands of levels deep (2,000 `SELECT 1` joined by
//! `UNION ALL`, `1+1+…+1` with thousands of terms) overflows the stack and aborts the process.
//!
//! The measure itself cannot overflow: sqlparser's visitor recurses, but [`Nesting`] stops it
//! as soon as the depth passes the limit, and the one chain the visitor walks without a hook
//! (a query's set operations) is measured with an explicit stack before the visitor enters it.

use std::collections::VecDeque;
use std::ops::ControlFlow;

use datafusion::sql::parser::{CopyToSource, DFParser, Statement as DfStatement};
use datafusion::sql::sqlparser::ast::{
    ArrayElemTypeDef, DataType, Expr, Query, SetExpr, TableFactor, Visit, Visitor,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;

use crate::error::{Error, Result};

/// The deepest a statement may nest: queries, set operations in a chain, expressions and
/// tables within one another. 1,000 `SELECT 1` joined by `UNION ALL` nest 1,001 levels.
pub const MAX_NESTING: usize = 2_000;

/// The most `UNION`, `INTERSECT` and `EXCEPT` operations a statement may hold.
pub const MAX_SET_OPERATIONS: usize = 2_000;

/// Checks the nesting of `sql`, parsed as DataFusion parses it. SQL that does not parse passes
/// (the planner reports why).
///
/// # Errors
///
/// [`Error::Rejected`] when a statement nests deeper than [`MAX_NESTING`] or holds more than
/// [`MAX_SET_OPERATIONS`] set operations.
pub fn check_nesting(sql: &str) -> Result<()> {
    match DFParser::parse_sql_with_dialect(sql, &GenericDialect {}) {
        Ok(statements) => check_parsed(statements).map(drop),
        Err(_) => Ok(()),
    }
}

/// Checks the nesting of parsed statements and gives them back; refused, they are dropped
/// piece by piece ([`crate::deep_drop`]), as a tree past the limit may be too deep to drop.
pub(crate) fn check_parsed(statements: VecDeque<DfStatement>) -> Result<VecDeque<DfStatement>> {
    match statements.iter().try_for_each(check_statement) {
        Ok(()) => Ok(statements),
        Err(e) => {
            crate::deep_drop::discard(statements);
            Err(e)
        }
    }
}

/// Checks the nesting of one parsed statement (see [`check_nesting`]).
fn check_statement(statement: &DfStatement) -> Result<()> {
    let mut statement = statement;
    // EXPLAIN wraps a statement: unwrapped in a loop, not by recursion.
    while let DfStatement::Explain(explain) = statement {
        statement = &explain.statement;
    }
    let mut nesting = Nesting::default();
    let flow = match statement {
        DfStatement::Statement(inner) => inner.visit(&mut nesting),
        DfStatement::CopyTo(copy) => match &copy.source {
            CopyToSource::Query(query) => query.visit(&mut nesting),
            CopyToSource::Relation(_) => ControlFlow::Continue(()),
        },
        _ => ControlFlow::Continue(()),
    };
    match flow {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(exceeded) => Err(Error::Rejected {
            message: exceeded.message(),
        }),
    }
}

/// Which limit a statement passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exceeded {
    Nesting,
    SetOperations,
}

impl Exceeded {
    fn message(self) -> String {
        match self {
            Exceeded::Nesting => format!(
                "the query nests more than {MAX_NESTING} levels deep (UNION/INTERSECT/EXCEPT \
                 chains, subqueries, and operators such as a + b + … or OR within one \
                 another); the limit is {MAX_NESTING}: split it into smaller queries, or use \
                 IN (…) for a long list of values"
            ),
            Exceeded::SetOperations => format!(
                "the query has more than {MAX_SET_OPERATIONS} UNION/INTERSECT/EXCEPT \
                 operations; the limit is {MAX_SET_OPERATIONS}: split it into several queries"
            ),
        }
    }
}

/// The visitor: the depth of the node it is in, what each enclosing node added to it, and the
/// set operations seen so far.
#[derive(Debug, Default)]
struct Nesting {
    depth: usize,
    entered: Vec<usize>,
    set_operations: usize,
}

impl Nesting {
    /// Goes `levels` deeper; breaks past the limit, before the visitor descends any further.
    fn enter(&mut self, levels: usize) -> ControlFlow<Exceeded> {
        self.depth += levels;
        self.entered.push(levels);
        if self.depth > MAX_NESTING {
            ControlFlow::Break(Exceeded::Nesting)
        } else {
            ControlFlow::Continue(())
        }
    }

    fn leave(&mut self) -> ControlFlow<Exceeded> {
        self.depth -= self.entered.pop().unwrap_or(0);
        ControlFlow::Continue(())
    }
}

impl Visitor for Nesting {
    type Break = Exceeded;

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<Exceeded> {
        // The visitor has no hook for a set operation: the whole chain of the query's body
        // counts here, before the visitor walks it.
        let (chain, count) = set_operations(&query.body);
        self.set_operations += count;
        if self.set_operations > MAX_SET_OPERATIONS {
            return ControlFlow::Break(Exceeded::SetOperations);
        }
        self.enter(1 + chain)
    }

    fn post_visit_query(&mut self, _query: &Query) -> ControlFlow<Exceeded> {
        self.leave()
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<Exceeded> {
        // A cast's type (`INT[][]…[]`) nests too, and has no hook of its own.
        let type_depth = match expr {
            Expr::Cast { data_type, .. } => array_depth(data_type),
            _ => 0,
        };
        self.enter(1 + type_depth)
    }

    fn post_visit_expr(&mut self, _expr: &Expr) -> ControlFlow<Exceeded> {
        self.leave()
    }

    fn pre_visit_table_factor(&mut self, _table_factor: &TableFactor) -> ControlFlow<Exceeded> {
        self.enter(1)
    }

    fn post_visit_table_factor(&mut self, _table_factor: &TableFactor) -> ControlFlow<Exceeded> {
        self.leave()
    }
}

/// The longest chain of set operations in a query's body, and how many it holds, walked with
/// an explicit stack (a parenthesized query inside is a query of its own, measured when the
/// visitor reaches it).
fn set_operations(body: &SetExpr) -> (usize, usize) {
    let mut stack = vec![(body, 0usize)];
    let (mut deepest, mut count) = (0usize, 0usize);
    while let Some((node, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        if let SetExpr::SetOperation { left, right, .. } = node {
            count += 1;
            stack.push((left, depth + 1));
            stack.push((right, depth + 1));
        }
    }
    (deepest, count)
}

/// How many array levels a type nests (`INT[][]` is 2), in a loop.
fn array_depth(data_type: &DataType) -> usize {
    let mut depth = 0;
    let mut current = data_type;
    while let DataType::Array(
        ArrayElemTypeDef::AngleBracket(inner)
        | ArrayElemTypeDef::SquareBracket(inner, _)
        | ArrayElemTypeDef::Parenthesis(inner),
    ) = current
    {
        depth += 1;
        current = inner;
    }
    depth
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unions(n: usize) -> String {
        vec!["SELECT 1"; n].join(" UNION ALL ")
    }

    fn rejected(sql: &str) -> String {
        match check_nesting(sql) {
            Err(Error::Rejected { message }) => message,
            other => panic!("{other:?}"),
        }
    }

    /// The bug: 2,000 `SELECT 1` joined by `UNION ALL` overflowed the stack of `ldp mcp` and
    /// `ldp query`. 1,000 pass the limit; 5,000 are refused, saying what the limit is.
    #[test]
    fn a_long_union_chain_is_refused_before_it_plans() {
        assert!(check_nesting(&unions(1_000)).is_ok());
        let message = rejected(&unions(5_000));
        assert!(message.contains("the limit is 2000"), "{message}");
        assert!(message.contains("split it"), "{message}");
    }

    #[test]
    fn long_operator_chains_and_nested_casts_are_refused() {
        let sum = format!("SELECT {}", vec!["1"; 30_000].join("+"));
        assert!(rejected(&sum).contains("nests more than 2000 levels"));
        let ors = format!(
            "SELECT * FROM t WHERE {}",
            (0..3_000)
                .map(|i| format!("x = {i}"))
                .collect::<Vec<_>>()
                .join(" OR ")
        );
        assert!(rejected(&ors).contains("nests more than 2000 levels"));
        let cast = format!("SELECT CAST(NULL AS INT{})", "[]".repeat(3_000));
        assert!(rejected(&cast).contains("nests more than 2000 levels"));
        assert!(check_nesting(&format!("SELECT {}", vec!["1"; 1_000].join("+"))).is_ok());
    }

    #[test]
    fn set_operations_are_counted_across_parenthesized_queries() {
        // 12 levels of parentheses, 4,095 set operations in a balanced tree: shallow, but big.
        let mut sql = "SELECT 1".to_owned();
        for _ in 0..12 {
            sql = format!("({sql}) UNION ALL ({sql})");
        }
        let message = rejected(&sql);
        assert!(message.contains("more than 2000 UNION"), "{message}");
    }

    #[test]
    fn explain_and_wide_queries_pass() {
        assert!(check_nesting(&format!("EXPLAIN {}", unions(5_000))).is_err());
        // Wide is not deep: 5,000 columns, 5,000 values in a list.
        let columns = (0..5_000)
            .map(|i| format!("{i} AS c{i}"))
            .collect::<Vec<_>>();
        assert!(check_nesting(&format!("SELECT {}", columns.join(", "))).is_ok());
        let list = (0..5_000).map(|i| i.to_string()).collect::<Vec<_>>();
        assert!(check_nesting(&format!("SELECT 1 WHERE 1 IN ({})", list.join(", "))).is_ok());
        // What does not parse is the planner's to report.
        assert!(check_nesting("SELECT FROM WHERE (").is_ok());
    }
}
