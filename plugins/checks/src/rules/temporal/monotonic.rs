//! `monotonic`: a column never decreases (`strict`: always increases), in table order or in
//! `order_by` order, within each group.
//!
//! In table order the rule streams: it keeps per group the key, the last value and the first
//! violations. With `order_by` the rows must be sorted first, so it keeps each checked row's
//! group, index, `order_by` value and value, and sorts at the end (a stable sort, ties keep
//! table order, as the Python tool's `sort_indices`).

use std::cmp::Ordering;

use arrow_schema::DataType;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value, json};

use super::keys::{Equality, Groups};
use super::time::EvalError;
use super::value::{Raw, Reader, Store, Val, comparable, equatable, jsonable, sort_rows};
use super::{groups, index, metrics_text, present, within};
use crate::py::{Py, fmt_value, rows};
use crate::rule::Rule;
use ldp_check_params::Monotonic as Params;

/// How many violations a failed verdict shows.
const SAMPLE_SIZE: usize = 5;

/// The rule of a `monotonic` check named `name`, whose columns are in `input`.
pub(crate) fn build(params: Params, name: String, input: &SchemaRef) -> Box<dyn Rule> {
    let Params {
        column,
        group_by,
        strict,
        order_by,
    } = params;
    let value = index(input, &column);
    let order = order_by.as_ref().map(|o| index(input, o));
    let mut rule = Monotonic {
        name,
        value,
        value_type: input.field(value).data_type().clone(),
        order,
        order_type: order.map(|o| input.field(o).data_type().clone()),
        groups: groups(input, &group_by, Equality::Compare),
        group_by,
        column,
        order_by,
        strict,
        rows: 0,
        checked: 0,
        countable: true,
        state: State::Streaming {
            last: Vec::new(),
            violations: 0,
            samples: Vec::new(),
        },
    };
    rule.countable = rule.problem().is_none();
    if order.is_some() {
        rule.state = State::Sorted {
            group: Vec::new(),
            row: Vec::new(),
            order: Store::default(),
            value: Store::default(),
        };
    }
    Box::new(rule)
}

struct Monotonic {
    name: String,
    column: String,
    group_by: Vec<String>,
    order_by: Option<String>,
    strict: bool,
    value: usize,
    value_type: DataType,
    order: Option<usize>,
    order_type: Option<DataType>,
    groups: Groups,
    rows: u64,
    checked: u64,
    /// False when a type can't be sorted or compared: the rule then only counts rows.
    countable: bool,
    state: State,
}

enum State {
    /// Table order: each group's last value.
    Streaming {
        last: Vec<Val>,
        violations: u64,
        samples: Vec<Sample>,
    },
    /// `order_by` order: every checked row (its key id when keyed, row index, `order_by` value
    /// and value), sorted at the end.
    Sorted {
        group: Vec<u32>,
        row: Vec<u64>,
        order: Store,
        value: Store,
    },
}

struct Sample {
    group: u32,
    row: u64,
    value: Py,
    previous: Py,
}

impl Monotonic {
    /// The Arrow error the Python tool hits on two rows or more, in its order: sorting by the
    /// keys and `order_by`, comparing the values, comparing the keys.
    fn problem(&self) -> Option<EvalError> {
        let mut sort_keys: Vec<&DataType> = self.groups.types().iter().collect();
        sort_keys.extend(self.order_type.as_ref());
        if let Some(error) = EvalError::sorting(&sort_keys) {
            return Some(error);
        }
        if !comparable(&self.value_type) {
            let function = if self.strict { "less_equal" } else { "less" };
            return Some(EvalError::no_kernel(function, &self.value_type));
        }
        self.groups
            .types()
            .iter()
            .find(|t| !equatable(t))
            .map(|t| EvalError::no_kernel("equal", t))
    }
}

