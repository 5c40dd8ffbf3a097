//! `range`: every non-null value of a column lies within inclusive bounds (the Python tool's
//! `Range`). Nulls are skipped; NaN counts as out of range (`nan_count`); bounds may be numbers,
//! or ISO strings for date and timestamp columns (a naive value read as UTC), or strings cast to
//! the column's type; a numeric bound on a non-numeric column can't be compared.
//!
//! Kept across batches: the row, null, below-min, above-max, NaN and failing counts, and the
//! smallest and largest value ([`Extremes`]).

use super::{column_index, metrics_text};
use crate::arrow_value::{Kind, Values, null_count, nulls};
use crate::extremes::Extremes;
use crate::py::{fmt_value, from_json, json_repr, rows};
use crate::rule::Rule;
use crate::types::type_name;
use crate::{coerce, time};
use arrow_schema::{DataType, TimeUnit};
use ldp_check_params::Range as Params;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value};
use std::cmp::Ordering;

/// The constraint as the Python tool prints it: `fare >= 0`, `0 <= fare <= 100`.
fn constraint(params: &Params) -> String {
    let shown = |v: &Value| fmt_value(&from_json(v));
    match (&params.min, &params.max) {
        (Some(low), Some(high)) => {
            format!("{} <= {} <= {}", shown(low), params.column, shown(high))
        }
        (Some(low), None) => format!("{} >= {}", params.column, shown(low)),
        (None, Some(high)) => format!("{} <= {}", params.column, shown(high)),
        (None, None) => params.column.clone(),
    }
}

/// A bound in the column's terms.
#[derive(Clone, Debug)]
enum Bound {
    /// An exact integer (integer and decimal columns compare exactly; scaled for decimals).
    Int(i128),
    /// A float (the column's values compared as doubles).
    Float(f64),
    /// Bytes of a string or binary column.
    Bytes(Vec<u8>),
    /// A bool.
    Bool(bool),
    /// An instant or date, in nanoseconds since the epoch (dates: midnight UTC), compared with
    /// the column's values in nanoseconds.
    Nanos(i128),
}

