//! The cap on one function's result: the functions that build big values from small inputs
//! (`repeat('x', 2000000000)` is 2 GB from 22 bytes of SQL) are replaced in every session by
//! checked versions, same names, aliases, types and results (declared volatile), that work out how many bytes the
//! result of a call can take from their arguments and refuse a call past the cap *before*
//! DataFusion's own implementation allocates anything. A memory pool cannot do this: it only
//! tracks what operators reserve, not a value a function builds.
//!
//! The cap is the session's memory limit, and at most [`MAX_VALUE_BYTES`] (also the cap without
//! a limit). It bounds one call, that is one batch of results (a result of constant arguments
//! counts once for each row of the batch, as it becomes a column; these functions are not
//! folded into constants when the query plans): `repeat`, `lpad`, `rpad` (the count), `replace` and `regexp_replace` (every
//! match replaced), `concat` and `concat_ws` (every argument), `array_repeat` and
//! `array_resize` (the count times an element), `range` and `generate_series` (the elements
//! from start to stop). Every other function's result is proportional to its inputs.

use std::any::Any;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array};
use arrow_schema::{DataType, FieldRef, TimeUnit};
use datafusion::arrow::compute::cast;
use datafusion::arrow::compute::kernels::length::length;
use datafusion::common::ScalarValue;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::context::SessionContext;
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, Expr, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF,
    ScalarUDFImpl, Signature, Volatility,
};

/// The largest result of one call of a checked function, without a memory limit or under a
/// larger one: 1 GiB.
pub const MAX_VALUE_BYTES: usize = 1 << 30;

/// How a checked function's result grows with its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Growth {
    /// `repeat(s, n)`: `n` times `s`.
    Repeat,
    /// `lpad(s, n [, fill])`, `rpad`: `n` characters of `s` or `fill`.
    Pad,
    /// `replace(s, from, to)`: `to` for every `from` in `s`.
    Replace,
    /// `regexp_replace(s, pattern, replacement [, flags])`: the replacement (and the groups it
    /// names) at every position of `s`.
    RegexpReplace,
    /// `concat(a, b, …)`: every argument.
    Concat,
    /// `concat_ws(separator, a, b, …)`: every argument and a separator between each.
    ConcatWs,
    /// `array_repeat(element, n)`: `n` elements.
    ArrayRepeat,
    /// `array_resize(list, n [, value])`: `n` elements.
    ArrayResize,
    /// `range(start, stop, step)`, `generate_series`: the elements from start to stop.
    Range,
}

/// The checked functions, by DataFusion's name.
const CHECKED: [(&str, Growth); 11] = [
    ("repeat", Growth::Repeat),
    ("lpad", Growth::Pad),
    ("rpad", Growth::Pad),
    ("replace", Growth::Replace),
    ("regexp_replace", Growth::RegexpReplace),
    ("concat", Growth::Concat),
    ("concat_ws", Growth::ConcatWs),
    ("array_repeat", Growth::ArrayRepeat),
    ("array_resize", Growth::ArrayResize),
    ("range", Growth::Range),
    ("generate_series", Growth::Range),
];

/// The cap of a session with `memory_limit` bytes (none: [`MAX_VALUE_BYTES`]).
pub(crate) fn cap_for(memory_limit: Option<usize>) -> usize {
    memory_limit.map_or(MAX_VALUE_BYTES, |limit| limit.min(MAX_VALUE_BYTES))
}

/// Replaces the functions of `context` that [`CHECKED`] names by checked versions capped at
/// `cap` bytes.
pub(crate) fn register(context: &SessionContext, cap: usize) {
    let registered = context.state().scalar_functions().clone();
    for (name, growth) in CHECKED {
        if let Some(udf) = registered.get(name) {
            context.register_udf(ScalarUDF::new_from_impl(Capped::new(
                ScalarUDF::clone(udf),
                growth,
                cap,
            )));
        }
    }
}

/// A function of DataFusion's, checked before each call.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Capped {
    inner: ScalarUDF,
    /// The inner function's, but volatile (see [`Capped::new`]).
    signature: Signature,
    growth: Growth,
    cap: usize,
}

impl Capped {
    /// `inner` checked, declared volatile: the planner then never folds a call with constant
    /// arguments into a constant, which a projection would copy into every row of a batch
    /// unchecked (`SELECT repeat('x', 200000000) FROM t` is 200 MB a row). A call runs for
    /// each batch instead, and its constant result counts once for each row.
    fn new(inner: ScalarUDF, growth: Growth, cap: usize) -> Capped {
        let mut signature = inner.signature().clone();
        signature.volatility = Volatility::Volatile;
        Capped {
            inner,
            signature,
            growth,
            cap,
        }
    }

