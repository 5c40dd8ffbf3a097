//! `freshness`: the newest value of a timestamp or date column is at most `max_age_hours` old
//! (the Python tool's `Freshness`). A column without a time zone is read as UTC, a date as
//! midnight UTC; the reference time is the check's `now`, else the run's `now`, else the wall
//! clock; values in the future pass; an all-null or non-temporal column fails.
//!
//! Kept across batches: the row and null counts and the newest raw value.

use super::{column_index, metrics_text};
use crate::arrow_value::{Ints, ints, null_count, nulls, to_us};
use crate::rule::Rule;
use crate::time::{self, US_PER_DAY};
use crate::types::type_name;
use arrow_schema::DataType;
use ldp_check_params::Freshness as Params;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Number, Value};

const US_PER_HOUR: f64 = 3_600_000_000.0;

/// The rule.
pub struct Freshness {
    name: String,
    params: Params,
    index: usize,
    data_type: DataType,
    rows: u64,
    nulls: u64,
    /// The newest raw value (days, milliseconds or the timestamp's unit).
    newest: Option<i64>,
}

/// The rule over `params.column`, which is in `input`.
pub fn build(name: String, params: Params, input: &SchemaRef) -> Box<dyn Rule> {
    let index = column_index(input, &params.column);
    let data_type = input.field(index).data_type().clone();
    Box::new(Freshness {
        name,
        params,
        index,
        data_type,
        rows: 0,
        nulls: 0,
        newest: None,
    })
}

fn temporal(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Timestamp(..) | DataType::Date32 | DataType::Date64
    )
}

fn newest(values: Ints<'_>, valid: Option<&arrow_buffer::NullBuffer>) -> Option<i64> {
    macro_rules! max_of {
        ($v:expr) => {
            match valid {
                None => $v.iter().copied().max().map(i64::from),
                Some(valid) => valid
                    .valid_indices()
                    .filter_map(|i| $v.get(i).copied())
                    .max()
                    .map(i64::from),
            }
        };
    }
    match values {
        Ints::I32(v) => max_of!(v),
        Ints::I64(v) => max_of!(v),
        _ => None,
    }
}

impl Rule for Freshness {
    fn push(&mut self, batch: &RecordBatch) {
        self.rows += batch.num_rows() as u64;
        let Some(array) = batch.columns().get(self.index) else {
            return;
        };
        let array = array.as_ref();
        self.nulls += null_count(array) as u64;
        if !temporal(&self.data_type) {
            return;
        }
        if let Some(values) = ints(array)
            && let Some(latest) = newest(values, nulls(array).as_ref())
        {
            self.newest = Some(self.newest.map_or(latest, |n| n.max(latest)));
        }
    }

    fn finish(self: Box<Self>, context: &CheckContext) -> CheckResult {
        let column = &self.params.column;
        let mut metrics = Map::new();
        metrics.insert("row_count".into(), self.rows.into());
        metrics.insert("null_count".into(), self.nulls.into());
        metrics.insert(
            "max_age_hours".into(),
            Value::Number(self.params.max_age_hours.json.clone()),
        );
        metrics.insert("column_type".into(), type_name(&self.data_type).into());
        let fail = |details: String, metrics: Map<String, Value>| CheckResult {
            name: self.name.clone(),
            passed: false,
            details,
            failing_rows: 0,
            metrics: metrics_text(metrics),
        };
        if !temporal(&self.data_type) {
            return fail(
                format!(
                    "freshness needs a timestamp or date column; {column} is {}",
                    type_name(&self.data_type)
                ),
                metrics,
            );
        }
        let Some(raw) = self.newest else {
            return fail(
                format!("{column} has no non-null values, so the data can't be shown to be fresh"),
                metrics,
            );
        };
        let latest_us = match &self.data_type {
            DataType::Timestamp(unit, _) => to_us(raw, *unit),
            DataType::Date32 => raw.saturating_mul(US_PER_DAY),
            // pyarrow reads a date64 as a date: its day at midnight.
            _ => raw.div_euclid(86_400_000).saturating_mul(US_PER_DAY),
        };
        let now_us = match (self.params.now, context.now_micros) {
            (Some(now), _) => now.utc_us(),
            (None, Some(now)) => now,
            (None, None) => time::now_us(),
        };
        let age_us = i128::from(now_us) - i128::from(latest_us);
        let age_hours = age_us as f64 / US_PER_HOUR;
        let latest =
            time::in_python_range(latest_us).then(|| time::iso_datetime(latest_us, Some(0)));
        metrics.insert(
            "latest".into(),
            latest.clone().map_or(Value::Null, Value::String),
        );
        metrics.insert("now".into(), time::iso_datetime(now_us, Some(0)).into());
        let rounded: f64 = format!("{age_hours:.4}").parse().unwrap_or(age_hours);
        metrics.insert(
            "age_hours".into(),
            Number::from_f64(rounded).map_or(Value::Null, Value::Number),
        );
        let passed = age_hours <= self.params.max_age_hours.value;
        let age_text = if age_hours < 0.0 {
            format!("{:.1}h in the future", -age_hours)
        } else {
            format!("{age_hours:.1}h old")
        };
        let limit = if passed { "within" } else { "older than" };
        CheckResult {
            details: format!(
                "newest {column} ({}) is {age_text}, {limit} the {}h limit",
                latest.as_deref().unwrap_or("None"),
                self.params.max_age_hours.text()
            ),
            name: self.name,
            passed,
            failing_rows: 0,
            metrics: metrics_text(metrics),
        }
    }
}
