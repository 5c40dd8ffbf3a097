//! The keys of an upsert batch: the Python tool's checks (keys present, not null, unique), and an
//! index from each key to its row and the row's values, to find and compare the table's rows
//! with the same key.
//!
//! Keys and values are compared in Arrow's row format (`arrow-row`), which encodes equal values
//! as equal bytes whatever the type. Before encoding, float values are made canonical: every NaN
//! is the same NaN and −0.0 is 0.0, so a NaN equals a NaN (the Python tool rewrites a row holding
//! a NaN on every upsert) and −0.0 equals 0.0 (as in pyarrow's comparison).

use std::hash::BuildHasher;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::DataType;
use hashbrown::{DefaultHashBuilder, HashTable};

use crate::error::{Error, Result};

/// Checks the keys of an upsert batch as the Python tool does, in its order: every join column
/// is a column of the data, no key is null, no two rows share a key.
pub(crate) fn check_keys(table: &str, batch: &RecordBatch, join_cols: &[String]) -> Result<()> {
    let schema = batch.schema();
    let missing: Vec<String> = join_cols
        .iter()
        .filter(|c| schema.index_of(c).is_err())
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(Error::UpsertKeysMissing {
            table: table.to_string(),
            columns: missing,
        });
    }
    for column in join_cols {
        if let Some(array) = batch.column_by_name(column)
            && array.null_count() > 0
        {
            return Err(Error::UpsertNullKeys {
                table: table.to_string(),
                column: column.clone(),
            });
        }
    }
    let index = KeyIndex::new(table, batch, join_cols)?;
    let duplicates = batch.num_rows() - index.distinct;
    if duplicates > 0 {
        return Err(Error::UpsertDuplicateKeys {
            table: table.to_string(),
            duplicates,
            join_cols: join_cols.to_vec(),
        });
    }
    Ok(())
}

/// The key columns of a batch, in `join_cols` order.
pub(crate) fn key_columns(batch: &RecordBatch, join_cols: &[String]) -> Vec<ArrayRef> {
    join_cols
        .iter()
        .filter_map(|c| batch.column_by_name(c).cloned())
        .collect()
}

/// The value (non-key) columns of a batch, floats made canonical.
pub(crate) fn value_columns(batch: &RecordBatch, join_cols: &[String]) -> Vec<ArrayRef> {
    batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .filter(|(field, _)| !join_cols.iter().any(|c| c == field.name()))
        .map(|(_, array)| canonical_floats(array))
        .collect()
}

/// An index of a batch's keys: where each key is, and the encoded values of its row.
pub(crate) struct KeyIndex {
    keys: RowConverter,
    values: RowConverter,
    key_rows: Rows,
    value_rows: Option<Rows>,
    hasher: DefaultHashBuilder,
    rows: HashTable<u32>,
    /// Distinct keys.
    pub distinct: usize,
}

impl KeyIndex {
    /// Indexes the keys of `batch` (its value rows are encoded by [`KeyIndex::with_values`]).
    pub(crate) fn new(table: &str, batch: &RecordBatch, join_cols: &[String]) -> Result<KeyIndex> {
        let keys = key_columns(batch, join_cols);
        let keys_converter = converter(table, &keys, "join columns")?;
        let key_rows = keys_converter
            .convert_columns(&keys)
            .map_err(|e| Error::schema(table, format!("cannot encode the upsert keys: {e}")))?;
        let values = value_columns(batch, join_cols);
        let values_converter = converter(table, &values, "columns")?;
        let hasher = DefaultHashBuilder::default();
        let mut rows: HashTable<u32> = HashTable::with_capacity(key_rows.num_rows());
        let mut distinct = 0;
        for (i, key) in key_rows.iter().enumerate() {
            let hash = hasher.hash_one(key.as_ref());
            let found = rows
                .find(hash, |&j| key_rows.row(j as usize).as_ref() == key.as_ref())
                .is_some();
            if !found {
                distinct += 1;
                let index = u32::try_from(i).map_err(|_| {
                    Error::unsupported(table, "an upsert batch holds at most 2^32 rows")
                })?;
                rows.insert_unique(hash, index, |&j| {
                    hasher.hash_one(key_rows.row(j as usize).as_ref())
                });
            }
        }
        Ok(KeyIndex {
            keys: keys_converter,
            values: values_converter,
            key_rows,
            value_rows: None,
            hasher,
            rows,
            distinct,
        })
    }

    /// Encodes the batch's values, for [`KeyIndex::same_values`].
    pub(crate) fn with_values(
        mut self,
        table: &str,
        batch: &RecordBatch,
        join_cols: &[String],
    ) -> Result<KeyIndex> {
        let values = value_columns(batch, join_cols);
        self.value_rows =
            Some(self.values.convert_columns(&values).map_err(|e| {
                Error::schema(table, format!("cannot encode the upsert rows: {e}"))
            })?);
        Ok(self)
    }

    /// The encoded keys of a batch of the table (conformed to the same schema).
    pub(crate) fn encode_keys(
        &self,
        table: &str,
        batch: &RecordBatch,
        join_cols: &[String],
    ) -> Result<Rows> {
        self.keys
            .convert_columns(&key_columns(batch, join_cols))
            .map_err(|e| Error::schema(table, format!("cannot encode the table's keys: {e}")))
    }

