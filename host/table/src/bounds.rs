//! The newest value of a time column, from the column statistics of the current snapshot's data
//! files (their upper bounds): when the newest row of a table happened, read from its manifests
//! without reading its data.

use iceberg::spec::{PrimitiveLiteral, PrimitiveType, Type};

use crate::error::Result;
use crate::table::Table;

const MICROS_PER_DAY: i64 = 86_400_000_000;

impl Table {
    /// The largest upper bound of the column `column` over the live data files of the current
    /// snapshot, in microseconds since the epoch: a timestamp's instant (a timestamp without a
    /// zone read as UTC), a date's midnight UTC. `None` when the table has no snapshot, the
    /// column is not a top-level timestamp or date column, or no file has a bound for it.
    ///
    /// # Errors
    ///
    /// The manifests cannot be read.
    pub fn newest_value_micros(&self, column: &str) -> Result<Option<i64>> {
        let Some(field) = self.schema().as_struct().field_by_name(column) else {
            return Ok(None);
        };
        let Type::Primitive(kind) = field.field_type.as_ref() else {
            return Ok(None);
        };
        let to_micros = |literal: &PrimitiveLiteral| -> Option<i64> {
            match (kind, literal) {
                (
                    PrimitiveType::Timestamp | PrimitiveType::Timestamptz,
                    PrimitiveLiteral::Long(v),
                ) => Some(*v),
                (
                    PrimitiveType::TimestampNs | PrimitiveType::TimestamptzNs,
                    PrimitiveLiteral::Long(v),
                ) => Some(v.div_euclid(1_000)),
                (PrimitiveType::Date, PrimitiveLiteral::Int(v)) => {
                    i64::from(*v).checked_mul(MICROS_PER_DAY)
                }
                _ => None,
            }
        };
        Ok(self
            .data_files(None)?
            .iter()
            .filter_map(|file| file.upper_bounds().get(&field.id))
            .filter_map(|datum| to_micros(datum.literal()))
            .max())
    }
}