    /// Refuses a call whose result could take more than the cap.
    fn check(&self, args: &ScalarFunctionArgs) -> Result<()> {
        let bytes = bound(self.growth, &args.args, args.number_rows)?;
        if bytes > self.cap as u128 {
            return Err(DataFusionError::ResourcesExhausted(format!(
                "{}(…) would build {} in one result, more than the {} one function's result may \
                 take (the query's memory limit, at most {}); ask for a smaller value",
                self.name(),
                mib(bytes),
                mib(self.cap as u128),
                mib(MAX_VALUE_BYTES as u128),
            )));
        }
        Ok(())
    }

    /// `expr` with the unchecked function (a simplification builds it anew) checked again.
    fn recheck(&self, expr: Expr) -> Result<Expr> {
        expr.transform_up(|node| match node {
            Expr::ScalarFunction(mut call)
                if call.func.name() == self.name()
                    && !call.func.inner().as_any().is::<Capped>() =>
            {
                call.func = Arc::new(ScalarUDF::new_from_impl(self.clone()));
                Ok(Transformed::yes(Expr::ScalarFunction(call)))
            }
            other => Ok(Transformed::no(other)),
        })
        .map(|t| t.data)
    }
}

impl ScalarUDFImpl for Capped {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn name(&self) -> &str {
        self.inner.name()
    }

    fn aliases(&self) -> &[String] {
        self.inner.aliases()
    }

    fn schema_name(&self, args: &[Expr]) -> Result<String> {
        self.inner.inner().schema_name(args)
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.inner().return_type(arg_types)
    }

    fn with_updated_config(&self, config: &ConfigOptions) -> Option<ScalarUDF> {
        let inner = self.inner.inner().with_updated_config(config)?;
        Some(ScalarUDF::new_from_impl(Capped::new(
            inner,
            self.growth,
            self.cap,
        )))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        self.inner.return_field_from_args(args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        self.check(&args)?;
        self.inner.invoke_with_args(args)
    }

    fn simplify(&self, args: Vec<Expr>, info: &SimplifyContext) -> Result<ExprSimplifyResult> {
        match self.inner.simplify(args, info)? {
            ExprSimplifyResult::Simplified(expr) => {
                Ok(ExprSimplifyResult::Simplified(self.recheck(expr)?))
            }
            original => Ok(original),
        }
    }

    fn short_circuits(&self) -> bool {
        self.inner.short_circuits()
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        self.inner.coerce_types(arg_types)
    }

    fn documentation(&self) -> Option<&Documentation> {
        self.inner.documentation()
    }
}

/// The most bytes the result of one call can take: summed over the rows of the batch; a
/// result of constant arguments is one value, which becomes a column of the batch's rows.
fn bound(growth: Growth, args: &[ColumnarValue], number_rows: usize) -> Result<u128> {
    let constant = args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_)));
    let rows = if constant { 1 } else { number_rows };
    let copies = if constant {
        number_rows.max(1) as u128
    } else {
        1
    };
    let arrays = args
        .iter()
        .map(|arg| match arg {
            ColumnarValue::Array(array) => Ok(Arc::clone(array)),
            ColumnarValue::Scalar(value) => value.to_array_of_size(1),
        })
        .collect::<Result<Vec<_>>>()?;
    let arg = |i: usize| arrays.get(i);
    let sum = |row_bytes: &dyn Fn(usize) -> u128| {
        (0..rows).map(row_bytes).fold(0u128, u128::saturating_add)
    };
    let bytes = match growth {
        Growth::Repeat => {
            let (text, count) = (bytes_of(arg(0))?, counts(arg(1))?);
            sum(&|r| text.at(r).saturating_mul(count.at(r)))
        }
        Growth::Pad => {
            let (text, count) = (bytes_of(arg(0))?, counts(arg(1))?);
            // A character of the fill takes at most 4 bytes (and no more than the fill).
            let fill = match arg(2) {
                Some(_) => bytes_of(arg(2))?.map(|b| b.min(4)),
                None => Rows::constant(1),
            };
            sum(&|r| text.at(r) + count.at(r).saturating_mul(fill.at(r)))
        }
        Growth::Replace => {
            let (text, from, to) = (bytes_of(arg(0))?, bytes_of(arg(1))?, bytes_of(arg(2))?);
            sum(&|r| text.at(r) + (text.at(r) / from.at(r).max(1) + 1).saturating_mul(to.at(r)))
        }
        Growth::RegexpReplace => {
            // A match at every position, and each group reference in the replacement (fewer
            // than its bytes) expanding to at most the whole text.
            let (text, replacement) = (bytes_of(arg(0))?, bytes_of(arg(2))?);
            sum(&|r| text.at(r) + (2 * text.at(r) + 1).saturating_mul(replacement.at(r)))
        }
        Growth::Concat => {
            let parts = (0..arrays.len())
                .map(|i| bytes_of(arg(i)))
                .collect::<Result<Vec<_>>>()?;
            sum(&|r| parts.iter().map(|p| p.at(r)).sum())
        }
        Growth::ConcatWs => {
            let parts = (0..arrays.len())
                .map(|i| bytes_of(arg(i)))
                .collect::<Result<Vec<_>>>()?;
            let separators = parts.len().saturating_sub(2) as u128;
            sum(&|r| parts[1..].iter().map(|p| p.at(r)).sum::<u128>() + separators * parts[0].at(r))
        }
        Growth::ArrayRepeat => {
            let (element, count) = (element_bytes(arg(0))?, counts(arg(1))?);
            sum(&|r| element.at(r).saturating_mul(count.at(r)))
        }
        Growth::ArrayResize => {
            let element = match (arg(0), arg(2)) {
                (Some(list), value) => {
                    let width = list_element_width(list.data_type());
                    element_bytes(value)?.map(|b| b.max(width))
                }
                (None, _) => Rows::constant(0),
            };
            let count = counts(arg(1))?;
            sum(&|r| element.at(r).saturating_mul(count.at(r)))
        }
        Growth::Range => range_bytes(&arrays, rows)?,
    };
    Ok(bytes.saturating_mul(copies))
}

