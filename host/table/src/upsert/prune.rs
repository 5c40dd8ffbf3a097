//! Which data files may hold a key of an upsert batch, from the manifests alone: a file whose
//! bounds on a join column hold none of the batch's values of that column, or whose partition
//! value (of a partition field on a join column) is none of the batch keys' values, cannot hold
//! a batch key, so it is neither read nor rewritten.
//!
//! For a key of several columns each column is checked on its own: a file passes when every
//! column has a batch value within the file's bounds, which may keep a file that holds no whole
//! key (it is then read, found to hold none, and left as it is). Missing bounds or a bound of
//! another type (a column widened since the file was written) keep the file.

use std::collections::HashSet;

use arrow_array::ArrayRef;
use iceberg::arrow::arrow_primitive_to_literal;
use iceberg::spec::{DataFile, Literal, PartitionSpec, PrimitiveLiteral, Schema, Type};
use iceberg::transform::create_transform_function;

use crate::error::{Error, Result};

/// The batch keys' values per join column and per partition field on a join column.
pub(crate) struct KeyFilter {
    columns: Vec<ColumnValues>,
    partitions: Vec<PartitionValues>,
    spec_id: i32,
}

/// The sorted distinct values of one join column.
struct ColumnValues {
    field_id: i32,
    sorted: Vec<PrimitiveLiteral>,
}

/// The partition values of the keys, for one partition field on a join column.
struct PartitionValues {
    /// Position of the field in the partition struct.
    position: usize,
    values: HashSet<Literal>,
}

impl KeyFilter {
    /// The filter of a batch's key columns (`keys[i]` is `join_cols[i]`, conformed to `schema`).
    pub(crate) fn new(
        table: &str,
        schema: &Schema,
        spec: &PartitionSpec,
        join_cols: &[String],
        keys: &[ArrayRef],
    ) -> Result<KeyFilter> {
        let mut columns = Vec::new();
        let mut partitions = Vec::new();
        for (name, array) in join_cols.iter().zip(keys) {
            let Some(field) = schema.field_by_name(name) else {
                continue;
            };
            if !field.field_type.is_primitive() {
                continue;
            }
            let mut sorted: Vec<PrimitiveLiteral> = literals(table, array, &field.field_type)?
                .into_iter()
                .filter_map(|l| match l {
                    Some(Literal::Primitive(p)) => Some(p),
                    _ => None,
                })
                .collect();
            sorted.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
            sorted.dedup();
            columns.push(ColumnValues {
                field_id: field.id,
                sorted,
            });
            for (position, partition_field) in spec.fields().iter().enumerate() {
                if partition_field.source_id != field.id {
                    continue;
                }
                let function = create_transform_function(&partition_field.transform)
                    .map_err(|e| Error::iceberg(table, "cannot compute partition values", e))?;
                let transformed = function
                    .transform(array.clone())
                    .map_err(|e| Error::iceberg(table, "cannot compute partition values", e))?;
                let result_type = partition_field
                    .transform
                    .result_type(&field.field_type)
                    .map_err(|e| Error::iceberg(table, "cannot compute partition values", e))?;
                let values = literals(table, &transformed, &result_type)?
                    .into_iter()
                    .flatten()
                    .collect();
                partitions.push(PartitionValues { position, values });
            }
        }
        Ok(KeyFilter {
            columns,
            partitions,
            spec_id: spec.spec_id(),
        })
    }

    /// Whether `file` (listed in a manifest of partition spec `spec_id`) may hold one of the
    /// keys.
    pub(crate) fn may_hold(&self, file: &DataFile, spec_id: i32) -> bool {
        for column in &self.columns {
            let (Some(lower), Some(upper)) = (
                file.lower_bounds().get(&column.field_id),
                file.upper_bounds().get(&column.field_id),
            ) else {
                continue;
            };
            let (lower, upper) = (lower.literal(), upper.literal());
            let Some(first) = column.sorted.first() else {
                return false;
            };
            let same_type = |bound: &PrimitiveLiteral| {
                std::mem::discriminant(bound) == std::mem::discriminant(first)
            };
            if !same_type(lower) || !same_type(upper) {
                continue;
            }
            let from = column.sorted.partition_point(|v| v < lower);
            if column.sorted.get(from).is_none_or(|v| v > upper) {
                return false;
            }
        }
        if spec_id == self.spec_id {
            let fields = file.partition().fields();
            for partition in &self.partitions {
                match fields.get(partition.position) {
                    Some(Some(value)) if !partition.values.contains(value) => return false,
                    Some(None) => return false,
                    _ => {}
                }
            }
        }
        true
    }
}

fn literals(table: &str, array: &ArrayRef, field_type: &Type) -> Result<Vec<Option<Literal>>> {
    arrow_primitive_to_literal(array, field_type)
        .map_err(|e| Error::iceberg(table, "cannot read the upsert keys as Iceberg values", e))
}
