//! `GROUP BY ALL` and `ORDER BY ALL` as DuckDB reads them, written as positions.
//!
//! * `GROUP BY ALL` groups by every item of the select list that holds no aggregate call (with
//!   `*` in the list, DataFusion's own reading stands).
//! * `ORDER BY ALL [ASC|DESC] [NULLS …]` orders by every item of the select list, left to right,
//!   each with the same options. DataFusion's generic dialect reads `ALL` there as a column
//!   named `all`, so an unquoted `all` alone in an `ORDER BY` is DuckDB's `ALL`; a select list
//!   with `*` has no positions to write, and is left to DataFusion.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, GroupByExpr, OrderByExpr, OrderByKind, Query, Select, SelectItem, SetExpr, Visit, Visitor,
};

use super::Rewriter;

/// Rewrites `query`'s `GROUP BY ALL` and `ORDER BY ALL`.
pub(super) fn rewrite_all(query: &mut Query, rewriter: &Rewriter) -> Result<(), String> {
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Ok(());
    };
    if let GroupByExpr::All(modifiers) = &select.group_by
        && !has_wildcard(select)
    {
        let modifiers = modifiers.clone();
        let positions = select
            .projection
            .iter()
            .enumerate()
            .filter(|(_, item)| !holds_aggregate(item, rewriter))
            .map(|(i, _)| position(i + 1, rewriter))
            .collect::<Result<Vec<_>, _>>()?;
        select.group_by = GroupByExpr::Expressions(positions, modifiers);
    }
    let Some(order_by) = &mut query.order_by else {
        return Ok(());
    };
    let OrderByKind::Expressions(exprs) = &order_by.kind else {
        return Ok(());
    };
    let [only] = exprs.as_slice() else {
        return Ok(());
    };
    let is_all = matches!(&only.expr, Expr::Identifier(ident)
        if ident.quote_style.is_none() && ident.value.eq_ignore_ascii_case("all"));
    if !is_all || has_wildcard(select) {
        return Ok(());
    }
    let options = only.options;
    let exprs = (1..=select.projection.len())
        .map(|i| {
            Ok(OrderByExpr {
                expr: position(i, rewriter)?,
                options,
                with_fill: None,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    order_by.kind = OrderByKind::Expressions(exprs);
    Ok(())
}

/// The select list's position `i` (from 1), as `GROUP BY` and `ORDER BY` take it.
fn position(i: usize, rewriter: &Rewriter) -> Result<Expr, String> {
    rewriter.parse_expr(&i.to_string())
}

fn has_wildcard(select: &Select) -> bool {
    select.projection.iter().any(|item| {
        matches!(
            item,
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)
        )
    })
}

/// Whether a select item calls an aggregate function outside a window (`sum(x) OVER ()` is
/// not an aggregate of the group).
fn holds_aggregate(item: &SelectItem, rewriter: &Rewriter) -> bool {
    let expr = match item {
        SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } => expr,
        _ => return true,
    };
    let mut finder = AggregateFinder { rewriter };
    expr.visit(&mut finder).is_break()
}

struct AggregateFinder<'a> {
    rewriter: &'a Rewriter,
}

impl Visitor for AggregateFinder<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if let Expr::Function(function) = expr
            && function.over.is_none()
            && self.rewriter.is_aggregate(&function.name.to_string())
        {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}
