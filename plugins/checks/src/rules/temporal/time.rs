//! Time columns as the Python tool reads them (`_time_kind`, `_time_values`, `_rescale`,
//! `_to_ms`, `_limit_in`), Python's number formatting, and the `could not be evaluated: ...`
//! verdict of an Arrow error the Python tool would have hit.

use arrow_schema::{DataType, TimeUnit};
use ldp_plugin_sdk::prelude::CheckResult;
use serde_json::{Value, json};

use super::value::{Raw, sortable};
use crate::py::float_repr;
use crate::types::type_name;

/// What a time column holds; `max_skew` needs both columns of the same kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Timestamps (any unit, any time zone) and dates.
    Instant,
    /// Durations.
    Duration,
    /// Integers and floats, read in the check's `unit`.
    Number,
}

/// The kind of a column's type; the Python tool's `_NotTemporal` message otherwise.
pub fn kind(data_type: &DataType) -> Result<Kind, String> {
    use DataType as D;
    match data_type {
        D::Timestamp(_, _) | D::Date32 | D::Date64 => Ok(Kind::Instant),
        D::Duration(_) => Ok(Kind::Duration),
        D::Int8 | D::Int16 | D::Int32 | D::Int64 | D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64 => {
            Ok(Kind::Number)
        }
        D::Float16 | D::Float32 | D::Float64 => Ok(Kind::Number),
        other => Err(format!(
            "needs a timestamp, date, duration or numeric column, not {}",
            type_name(other)
        )),
    }
}

/// A unit time values are counted in (`D` for `date32` days).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unit {
    /// Nanoseconds.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
    /// Days.
    D,
}

impl Unit {
    /// A check's `unit`.
    pub fn from_param(unit: ldp_check_params::TimeUnit) -> Unit {
        match unit {
            ldp_check_params::TimeUnit::S => Unit::S,
            ldp_check_params::TimeUnit::Ms => Unit::Ms,
            ldp_check_params::TimeUnit::Us => Unit::Us,
            ldp_check_params::TimeUnit::Ns => Unit::Ns,
        }
    }

    /// Nanoseconds in one unit.
    pub fn nanos(self) -> i64 {
        match self {
            Unit::Ns => 1,
            Unit::Us => 1_000,
            Unit::Ms => 1_000_000,
            Unit::S => 1_000_000_000,
            Unit::D => 86_400_000_000_000,
        }
    }

    /// The unit a column of `data_type` counts in (`numeric` for numbers).
    pub fn of(data_type: &DataType, numeric: Unit) -> Unit {
        let of_time = |unit: &TimeUnit| match unit {
            TimeUnit::Second => Unit::S,
            TimeUnit::Millisecond => Unit::Ms,
            TimeUnit::Microsecond => Unit::Us,
            TimeUnit::Nanosecond => Unit::Ns,
        };
        match data_type {
            DataType::Timestamp(unit, _) | DataType::Duration(unit) => of_time(unit),
            DataType::Date32 => Unit::D,
            DataType::Date64 => Unit::Ms,
            _ => numeric,
        }
    }
}

/// A time value as a count of its unit: int64, or float64 for float columns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Count {
    /// An integer count.
    Int(i64),
    /// A float count.
    Float(f64),
}

impl Count {
    /// The count as a float (Python's `float(value)`).
    pub fn as_f64(self) -> f64 {
        match self {
            Count::Int(v) => v as f64,
            Count::Float(v) => v,
        }
    }
}

/// `_time_values` of one value: the cast to int64 fails for a uint64 over `i64::MAX`.
pub fn count(raw: Raw<'_>) -> Result<Count, EvalError> {
    match raw {
        Raw::Int(v) => Ok(Count::Int(v)),
        Raw::UInt(v) => i64::try_from(v).map(Count::Int).map_err(|_| {
            EvalError::invalid(format!("Integer value {v} not in range: 0 to {}", i64::MAX))
        }),
        Raw::Float(v) => Ok(Count::Float(v)),
        _ => Ok(Count::Int(0)),
    }
}

