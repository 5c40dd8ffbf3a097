//! The temporal checks (the Python tool's `quality/temporal.py`): `monotonic`, `max_skew`,
//! `rate_below` and `max_gap`, streaming over batches.
//!
//! What each keeps across batches:
//!
//! - `monotonic` in table order: per group its key, its last value and, over all groups, the
//!   first five violations (by group key order, then row), plus counts. With `order_by` the rows
//!   must be sorted, so it keeps per checked row its row index (8 bytes), `order_by` value and
//!   value (8 bytes each for numbers, the bytes for strings) and key id (4 bytes, with
//!   `group_by`), and sorts them at the end.
//! - `max_skew`: counts, the largest skew, the partial sums of Arrow's pairwise sum (for the
//!   mean; a few floats) and the first five rows over the limit.
//! - `rate_below`: the true and null counts, and per group its key and two counts.
//! - `max_gap`: sorts by time, so it keeps per checked row its row index and time value
//!   (8 bytes each) and key id (4 bytes, with `group_by`), plus each group's key.
//!
//! Group keys are looked up by their bytes, without allocating for a key seen before.
//! Rows with a null or NaN in a checked value are skipped and counted, groups follow Arrow's
//! equality (null keys form one group), and an Arrow error the Python tool would hit on the same
//! data (an integer overflow, a type it can't sort) gives its `could not be evaluated: ...`.

mod keys;
pub(crate) mod max_gap;
pub(crate) mod max_skew;
pub(crate) mod monotonic;
pub(crate) mod rate_below;
mod show;
#[cfg(test)]
mod tests;
mod time;
mod value;

use arrow_array::Array;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value};

use keys::{Equality, Groups};
use value::Reader;

/// `_within`: ` within each g1, g2`, or nothing without groups.
fn within(groups: &[String]) -> String {
    if groups.is_empty() {
        String::new()
    } else {
        format!(" within each {}", groups.join(", "))
    }
}

/// The index of a column known to be in `input` once.
fn index(input: &SchemaRef, column: &str) -> usize {
    input
        .fields()
        .iter()
        .position(|field| field.name() == column)
        .unwrap_or(0)
}

/// The key columns of `groups` in `input`, grouped with `equality`.
fn groups(input: &SchemaRef, groups: &[String], equality: Equality) -> Groups {
    let columns: Vec<usize> = groups.iter().map(|g| index(input, g)).collect();
    let types = columns
        .iter()
        .map(|&i| input.field(i).data_type().clone())
        .collect();
    Groups::new(columns, groups.to_vec(), types, equality)
}

/// Whether row `i` of `array` (read by `reader` when readable) is neither null nor NaN.
fn present(array: &dyn Array, reader: Option<&Reader<'_>>, i: usize) -> bool {
    match reader {
        Some(reader) => reader.get(i).is_some_and(|raw| !raw.is_nan()),
        None => array.is_valid(i),
    }
}

/// A metrics object as JSON text.
fn metrics_text(metrics: Map<String, Value>) -> String {
    Value::Object(metrics).to_string()
}
