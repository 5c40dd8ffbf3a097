//! Arrow ↔ Iceberg schemas: the schema a table is created with, and conforming incoming batches
//! to a table's schema.
//!
//! **Creating** (as the Python tool creates a table): every field is optional; timestamps are
//! stored in microseconds (nanoseconds are truncated), a timestamp with a time zone becomes
//! `timestamptz` (UTC), a naive one `timestamp`; `time` is microseconds; `date64` is stored as
//! `date`; small integers widen to `int`, `uint32` to `long`. Field ids are assigned fresh (1,
//! 2, ... level by level), as pyiceberg does.
//!
//! **Writing**: a batch is matched to the table by column name. A column may be cast to the
//! table's type when no value changes meaning: integers widen (`int` → `long` only when the
//! table column is `long`), floats widen, timestamps and times change unit, string and binary
//! encodings (large, view, dictionary) are unified. A table column missing from the batch is
//! written as nulls; a batch column missing from the table is an error (a run evolves the
//! table's schema first, see [`crate::evolve`]).

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, LargeListArray, ListArray, MapArray, RecordBatch,
    RecordBatchOptions, StructArray, new_null_array,
};
use arrow_schema::{DataType, Field, FieldRef, Fields, Schema as ArrowSchema, SchemaRef, TimeUnit};
use iceberg::spec::Schema;

use crate::error::{Error, Result};

/// The time zone Iceberg's `timestamptz` maps to in Arrow.
const UTC: &str = "+00:00";

/// The Iceberg schema a new table gets for `schema` (see the module docs).
pub fn iceberg_schema(table: &str, schema: &ArrowSchema) -> Result<Schema> {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|field| normalise_field(table, field, field.name()))
        .collect::<Result<_>>()?;
    let normalised = ArrowSchema::new(fields);
    iceberg::arrow::arrow_schema_to_schema_auto_assign_ids(&normalised)
        .map_err(|source| Error::iceberg(table, "cannot convert the Arrow schema", source))
}

/// The Arrow schema of an Iceberg schema, with `PARQUET:field_id` metadata on every field.
pub fn arrow_schema(table: &str, schema: &Schema) -> Result<SchemaRef> {
    iceberg::arrow::schema_to_arrow_schema(schema)
        .map(Arc::new)
        .map_err(|source| Error::iceberg(table, "cannot convert the table schema to Arrow", source))
}

fn normalise_field(table: &str, field: &Field, path: &str) -> Result<Field> {
    let data_type = normalise_type(table, field.data_type(), path)?;
    Ok(Field::new(field.name(), data_type, true))
}

pub(crate) fn normalise_type(table: &str, data_type: &DataType, path: &str) -> Result<DataType> {
    Ok(match data_type {
        DataType::Timestamp(_, None) => DataType::Timestamp(TimeUnit::Microsecond, None),
        DataType::Timestamp(_, Some(_)) => {
            DataType::Timestamp(TimeUnit::Microsecond, Some(UTC.into()))
        }
        DataType::Time32(_) | DataType::Time64(_) => DataType::Time64(TimeUnit::Microsecond),
        DataType::Date64 => DataType::Date32,
        DataType::Float16 => DataType::Float32,
        DataType::Utf8View | DataType::LargeUtf8 => DataType::Utf8,
        DataType::BinaryView | DataType::LargeBinary => DataType::Binary,
        DataType::Dictionary(_, value) => normalise_type(table, value, path)?,
        DataType::Null => {
            return Err(Error::schema(
                table,
                format!(
                    "column '{path}' has only nulls (Arrow type null), so it has no type Iceberg can store; cast it to a type first"
                ),
            ));
        }
        DataType::Struct(fields) if fields.is_empty() => {
            return Err(Error::schema(
                table,
                format!(
                    "column '{path}' is a struct without fields (every value read was {{}}), which Parquet cannot store; give its objects fields, or drop it with a transform"
                ),
            ));
        }
        DataType::Struct(fields) => DataType::Struct(
            fields
                .iter()
                .map(|f| normalise_field(table, f, &format!("{path}.{}", f.name())))
                .collect::<Result<Vec<_>>>()?
                .into(),
        ),
        DataType::List(element)
        | DataType::LargeList(element)
        | DataType::FixedSizeList(element, _) => DataType::List(Arc::new(normalise_field(
            table,
            element,
            &format!("{path}.element"),
        )?)),
        DataType::Map(entries, sorted) => {
            let DataType::Struct(kv) = entries.data_type() else {
                return Err(Error::schema(
                    table,
                    format!("column '{path}': a map without key/value struct"),
                ));
            };
            let (Some(key), Some(value)) = (kv.first(), kv.get(1)) else {
                return Err(Error::schema(
                    table,
                    format!("column '{path}': a map without key/value fields"),
                ));
            };
            let key = Field::new(
                key.name(),
                normalise_type(table, key.data_type(), path)?,
                false,
            );
            let value = normalise_field(table, value, &format!("{path}.value"))?;
            DataType::Map(
                Arc::new(Field::new(
                    entries.name(),
                    DataType::Struct(vec![key, value].into()),
                    false,
                )),
                *sorted,
            )
        }
        other => other.clone(),
    })
}

