//! `not_null`: no Arrow null in the given columns; a floating-point NaN is a value (the
//! Python tool's `NotNull`). `failing_rows` counts the rows with a null in at least one column.
//!
//! Kept across batches: the row count, the null count of each column and the count of rows with
//! a null in any of them (the union of the validity bitmaps of one batch).

use super::{column_index, metrics_text};
use crate::arrow_value::nulls;
use crate::py::rows;
use crate::rule::Rule;
use ldp_plugin_sdk::prelude::*;
use serde_json::{Map, Value};

/// The rule.
pub struct NotNull {
    name: String,
    columns: Vec<String>,
    indices: Vec<usize>,
    null_counts: Vec<u64>,
    failing: u64,
    rows: u64,
}

impl NotNull {
    /// A rule over `columns`, all in `input`.
    pub fn new(name: String, columns: Vec<String>, input: &SchemaRef) -> NotNull {
        let indices = columns.iter().map(|c| column_index(input, c)).collect();
        let null_counts = vec![0; columns.len()];
        NotNull {
            name,
            columns,
            indices,
            null_counts,
            failing: 0,
            rows: 0,
        }
    }
}

impl Rule for NotNull {
    fn push(&mut self, batch: &RecordBatch) {
        self.rows += batch.num_rows() as u64;
        let mut union: Option<arrow_buffer::NullBuffer> = None;
        for (slot, index) in self.indices.iter().enumerate() {
            let Some(array) = batch.columns().get(*index) else {
                continue;
            };
            let Some(column_nulls) = nulls(array.as_ref()) else {
                continue;
            };
            self.null_counts[slot] += column_nulls.null_count() as u64;
            union = match union {
                None => Some(column_nulls),
                // A row is valid in the union when it is valid in every column.
                Some(previous) => {
                    arrow_buffer::NullBuffer::union(Some(&previous), Some(&column_nulls))
                }
            };
        }
        if let Some(union) = union {
            self.failing += union.null_count() as u64;
        }
    }

    fn finish(self: Box<Self>, _context: &CheckContext) -> CheckResult {
        let mut counts = Map::new();
        for (column, count) in self.columns.iter().zip(&self.null_counts) {
            counts.insert(column.clone(), Value::from(*count));
        }
        let mut metrics = Map::new();
        metrics.insert("row_count".into(), self.rows.into());
        metrics.insert("null_counts".into(), Value::Object(counts));
        let columns = self.columns.join(", ");
        let (passed, details) = if self.failing == 0 {
            (true, format!("no nulls in {columns} ({})", rows(self.rows)))
        } else {
            let per_column: Vec<String> = self
                .columns
                .iter()
                .zip(&self.null_counts)
                .filter(|(_, count)| **count > 0)
                .map(|(column, count)| format!("{column}={count}"))
                .collect();
            (
                false,
                format!(
                    "{} of {} have a null in {columns} ({})",
                    self.failing,
                    rows(self.rows),
                    per_column.join(", ")
                ),
            )
        };
        CheckResult {
            name: self.name,
            passed,
            details,
            failing_rows: self.failing,
            metrics: metrics_text(metrics),
        }
    }
}