/// Turns a bound into one comparable with the column (the Python tool's `_coerce_bound`).
fn coerce_bound(value: &Value, data_type: &DataType) -> Result<Bound, String> {
    let target = match data_type {
        DataType::Dictionary(_, value) => value.as_ref(),
        other => other,
    };
    let cannot = || {
        format!(
            "cannot use {} as a {} bound",
            json_repr(value),
            type_name(data_type)
        )
    };
    match target {
        DataType::Timestamp(_, _) => {
            let Value::String(text) = value else {
                return Err(format!(
                    "expected a datetime, a date or an ISO-8601 string, got {}",
                    json_repr(value)
                ));
            };
            let instant = time::parse_datetime(text)?;
            Ok(Bound::Nanos(i128::from(instant.utc_us()) * 1_000))
        }
        DataType::Date32 | DataType::Date64 => {
            let Value::String(text) = value else {
                return Err(format!(
                    "expected a date, a datetime or an ISO-8601 string, got {}",
                    json_repr(value)
                ));
            };
            let days = time::parse_date(text)?;
            Ok(Bound::Nanos(
                i128::from(days) * i128::from(time::US_PER_DAY) * 1_000,
            ))
        }
        _ => {
            let kind = Kind::of(target);
            let numeric = matches!(
                kind,
                Kind::Int(crate::arrow_value::IntKind::Plain)
                    | Kind::UInt64
                    | Kind::F32
                    | Kind::F64
                    | Kind::Decimal128(_)
            ) || matches!(target, DataType::Float16 | DataType::Decimal256(..));
            match value {
                Value::Number(n) => {
                    if !numeric {
                        return Err(format!(
                            "a numeric bound needs a numeric column, not {}",
                            type_name(data_type)
                        ));
                    }
                    match (n.as_i64(), n.as_u64(), kind) {
                        (Some(i), _, Kind::Decimal128(scale)) => {
                            coerce::parse_decimal(&i.to_string(), scale)
                                .map(Bound::Int)
                                .ok_or_else(cannot)
                        }
                        (None, Some(u), Kind::Decimal128(scale)) => {
                            coerce::parse_decimal(&u.to_string(), scale)
                                .map(Bound::Int)
                                .ok_or_else(cannot)
                        }
                        (Some(i), _, _) => Ok(Bound::Int(i128::from(i))),
                        (None, Some(u), _) => Ok(Bound::Int(i128::from(u))),
                        // A decimal column against a float compares as doubles, in the column's
                        // unscaled units.
                        (_, _, Kind::Decimal128(scale)) => n
                            .as_f64()
                            .map(|f| Bound::Float(f * 10f64.powi(i32::from(scale))))
                            .ok_or_else(cannot),
                        _ => n.as_f64().map(Bound::Float).ok_or_else(cannot),
                    }
                }
                Value::String(text) => match kind {
                    Kind::Int(crate::arrow_value::IntKind::Plain) | Kind::UInt64 => {
                        coerce::parse_int(text).map(Bound::Int).ok_or_else(cannot)
                    }
                    Kind::F32 => coerce::parse_float(text)
                        .map(|f| Bound::Float(f64::from(f as f32)))
                        .ok_or_else(cannot),
                    Kind::F64 => coerce::parse_float(text)
                        .map(Bound::Float)
                        .ok_or_else(cannot),
                    Kind::Decimal128(scale) => coerce::parse_decimal(text, scale)
                        .map(Bound::Int)
                        .ok_or_else(cannot),
                    Kind::Str | Kind::Bin => Ok(Bound::Bytes(text.as_bytes().to_vec())),
                    Kind::Bool => coerce::parse_bool(text).map(Bound::Bool).ok_or_else(cannot),
                    _ => Err(cannot()),
                },
                _ => Err(cannot()),
            }
        }
    }
}

/// A value's order against a bound; `None` when unordered (NaN).
#[inline]
fn compare(values: &Values<'_>, i: usize, bound: &Bound, nanos_per: i128) -> Option<Ordering> {
    match (values, bound) {
        (Values::Dict(keys, inner), _) => {
            compare(inner, usize::try_from(keys.get(i)).ok()?, bound, nanos_per)
        }
        (Values::Int(v), Bound::Nanos(b)) => Some((i128::from(v.get(i)) * nanos_per).cmp(b)),
        (Values::Int(v), Bound::Int(b)) => Some(i128::from(v.get(i)).cmp(b)),
        (Values::Int(v), Bound::Float(b)) => (v.get(i) as f64).partial_cmp(b),
        (Values::UInt64(v), Bound::Int(b)) => Some(i128::from(v[i]).cmp(b)),
        (Values::UInt64(v), Bound::Float(b)) => (v[i] as f64).partial_cmp(b),
        (Values::F64(v), Bound::Int(b)) => v[i].partial_cmp(&(*b as f64)),
        (Values::F64(v), Bound::Float(b)) => v[i].partial_cmp(b),
        (Values::F32(v), Bound::Int(b)) => f64::from(v[i]).partial_cmp(&(*b as f64)),
        (Values::F32(v), Bound::Float(b)) => f64::from(v[i]).partial_cmp(b),
        (Values::Decimal128(v), Bound::Int(b)) => Some(v[i].cmp(b)),
        (Values::Decimal128(v), Bound::Float(b)) => (v[i] as f64).partial_cmp(b),
        (Values::Bytes(v), Bound::Bytes(b)) => Some(v.get(i).cmp(b.as_slice())),
        (Values::Bool(v), Bound::Bool(b)) => Some(v.value(i).cmp(b)),
        _ => None,
    }
}