/// `batch` with the table's Arrow schema `target` (columns matched by name, cast, missing
/// ones null). Errors name the table and the column.
pub fn conform_batch(table: &str, batch: &RecordBatch, target: &SchemaRef) -> Result<RecordBatch> {
    let source = batch.schema();
    for field in source.fields() {
        if target.field_with_name(field.name()).is_err() {
            return Err(Error::schema(
                table,
                format!(
                    "column '{}' is not in the table (table columns: {}); evolve the table's schema first (ldp_table::evolve)",
                    field.name(),
                    column_names(target.fields())
                ),
            ));
        }
    }
    let rows = batch.num_rows();
    let columns = target
        .fields()
        .iter()
        .map(|field| match source.index_of(field.name()) {
            Ok(index) => conform_array(table, field.name(), batch.column(index), field),
            Err(_) if field.is_nullable() => Ok(new_null_array(field.data_type(), rows)),
            Err(_) => Err(Error::schema(
                table,
                format!(
                    "column '{}' is required by the table but missing from the data",
                    field.name()
                ),
            )),
        })
        .collect::<Result<Vec<_>>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(target.clone(), columns, &options).map_err(|e| {
        Error::schema(
            table,
            format!("the data does not fit the table schema: {e}"),
        )
    })
}

fn column_names(fields: &Fields) -> String {
    fields
        .iter()
        .map(|f| f.name().as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn mismatch(table: &str, path: &str, from: &DataType, to: &DataType) -> Error {
    Error::schema(
        table,
        format!(
            "column '{path}' has type {from}, which cannot be written to the table's type {to}"
        ),
    )
}

/// Whether a value of Arrow type `from` can be stored as `to` without changing its meaning.
fn primitive_fits(from: &DataType, to: &DataType) -> bool {
    use DataType as T;
    match (from, to) {
        (a, b) if a == b => true,
        (T::Dictionary(_, value), to) => primitive_fits(value, to),
        (T::Int8 | T::Int16 | T::UInt8 | T::UInt16, T::Int32) => true,
        (T::Int8 | T::Int16 | T::Int32 | T::UInt8 | T::UInt16 | T::UInt32, T::Int64) => true,
        (T::Float16, T::Float32) => true,
        (T::Float16 | T::Float32, T::Float64) => true,
        (T::Timestamp(_, None), T::Timestamp(_, None)) => true,
        (T::Timestamp(_, Some(_)), T::Timestamp(_, Some(_))) => true,
        (T::Time32(_) | T::Time64(_), T::Time64(_)) => true,
        (T::Date64, T::Date32) => true,
        (T::Utf8 | T::LargeUtf8 | T::Utf8View, T::Utf8 | T::LargeUtf8) => true,
        (T::Binary | T::LargeBinary | T::BinaryView, T::Binary | T::LargeBinary) => true,
        (T::Decimal128(p1, s1), T::Decimal128(p2, s2)) => s1 == s2 && p1 <= p2,
        _ => false,
    }
}

fn conform_array(table: &str, path: &str, array: &ArrayRef, target: &FieldRef) -> Result<ArrayRef> {
    let to = target.data_type();
    let from = array.data_type();
    match to {
        DataType::Struct(fields) => {
            let Some(source) = array.as_any().downcast_ref::<StructArray>() else {
                return Err(mismatch(table, path, from, to));
            };
            let DataType::Struct(source_fields) = from else {
                return Err(mismatch(table, path, from, to));
            };
            for field in source_fields {
                if !fields.iter().any(|f| f.name() == field.name()) {
                    return Err(Error::schema(
                        table,
                        format!("field '{path}.{}' is not in the table", field.name()),
                    ));
                }
            }
            let children = fields
                .iter()
                .map(|field| {
                    let child_path = format!("{path}.{}", field.name());
                    match source_fields.iter().position(|f| f.name() == field.name()) {
                        Some(i) => conform_array(table, &child_path, source.column(i), field),
                        None => Ok(new_null_array(field.data_type(), array.len())),
                    }
                })
                .collect::<Result<Vec<_>>>()?;
            let built = StructArray::try_new_with_length(
                fields.clone(),
                children,
                source.nulls().cloned(),
                array.len(),
            )
            .map_err(|e| Error::schema(table, format!("column '{path}': {e}")))?;
            Ok(Arc::new(built))
        }
        DataType::List(element) => {
            let list = match from {
                DataType::List(_) => array.clone(),
                DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
                    let as_list = DataType::List(f.clone());
                    if array.as_any().downcast_ref::<LargeListArray>().is_none()
                        && array
                            .as_any()
                            .downcast_ref::<FixedSizeListArray>()
                            .is_none()
                    {
                        return Err(mismatch(table, path, from, to));
                    }
                    arrow_cast::cast(array, &as_list)
                        .map_err(|e| Error::schema(table, format!("column '{path}': {e}")))?
                }
                _ => return Err(mismatch(table, path, from, to)),
            };
            let Some(list) = list.as_any().downcast_ref::<ListArray>() else {
                return Err(mismatch(table, path, from, to));
            };
            let values = conform_array(table, &format!("{path}.element"), list.values(), element)?;
            let built = ListArray::try_new(
                element.clone(),
                list.offsets().clone(),
                values,
                list.nulls().cloned(),
            )
            .map_err(|e| Error::schema(table, format!("column '{path}': {e}")))?;
            Ok(Arc::new(built))
        }
        DataType::Map(entries, sorted) => {
            let Some(map) = array.as_any().downcast_ref::<MapArray>() else {
                return Err(mismatch(table, path, from, to));
            };
            let entries_array: ArrayRef = Arc::new(map.entries().clone());
            let conformed = conform_array(table, path, &entries_array, entries)?;
            let Some(conformed) = conformed.as_any().downcast_ref::<StructArray>() else {
                return Err(mismatch(table, path, from, to));
            };
            let built = MapArray::try_new(
                entries.clone(),
                map.offsets().clone(),
                conformed.clone(),
                map.nulls().cloned(),
                *sorted,
            )
            .map_err(|e| Error::schema(table, format!("column '{path}': {e}")))?;
            Ok(Arc::new(built))
        }
        _ if from == to => Ok(array.clone()),
        _ if primitive_fits(from, to) => arrow_cast::cast(array, to).map_err(|e| {
            Error::schema(
                table,
                format!("column '{path}' cannot be cast from {from} to {to}: {e}"),
            )
        }),
        _ => Err(mismatch(table, path, from, to)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int32Array, StringArray, TimestampNanosecondArray};
    use iceberg::spec::{PrimitiveType, Type};

    fn ns_schema() -> ArrowSchema {
        ArrowSchema::new(vec![
            Field::new("id", DataType::Int32, false),
            Field::new(
                "at",
                DataType::Timestamp(TimeUnit::Nanosecond, Some("Europe/Paris".into())),
                true,
            ),
            Field::new(
                "naive",
                DataType::Timestamp(TimeUnit::Nanosecond, None),
                true,
            ),
            Field::new("name", DataType::Utf8View, true),
        ])
    }

    #[test]
    fn creates_optional_microsecond_fields() {
        let schema = iceberg_schema("ns.t", &ns_schema()).unwrap();
        let types: Vec<_> = schema
            .as_struct()
            .fields()
            .iter()
            .map(|f| (f.id, f.name.clone(), f.required, (*f.field_type).clone()))
            .collect();
        assert_eq!(
            types,
            vec![
                (1, "id".into(), false, Type::Primitive(PrimitiveType::Int)),
                (
                    2,
                    "at".into(),
                    false,
                    Type::Primitive(PrimitiveType::Timestamptz)
                ),
                (
                    3,
                    "naive".into(),
                    false,
                    Type::Primitive(PrimitiveType::Timestamp)
                ),
                (
                    4,
                    "name".into(),
                    false,
                    Type::Primitive(PrimitiveType::String)
                ),
            ]
        );
    }

    #[test]
    fn null_columns_are_refused_by_name() {
        let schema = ArrowSchema::new(vec![Field::new("empty", DataType::Null, true)]);
        let error = iceberg_schema("ns.t", &schema).unwrap_err();
        assert!(error.to_string().contains("column 'empty'"), "{error}");
    }

    /// Pins a fuzz finding (the `json` target): a JSON field whose objects are all `{}` is a
    /// struct without fields, which failed only when Parquet refused to write it.
    #[test]
    fn structs_without_fields_are_refused_by_name() {
        let schema = ArrowSchema::new(vec![Field::new(
            "meta",
            DataType::Struct(Fields::empty()),
            true,
        )]);
        let error = iceberg_schema("ns.t", &schema).unwrap_err().to_string();
        assert!(
            error.contains("column 'meta' is a struct without fields"),
            "{error}"
        );
    }

    #[test]
    fn conforms_batches_to_the_table() {
        let table = iceberg_schema("ns.t", &ns_schema()).unwrap();
        let target = arrow_schema("ns.t", &table).unwrap();
        let batch = RecordBatch::try_new(
            Arc::new(ArrowSchema::new(vec![
                Field::new(
                    "naive",
                    DataType::Timestamp(TimeUnit::Nanosecond, None),
                    true,
                ),
                Field::new("id", DataType::Int32, true),
            ])),
            vec![
                Arc::new(TimestampNanosecondArray::from(vec![1_999, 2_000_001])),
                Arc::new(Int32Array::from(vec![1, 2])),
            ],
        )
        .unwrap();
        let out = conform_batch("ns.t", &batch, &target).unwrap();
        assert_eq!(out.schema(), target);
        assert_eq!(out.num_rows(), 2);
        assert_eq!(out.column(1).null_count(), 2);
        let naive = out
            .column(2)
            .as_any()
            .downcast_ref::<arrow_array::TimestampMicrosecondArray>()
            .unwrap();
        assert_eq!(naive.values(), &[1, 2_000]);
    }

    #[test]
    fn refuses_lossy_or_unknown_columns() {
        let table = iceberg_schema("ns.t", &ns_schema()).unwrap();
        let target = arrow_schema("ns.t", &table).unwrap();
        let wrong = RecordBatch::try_new(
            Arc::new(ArrowSchema::new(vec![Field::new(
                "id",
                DataType::Utf8,
                true,
            )])),
            vec![Arc::new(StringArray::from(vec!["x"]))],
        )
        .unwrap();
        let error = conform_batch("ns.t", &wrong, &target).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("ns.t: column 'id' has type Utf8"),
            "{error}"
        );
        let extra = RecordBatch::try_new(
            Arc::new(ArrowSchema::new(vec![Field::new(
                "other",
                DataType::Int32,
                true,
            )])),
            vec![Arc::new(Int32Array::from(vec![1]))],
        )
        .unwrap();
        let error = conform_batch("ns.t", &extra, &target).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("column 'other' is not in the table"),
            "{error}"
        );
    }
}