/// A value for each row; one value stands for every row.
struct Rows(Vec<u128>);

impl Rows {
    fn constant(value: u128) -> Rows {
        Rows(vec![value])
    }

    fn at(&self, row: usize) -> u128 {
        match self.0.len() {
            1 => self.0[0],
            _ => self.0.get(row).copied().unwrap_or(0),
        }
    }

    fn map(self, f: impl Fn(u128) -> u128) -> Rows {
        Rows(self.0.into_iter().map(f).collect())
    }
}

/// The bytes of each value of a text or binary argument (of any other type, as text); a null
/// is 0, and so is a missing argument.
fn bytes_of(array: Option<&ArrayRef>) -> Result<Rows> {
    let Some(array) = array else {
        return Ok(Rows::constant(0));
    };
    let lengths = match length(array) {
        Ok(lengths) => lengths,
        Err(_) => length(&cast(array, &DataType::Utf8)?)?,
    };
    Ok(Rows(non_negative(&cast(&lengths, &DataType::Int64)?)))
}

/// The whole numbers of a count argument; a null or a negative count is 0.
fn counts(array: Option<&ArrayRef>) -> Result<Rows> {
    match array {
        Some(array) => Ok(Rows(non_negative(&cast(array, &DataType::Int64)?))),
        None => Ok(Rows::constant(0)),
    }
}

fn non_negative(array: &ArrayRef) -> Vec<u128> {
    let Some(values) = array.as_any().downcast_ref::<Int64Array>() else {
        return vec![0];
    };
    values
        .iter()
        .map(|v| v.map_or(0, |v| v.max(0) as u128))
        .collect()
}

/// The bytes of each value of an array element argument (a list element's memory for nested
/// values); a missing argument is 0.
fn element_bytes(array: Option<&ArrayRef>) -> Result<Rows> {
    let Some(array) = array else {
        return Ok(Rows::constant(0));
    };
    if let Some(width) = array.data_type().primitive_width() {
        return Ok(Rows::constant(width as u128));
    }
    if matches!(
        array.data_type(),
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
    ) {
        return bytes_of(Some(array));
    }
    (0..array.len())
        .map(|row| Ok(ScalarValue::try_from_array(array, row)?.size() as u128))
        .collect::<Result<Vec<_>>>()
        .map(Rows)
}

/// The bytes an element of a list type takes at least (8 when unknown).
fn list_element_width(data_type: &DataType) -> u128 {
    match data_type {
        DataType::List(field) | DataType::LargeList(field) | DataType::FixedSizeList(field, _) => {
            field.data_type().primitive_width().unwrap_or(8) as u128
        }
        _ => 8,
    }
}

