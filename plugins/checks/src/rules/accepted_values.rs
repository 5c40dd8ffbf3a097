//! `accepted_values`: every non-null value of a column is one of the accepted values (the
//! Python tool's `AcceptedValues`). The values are converted to the column's type as pyarrow does
//! (`[1, 2]` on a string column accepts `"1"` and `"2"`, ISO strings on a date column, floats
//! truncated on an integer column); nulls are skipped; `invalid_values` lists up to five
//! distinct offending values in the order they first appear.
//!
//! Kept across batches: the row, null and invalid counts and up to five offending values.

use super::value_set::{Accepted, accepted, string_offenders};
use super::{column_index, metrics_text, not_evaluated};
use crate::arrow_value::{Kind, Values, null_count, nulls};
use crate::py::{Py, fmt_list, from_json, rows};
use crate::rule::Rule;
use arrow_array::Array;
use arrow_array::cast::AsArray;
use ldp_check_params::AcceptedValues as Params;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value};

const SAMPLE_SIZE: usize = 5;

/// The rule.
pub struct AcceptedValues {
    name: String,
    params: Params,
    index: usize,
    kind: Kind,
    accepted: Result<Accepted, (String, &'static str)>,
    rows: u64,
    nulls: u64,
    invalid: u64,
    /// Up to five distinct offending values: their key bytes and their value.
    offenders: Vec<(Vec<u8>, Py)>,
}

/// The rule over `params.column`, which is in `input`.
pub fn build(name: String, params: Params, input: &SchemaRef) -> Box<dyn Rule> {
    let index = column_index(input, &params.column);
    let data_type = input.field(index).data_type();
    Box::new(AcceptedValues {
        name,
        index,
        kind: Kind::of(data_type),
        accepted: accepted(&params.values, data_type),
        params,
        rows: 0,
        nulls: 0,
        invalid: 0,
        offenders: Vec::new(),
    })
}

impl AcceptedValues {
    fn offend(&mut self, values: &Values<'_>, i: usize) {
        self.invalid += 1;
        if self.offenders.len() >= SAMPLE_SIZE {
            return;
        }
        let mut key = Vec::new();
        values.encode(i, &mut key);
        if self.offenders.iter().any(|(k, _)| *k == key) {
            return;
        }
        let py = self.kind.decode(&mut key.as_slice());
        self.offenders.push((key, py));
    }
}

impl Rule for AcceptedValues {
    fn push(&mut self, batch: &RecordBatch) {
        let n = batch.num_rows();
        self.rows += n as u64;
        let Some(array) = batch.columns().get(self.index) else {
            return;
        };
        let array = array.as_ref();
        // pyarrow counts a dictionary's nulls by its indices.
        self.nulls += null_count(array) as u64;
        let Ok(accepted) = &self.accepted else {
            return;
        };
        if matches!(accepted, Accepted::Nothing) {
            return;
        }
        let Some(values) = Values::of(array) else {
            return;
        };
        let valid = nulls(array);
        let mut bad: Vec<usize> = Vec::new();
        // Check each dictionary value once.
        if let (Values::Dict(keys, inner), Some(dict)) = (&values, array.as_any_dictionary_opt()) {
            let ok: Vec<bool> = (0..dict.values().len())
                .map(|j| dict.values().is_null(j) || accepted.contains(inner, j))
                .collect();
            let mut check = |i: usize| {
                let fine = usize::try_from(keys.get(i))
                    .ok()
                    .and_then(|k| ok.get(k))
                    .copied()
                    .unwrap_or(true);
                if !fine {
                    bad.push(i);
                }
            };
            match &valid {
                None => (0..n).for_each(&mut check),
                Some(v) => v.valid_indices().for_each(&mut check),
            }
        } else if let Some(strings) = array.as_string_opt::<i32>() {
            string_offenders(strings, valid.as_ref(), accepted, &mut bad);
        } else if let Some(strings) = array.as_string_opt::<i64>() {
            string_offenders(strings, valid.as_ref(), accepted, &mut bad);
        } else {
            match &valid {
                None => bad.extend((0..n).filter(|i| !accepted.contains(&values, *i))),
                Some(v) => bad.extend(
                    v.valid_indices()
                        .filter(|i| !accepted.contains(&values, *i)),
                ),
            }
        }
        for i in bad {
            self.offend(&values, i);
        }
    }

    fn finish(self: Box<Self>, _context: &CheckContext) -> CheckResult {
        if let Err((message, error)) = &self.accepted {
            return not_evaluated(self.name, self.rows, message, error);
        }
        let shown: Vec<Py> = self.params.values.iter().map(from_json).collect();
        let mut metrics = Map::new();
        metrics.insert("row_count".into(), self.rows.into());
        metrics.insert("null_count".into(), self.nulls.into());
        metrics.insert("invalid_count".into(), self.invalid.into());
        metrics.insert(
            "accepted_values".into(),
            Value::Array(shown.iter().map(Py::to_json).collect()),
        );
        let column = &self.params.column;
        if self.invalid == 0 {
            return CheckResult {
                details: format!(
                    "every non-null value of {column} is in {}",
                    fmt_list(&shown, 10)
                ),
                name: self.name,
                passed: true,
                failing_rows: 0,
                metrics: metrics_text(metrics),
            };
        }
        let offenders: Vec<Py> = self.offenders.into_iter().map(|(_, py)| py).collect();
        metrics.insert(
            "invalid_values".into(),
            Value::Array(offenders.iter().map(Py::to_json).collect()),
        );
        CheckResult {
            details: format!(
                "{} of {} have a {column} outside {}; e.g. {}",
                self.invalid,
                rows(self.rows),
                fmt_list(&shown, 10),
                fmt_list(&offenders, 10)
            ),
            name: self.name,
            passed: false,
            failing_rows: self.invalid,
            metrics: metrics_text(metrics),
        }
    }
}
