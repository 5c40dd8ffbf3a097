//! DuckDB's functions in DataFusion's spelling: one rule per DuckDB name.

use datafusion::sql::sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgOperator, FunctionArguments,
    ObjectNamePart, Value,
};

use super::Rewriter;

/// What a DuckDB function becomes.
enum Rule {
    /// DataFusion's function of the same arguments and meaning, under its own name; the call
    /// keeps everything else (`DISTINCT`, `ORDER BY`, `FILTER`, `OVER`).
    Rename(&'static str),
    /// An expression of exactly `args` arguments: `{0}`, `{1}`, … stand for them.
    Template { args: usize, sql: &'static str },
    /// `date_diff(part, start, end)`: the boundaries of `part` crossed.
    DateDiff,
    /// `struct_pack(name := value, …)`: `named_struct('name', value, …)`.
    StructPack,
    /// No DataFusion equivalent: what to write instead (`{0}` stands for the first argument).
    Unsupported(&'static str),
}

/// An expression of one argument (`{0}`).
const fn of1(sql: &'static str) -> Rule {
    Rule::Template { args: 1, sql }
}

/// An expression of two arguments (`{0}`, `{1}`).
const fn of2(sql: &'static str) -> Rule {
    Rule::Template { args: 2, sql }
}

/// DuckDB's name (lower case) and its rule.
const RULES: &[(&str, Rule)] = &[
    ("strftime", Rule::Rename("to_char")),
    ("strptime", Rule::Rename("to_timestamp")),
    ("list_value", Rule::Rename("make_array")),
    ("list_pack", Rule::Rename("make_array")),
    ("string_split", Rule::Rename("string_to_array")),
    ("str_split", Rule::Rename("string_to_array")),
    ("regexp_matches", Rule::Rename("regexp_like")),
    ("len", Rule::Rename("character_length")),
    ("list", Rule::Rename("array_agg")),
    ("first", Rule::Rename("first_value")),
    ("last", Rule::Rename("last_value")),
    ("approx_count_distinct", Rule::Rename("approx_distinct")),
    ("epoch", of1("date_part('epoch', {0})")),
    (
        "epoch_ms",
        of1("CAST(date_part('epoch', {0}) * 1000 AS BIGINT)"),
    ),
    ("year", of1("date_part('year', {0})")),
    ("quarter", of1("date_part('quarter', {0})")),
    ("month", of1("date_part('month', {0})")),
    ("week", of1("date_part('week', {0})")),
    ("weekofyear", of1("date_part('week', {0})")),
    ("day", of1("date_part('day', {0})")),
    ("dayofmonth", of1("date_part('day', {0})")),
    ("dayofweek", of1("date_part('dow', {0})")),
    ("dayofyear", of1("date_part('doy', {0})")),
    ("hour", of1("date_part('hour', {0})")),
    ("minute", of1("date_part('minute', {0})")),
    ("second", of1("date_part('second', {0})")),
    ("dayname", of1("to_char({0}, '%A')")),
    ("monthname", of1("to_char({0}, '%B')")),
    ("count_if", of1("count(CASE WHEN {0} THEN 1 END)")),
    ("countif", of1("count(CASE WHEN {0} THEN 1 END)")),
    (
        "arg_max",
        of2("first_value({0} ORDER BY {1} DESC NULLS LAST)"),
    ),
    (
        "argmax",
        of2("first_value({0} ORDER BY {1} DESC NULLS LAST)"),
    ),
    (
        "max_by",
        of2("first_value({0} ORDER BY {1} DESC NULLS LAST)"),
    ),
    (
        "arg_min",
        of2("first_value({0} ORDER BY {1} ASC NULLS LAST)"),
    ),
    (
        "argmin",
        of2("first_value({0} ORDER BY {1} ASC NULLS LAST)"),
    ),
    (
        "min_by",
        of2("first_value({0} ORDER BY {1} ASC NULLS LAST)"),
    ),
    ("date_diff", Rule::DateDiff),
    ("datediff", Rule::DateDiff),
    ("struct_pack", Rule::StructPack),
    (
        "mode",
        Rule::Unsupported(
            "SELECT {0} FROM … GROUP BY {0} ORDER BY count(*) DESC LIMIT 1 (the most frequent value)",
        ),
    ),
    (
        "histogram",
        Rule::Unsupported("SELECT {0}, count(*) FROM … GROUP BY {0} (a row per value)"),
    ),
    (
        "columns",
        Rule::Unsupported("the columns by name, or * EXCLUDE (a, b) and * REPLACE (expr AS a)"),
    ),
];

/// The DataFusion expression for a call of a DuckDB function, `None` for a call no rule names
/// (a DataFusion function, or a qualified name).
pub(super) fn rewrite_call(
    function: &mut Function,
    rewriter: &Rewriter,
) -> Result<Option<Expr>, String> {
    let [ObjectNamePart::Identifier(ident)] = function.name.0.as_slice() else {
        return Ok(None);
    };
    if ident.quote_style.is_some() {
        return Ok(None);
    }
    let name = ident.value.to_ascii_lowercase();
    let Some((_, rule)) = RULES.iter().find(|(duckdb, _)| *duckdb == name) else {
        return Ok(None);
    };
    match rule {
        Rule::Rename(to) => {
            function.name.0[0] = ObjectNamePart::Identifier((*to).into());
            Ok(None)
        }
        Rule::Template { args, sql } => {
            let Some(values) = plain_args(function).filter(|values| values.len() == *args) else {
                return Ok(None);
            };
            rewriter.parse_expr(&fill(sql, &values)).map(Some)
        }
        Rule::DateDiff => date_diff(&name, function, rewriter).map(Some),
        Rule::StructPack => struct_pack(function, rewriter).map(Some),
        Rule::Unsupported(instead) => {
            let first = plain_args(function)
                .and_then(|values| values.into_iter().next())
                .unwrap_or_else(|| "x".to_owned());
            Err(format!(
                "{name}() is DuckDB's and ldp's SQL (DataFusion) has no equivalent; write {}",
                fill(instead, &[first])
            ))
        }
    }
}

/// The arguments of a plain call (`f(a, b)`: no `DISTINCT`, clauses, `FILTER`, `OVER` or
/// named arguments), as SQL text ready to stand as an operand.
fn plain_args(function: &Function) -> Option<Vec<String>> {
    if function.filter.is_some() || function.over.is_some() || function.null_treatment.is_some() {
        return None;
    }
    let FunctionArguments::List(list) = &function.args else {
        return None;
    };
    if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
        return None;
    }
    list.args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(expr)) => Some(operand(expr)),
            _ => None,
        })
        .collect()
}