/// The bytes of the elements `range` and `generate_series` build: from start to stop by step,
/// whole numbers (8 bytes each), dates (4) or timestamps (8).
fn range_bytes(arrays: &[ArrayRef], rows: usize) -> Result<u128> {
    let Some(first) = arrays.first() else {
        return Ok(0);
    };
    let (unit, width) = match first.data_type() {
        DataType::Date32 | DataType::Date64 => (RangeUnit::Days, 4),
        DataType::Timestamp(_, _) => (RangeUnit::Nanoseconds, 8),
        _ => (RangeUnit::Whole, 8),
    };
    let ends = |i: usize| -> Result<Vec<Option<i128>>> {
        let numbers = match unit {
            RangeUnit::Days => cast(
                &cast(&cast(&arrays[i], &DataType::Date32)?, &DataType::Int32)?,
                &DataType::Int64,
            )?,
            RangeUnit::Nanoseconds => cast(
                &cast(&arrays[i], &DataType::Timestamp(TimeUnit::Nanosecond, None))?,
                &DataType::Int64,
            )?,
            RangeUnit::Whole => cast(&arrays[i], &DataType::Int64)?,
        };
        Ok(numbers
            .as_any()
            .downcast_ref::<Int64Array>()
            .map(|values| values.iter().map(|v| v.map(i128::from)).collect())
            .unwrap_or_default())
    };
    let (starts, stops) = match arrays.len() {
        1 => (vec![Some(0)], ends(0)?),
        _ => (ends(0)?, ends(1)?),
    };
    let steps: Vec<Option<i128>> = match (unit, arrays.get(2)) {
        (RangeUnit::Whole, Some(_)) => ends(2)?,
        (RangeUnit::Whole, None) => vec![Some(1)],
        (_, Some(step)) => interval_steps(step, unit)?,
        (_, None) => vec![Some(1)],
    };
    let at = |values: &[Option<i128>], row: usize| match values.len() {
        1 => values[0],
        _ => values.get(row).copied().flatten(),
    };
    Ok((0..rows)
        .map(
            |row| match (at(&starts, row), at(&stops, row), at(&steps, row)) {
                (Some(start), Some(stop), Some(step)) => {
                    ((stop - start).unsigned_abs() / step.unsigned_abs().max(1) + 1) * width
                }
                _ => 0,
            },
        )
        .fold(0u128, u128::saturating_add))
}

/// What a range counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RangeUnit {
    Whole,
    Days,
    Nanoseconds,
}

/// The shortest an interval step can be, in `unit` (a month at least 28 days, a day at least
/// 23 hours); 1 when its parts point different ways.
fn interval_steps(step: &ArrayRef, unit: RangeUnit) -> Result<Vec<Option<i128>>> {
    let step = cast(
        step,
        &DataType::Interval(arrow_schema::IntervalUnit::MonthDayNano),
    )?;
    let Some(step) = step
        .as_any()
        .downcast_ref::<arrow_array::IntervalMonthDayNanoArray>()
    else {
        return Ok(vec![Some(1)]);
    };
    const DAY_NS: i128 = 86_400_000_000_000;
    Ok(step
        .iter()
        .map(|value| {
            value.map(|v| {
                let (months, days, nanos) = (
                    i128::from(v.months),
                    i128::from(v.days),
                    i128::from(v.nanoseconds),
                );
                let same_way = [months, days, nanos].iter().all(|p| *p >= 0)
                    || [months, days, nanos].iter().all(|p| *p <= 0);
                if !same_way {
                    return 1;
                }
                let shortest = match unit {
                    RangeUnit::Days => months.abs() * 28 + days.abs(),
                    _ => months.abs() * 28 * DAY_NS + days.abs() * (DAY_NS / 24 * 23) + nanos.abs(),
                };
                shortest.max(1)
            })
        })
        .collect())
}

/// `bytes` in MiB, for a message.
fn mib(bytes: u128) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

#[cfg(test)]
mod tests {
    use arrow_array::RecordBatch;
    use datafusion::arrow::util::display::array_value_to_string;

    use super::*;

    const CAP: usize = 256 << 20;

    fn context() -> SessionContext {
        let context = SessionContext::new();
        register(&context, CAP);
        let x: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
        context
            .register_batch("t", RecordBatch::try_from_iter([("x", x)]).unwrap())
            .unwrap();
        context
    }