impl Rule for Monotonic {
    fn push(&mut self, batch: &RecordBatch) {
        let count = batch.num_rows();
        let start = self.rows;
        self.rows += count as u64;
        let columns = batch.columns();
        let Some(values) = columns.get(self.value) else {
            return;
        };
        let order = self.order.and_then(|o| columns.get(o));
        let value_reader = Reader::new(values.as_ref());
        let order_reader = order.and_then(|o| Reader::new(o.as_ref()));
        let keys = self.groups.readers(batch);
        let (true, Some(reader), Some(keys)) = (self.countable, &value_reader, keys) else {
            let checked = |i: usize| {
                present(values.as_ref(), value_reader.as_ref(), i)
                    && order.is_none_or(|o| present(o.as_ref(), order_reader.as_ref(), i))
            };
            self.checked += (0..count).filter(|&i| checked(i)).count() as u64;
            return;
        };
        let keyed = self.groups.keyed();
        for i in 0..count {
            let Some(current) = reader.get(i).filter(|raw| !raw.is_nan()) else {
                continue;
            };
            let position = match &order_reader {
                None => None,
                Some(o) => match o.get(i) {
                    Some(raw) if !raw.is_nan() => Some(raw),
                    _ => continue,
                },
            };
            self.checked += 1;
            let row = start + i as u64;
            let key = self.groups.find(&keys, i);
            let group = self.groups.group(key);
            match &mut self.state {
                State::Sorted {
                    group: groups,
                    row: rows,
                    order,
                    value,
                } => {
                    if keyed {
                        groups.push(key);
                    }
                    rows.push(row);
                    value.push(current);
                    if let Some(raw) = position {
                        order.push(raw);
                    }
                }
                State::Streaming {
                    last,
                    violations,
                    samples,
                } => {
                    let Some(previous) = last.get_mut(group as usize) else {
                        last.push(current.to_val());
                        continue;
                    };
                    if bad(self.strict, current, previous.raw()) {
                        *violations += 1;
                        let sample = Candidate {
                            group: key,
                            row,
                            value: current,
                            previous: previous.raw(),
                        };
                        keep(samples, sample, &self.groups, &self.value_type);
                    }
                    previous.set(current);
                }
            }
        }
    }

    fn finish(self: Box<Self>, _context: &CheckContext) -> CheckResult {
        let this = *self;
        let rows = this.checked;
        if rows >= 2
            && let Some(error) = this.problem()
        {
            return error.result(this.name, this.rows);
        }
        let mut metrics = Map::new();
        metrics.insert("row_count".into(), json!(this.rows));
        metrics.insert("checked_rows".into(), json!(rows));
        metrics.insert("skipped_rows".into(), json!(this.rows - rows));
        metrics.insert("strict".into(), json!(this.strict));
        if rows < 2 {
            metrics.insert("groups".into(), json!(rows));
            metrics.insert("violations".into(), json!(0));
            return CheckResult {
                name: this.name,
                passed: true,
                details: format!(
                    "{} has {} to compare, nothing to check",
                    this.column,
                    rows_text(rows)
                ),
                failing_rows: 0,
                metrics: metrics_text(metrics),
            };
        }
        let (violations, samples) = match &this.state {
            State::Streaming {
                violations,
                samples,
                ..
            } => (*violations, samples.iter().map(Sample::copy).collect()),
            State::Sorted {
                group,
                row,
                order,
                value,
            } => this.sorted(group, row, order, value),
        };
        metrics.insert("groups".into(), json!(this.groups.len()));
        metrics.insert("violations".into(), json!(violations));
        this.verdict(metrics, violations, samples)
    }
}

/// A violation about to be kept: its values are only printed when it is among the first.
struct Candidate<'a> {
    group: u32,
    row: u64,
    value: Raw<'a>,
    previous: Raw<'a>,
}

fn bad(strict: bool, current: Raw<'_>, previous: Raw<'_>) -> bool {
    match current.sort_cmp(&previous) {
        Ordering::Less => true,
        Ordering::Equal => strict,
        Ordering::Greater => false,
    }
}

/// Keeps `candidate` among the first [`SAMPLE_SIZE`] violations in the Python tool's order
/// (groups in key order, then rows in table order).
fn keep(
    samples: &mut Vec<Sample>,
    candidate: Candidate<'_>,
    groups: &Groups,
    value_type: &DataType,
) {
    let before = |sample: &Sample| {
        groups
            .cmp(candidate.group, sample.group)
            .then(candidate.row.cmp(&sample.row))
            == Ordering::Less
    };
    let position = samples.iter().position(before).unwrap_or(samples.len());
    if position >= SAMPLE_SIZE {
        return;
    }
    let sample = Sample {
        group: candidate.group,
        row: candidate.row,
        value: jsonable(value_type, Some(candidate.value)),
        previous: jsonable(value_type, Some(candidate.previous)),
    };
    samples.insert(position, sample);
    samples.truncate(SAMPLE_SIZE);
}