/// `expr` as an operand: a name, a literal or a call as it is, anything else in parentheses.
fn operand(expr: &Expr) -> String {
    match expr {
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::Value(_)
        | Expr::Function(_)
        | Expr::Nested(_) => expr.to_string(),
        _ => format!("({expr})"),
    }
}

/// `sql` with each `{i}` replaced by `values[i]`, in one pass (a value holding `{1}` stays as
/// it is).
fn fill(sql: &str, values: &[String]) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}').and_then(|close| {
            let index: usize = after[..close].parse().ok()?;
            Some((close, values.get(index)?))
        }) {
            Some((close, value)) => {
                out.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `date_diff('part', start, end)`: how many `part` boundaries lie between `start` and `end`,
/// as DuckDB counts them.
fn date_diff(name: &str, function: &Function, rewriter: &Rewriter) -> Result<Expr, String> {
    let usage = format!("{name}('day', start, end), the part a string");
    let values = plain_args(function)
        .filter(|values| values.len() == 3)
        .ok_or_else(|| format!("{name}() takes three arguments: {usage}"))?;
    let FunctionArguments::List(list) = &function.args else {
        return Err(format!("{name}() takes three arguments: {usage}"));
    };
    let part = match &list.args[0] {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(value))) => match &value.value {
            Value::SingleQuotedString(part) => part.to_ascii_lowercase(),
            _ => return Err(format!("{name}() needs its part as a string: {usage}")),
        },
        _ => return Err(format!("{name}() needs its part as a string: {usage}")),
    };
    let part = part.trim_end_matches('s');
    let seconds = |unit: &str, per: u64| {
        format!(
            "CAST(floor((date_part('epoch', date_trunc('{unit}', {{2}})) - date_part('epoch', date_trunc('{unit}', {{1}}))) / {per}) AS BIGINT)"
        )
    };
    let template = match part {
        "year" | "yr" | "y" => "CAST(date_part('year', {2}) - date_part('year', {1}) AS BIGINT)".to_owned(),
        "quarter" => "CAST((date_part('year', {2}) - date_part('year', {1})) * 4 + date_part('quarter', {2}) - date_part('quarter', {1}) AS BIGINT)".to_owned(),
        "month" | "mon" => "CAST((date_part('year', {2}) - date_part('year', {1})) * 12 + date_part('month', {2}) - date_part('month', {1}) AS BIGINT)".to_owned(),
        "week" | "w" => seconds("week", 604_800),
        "day" | "d" => seconds("day", 86_400),
        "hour" | "h" => seconds("hour", 3_600),
        "minute" | "min" | "m" => seconds("minute", 60),
        "second" | "sec" => seconds("second", 1),
        other => {
            return Err(format!(
                "{name}() does not know the part '{other}'; use year, quarter, month, week, day, hour, minute or second"
            ));
        }
    };
    rewriter.parse_expr(&fill(&template, &values))
}

/// `struct_pack(a := 1, b := 'x')` → `named_struct('a', 1, 'b', 'x')`.
fn struct_pack(function: &Function, rewriter: &Rewriter) -> Result<Expr, String> {
    let usage = "struct_pack(name := value, …)";
    let FunctionArguments::List(list) = &function.args else {
        return Err(format!("write {usage}"));
    };
    let pairs = list
        .args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Named {
                name,
                arg: FunctionArgExpr::Expr(value),
                operator: FunctionArgOperator::Assignment | FunctionArgOperator::RightArrow,
            } => Some(format!("'{}', {value}", name.value.replace('\'', "''"))),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .filter(|pairs| !pairs.is_empty())
        .ok_or_else(|| format!("write {usage}, every field named"))?;
    rewriter.parse_expr(&format!("named_struct({})", pairs.join(", ")))
}
