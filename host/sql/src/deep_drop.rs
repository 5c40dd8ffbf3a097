//! Dropping a statement too deep to drop: sqlparser's trees drop by recursion, one stack frame
//! per level, so a refused statement of 50,000 levels (`1+1+…+1` in 100,000 characters) would
//! overflow the stack as it is freed. [`discard`] first cuts the tree into pieces at most
//! [`PIECE_DEPTH`] expressions deep (a visitor that goes no deeper, pieces kept on a list), then
//! drops them one by one.

use std::ops::ControlFlow;

use datafusion::sql::parser::{CopyToSource, Statement as DfStatement};
use datafusion::sql::sqlparser::ast::{
    ArrayElemTypeDef, DataType, Expr, Query, SetExpr, Value, Values, VisitMut, VisitorMut,
};

/// The deepest a piece is cut, in expressions or queries within one another.
const PIECE_DEPTH: usize = 64;

/// Drops `statements` without deep recursion.
pub(crate) fn discard(statements: impl IntoIterator<Item = DfStatement>) {
    let mut cutter = Cutter::default();
    for statement in statements {
        let mut statement = statement;
        // EXPLAIN wraps a statement: unwrapped in a loop.
        while let DfStatement::Explain(explain) = statement {
            statement = *explain.statement;
        }
        match statement {
            DfStatement::Statement(mut inner) => {
                let _ = inner.visit(&mut cutter);
            }
            DfStatement::CopyTo(mut copy) => {
                if let CopyToSource::Query(query) = &mut copy.source {
                    let _ = query.visit(&mut cutter);
                }
            }
            _ => {}
        }
        cutter.drop_pieces();
    }
}

/// A piece cut off a tree.
enum Piece {
    Expr(Box<Expr>),
    SetExpr(Box<SetExpr>),
}

/// The visitor that cuts: the depth it is at, and the pieces cut so far.
#[derive(Default)]
struct Cutter {
    depth: usize,
    pieces: Vec<Piece>,
}

impl Cutter {
    /// Drops the pieces, each cut again first (a piece may be deep itself).
    fn drop_pieces(&mut self) {
        while let Some(piece) = self.pieces.pop() {
            self.depth = 0;
            match piece {
                Piece::Expr(mut expr) => {
                    let _ = expr.visit(self);
                }
                Piece::SetExpr(mut set_expr) => {
                    let _ = set_expr.visit(self);
                }
            }
        }
    }
}

impl VisitorMut for Cutter {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        // Set operations have no hook: their chain is cut here, in a loop.
        let mut stack = vec![std::mem::replace(&mut *query.body, empty_set_expr())];
        while let Some(mut node) = stack.pop() {
            if let SetExpr::SetOperation { left, right, .. } = &mut node {
                stack.push(std::mem::replace(&mut **left, empty_set_expr()));
                stack.push(std::mem::replace(&mut **right, empty_set_expr()));
            }
            self.pieces.push(Piece::SetExpr(Box::new(node)));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        self.depth += 1;
        if self.depth > PIECE_DEPTH {
            let piece = std::mem::replace(expr, Expr::value(Value::Null));
            self.pieces.push(Piece::Expr(Box::new(piece)));
        } else if let Expr::Cast { data_type, .. } = expr {
            drop_array_type(std::mem::replace(data_type, DataType::Unspecified));
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, _expr: &mut Expr) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }
}

/// A set expression with nothing in it.
fn empty_set_expr() -> SetExpr {
    SetExpr::Values(Values {
        explicit_row: false,
        value_keyword: false,
        rows: Vec::new(),
    })
}

/// Drops a type of arrays within arrays (`INT[][]…[]`) level by level.
fn drop_array_type(data_type: DataType) {
    let mut next = Some(data_type);
    while let Some(mut current) = next.take() {
        if let DataType::Array(
            ArrayElemTypeDef::AngleBracket(inner)
            | ArrayElemTypeDef::SquareBracket(inner, _)
            | ArrayElemTypeDef::Parenthesis(inner),
        ) = &mut current
        {
            next = Some(std::mem::replace(&mut **inner, DataType::Unspecified));
        }
    }
}

#[cfg(test)]
mod tests {
    use datafusion::sql::parser::DFParser;
    use datafusion::sql::sqlparser::dialect::GenericDialect;

    use super::*;

    /// Dropped on a thread of 256 KiB: statements of 50,000 levels, freed without recursion.
    #[test]
    fn deep_statements_drop_on_a_small_stack() {
        let sqls = [
            format!("SELECT {}", vec!["1"; 50_000].join("+")),
            vec!["SELECT 1"; 10_000].join(" UNION ALL "),
            format!("SELECT CAST(NULL AS INT{})", "[]".repeat(50_000)),
            format!(
                "EXPLAIN SELECT * FROM t WHERE {}",
                vec!["x IS NULL"; 10_000].join(" OR ")
            ),
        ];
        for sql in sqls {
            let statements = DFParser::parse_sql_with_dialect(&sql, &GenericDialect {}).unwrap();
            std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || discard(statements))
                .unwrap()
                .join()
                .unwrap();
        }
    }
}
