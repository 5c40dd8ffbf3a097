//! `unique`: each combination of the key columns appears at most once (the Python tool's
//! `Unique`). Rows with a null in any key column are skipped (SQL `UNIQUE`) and counted in
//! `null_key_rows`; `failing_rows` counts every copy of a duplicated key; `sample` lists up to
//! five duplicated keys in the order they first appear.
//!
//! Kept across batches: every distinct key with its count and order of first appearance
//! ([`crate::keyset`]):
//!
//! - one integer-like column (integers up to 64 bits signed / 32 bits unsigned, dates,
//!   timestamps, times, durations): an [`IntKeys`](crate::keyset::IntKeys). Keys arriving in
//!   increasing runs (`1, 2, 3...`, as generated ids do) cost 24 bytes a run, so near 0 bytes a
//!   key; other keys cost a hash map entry of 16 bytes plus a control byte, at a load factor of
//!   7/16 to 7/8: about 19 to 39 bytes a key. A duplicated key of a run also takes an entry.
//! - any other key (strings, `uint64`, floats, decimals, several columns): a
//!   [`ByteKeys`](crate::keyset::ByteKeys): the key's bytes (8 per number, 1 per bool, 16 per
//!   decimal, a string's length + 4) in 1 MiB arena chunks, plus a 20-byte table entry and a
//!   control byte at the same load factors: about 24 to 48 bytes a key plus its bytes.
//!
//! Rows with a null key are only counted.

use super::{column_index, metrics_text, not_evaluated};
use crate::arrow_value::{Ints, Kind, Values, ints, nulls};
use crate::keyset::{ByteKeys, IntKeys};
use crate::py::{Py, fmt_value, rows};
use crate::rule::Rule;
use crate::types::type_name;
use arrow_array::Array;
use arrow_schema::DataType;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value};

/// How many duplicated keys the verdict shows.
const SAMPLE_SIZE: usize = 5;

enum Keys {
    /// One integer-like column.
    Int(IntKeys),
    /// Any key, as bytes.
    Bytes(ByteKeys, Vec<u8>),
    /// A key column of a type that can't be grouped: its pyarrow name.
    Unsupported(String),
}

/// The rule.
pub struct Unique {
    name: String,
    columns: Vec<String>,
    indices: Vec<usize>,
    kinds: Vec<Kind>,
    keys: Keys,
    rows: u64,
    null_key_rows: u64,
}

/// The rule over `columns`, all in `input`.
pub fn build(name: String, columns: Vec<String>, input: &SchemaRef) -> Box<dyn Rule> {
    let indices: Vec<usize> = columns.iter().map(|c| column_index(input, c)).collect();
    let types: Vec<&DataType> = indices
        .iter()
        .map(|i| input.field(*i).data_type())
        .collect();
    let kinds: Vec<Kind> = types.iter().map(|t| Kind::of(t)).collect();
    let unsupported = kinds
        .iter()
        .zip(&types)
        .find_map(|(kind, data_type)| match kind {
            Kind::Other(_) => Some(type_name(data_type)),
            _ => None,
        });
    let keys = match (unsupported, kinds.as_slice(), types.as_slice()) {
        (Some(name), _, _) => Keys::Unsupported(name),
        (None, [Kind::Int(_)], [data_type]) if !matches!(data_type, DataType::Dictionary(..)) => {
            Keys::Int(IntKeys::default())
        }
        _ => Keys::Bytes(ByteKeys::default(), Vec::new()),
    };
    Box::new(Unique {
        name,
        columns,
        indices,
        kinds,
        keys,
        rows: 0,
        null_key_rows: 0,
    })
}

/// Counts the valid keys of an integer column.
fn insert_ints(set: &mut IntKeys, values: Ints<'_>, valid: Option<&arrow_buffer::NullBuffer>) {
    macro_rules! each {
        ($v:expr) => {
            match valid {
                None => {
                    for &key in $v.iter() {
                        set.insert(i64::from(key));
                    }
                }
                Some(valid) => {
                    for i in valid.valid_indices() {
                        if let Some(&key) = $v.get(i) {
                            set.insert(i64::from(key));
                        }
                    }
                }
            }
        };
    }
    match values {
        Ints::I8(v) => each!(v),
        Ints::I16(v) => each!(v),
        Ints::I32(v) => each!(v),
        Ints::I64(v) => each!(v),
        Ints::U8(v) => each!(v),
        Ints::U16(v) => each!(v),
        Ints::U32(v) => each!(v),
    }
}