/// The rule.
pub struct Range {
    name: String,
    params: Params,
    index: usize,
    data_type: DataType,
    bounds: Result<(Option<Bound>, Option<Bound>), String>,
    decimal_scale: Option<i8>,
    nanos_per: i128,
    rows: u64,
    nulls: u64,
    below: u64,
    above: u64,
    nan: u64,
    failing: u64,
    extremes: Extremes,
}

/// The rule over `params.column`, which is in `input`.
pub fn build(name: String, params: Params, input: &SchemaRef) -> Box<dyn Rule> {
    let index = column_index(input, &params.column);
    let data_type = input.field(index).data_type().clone();
    let bounds = (|| {
        let low = params
            .min
            .as_ref()
            .map(|v| coerce_bound(v, &data_type))
            .transpose()?;
        let high = params
            .max
            .as_ref()
            .map(|v| coerce_bound(v, &data_type))
            .transpose()?;
        Ok((low, high))
    })();
    let value_type = match &data_type {
        DataType::Dictionary(_, value) => value.as_ref().clone(),
        other => other.clone(),
    };
    let nanos_per: i128 = match &value_type {
        DataType::Timestamp(TimeUnit::Second, _) => 1_000_000_000,
        DataType::Timestamp(TimeUnit::Millisecond, _) => 1_000_000,
        DataType::Timestamp(TimeUnit::Microsecond, _) => 1_000,
        DataType::Date32 => i128::from(time::US_PER_DAY) * 1_000,
        DataType::Date64 => 1_000_000,
        _ => 1,
    };
    let decimal_scale = match &value_type {
        DataType::Decimal128(_, scale) => Some(*scale),
        _ => None,
    };
    Box::new(Range {
        name,
        extremes: Extremes::new(Kind::of(&data_type)),
        params,
        index,
        data_type,
        bounds,
        decimal_scale,
        nanos_per,
        rows: 0,
        nulls: 0,
        below: 0,
        above: 0,
        nan: 0,
        failing: 0,
    })
}

impl Range {
    fn scan(&mut self, values: &Values<'_>, i: usize) {
        let Ok((low, high)) = &self.bounds else {
            return;
        };
        let mut bad = false;
        let mut nan = false;
        if let Some(low) = low {
            match compare(values, i, low, self.nanos_per) {
                Some(Ordering::Less) => {
                    self.below += 1;
                    bad = true;
                }
                None => nan = true,
                _ => {}
            }
        }
        if let Some(high) = high {
            match compare(values, i, high, self.nanos_per) {
                Some(Ordering::Greater) => {
                    self.above += 1;
                    bad = true;
                }
                None => nan = true,
                _ => {}
            }
        }
        if nan && is_nan(values, i) {
            bad = true;
        }
        if bad {
            self.failing += 1;
        }
    }
}

fn is_nan(values: &Values<'_>, i: usize) -> bool {
    match values {
        Values::F64(v) => v[i].is_nan(),
        Values::F32(v) => v[i].is_nan(),
        Values::Dict(keys, inner) => usize::try_from(keys.get(i)).is_ok_and(|k| is_nan(inner, k)),
        _ => false,
    }
}

fn count_nan(values: &Values<'_>, valid: Option<&arrow_buffer::NullBuffer>) -> u64 {
    match (values, valid) {
        (Values::F64(v), None) => v.iter().filter(|f| f.is_nan()).count() as u64,
        (Values::F32(v), None) => v.iter().filter(|f| f.is_nan()).count() as u64,
        (Values::F64(_) | Values::F32(_), Some(valid)) => {
            valid.valid_indices().filter(|i| is_nan(values, *i)).count() as u64
        }
        _ => 0,
    }
}

