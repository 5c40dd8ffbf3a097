//! The `schema` of `run.extracted` and `quality.evaluated`: names and pyarrow type texts, with
//! the `fields` of structs. Names and types only: values never leave the run.

use arrow_schema::{DataType, Field, Schema};
use serde_json::{Map, Value};

use ldp_pyrepr::pyarrow_type_name;

/// One column: `{name, type}`, plus `fields` for a struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaField {
    /// The column name.
    pub name: String,
    /// The type as pyarrow prints it (`int64`, `timestamp[s]`).
    pub type_name: String,
    /// The fields of a struct column (`None` for other types).
    pub fields: Option<Vec<SchemaField>>,
}

impl SchemaField {
    /// A column of a non-struct type.
    pub fn new(name: impl Into<String>, type_name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            type_name: type_name.into(),
            fields: None,
        }
    }

    /// Describes an Arrow field.
    pub fn from_field(field: &Field) -> Self {
        let fields = match field.data_type() {
            DataType::Struct(children) => Some(
                children
                    .iter()
                    .map(|child| SchemaField::from_field(child))
                    .collect(),
            ),
            _ => None,
        };
        Self {
            name: field.name().clone(),
            type_name: pyarrow_type_name(field.data_type()),
            fields,
        }
    }

    /// Describes every column of an Arrow schema, in order.
    pub fn from_schema(schema: &Schema) -> Vec<SchemaField> {
        schema
            .fields()
            .iter()
            .map(|field| SchemaField::from_field(field))
            .collect()
    }

    /// The column as the payload holds it.
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("name".into(), Value::from(self.name.clone()));
        object.insert("type".into(), Value::from(self.type_name.clone()));
        if let Some(fields) = &self.fields {
            object.insert("fields".into(), list(fields));
        }
        Value::Object(object)
    }
}

/// A list of columns as the payload holds it.
pub(crate) fn list(fields: &[SchemaField]) -> Value {
    Value::Array(fields.iter().map(SchemaField::to_value).collect())
}