impl Rule for Unique {
    fn push(&mut self, batch: &RecordBatch) {
        let n = batch.num_rows();
        self.rows += n as u64;
        let arrays: Vec<&dyn Array> = self
            .indices
            .iter()
            .filter_map(|i| batch.columns().get(*i).map(|a| a.as_ref()))
            .collect();
        if arrays.len() != self.indices.len() {
            return;
        }
        let mut valid: Option<arrow_buffer::NullBuffer> = None;
        for array in &arrays {
            if let Some(column_nulls) = nulls(*array) {
                valid = match valid {
                    None => Some(column_nulls),
                    Some(previous) => {
                        arrow_buffer::NullBuffer::union(Some(&previous), Some(&column_nulls))
                    }
                };
            }
        }
        let null_rows = valid.as_ref().map_or(0, |v| v.null_count());
        self.null_key_rows += null_rows as u64;
        if null_rows == n {
            return;
        }
        match &mut self.keys {
            Keys::Unsupported(_) => {}
            Keys::Int(set) => {
                if let Some(values) = ints(arrays[0]) {
                    insert_ints(set, values, valid.as_ref());
                }
            }
            Keys::Bytes(set, buffer) => {
                let Some(values) = arrays
                    .iter()
                    .map(|a| Values::of(*a))
                    .collect::<Option<Vec<Values<'_>>>>()
                else {
                    return;
                };
                let mut add = |i: usize| {
                    buffer.clear();
                    for column in &values {
                        column.encode(i, buffer);
                    }
                    set.insert(buffer);
                };
                match &valid {
                    None => (0..n).for_each(&mut add),
                    Some(valid) => valid.valid_indices().for_each(&mut add),
                }
            }
        }
    }

    fn finish(self: Box<Self>, _context: &CheckContext) -> CheckResult {
        let (summary, sample) = match &self.keys {
            Keys::Unsupported(type_name) => {
                return not_evaluated(
                    self.name,
                    self.rows,
                    &format!("Keys of type {type_name}"),
                    "ArrowNotImplementedError",
                );
            }
            Keys::Int(set) => {
                let summary = set.summary(SAMPLE_SIZE);
                let sample: Vec<(Py, u64)> = summary
                    .sample
                    .iter()
                    .map(|(key, count)| {
                        let py = match &self.kinds[0] {
                            Kind::Int(kind) => kind.py(*key),
                            _ => Py::Int(i128::from(*key)),
                        };
                        (py, *count)
                    })
                    .collect();
                (summary.without_sample(), sample)
            }
            Keys::Bytes(set, _) => {
                let summary = set.summary(SAMPLE_SIZE);
                let sample: Vec<(Py, u64)> = summary
                    .sample
                    .iter()
                    .map(|(bytes, count)| (self.decode(bytes), *count))
                    .collect();
                (summary.without_sample(), sample)
            }
        };
        let failing = summary.duplicate_rows;
        let mut metrics = Map::new();
        metrics.insert("row_count".into(), self.rows.into());
        metrics.insert("null_key_rows".into(), self.null_key_rows.into());
        metrics.insert("distinct_keys".into(), summary.distinct.into());
        metrics.insert("duplicate_keys".into(), summary.duplicate_keys.into());
        metrics.insert("duplicate_rows".into(), failing.into());
        let columns = self.columns.join(", ");
        let null_note = if self.null_key_rows > 0 {
            format!("; {} with a null key skipped", rows(self.null_key_rows))
        } else {
            String::new()
        };
        if failing == 0 {
            return CheckResult {
                name: self.name,
                passed: true,
                details: format!(
                    "{columns} is unique over {}{null_note}",
                    rows(self.rows - self.null_key_rows)
                ),
                failing_rows: 0,
                metrics: metrics_text(metrics),
            };
        }
        let listed: Vec<Value> = sample
            .iter()
            .map(|(key, count)| {
                let mut item = Map::new();
                item.insert("key".into(), key.to_json());
                item.insert("count".into(), (*count).into());
                Value::Object(item)
            })
            .collect();
        metrics.insert("sample".into(), Value::Array(listed));
        let examples: Vec<String> = sample
            .iter()
            .map(|(key, count)| format!("{} x{count}", fmt_value(key)))
            .collect();
        CheckResult {
            name: self.name,
            passed: false,
            details: format!(
                "{} duplicated key(s) in ({columns}) across {}{null_note}; e.g. {}",
                summary.duplicate_keys,
                rows(failing),
                examples.join(", ")
            ),
            failing_rows: failing,
            metrics: metrics_text(metrics),
        }
    }
}

impl Unique {
    /// A key's value: the column's value, or `{column: value}` for a composite key.
    fn decode(&self, bytes: &[u8]) -> Py {
        let mut rest = bytes;
        let values: Vec<Py> = self.kinds.iter().map(|k| k.decode(&mut rest)).collect();
        if values.len() == 1 {
            return values.into_iter().next().unwrap_or(Py::None);
        }
        Py::Dict(self.columns.iter().cloned().zip(values).collect())
    }
}