/// `b - a` (`_subtract`): float when either is a float, else checked int64.
pub fn subtract(b: Count, a: Count) -> Result<Count, EvalError> {
    match (b, a) {
        (Count::Int(b), Count::Int(a)) => b
            .checked_sub(a)
            .map(Count::Int)
            .ok_or_else(EvalError::overflow),
        (b, a) => Ok(Count::Float(b.as_f64() - a.as_f64())),
    }
}

/// The largest integer a comparison with a float limit can take: pyarrow casts the int64 side
/// to float64, refusing integers beyond 2**53.
const EXACT: i64 = 1 << 53;

/// `value > limit` as pyarrow's `greater(int64, float)` computes it (with its cast check).
pub fn over(value: Count, limit: f64) -> Result<bool, EvalError> {
    match value {
        Count::Float(v) => Ok(v > limit),
        Count::Int(v) if !(-EXACT..=EXACT).contains(&v) => Err(EvalError::invalid(format!(
            "Integer value {v} not in range: -{EXACT} to {EXACT}"
        ))),
        Count::Int(v) => Ok(v as f64 > limit),
    }
}

/// `_limit_in`: `max_ms` as a count of `unit`.
pub fn limit_in(max_ms: f64, unit: Unit) -> f64 {
    max_ms * 1e6 / unit.nanos() as f64
}

/// `_to_ms`: a count of `unit` in milliseconds, rounded to 3 decimals.
pub fn to_ms(value: f64, unit: Unit) -> f64 {
    py_round(value * unit.nanos() as f64 / 1e6, 3)
}

/// Python's `round(x, digits)` (correctly rounded, ties to even).
pub fn py_round(x: f64, digits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.digits$}").parse().unwrap_or(x)
}

/// Python's `f"{x:.2%}"`.
pub fn percent(x: f64) -> String {
    format!("{:.2}%", x * 100.0)
}

/// Python's `str()` of a config number: `3600000` for an integer, `0.5` for a float.
pub fn number_text(value: &Value) -> String {
    match value {
        Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
        other => float_repr(other.as_f64().unwrap_or(f64::NAN)),
    }
}

/// Arrow's floating-point sum, fed one value at a time: values are summed in blocks of 16, and
/// the blocks pairwise (a binary tree), so the mean of a column has the Python tool's exact bits
/// (as computed over one chunk).
#[derive(Clone, Debug, Default)]
pub struct PairwiseSum {
    block: f64,
    in_block: u8,
    levels: Vec<f64>,
    mask: u64,
    root: usize,
}

impl PairwiseSum {
    /// Adds a value.
    pub fn add(&mut self, value: f64) {
        self.block += value;
        self.in_block += 1;
        if self.in_block == 16 {
            self.reduce(self.block);
            self.block = 0.0;
            self.in_block = 0;
        }
    }

    fn reduce(&mut self, mut sum: f64) {
        let mut level = 0;
        let mut bit = 1u64;
        loop {
            if self.levels.len() <= level {
                self.levels.resize(level + 1, 0.0);
            }
            self.levels[level] += sum;
            self.mask ^= bit;
            if self.mask & bit != 0 {
                break;
            }
            sum = self.levels[level];
            self.levels[level] = 0.0;
            level += 1;
            bit <<= 1;
        }
        self.root = self.root.max(level);
    }

    /// The sum of the values added.
    pub fn total(&self) -> f64 {
        let mut this = self.clone();
        if this.in_block > 0 {
            this.reduce(this.block);
        }
        for level in 1..=this.root {
            let below = this.levels.get(level - 1).copied().unwrap_or(0.0);
            if let Some(slot) = this.levels.get_mut(level) {
                *slot += below;
            }
        }
        this.levels.get(this.root).copied().unwrap_or(0.0)
    }
}