    /// The encoded values of a batch of the table.
    pub(crate) fn encode_values(
        &self,
        table: &str,
        batch: &RecordBatch,
        join_cols: &[String],
    ) -> Result<Rows> {
        self.values
            .convert_columns(&value_columns(batch, join_cols))
            .map_err(|e| Error::schema(table, format!("cannot encode the table's rows: {e}")))
    }

    /// The batch row with this encoded key.
    pub(crate) fn find(&self, key: &[u8]) -> Option<usize> {
        let hash = self.hasher.hash_one(key);
        self.rows
            .find(hash, |&j| self.key_rows.row(j as usize).as_ref() == key)
            .map(|&j| j as usize)
    }

    /// Whether the batch row `row` holds these encoded values.
    pub(crate) fn same_values(&self, row: usize, values: &[u8]) -> bool {
        self.value_rows
            .as_ref()
            .is_some_and(|rows| rows.row(row).as_ref() == values)
    }
}

fn converter(table: &str, columns: &[ArrayRef], what: &str) -> Result<RowConverter> {
    let fields = columns
        .iter()
        .map(|a| SortField::new(a.data_type().clone()))
        .collect();
    RowConverter::new(fields).map_err(|e| {
        Error::unsupported(
            table,
            format!("an upsert cannot compare the {what} of this table: {e}"),
        )
    })
}

/// `array` with every NaN the same NaN and −0.0 as 0.0 (other types as they are; Iceberg has
/// no 16-bit floats, and floats nested in structs or lists are compared bit by bit).
fn canonical_floats(array: &ArrayRef) -> ArrayRef {
    match array.data_type() {
        DataType::Float64 => Arc::new(
            array
                .as_primitive::<Float64Type>()
                .unary::<_, Float64Type>(|v| if v.is_nan() { f64::NAN } else { v + 0.0 }),
        ),
        DataType::Float32 => Arc::new(
            array
                .as_primitive::<Float32Type>()
                .unary::<_, Float32Type>(|v| if v.is_nan() { f32::NAN } else { v + 0.0 }),
        ),
        _ => array.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float64Array, Int64Array, StringArray};

    fn batch(ids: Vec<Option<i64>>, fares: Vec<f64>) -> RecordBatch {
        let names: Vec<String> = ids.iter().map(|_| "x".to_string()).collect();
        RecordBatch::try_from_iter([
            ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
            ("fare", Arc::new(Float64Array::from(fares)) as ArrayRef),
            ("name", Arc::new(StringArray::from(names)) as ArrayRef),
        ])
        .expect("batch")
    }

    fn keys(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_reference_messages() {
        let good = batch(vec![Some(1), Some(2)], vec![1.0, 2.0]);
        let missing = check_keys("nyc.t", &good, &keys(&["id", "k", "j"])).expect_err("missing");
        assert_eq!(
            missing.to_string(),
            "join_cols ['k', 'j'] are not columns of the data written to nyc.t"
        );
        let nulls = batch(vec![Some(1), None], vec![1.0, 2.0]);
        let error = check_keys("nyc.t", &nulls, &keys(&["id"])).expect_err("null");
        assert_eq!(
            error.to_string(),
            "join column 'id' has null values; upsert keys must be non-null"
        );
        let repeated = batch(vec![Some(1), Some(1), Some(1), Some(2)], vec![0.0; 4]);
        let error = check_keys("nyc.t", &repeated, &keys(&["id"])).expect_err("dups");
        assert_eq!(
            error.to_string(),
            "upsert data for nyc.t has 2 duplicate rows on join_cols ['id']; keys must be unique"
        );
        assert_eq!(error.kind(), crate::ErrorKind::Input);
        check_keys("nyc.t", &good, &keys(&["id"])).expect("good keys");
    }

    /// NaN equals NaN and −0.0 equals 0.0 when deciding whether a row changed (the Python tool
    /// rewrites a NaN row on every upsert).
    #[test]
    fn nan_equals_nan_and_negative_zero_equals_zero() {
        let join = keys(&["id"]);
        let new = batch(vec![Some(1), Some(2), Some(3)], vec![f64::NAN, -0.0, 1.5]);
        let index = KeyIndex::new("t", &new, &join)
            .and_then(|i| i.with_values("t", &new, &join))
            .expect("index");
        let nan_bits = f64::from_bits(0x7ff8_0000_0000_0001);
        let old = batch(vec![Some(3), Some(2), Some(1)], vec![1.25, 0.0, nan_bits]);
        let old_keys = index.encode_keys("t", &old, &join).expect("keys");
        let old_values = index.encode_values("t", &old, &join).expect("values");
        let verdicts: Vec<(usize, bool)> = (0..3)
            .map(|r| {
                let row = index.find(old_keys.row(r).as_ref()).expect("found");
                (row, index.same_values(row, old_values.row(r).as_ref()))
            })
            .collect();
        assert_eq!(verdicts, vec![(2, false), (1, true), (0, true)]);
        let absent = batch(vec![Some(9)], vec![0.0]);
        let absent_keys = index.encode_keys("t", &absent, &join).expect("keys");
        assert_eq!(index.find(absent_keys.row(0).as_ref()), None);
    }
}