    fn run(sql: &str) -> Result<Vec<String>> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let batches = context().sql(sql).await?.collect().await?;
            let mut values = Vec::new();
            for batch in batches {
                for row in 0..batch.num_rows() {
                    values.push(array_value_to_string(batch.column(0), row)?);
                }
            }
            Ok(values)
        })
    }

    fn refused(sql: &str) -> String {
        match run(sql) {
            Err(e) => e.find_root().to_string(),
            Ok(values) => panic!("{sql} gave {values:?}"),
        }
    }

    /// The bug: `ldp mcp --max-memory-mb 256` answered `length(repeat('x', 2000000000))` after
    /// the process had reached 7.7 GB. The checked `repeat` refuses it before allocating.
    #[test]
    fn a_repeat_bomb_is_refused_before_it_allocates() {
        let message = refused("SELECT length(repeat('x', 2000000000))");
        assert!(
            message.contains("repeat(…) would build 1907.3 MiB"),
            "{message}"
        );
        assert!(
            message.contains("more than the 256.0 MiB one function's result may take"),
            "{message}"
        );
        // Per row of a column too: 3 rows of 100 MB.
        assert!(refused("SELECT repeat('x', 100000000 + x) FROM t").contains("repeat"));
        // And a constant, which becomes a column: 3 rows of 100 MB, not folded into one value.
        assert!(
            refused("SELECT length(s) FROM (SELECT repeat('x', 100000000) AS s FROM t)")
                .contains("repeat(…) would build 286.1 MiB")
        );
    }

    #[test]
    fn every_checked_function_refuses_a_huge_result() {
        for (sql, name) in [
            ("SELECT lpad('x', 2000000000)", "lpad"),
            ("SELECT rpad('x', 2000000000, 'ab')", "rpad"),
            (
                "SELECT replace(repeat('x', 100000000), 'x', 'xxxxxxx')",
                "replace",
            ),
            (
                "SELECT regexp_replace(repeat('x', 100000000), 'x', 'yy', 'g')",
                "regexp_replace",
            ),
            ("SELECT array_repeat(1, 1000000000)", "array_repeat"),
            ("SELECT array_resize([1], 1000000000, 0)", "array_resize"),
            ("SELECT range(10000000000)", "range"),
            (
                "SELECT generate_series(TIMESTAMP '1900-01-01', TIMESTAMP '2100-01-01', INTERVAL '1 second')",
                "generate_series",
            ),
        ] {
            let message = refused(sql);
            assert!(
                message.contains(&format!("{name}(…) would build")),
                "{sql}: {message}"
            );
        }
        // concat of one value 300 times (its literals are merged by a simplification first).
        let many = vec!["s"; 300].join(", ");
        let sql = format!(
            "SELECT length(concat({many}, 'a', 'b')) FROM (SELECT repeat('x', 1000000) AS s)"
        );
        assert!(refused(&sql).contains("concat(…) would build"));
    }

    #[test]
    fn the_checked_functions_give_datafusions_results() {
        let one = |sql: &str| run(sql).unwrap().remove(0);
        assert_eq!(one("SELECT repeat('ab', 3)"), "ababab");
        assert_eq!(one("SELECT lpad('7', 3, '0')"), "007");
        assert_eq!(one("SELECT rpad('ab', 4)"), "ab  ");
        assert_eq!(one("SELECT replace('a-b-c', '-', '+')"), "a+b+c");
        assert_eq!(
            one("SELECT regexp_replace('a1b22', '[0-9]+', '#', 'g')"),
            "a#b#"
        );
        assert_eq!(one("SELECT concat('a', 1, NULL, 'b')"), "a1b");
        assert_eq!(one("SELECT concat_ws('-', 'a', 'b', 'c')"), "a-b-c");
        assert_eq!(one("SELECT array_repeat(7, 3)"), "[7, 7, 7]");
        assert_eq!(one("SELECT array_resize([1, 2], 3, 0)"), "[1, 2, 0]");
        assert_eq!(one("SELECT range(3)"), "[0, 1, 2]");
        assert_eq!(one("SELECT generate_series(1, 3)"), "[1, 2, 3]");
        assert_eq!(
            one("SELECT range(DATE '2024-01-01', DATE '2024-01-03', INTERVAL '1 day')"),
            "[2024-01-01, 2024-01-02]"
        );
        assert_eq!(
            run("SELECT repeat('x', x) FROM t ORDER BY x").unwrap(),
            ["x", "xx", "xxx"]
        );
        assert_eq!(one("SELECT list_repeat('a', 2)"), "[a, a]");
        // A large value under the cap is fine.
        assert_eq!(one("SELECT length(repeat('x', 100000000))"), "100000000");
    }

    #[test]
    fn the_cap_is_the_memory_limit_and_at_most_a_gib() {
        assert_eq!(cap_for(Some(256 << 20)), 256 << 20);
        assert_eq!(cap_for(Some(8 << 30)), MAX_VALUE_BYTES);
        assert_eq!(cap_for(None), MAX_VALUE_BYTES);
    }
}
