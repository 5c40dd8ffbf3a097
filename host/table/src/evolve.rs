//! Schema evolution on write (a target's `schema_evolution`, default true): the
//! columns of the data that the table lacks are added as optional columns, and the widenings
//! Iceberg allows (`int` → `long`, `float` → `double`) are applied, in the same commit as the
//! data. The table's existing columns keep their field ids; new ones get ids above the table's
//! `last-column-id`. Any other difference is left to [`crate::schema::conform_batch`], which
//! casts what keeps its meaning and names the column and both types otherwise.

use std::sync::Arc;

use arrow_schema::{DataType, Schema as ArrowSchema};
use iceberg::spec::{NestedField, NestedFieldRef, PrimitiveType, Schema, Type};

use crate::error::{Error, Result};
use crate::schema::normalise_type;

/// A table schema evolved for the data about to be written.
#[derive(Debug, Clone)]
pub struct Evolution {
    /// The new schema (its id one above the table's current schema's).
    pub schema: Schema,
    /// Columns added, in the data's order.
    pub added: Vec<String>,
    /// Columns widened (`int` → `long`, `float` → `double`).
    pub widened: Vec<String>,
}

/// The columns of `data` that `current` lacks, in the data's order.
pub fn new_columns(current: &Schema, data: &ArrowSchema) -> Vec<String> {
    data.fields()
        .iter()
        .filter(|f| current.field_by_name(f.name()).is_none())
        .map(|f| f.name().clone())
        .collect()
}

/// Refuses data with columns that `current` lacks, naming them: what a table whose config says
/// `schema_evolution: false` does.
pub fn refuse_new_columns(table: &str, current: &Schema, data: &ArrowSchema) -> Result<()> {
    let new = new_columns(current, data);
    if new.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = new.iter().map(|n| format!("'{n}'")).collect();
    Err(Error::schema(
        table,
        format!(
            "the data has column(s) {} that the table lacks, and metadata.target.schema_evolution \
             is false; set it to true to add them to the table, or leave them out of the data",
            names.join(", ")
        ),
    ))
}

/// The evolution of `current` (of a table whose `last-column-id` is `last_column_id`) that
/// `data` needs; `None` when the data fits the schema as it is.
///
/// # Errors
///
/// A new column whose type is nested (struct, list, map): adding those is not supported yet.
pub fn evolve(
    table: &str,
    current: &Schema,
    last_column_id: i32,
    data: &ArrowSchema,
) -> Result<Option<Evolution>> {
    let mut fields: Vec<NestedFieldRef> = current.as_struct().fields().to_vec();
    let mut next_id = last_column_id.max(current.highest_field_id());
    let (mut added, mut widened) = (Vec::new(), Vec::new());
    for field in data.fields() {
        let data_type = normalise_type(table, field.data_type(), field.name())?;
        match fields.iter().position(|f| f.name == *field.name()) {
            Some(index) => {
                if let Some(wider) = widening(&fields[index].field_type, &data_type) {
                    let mut changed = NestedField::clone(&fields[index]);
                    changed.field_type = Box::new(Type::Primitive(wider));
                    fields[index] = Arc::new(changed);
                    widened.push(field.name().clone());
                }
            }
            None => {
                let ty = iceberg::arrow::arrow_type_to_type(&data_type)
                    .ok()
                    .filter(|ty| matches!(ty, Type::Primitive(_)))
                    .ok_or_else(|| {
                        Error::schema(
                            table,
                            format!(
                                "column '{}' ({}) is new, and adding a nested column to a table \
                                 is not supported yet; add it to the table first, or leave it out",
                                field.name(),
                                field.data_type()
                            ),
                        )
                    })?;
                next_id += 1;
                fields.push(Arc::new(NestedField::optional(next_id, field.name(), ty)));
                added.push(field.name().clone());
            }
        }
    }
    if added.is_empty() && widened.is_empty() {
        return Ok(None);
    }
    let schema = Schema::builder()
        .with_schema_id(current.schema_id() + 1)
        .with_fields(fields)
        .with_identifier_field_ids(current.identifier_field_ids())
        .build()
        .map_err(|source| Error::iceberg(table, "cannot build the evolved schema", source))?;
    Ok(Some(Evolution {
        schema,
        added,
        widened,
    }))
}

/// The type a table column of type `current` is promoted to for data of Arrow type `data`.
fn widening(current: &Type, data: &DataType) -> Option<PrimitiveType> {
    match (current, data) {
        (Type::Primitive(PrimitiveType::Int), DataType::Int64 | DataType::UInt32) => {
            Some(PrimitiveType::Long)
        }
        (Type::Primitive(PrimitiveType::Float), DataType::Float64) => Some(PrimitiveType::Double),
        _ => None,
    }
}

/// Whether `evolved` still fits `base` (the table's current schema when the commit is made):
/// every column of `base` is in `evolved` with the same id. A table whose schema another writer
/// changed meanwhile does not fit, and the commit must not replace its schema.
pub(crate) fn still_fits(base: &Schema, evolved: &Schema) -> bool {
    base.as_struct().fields().iter().all(|field| {
        evolved
            .field_by_id(field.id)
            .is_some_and(|f| f.name == field.name)
    }) && base.highest_field_id() <= evolved.highest_field_id()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::Field;

    fn table_schema() -> Schema {
        Schema::builder()
            .with_schema_id(0)
            .with_fields(vec![
                Arc::new(NestedField::optional(
                    1,
                    "id",
                    Type::Primitive(PrimitiveType::Int),
                )),
                Arc::new(NestedField::optional(
                    2,
                    "fare",
                    Type::Primitive(PrimitiveType::Float),
                )),
            ])
            .build()
            .unwrap()
    }

    #[test]
    fn adds_new_columns_and_widens() {
        let current = table_schema();
        let same = ArrowSchema::new(vec![Field::new("id", DataType::Int32, true)]);
        assert!(evolve("ns.t", &current, 2, &same).unwrap().is_none());
        let data = ArrowSchema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("fare", DataType::Float64, true),
            Field::new("city", DataType::Utf8View, true),
        ]);
        assert_eq!(new_columns(&current, &data), ["city"]);
        let evolution = evolve("ns.t", &current, 2, &data).unwrap().unwrap();
        assert_eq!(evolution.added, ["city"]);
        assert_eq!(evolution.widened, ["id", "fare"]);
        let schema = &evolution.schema;
        assert_eq!(schema.schema_id(), 1);
        let city = schema.field_by_name("city").unwrap();
        assert_eq!((city.id, city.required), (3, false));
        assert_eq!(*city.field_type, Type::Primitive(PrimitiveType::String));
        assert_eq!(
            *schema.field_by_id(1).unwrap().field_type,
            Type::Primitive(PrimitiveType::Long)
        );
        assert!(still_fits(&current, schema));
        assert!(!still_fits(schema, &current));
    }

    #[test]
    fn ids_stay_above_last_column_id_and_nested_columns_are_refused() {
        let current = table_schema();
        let data = ArrowSchema::new(vec![Field::new("x", DataType::Boolean, true)]);
        let evolution = evolve("ns.t", &current, 7, &data).unwrap().unwrap();
        assert_eq!(evolution.schema.field_by_name("x").unwrap().id, 8);
        let nested = ArrowSchema::new(vec![Field::new(
            "tags",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        )]);
        let error = evolve("ns.t", &current, 2, &nested).unwrap_err();
        assert!(error.to_string().contains("column 'tags'"), "{error}");
    }
}
