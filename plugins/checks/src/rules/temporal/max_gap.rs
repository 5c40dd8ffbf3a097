//! `max_gap`: consecutive values of a time column, in time order within each group, are at most
//! `max_ms` apart.
//!
//! The values must be sorted, so the rule keeps each checked row's group id, row index and time
//! value (20 bytes a row), plus each group's key, and sorts them at the end (a stable sort by
//! group then value, as the Python tool's `sort_indices`).

use arrow_schema::DataType;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value, json};

use super::keys::{Equality, Groups};
use super::time::{
    Count, EvalError, Unit, count, kind, limit_in, number_text, over, subtract, to_ms,
};
use super::value::{Reader, Store, equatable, jsonable, sort_rows};
use super::{groups, index, metrics_text, within};
use crate::py::{Py, float_repr, fmt_value, rows};
use crate::rule::Rule;
use crate::types::type_name;
use ldp_check_params::MaxGap as Params;

const SAMPLE_SIZE: usize = 5;

/// The rule of a `max_gap` check named `name`, whose columns are in `input`.
pub(crate) fn build(params: Params, name: String, input: &SchemaRef) -> Box<dyn Rule> {
    let Params {
        column,
        max_ms,
        group_by,
        unit,
    } = params;
    let value = index(input, &column);
    let data_type = input.field(value).data_type().clone();
    let unit = Unit::of(&data_type, Unit::from_param(unit));
    Box::new(MaxGap {
        name,
        problem: kind(&data_type).err().map(|m| format!("max_gap {m}")),
        column,
        limit: limit_in(max_ms.value, unit),
        max_ms_value: Value::Number(max_ms.json),
        unit,
        value,
        data_type,
        groups: groups(input, &group_by, Equality::Compare),
        group_by,
        rows: 0,
        group: Vec::new(),
        row: Vec::new(),
        values: Store::default(),
    })
}

struct MaxGap {
    name: String,
    column: String,
    group_by: Vec<String>,
    /// `max_ms` in `unit`.
    limit: f64,
    max_ms_value: Value,
    unit: Unit,
    value: usize,
    data_type: DataType,
    /// The verdict when the column is not a time column.
    problem: Option<String>,
    groups: Groups,
    rows: u64,
    /// Each checked row's key id (empty without key columns).
    group: Vec<u32>,
    row: Vec<u64>,
    values: Store,
}

impl Rule for MaxGap {
    fn push(&mut self, batch: &RecordBatch) {
        let count = batch.num_rows();
        let start = self.rows;
        self.rows += count as u64;
        if self.problem.is_some() {
            return;
        }
        let Some(reader) = batch
            .columns()
            .get(self.value)
            .and_then(|c| Reader::new(c.as_ref()))
        else {
            return;
        };
        let keys = self.groups.readers(batch);
        for i in 0..count {
            let Some(raw) = reader.get(i).filter(|raw| !raw.is_nan()) else {
                continue;
            };
            // Without key columns every row is in group 0: no group ids are kept.
            if let (true, Some(keys)) = (self.groups.keyed(), &keys) {
                let key = self.groups.find(keys, i);
                self.group.push(key);
            }
            self.row.push(start + i as u64);
            self.values.push(raw);
        }
    }