/// An Arrow error the Python tool's computation raises; the check then fails with `could not be
/// evaluated: {message}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    /// The Arrow error message.
    pub message: String,
    /// The pyarrow exception class (`ArrowInvalid`...).
    pub class: &'static str,
}

impl EvalError {
    /// An `ArrowInvalid` error.
    pub fn invalid(message: String) -> Self {
        EvalError {
            message,
            class: "ArrowInvalid",
        }
    }

    /// Checked arithmetic overflowed.
    pub fn overflow() -> Self {
        EvalError::invalid("overflow".to_owned())
    }

    /// A compute function has no kernel for `data_type`.
    pub fn no_kernel(function: &str, data_type: &DataType) -> Self {
        let name = type_name(data_type);
        EvalError {
            message: format!(
                "Function '{function}' has no kernel matching input types ({name}, {name})"
            ),
            class: "ArrowNotImplementedError",
        }
    }

    /// The error of `sort_indices` on columns of `keys` (in sort key order), if one of them can't
    /// be sorted: one key sorts as an array, several as a record batch, with other messages.
    pub fn sorting(keys: &[&DataType]) -> Option<Self> {
        let unsortable = keys.iter().find(|t| !sortable(t))?;
        let name = type_name(unsortable);
        Some(if keys.len() > 1 {
            EvalError {
                message: format!("Unsupported type for RecordBatch sorting: {name}"),
                class: "ArrowTypeError",
            }
        } else if matches!(unsortable, DataType::Float16 | DataType::Dictionary(_, _)) {
            EvalError {
                message: name,
                class: "ArrowNotImplementedError",
            }
        } else {
            EvalError {
                message: format!("Sorting not supported for type {name}"),
                class: "ArrowTypeError",
            }
        })
    }

    /// The verdict: `could not be evaluated: ...` with `row_count` and the error class.
    pub fn result(&self, name: String, rows: u64) -> CheckResult {
        CheckResult {
            name,
            passed: false,
            details: format!("could not be evaluated: {}", self.message),
            failing_rows: 0,
            metrics: json!({"row_count": rows, "error": self.class}).to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_and_print_as_python() {
        assert_eq!(py_round(0.0625, 3), 0.062);
        assert_eq!(py_round(2.5e-3, 3), 0.003);
        assert_eq!(py_round(1.0005, 3), 1.0);
        assert_eq!(py_round(2.0 / 3.0, 6), 0.666667);
        assert_eq!(percent(2.0 / 3.0), "66.67%");
        assert_eq!(percent(0.5), "50.00%");
        assert_eq!(number_text(&json!(3600000)), "3600000");
        assert_eq!(number_text(&json!(0.5)), "0.5");
        assert_eq!(number_text(&json!(1000.0)), "1000.0");
        assert_eq!(to_ms(208_800_000.0, Unit::Ms), 208_800_000.0);
        assert_eq!(to_ms(86_399_999_995.0, Unit::Us), 86_399_999.995);
        assert_eq!(limit_in(1.0, Unit::D), 1e6 / 86_400_000_000_000.0);
    }

    #[test]
    fn big_integers_refuse_the_float_comparison() {
        assert_eq!(over(Count::Int(5), 4.5), Ok(true));
        assert!(over(Count::Int(1 << 60), 1.0).is_err());
        assert_eq!(
            subtract(Count::Int(i64::MIN), Count::Int(1)),
            Err(EvalError::overflow())
        );
    }

    #[test]
    fn sums_pairwise_as_arrow() {
        // pyarrow: pc.mean(pa.array([0.1] * 37)) is 0.10000000000000002 (a plain loop gives
        // 0.10000000000000005).
        let mut sum = PairwiseSum::default();
        for _ in 0..37 {
            sum.add(0.1);
        }
        assert_eq!(sum.total() / 37.0, 0.10000000000000002);
        assert_eq!(PairwiseSum::default().total(), 0.0);
    }
}
