//! The schema fingerprint of a version: `sha256:` and the hex sha256 of the pinned columns'
//! field ids, names, nullability and Iceberg types, as the Python tool computes it, so a
//! manifest written by either tool verifies in the other.
//!
//! The payload is `json.dumps([...], sort_keys=True, separators=(",", ":"))` of one object per
//! column, `{"id", "name", "required", "type"}`, in the order of the snapshot's schema. A
//! primitive type is its Iceberg name (`long`, `double`, `timestamp`, `decimal(10, 2)`,
//! `fixed[16]`); nested types are `{"struct": [fields]}`,
//! `{"list": element, "element_id", "element_required"}` and
//! `{"map": [key, value], "key_id", "value_id", "value_required"}`.

use iceberg::spec::{NestedFieldRef, PrimitiveType, Schema, Type};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// The fingerprint of `fields` (the projected columns, in schema order).
pub fn schema_fingerprint(fields: &[NestedFieldRef]) -> String {
    let payload = Value::Array(fields.iter().map(field_signature).collect());
    let text = crate::pyjson::compact_sorted(&payload);
    format!("sha256:{}", hex::encode(Sha256::digest(text.as_bytes())))
}

/// The columns of `schema` a version reads: every top-level column, or those named in
/// `selected` (case-sensitive), in the schema's order whatever the order of `selected` (as
/// pyiceberg projects them).
///
/// # Errors
///
/// [`Error::Config`] for a name that is not a top-level column of the schema.
pub fn project(schema: &Schema, selected: Option<&[String]>) -> Result<Vec<NestedFieldRef>> {
    let fields = schema.as_struct().fields();
    let Some(selected) = selected else {
        return Ok(fields.to_vec());
    };
    let missing: Vec<&String> = selected
        .iter()
        .filter(|name| !fields.iter().any(|f| &f.name == *name))
        .collect();
    if !missing.is_empty() {
        let columns: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        return Err(Error::config(format!(
            "selected_fields {} {} not column(s) of the snapshot's schema (columns: {})",
            ldp_pyrepr::repr_list(&missing),
            if missing.len() == 1 { "is" } else { "are" },
            columns.join(", ")
        )));
    }
    Ok(fields
        .iter()
        .filter(|f| selected.contains(&f.name))
        .cloned()
        .collect())
}

fn field_signature(field: &NestedFieldRef) -> Value {
    json!({
        "id": field.id,
        "name": field.name,
        "required": field.required,
        "type": type_signature(&field.field_type),
    })
}

fn type_signature(field_type: &Type) -> Value {
    match field_type {
        Type::Primitive(primitive) => Value::String(primitive_name(primitive)),
        Type::Struct(fields) => {
            json!({"struct": fields.fields().iter().map(field_signature).collect::<Vec<_>>()})
        }
        Type::List(list) => json!({
            "list": type_signature(&list.element_field.field_type),
            "element_id": list.element_field.id,
            "element_required": list.element_field.required,
        }),
        Type::Map(map) => json!({
            "map": [type_signature(&map.key_field.field_type), type_signature(&map.value_field.field_type)],
            "key_id": map.key_field.id,
            "value_id": map.value_field.id,
            "value_required": map.value_field.required,
        }),
    }
}

/// pyiceberg's `str()` of a primitive type.
fn primitive_name(primitive: &PrimitiveType) -> String {
    match primitive {
        PrimitiveType::Fixed(size) => format!("fixed[{size}]"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use iceberg::spec::NestedField;

    use super::*;

    fn schema() -> Schema {
        Schema::builder()
            .with_fields(vec![
                Arc::new(NestedField::optional(
                    1,
                    "order_id",
                    Type::Primitive(PrimitiveType::Long),
                )),
                Arc::new(NestedField::optional(
                    2,
                    "customer",
                    Type::Primitive(PrimitiveType::String),
                )),
                Arc::new(NestedField::optional(
                    3,
                    "amount",
                    Type::Primitive(PrimitiveType::Double),
                )),
            ])
            .build()
            .expect("schema")
    }

    #[test]
    fn the_sample_manifest_fingerprint_is_reproduced() {
        let schema = schema();
        // Asked in another order: projected in the schema's order, as pyiceberg does.
        let selected = vec!["amount".to_string(), "order_id".to_string()];
        let fields = project(&schema, Some(&selected)).expect("project");
        let payload = Value::Array(fields.iter().map(field_signature).collect());
        assert_eq!(
            crate::pyjson::compact_sorted(&payload),
            r#"[{"id":1,"name":"order_id","required":false,"type":"long"},{"id":3,"name":"amount","required":false,"type":"double"}]"#
        );
        assert_eq!(
            schema_fingerprint(&fields),
            "sha256:cd3f0b924edd4ab1ffa4ce9e3182eff53e7a71eee82bd39ea08e4f4cccc0bd2c"
        );
        let all = project(&schema, None).expect("all");
        assert_eq!(all.len(), 3);
        assert_ne!(schema_fingerprint(&all), schema_fingerprint(&fields));
    }

    #[test]
    fn unknown_columns_are_named() {
        let error = project(&schema(), Some(&["nope".to_string()])).expect_err("unknown");
        assert_eq!(
            error.to_string(),
            "selected_fields ['nope'] is not column(s) of the snapshot's schema (columns: order_id, customer, amount)"
        );
    }

    #[test]
    fn nested_and_parameterised_types_read_like_pyiceberg() {
        let list = Type::List(iceberg::spec::ListType::new(Arc::new(
            NestedField::required(5, "element", Type::Primitive(PrimitiveType::Int)),
        )));
        let map = Type::Map(iceberg::spec::MapType::new(
            Arc::new(NestedField::required(
                7,
                "key",
                Type::Primitive(PrimitiveType::String),
            )),
            Arc::new(NestedField::optional(
                8,
                "value",
                Type::Primitive(PrimitiveType::Decimal {
                    precision: 10,
                    scale: 2,
                }),
            )),
        ));
        assert_eq!(
            crate::pyjson::compact_sorted(&type_signature(&list)),
            r#"{"element_id":5,"element_required":true,"list":"int"}"#
        );
        assert_eq!(
            crate::pyjson::compact_sorted(&type_signature(&map)),
            r#"{"key_id":7,"map":["string","decimal(10, 2)"],"value_id":8,"value_required":false}"#
        );
        assert_eq!(primitive_name(&PrimitiveType::Fixed(16)), "fixed[16]");
        assert_eq!(primitive_name(&PrimitiveType::Timestamptz), "timestamptz");
    }
}