impl Rule for Range {
    fn push(&mut self, batch: &RecordBatch) {
        let n = batch.num_rows();
        self.rows += n as u64;
        let Some(array) = batch.columns().get(self.index) else {
            return;
        };
        let array = array.as_ref();
        self.nulls += null_count(array) as u64;
        let Some(values) = Values::of(array) else {
            return;
        };
        let valid = nulls(array);
        self.extremes.update(&values, valid.as_ref(), n);
        if self.bounds.is_err() {
            return;
        }
        self.nan += count_nan(&values, valid.as_ref());
        // Fast path: doubles against float/int bounds without nulls.
        if let (Values::F64(v), None, Ok((low, high))) = (&values, &valid, &self.bounds) {
            let as_f = |b: &Option<Bound>| match b {
                None => Some(None),
                Some(Bound::Float(f)) => Some(Some(*f)),
                Some(Bound::Int(i)) => Some(Some(*i as f64)),
                _ => None,
            };
            if let (Some(low), Some(high)) = (as_f(low), as_f(high)) {
                let (lo, hi) = (
                    low.unwrap_or(f64::NEG_INFINITY),
                    high.unwrap_or(f64::INFINITY),
                );
                let (mut below, mut above, mut failing) = (0u64, 0u64, 0u64);
                for &x in v.iter() {
                    let b = low.is_some() && x < lo;
                    let a = high.is_some() && x > hi;
                    below += u64::from(b);
                    above += u64::from(a);
                    failing += u64::from(b || a || x.is_nan());
                }
                self.below += below;
                self.above += above;
                self.failing += failing;
                return;
            }
        }
        match &valid {
            None => (0..n).for_each(|i| self.scan(&values, i)),
            Some(valid) => valid.valid_indices().for_each(|i| self.scan(&values, i)),
        }
    }

    fn finish(self: Box<Self>, _context: &CheckContext) -> CheckResult {
        let mut metrics = Map::new();
        metrics.insert("row_count".into(), self.rows.into());
        metrics.insert("column_type".into(), type_name(&self.data_type).into());
        let (low, high) = match &self.bounds {
            Ok(bounds) => bounds,
            Err(reason) => {
                return CheckResult {
                    details: format!(
                        "cannot compare {} ({}) with the bounds of {}: {reason}",
                        self.params.column,
                        type_name(&self.data_type),
                        constraint(&self.params)
                    ),
                    name: self.name,
                    passed: false,
                    failing_rows: 0,
                    metrics: metrics_text(metrics),
                };
            }
        };
        if low.is_some() {
            metrics.insert("below_min".into(), self.below.into());
        }
        if high.is_some() {
            metrics.insert("above_max".into(), self.above.into());
        }
        let floating = matches!(self.extremes.kind(), Kind::F32 | Kind::F64)
            && !matches!(self.data_type, DataType::Dictionary(..));
        if floating {
            metrics.insert("nan_count".into(), self.nan.into());
        }
        let (min, max) = self.extremes.result(self.decimal_scale);
        metrics.insert("observed_min".into(), min.to_json());
        metrics.insert("observed_max".into(), max.to_json());
        metrics.insert("null_count".into(), self.nulls.into());
        let constraint = constraint(&self.params);
        if self.failing == 0 {
            let mut details = format!("every non-null value satisfies {constraint}");
            if self.nulls > 0 {
                details.push_str(&format!(" ({} nulls skipped)", self.nulls));
            }
            return CheckResult {
                name: self.name,
                passed: true,
                details,
                failing_rows: 0,
                metrics: metrics_text(metrics),
            };
        }
        let mut parts = vec![
            format!("{} below min", if low.is_some() { self.below } else { 0 }),
            format!("{} above max", if high.is_some() { self.above } else { 0 }),
        ];
        if floating && self.nan > 0 {
            parts.push(format!("{} NaN", self.nan));
        }
        CheckResult {
            details: format!(
                "{} of {} violate {constraint}: {}",
                self.failing,
                rows(self.rows),
                parts.join(", ")
            ),
            name: self.name,
            passed: false,
            failing_rows: self.failing,
            metrics: metrics_text(metrics),
        }
    }
}
