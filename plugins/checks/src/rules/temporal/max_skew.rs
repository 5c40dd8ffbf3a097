//! `max_skew`: two time columns are at most `max_ms` apart on every row.
//!
//! Streams in constant memory: counts, the largest skew, the sum of the skews (for the mean),
//! the first five rows over the limit, and the first Arrow error the Python tool would raise on
//! the same values (an integer overflow, an integer too large for its float comparison).

use arrow_schema::DataType;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value, json};

use super::time::{
    Count, EvalError, PairwiseSum, Unit, count, kind, limit_in, number_text, over, to_ms,
};
use super::value::Reader;
use super::{index, metrics_text};
use crate::py::{Py, float_repr, rows};
use crate::rule::Rule;
use crate::types::type_name;
use ldp_check_params::MaxSkew as Params;

const SAMPLE_SIZE: usize = 5;

/// The largest integer pyarrow casts to float64 without refusing it.
const EXACT: i64 = 1 << 53;

/// The rule of a `max_skew` check named `name`, whose columns are in `input`.
pub(crate) fn build(params: Params, name: String, input: &SchemaRef) -> Box<dyn Rule> {
    let Params {
        column_a,
        column_b,
        max_ms,
        unit,
    } = params;
    let unit = Unit::from_param(unit);
    let (a, b) = (index(input, &column_a), index(input, &column_b));
    let (type_a, type_b) = (
        input.field(a).data_type().clone(),
        input.field(b).data_type().clone(),
    );
    let problem = match (kind(&type_a), kind(&type_b)) {
        (Err(message), _) | (_, Err(message)) => Some(format!("max_skew {message}")),
        (Ok(x), Ok(y)) if x != y => Some(format!(
            "cannot compare {column_a} ({}) with {column_b} ({}): both must be timestamps or dates, \
             both durations, or both numbers",
            type_name(&type_a),
            type_name(&type_b)
        )),
        _ => None,
    };
    let (unit_a, unit_b) = (Unit::of(&type_a, unit), Unit::of(&type_b, unit));
    let unit = unit_a.min(unit_b);
    let floats = is_float(&type_a) || is_float(&type_b);
    Box::new(MaxSkew {
        name,
        pair: format!("|{column_a} - {column_b}|"),
        max_ms_value: Value::Number(max_ms.json),
        limit: limit_in(max_ms.value, unit),
        column_types: [type_name(&type_a), type_name(&type_b)],
        problem,
        columns: [a, b],
        factors: [unit_a.nanos() / unit.nanos(), unit_b.nanos() / unit.nanos()],
        floats,
        unit,
        rows: 0,
        checked: 0,
        failing: 0,
        max: None,
        sum: PairwiseSum::default(),
        samples: Vec::new(),
        errors: Default::default(),
    })
}

fn is_float(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Float16 | DataType::Float32 | DataType::Float64
    )
}

struct MaxSkew {
    name: String,
    pair: String,
    max_ms_value: Value,
    /// `max_ms` in `unit`.
    limit: f64,
    column_types: [String; 2],
    /// The verdict when the columns can't be compared.
    problem: Option<String>,
    columns: [usize; 2],
    /// What each column's counts are multiplied by to be counts of `unit`.
    factors: [i64; 2],
    /// Whether the skews are float64 (a float column).
    floats: bool,
    unit: Unit,
    rows: u64,
    checked: u64,
    failing: u64,
    /// The largest skew (NaN ignored, as Arrow's `max`).
    max: Option<f64>,
    /// The sum of the skews, as Arrow's `mean` adds them.
    sum: PairwiseSum,
    samples: Vec<(u64, f64)>,
    /// The first error of each step, in the order the Python tool computes them: the int64 cast
    /// of column a, of column b, the rescale (or float cast) of a, of b, the subtraction, the
    /// comparison with the limit.
    errors: [Option<EvalError>; 6],
}

impl MaxSkew {
    fn error(&mut self, step: usize, error: EvalError) {
        if let Some(slot) = self.errors.get_mut(step)
            && slot.is_none()
        {
            *slot = Some(error);
        }
    }

    /// One side of a row as the Python tool computes it: `_time_values` then `_rescale` (or the
    /// float64 cast of `_subtract` when the other side is a float).
    fn side(&mut self, side: usize, raw: Option<super::value::Raw<'_>>) -> Option<Count> {
        let value = match count(raw?) {
            Ok(value) => value,
            Err(error) => {
                self.error(side, error);
                return None;
            }
        };
        match value {
            Count::Float(_) => Some(value),
            Count::Int(v) if self.floats => {
                if !(-EXACT..=EXACT).contains(&v) {
                    self.error(
                        2 + side,
                        EvalError::invalid(format!(
                            "Integer value {v} not in range: -{EXACT} to {EXACT}"
                        )),
                    );
                    return None;
                }
                Some(Count::Float(v as f64))
            }
            Count::Int(v) => match v.checked_mul(self.factors[side]) {
                Some(v) => Some(Count::Int(v)),
                None => {
                    self.error(2 + side, EvalError::overflow());
                    None
                }
            },
        }
    }

