//! `rate_below`: the share of true values in a boolean column (true / non-null) is at most
//! `max_rate`, over the table or in every group.
//!
//! Streams: it keeps the null and true counts, and per group its key and its true and non-null
//! counts (the Python tool's hash `group_by`: null keys are one group, so is every NaN).

use std::cmp::Ordering;

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_schema::DataType;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value, json};

use super::keys::{Equality, Groups};
use super::time::{EvalError, percent, py_round};
use super::value::{Raw, Reader};
use super::{groups, index, metrics_text};
use crate::py::fmt_value;
use crate::rule::Rule;
use crate::types::type_name;
use ldp_check_params::RateBelow as Params;

const SAMPLE_SIZE: usize = 5;

/// The rule of a `rate_below` check named `name`, whose columns are in `input`.
pub(crate) fn build(params: Params, name: String, input: &SchemaRef) -> Box<dyn Rule> {
    let Params {
        predicate_column: column,
        max_rate,
        group_by,
    } = params;
    let predicate = index(input, &column);
    let data_type = input.field(predicate).data_type().clone();
    Box::new(RateBelow {
        name,
        column,
        max_rate: max_rate.value,
        max_rate_value: Value::Number(max_rate.json),
        predicate,
        boolean: data_type == DataType::Boolean,
        data_type,
        groups: groups(input, &group_by, Equality::Hash),
        group_by,
        rows: 0,
        nulls: 0,
        trues: 0,
        counts: Vec::new(),
    })
}

struct RateBelow {
    name: String,
    column: String,
    group_by: Vec<String>,
    max_rate: f64,
    max_rate_value: Value,
    predicate: usize,
    data_type: DataType,
    boolean: bool,
    groups: Groups,
    rows: u64,
    nulls: u64,
    trues: u64,
    /// Per group: (true, non-null) values.
    counts: Vec<(u64, u64)>,
}

impl Rule for RateBelow {
    fn push(&mut self, batch: &RecordBatch) {
        self.rows += batch.num_rows() as u64;
        let Some(column) = batch.columns().get(self.predicate) else {
            return;
        };
        self.nulls += match column.data_type() {
            DataType::Null => column.len(),
            _ => column.null_count(),
        } as u64;
        let Some(values) = column.as_boolean_opt() else {
            return;
        };
        self.trues += values.true_count() as u64;
        if !self.groups.keyed() {
            return;
        }
        let (Some(keys), Some(reader)) = (self.groups.readers(batch), Reader::new(values)) else {
            return;
        };
        for i in 0..batch.num_rows() {
            let key = self.groups.find(&keys, i);
            let group = self.groups.group(key) as usize;
            if group >= self.counts.len() {
                self.counts.resize(group + 1, (0, 0));
            }
            if let (Some(value), Some(counts)) = (reader.get(i), self.counts.get_mut(group)) {
                counts.1 += 1;
                counts.0 += u64::from(value == Raw::Bool(true));
            }
        }
    }

    fn finish(self: Box<Self>, _context: &CheckContext) -> CheckResult {
        let known = self.rows - self.nulls;
        let trues = if self.boolean { self.trues } else { 0 };
        let rate = if known > 0 {
            trues as f64 / known as f64
        } else {
            0.0
        };
        let mut metrics = Map::new();
        metrics.insert("row_count".into(), json!(self.rows));
        metrics.insert("null_count".into(), json!(self.nulls));
        metrics.insert("true_count".into(), json!(trues));
        metrics.insert("rate".into(), json!(py_round(rate, 6)));
        metrics.insert("max_rate".into(), self.max_rate_value.clone());
        let result = |passed: bool, details: String, failing: u64, metrics: Map<String, Value>| {
            CheckResult {
                name: self.name.clone(),
                passed,
                details,
                failing_rows: failing,
                metrics: metrics_text(metrics),
            }
        };
        if !self.boolean {
            let details = format!(
                "rate_below needs a boolean column; {} is {}",
                self.column,
                type_name(&self.data_type)
            );
            return result(false, details, 0, metrics);
        }
        let label = format!("{} rate", self.column);
        let limit = percent(self.max_rate);
        if !self.groups.keyed() {
            let passed = rate <= self.max_rate;
            let relation = if passed { "<=" } else { ">" };
            let details = format!(
                "{label} {} ({trues} of {known}) {relation} {limit}",
                percent(rate)
            );
            return result(passed, details, if passed { 0 } else { trues }, metrics);
        }
        if let Some(t) = self.groups.unreadable() {
            let error = EvalError {
                message: format!("Keys of type {}", type_name(t)),
                class: "ArrowNotImplementedError",
            };
            return error.result(self.name.clone(), self.rows);
        }
        let rates: Vec<f64> = self
            .counts
            .iter()
            .map(|&(t, k)| if k > 0 { t as f64 / k as f64 } else { 0.0 })
            .collect();
        let count = self.groups.len();
        let mut failing: Vec<usize> = (0..count)
            .filter(|&g| rates.get(g).is_some_and(|&r| r > self.max_rate))
            .collect();
        let failing_rows: u64 = failing
            .iter()
            .filter_map(|&g| self.counts.get(g))
            .map(|c| c.0)
            .sum();
        let worst = rates
            .iter()
            .copied()
            .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))));
        let worst = worst.map_or(0.0, |w| py_round(w, 6));
        metrics.insert("groups".into(), json!(count));
        metrics.insert("failing_groups".into(), json!(failing.len()));
        metrics.insert("max_group_rate".into(), json!(worst));
        let names = self.group_by.join(", ");
        if failing.is_empty() {
            let details = format!(
                "{label} <= {limit} in all {count} {names} groups (worst {}, overall {})",
                percent(worst),
                percent(py_round(rate, 6))
            );
            return result(true, details, 0, metrics);
        }
        // The Python tool sorts the failing groups by rate and keys, as a record batch.
        let mut sort_keys = vec![&DataType::Float64];
        sort_keys.extend(self.groups.types());
        if let Some(error) = EvalError::sorting(&sort_keys) {
            return error.result(self.name.clone(), self.rows);
        }
        failing.sort_by(|&a, &b| {
            let (x, y) = (
                rates.get(a).copied().unwrap_or(0.0),
                rates.get(b).copied().unwrap_or(0.0),
            );
            y.partial_cmp(&x)
                .unwrap_or(Ordering::Equal)
                .then_with(|| self.groups.cmp(a as u32, b as u32))
                .then(a.cmp(&b))
        });
        let mut sample = Vec::new();
        let mut examples = Vec::new();
        for &g in failing.iter().take(SAMPLE_SIZE) {
            // With hash equality every key id is its own group.
            let group = self.groups.label(g as u32);
            let rate = py_round(rates.get(g).copied().unwrap_or(0.0), 6);
            let (t, k) = self.counts.get(g).copied().unwrap_or((0, 0));
            examples.push(format!("{} {}", fmt_value(&group), percent(rate)));
            sample
                .push(json!({"group": group.to_json(), "rate": rate, "true_count": t, "count": k}));
        }
        metrics.insert("sample".into(), Value::Array(sample));
        let details = format!(
            "{} of {count} {names} groups have a {label} over {limit}; e.g. {}",
            failing.len(),
            examples.join(", ")
        );
        result(false, details, failing_rows, metrics)
    }
}
