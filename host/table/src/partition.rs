//! Partition specs: the `partition_by` of a config as the Iceberg spec a table is created with.
//!
//! Field names default as pyiceberg names them (`pickup_ts_day`, `city_bucket_16`,
//! `name_trunc_4`, the column itself for `identity`), so a table reads the same in both tools.
//! Partition values are computed by iceberg-rust's transforms, which follow the Iceberg spec
//! (murmur3 buckets, days since the epoch...), as pyiceberg's and Spark's do.

use iceberg::spec::{Schema, Transform, UnboundPartitionSpec};

use crate::error::{Error, Result};

/// One partition field: a column, its transform, and an optional field name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionColumn {
    /// The source column (top level).
    pub column: String,
    /// `identity`, `year`, `month`, `day`, `hour`, `bucket[N]`, `truncate[W]`.
    pub transform: Transform,
    /// The partition field's name; `None` for pyiceberg's default.
    pub name: Option<String>,
}

impl PartitionColumn {
    /// The field name: the given one, else pyiceberg's default.
    pub fn field_name(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        let c = &self.column;
        match self.transform {
            Transform::Bucket(n) => format!("{c}_bucket_{n}"),
            Transform::Truncate(w) => format!("{c}_trunc_{w}"),
            Transform::Year => format!("{c}_year"),
            Transform::Month => format!("{c}_month"),
            Transform::Day => format!("{c}_day"),
            Transform::Hour => format!("{c}_hour"),
            _ => c.clone(),
        }
    }
}

/// The unbound spec of `columns` over `schema` (a new table's), with the Python tool's messages
/// for a column that is not in the data and a transform that cannot apply to its type.
pub(crate) fn unbound_spec(
    table: &str,
    schema: &Schema,
    columns: &[PartitionColumn],
) -> Result<UnboundPartitionSpec> {
    let mut builder = UnboundPartitionSpec::builder();
    for column in columns {
        let Some(field) = schema.field_by_name(&column.column) else {
            let names: Vec<String> = schema
                .as_struct()
                .fields()
                .iter()
                .map(|f| format!("'{}'", f.name))
                .collect();
            return Err(Error::schema(
                table,
                format!(
                    "partition column '{}' is not in the data; columns are [{}]",
                    column.column,
                    names.join(", ")
                ),
            ));
        };
        if column.transform.result_type(&field.field_type).is_err() {
            return Err(Error::schema(
                table,
                format!(
                    "partition transform {} cannot apply to column '{}' of type {}",
                    column.transform, column.column, field.field_type
                ),
            ));
        }
        builder = builder
            .add_partition_field(field.id, column.field_name(), column.transform)
            .map_err(|source| Error::iceberg(table, "invalid partition_by", source))?;
    }
    Ok(builder.build())
}