    fn finish(self: Box<Self>, _context: &CheckContext) -> CheckResult {
        let mut metrics = Map::new();
        metrics.insert("row_count".into(), json!(self.rows));
        metrics.insert("max_ms".into(), self.max_ms_value.clone());
        metrics.insert("column_type".into(), json!(type_name(&self.data_type)));
        let result = |passed: bool, details: String, failing: u64, metrics: Map<String, Value>| {
            CheckResult {
                name: self.name.clone(),
                passed,
                details,
                failing_rows: failing,
                metrics: metrics_text(metrics),
            }
        };
        if let Some(details) = &self.problem {
            return result(false, details.clone(), 0, metrics);
        }
        let checked = self.row.len() as u64;
        metrics.insert("checked_rows".into(), json!(checked));
        metrics.insert("skipped_rows".into(), json!(self.rows - checked));
        if checked < 2 {
            metrics.insert("groups".into(), json!(checked));
            metrics.insert("max_gap_ms".into(), Value::Null);
            metrics.insert("gaps_over_limit".into(), json!(0));
            let details = format!(
                "{} has {} to compare, nothing to check",
                self.column,
                rows(checked)
            );
            return result(true, details, 0, metrics);
        }
        let mut sort_keys: Vec<&DataType> = self.groups.types().iter().collect();
        sort_keys.push(&self.data_type);
        if let Some(error) = EvalError::sorting(&sort_keys) {
            return error.result(self.name.clone(), self.rows);
        }
        let gaps = match self.gaps() {
            Ok(gaps) => gaps,
            Err(error) => return error.result(self.name.clone(), self.rows),
        };
        metrics.insert("groups".into(), json!(self.groups.len()));
        let max = gaps.max.map(|m| to_ms(m, self.unit));
        let max_text = max.map_or("None".to_owned(), float_repr);
        metrics.insert(
            "max_gap_ms".into(),
            max.map_or(Value::Null, |m| Py::Float(m).to_json()),
        );
        metrics.insert("gaps_over_limit".into(), json!(gaps.failing));
        let limit = number_text(&self.max_ms_value);
        let within = within(&self.group_by);
        if gaps.failing == 0 {
            let details = format!(
                "no gap in {} over {limit} ms{within} (max {max_text} ms over {})",
                self.column,
                rows(checked)
            );
            return result(true, details, 0, metrics);
        }
        let keyed = self.groups.keyed();
        let mut sample = Vec::new();
        for hit in &gaps.samples {
            let mut item = Map::new();
            item.insert("row".into(), json!(hit.row));
            item.insert("gap_ms".into(), Py::Float(hit.gap_ms).to_json());
            item.insert("from".into(), hit.from.to_json());
            item.insert("to".into(), hit.to.to_json());
            if keyed {
                item.insert("group".into(), self.groups.label(hit.group).to_json());
            }
            sample.push(Value::Object(item));
        }
        metrics.insert("sample".into(), Value::Array(sample));
        let (gap, place, row) = gaps.samples.first().map_or((0.0, String::new(), 0), |hit| {
            let place = if keyed {
                format!(" in group {}", fmt_value(&self.groups.label(hit.group)))
            } else {
                String::new()
            };
            (hit.gap_ms, place, hit.row)
        });
        let details = format!(
            "{} gap(s) in {} over {limit} ms{within} (max {max_text} ms); e.g. {} ms{place} before row {row}",
            gaps.failing,
            self.column,
            float_repr(gap)
        );
        result(false, details, gaps.failing, metrics)
    }
}

/// The gaps of the sorted rows.
struct Gaps {
    /// The largest gap within a group, in the column's unit (NaN ignored, as Arrow's `max`).
    max: Option<f64>,
    failing: u64,
    samples: Vec<Hit>,
}

struct Hit {
    row: u64,
    group: u32,
    gap_ms: f64,
    from: Py,
    to: Py,
}

impl MaxGap {
    /// Sorts the rows by group then value and measures the gaps as the Python tool does: every
    /// consecutive pair is subtracted (across groups too, where an overflow is an error), and
    /// compared with the limit, then the pairs within a group count.
    fn gaps(&self) -> Result<Gaps, EvalError> {
        let ranks = self.groups.ranks();
        let rank = |i: usize| {
            self.group
                .get(i)
                .and_then(|&g| ranks.get(g as usize))
                .copied()
                .unwrap_or(0)
        };
        let order = sort_rows(self.row.len(), rank, &self.values);
        // The cast to int64 (of a uint64 column) fails on the first value too large, in order.
        if let Some(error) = order
            .iter()
            .find_map(|&i| self.values.get(i).and_then(|raw| count(raw).err()))
        {
            return Err(error);
        }
        let value = |i: usize| {
            self.values
                .get(i)
                .and_then(|raw| count(raw).ok())
                .unwrap_or(Count::Int(0))
        };
        let mut range_error = None;
        let mut gaps = Gaps {
            max: None,
            failing: 0,
            samples: Vec::new(),
        };
        for pair in order.windows(2) {
            let (previous, current) = (pair[0], pair[1]);
            let gap = subtract(value(current), value(previous))?;
            let is_over = match over(gap, self.limit) {
                Ok(is_over) => is_over,
                Err(error) => {
                    range_error.get_or_insert(error);
                    continue;
                }
            };
            let before = self.group.get(previous).copied().unwrap_or(0);
            let group = self.group.get(current).copied().unwrap_or(0);
            if self.groups.group(before) != self.groups.group(group) {
                continue;
            }
            let value = gap.as_f64();
            if !value.is_nan() {
                gaps.max = Some(gaps.max.map_or(value, |max| max.max(value)));
            } else if gaps.max.is_none() {
                gaps.max = Some(f64::NAN);
            }
            if !is_over {
                continue;
            }
            gaps.failing += 1;
            if gaps.samples.len() < SAMPLE_SIZE {
                gaps.samples.push(Hit {
                    row: self.row.get(current).copied().unwrap_or(0),
                    group,
                    gap_ms: to_ms(value, self.unit),
                    from: jsonable(&self.data_type, self.values.get(previous)),
                    to: jsonable(&self.data_type, self.values.get(current)),
                });
            }
        }
        // The Python tool compares the keys after subtracting, before comparing with the limit.
        if let Some(t) = self.groups.types().iter().find(|t| !equatable(t)) {
            return Err(EvalError::no_kernel("equal", t));
        }
        match range_error {
            Some(error) => Err(error),
            None => Ok(gaps),
        }
    }
}