impl Sample {
    fn copy(&self) -> Sample {
        Sample {
            group: self.group,
            row: self.row,
            value: self.value.clone(),
            previous: self.previous.clone(),
        }
    }
}

impl Monotonic {
    /// Sorts the kept rows by group, `order_by` value and row, and finds the violations.
    fn sorted(
        &self,
        group: &[u32],
        row: &[u64],
        order: &Store,
        value: &Store,
    ) -> (u64, Vec<Sample>) {
        let ranks = self.groups.ranks();
        let rank = |i: usize| {
            group
                .get(i)
                .and_then(|&g| ranks.get(g as usize))
                .copied()
                .unwrap_or(0)
        };
        let index = sort_rows(row.len(), rank, order);
        let mut violations = 0;
        let mut samples = Vec::new();
        for pair in index.windows(2) {
            let (previous, current) = (pair[0], pair[1]);
            let before = group.get(previous).copied().unwrap_or(0);
            let key = group.get(current).copied().unwrap_or(0);
            if self.groups.group(before) != self.groups.group(key) {
                continue;
            }
            let (Some(p), Some(c)) = (value.get(previous), value.get(current)) else {
                continue;
            };
            if !bad(self.strict, c, p) {
                continue;
            }
            violations += 1;
            if samples.len() < SAMPLE_SIZE {
                samples.push(Sample {
                    group: key,
                    row: row.get(current).copied().unwrap_or(0),
                    value: jsonable(&self.value_type, Some(c)),
                    previous: jsonable(&self.value_type, Some(p)),
                });
            }
        }
        (violations, samples)
    }

    fn verdict(
        &self,
        mut metrics: Map<String, Value>,
        violations: u64,
        samples: Vec<Sample>,
    ) -> CheckResult {
        let rows = self.checked;
        let wanted = if self.strict {
            "strictly increasing"
        } else {
            "non-decreasing"
        };
        let order = self
            .order_by
            .as_ref()
            .map_or(String::new(), |o| format!(" in {o} order"));
        let within = within(&self.group_by);
        if violations == 0 {
            return CheckResult {
                name: self.name.clone(),
                passed: true,
                details: format!(
                    "{} is {wanted}{order}{within} over {}",
                    self.column,
                    rows_text(rows)
                ),
                failing_rows: 0,
                metrics: metrics_text(metrics),
            };
        }
        let keyed = self.groups.keyed();
        let mut shown = Vec::new();
        let mut first = None;
        for sample in samples {
            let group = keyed.then(|| self.groups.label(sample.group));
            let mut item = Map::new();
            item.insert("row".into(), json!(sample.row));
            item.insert("value".into(), sample.value.to_json());
            item.insert("previous".into(), sample.previous.to_json());
            if let Some(group) = &group {
                item.insert("group".into(), group.to_json());
            }
            shown.push(Value::Object(item));
            if first.is_none() {
                first = Some((sample.row, group, sample.value, sample.previous));
            }
        }
        metrics.insert("sample".into(), Value::Array(shown));
        let (row, group, value, previous) = first.unwrap_or((0, None, Py::None, Py::None));
        let place = group.map_or(String::new(), |g| format!(" in group {}", fmt_value(&g)));
        let verb = if self.strict {
            "is not greater than"
        } else {
            "is less than"
        };
        let details = format!(
            "{violations} of {} break the {wanted} order of {}{order}{within}; e.g. row {row}{place}: {} {verb} {}",
            rows_text(rows),
            self.column,
            fmt_value(&value),
            fmt_value(&previous)
        );
        CheckResult {
            name: self.name.clone(),
            passed: false,
            details,
            failing_rows: violations,
            metrics: metrics_text(metrics),
        }
    }
}

fn rows_text(count: u64) -> String {
    rows(count)
}