    fn row(&mut self, row: u64, a: Count, b: Count) {
        let skew = match (a, b) {
            (Count::Float(a), Count::Float(b)) => Count::Float((a - b).abs()),
            (a, b) => match super::time::subtract(a, b) {
                Ok(Count::Int(v)) => match v.checked_abs() {
                    Some(v) => Count::Int(v),
                    None => return self.error(4, EvalError::overflow()),
                },
                Ok(other) => other,
                Err(error) => return self.error(4, error),
            },
        };
        let is_over = match over(skew, self.limit) {
            Ok(is_over) => is_over,
            Err(error) => return self.error(5, error),
        };
        let value = skew.as_f64();
        self.sum.add(value);
        if !value.is_nan() {
            self.max = Some(self.max.map_or(value, |max| max.max(value)));
        } else if self.max.is_none() {
            self.max = Some(f64::NAN);
        }
        if is_over {
            self.failing += 1;
            if self.samples.len() < SAMPLE_SIZE {
                self.samples.push((row, to_ms(value, self.unit)));
            }
        }
    }
}

impl Rule for MaxSkew {
    fn push(&mut self, batch: &RecordBatch) {
        let count = batch.num_rows();
        let start = self.rows;
        self.rows += count as u64;
        if self.problem.is_some() {
            return;
        }
        let columns = batch.columns();
        let (Some(a), Some(b)) = (columns.get(self.columns[0]), columns.get(self.columns[1]))
        else {
            return;
        };
        let (Some(a), Some(b)) = (Reader::new(a.as_ref()), Reader::new(b.as_ref())) else {
            return;
        };
        for i in 0..count {
            let (raw_a, raw_b) = (a.get(i), b.get(i));
            let (value_a, value_b) = (self.side(0, raw_a), self.side(1, raw_b));
            let (Some(x), Some(y)) = (value_a, value_b) else {
                continue;
            };
            if raw_a.is_some_and(|r| r.is_nan()) || raw_b.is_some_and(|r| r.is_nan()) {
                continue;
            }
            self.row(start + i as u64, x, y);
            self.checked += 1;
        }
    }

    fn finish(self: Box<Self>, _context: &CheckContext) -> CheckResult {
        let mut metrics = Map::new();
        metrics.insert("row_count".into(), json!(self.rows));
        metrics.insert("max_ms".into(), self.max_ms_value.clone());
        metrics.insert("column_types".into(), json!(self.column_types));
        if let Some(details) = self.problem {
            return CheckResult {
                name: self.name,
                passed: false,
                details,
                failing_rows: 0,
                metrics: metrics_text(metrics),
            };
        }
        if let Some(error) = self.errors.iter().flatten().next() {
            return error.result(self.name, self.rows);
        }
        let rows_checked = self.checked;
        let max = self.max.map(|m| to_ms(m, self.unit));
        let mean =
            (rows_checked > 0).then(|| to_ms(self.sum.total() / rows_checked as f64, self.unit));
        let as_json = |x: Option<f64>| x.map_or(Value::Null, |x| Py::Float(x).to_json());
        let max_text = max.map_or("None".to_owned(), float_repr);
        metrics.insert("checked_rows".into(), json!(rows_checked));
        metrics.insert("skipped_rows".into(), json!(self.rows - rows_checked));
        metrics.insert("max_skew_ms".into(), as_json(max));
        metrics.insert("mean_skew_ms".into(), as_json(mean));
        metrics.insert("rows_over_limit".into(), json!(self.failing));
        let limit = number_text(&self.max_ms_value);
        if self.failing == 0 {
            return CheckResult {
                name: self.name,
                passed: true,
                details: format!(
                    "{} <= {limit} ms on {} (max {max_text} ms)",
                    self.pair,
                    rows(rows_checked)
                ),
                failing_rows: 0,
                metrics: metrics_text(metrics),
            };
        }
        let sample: Vec<Value> = self
            .samples
            .iter()
            .map(|(row, skew)| json!({"row": row, "skew_ms": Py::Float(*skew).to_json()}))
            .collect();
        metrics.insert("sample".into(), Value::Array(sample));
        let (row, skew) = self.samples.first().copied().unwrap_or((0, 0.0));
        let details = format!(
            "{} of {} have {} > {limit} ms (max {max_text} ms); e.g. row {row}: {} ms",
            self.failing,
            rows(rows_checked),
            self.pair,
            float_repr(skew)
        );
        CheckResult {
            name: self.name,
            passed: false,
            details,
            failing_rows: self.failing,
            metrics: metrics_text(metrics),
        }
    }
}
