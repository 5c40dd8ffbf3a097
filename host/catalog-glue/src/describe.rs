//! What a Glue table says about an Iceberg table besides its metadata pointer: the table's
//! location and columns (`StorageDescriptor`) and its properties (`Parameters`), made from the
//! metadata JSON as pyiceberg's `GlueCatalog` makes them, so Athena and the Glue console show
//! the same table whichever tool committed last.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// The Glue-side description of an Iceberg table: what pyiceberg writes beside the metadata
/// pointer. [`TableDescriptor::default`] writes none of it (a bare pointer).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableDescriptor {
    /// The table's location (`StorageDescriptor.Location`), the metadata's `location`.
    pub location: Option<String>,
    /// `StorageDescriptor.Columns`: Glue column objects (`Name`, `Type`, `Parameters` with
    /// `iceberg.field.id`, `iceberg.field.optional`, `iceberg.field.current`, `Comment`).
    pub columns: Vec<Value>,
    /// The table's properties, copied into `Parameters` (pyiceberg does).
    pub properties: BTreeMap<String, String>,
}

impl TableDescriptor {
    /// The description of the table whose metadata file holds `metadata` (its JSON): the
    /// location, the columns of the current schema (`iceberg.field.current` = `true`) then those
    /// only older schemas have, and the properties. Missing parts are left empty.
    pub fn from_metadata(metadata: &Value) -> Self {
        let location = metadata
            .get("location")
            .and_then(Value::as_str)
            .map(str::to_string);
        let properties = metadata
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .map(|(k, v)| {
                        let value = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                        (k.clone(), value)
                    })
                    .collect()
            })
            .unwrap_or_default();
        TableDescriptor {
            location,
            columns: columns(metadata),
            properties,
        }
    }
}

fn columns(metadata: &Value) -> Vec<Value> {
    let current_id = metadata.get("current-schema-id").and_then(Value::as_i64);
    let mut schemas: Vec<&Value> = metadata
        .get("schemas")
        .and_then(Value::as_array)
        .map(|s| s.iter().collect())
        .unwrap_or_default();
    if schemas.is_empty()
        && let Some(schema) = metadata.get("schema")
    {
        schemas.push(schema);
    }
    let is_current = |schema: &Value| {
        current_id.is_none() || schema.get("schema-id").and_then(Value::as_i64) == current_id
    };
    // The current schema first, then the others in order.
    schemas.sort_by_key(|schema| !is_current(schema));
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for schema in schemas {
        let current = is_current(schema);
        let fields = schema.get("fields").and_then(Value::as_array);
        for field in fields.into_iter().flatten() {
            let Some(name) = field.get("name").and_then(Value::as_str) else {
                continue;
            };
            if !seen.insert(name.to_string()) {
                continue;
            }
            out.push(column(name, field, current));
        }
    }
    out
}

fn column(name: &str, field: &Value, current: bool) -> Value {
    let id = field.get("id").map(|id| id.to_string()).unwrap_or_default();
    let required = field
        .get("required")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut column = Map::new();
    column.insert("Name".into(), json!(name));
    column.insert(
        "Type".into(),
        json!(glue_type(field.get("type").unwrap_or(&Value::Null))),
    );
    column.insert(
        "Parameters".into(),
        json!({
            "iceberg.field.id": id,
            "iceberg.field.optional": (!required).to_string(),
            "iceberg.field.current": current.to_string(),
        }),
    );
    if let Some(doc) = field.get("doc").and_then(Value::as_str)
        && !doc.is_empty()
    {
        column.insert("Comment".into(), json!(doc));
    }
    Value::Object(column)
}

/// An Iceberg type (its JSON) as a Hive/Glue type string, as pyiceberg's
/// `_IcebergSchemaToGlueType` writes it.
pub(crate) fn glue_type(iceberg: &Value) -> String {
    match iceberg {
        Value::String(name) => primitive(name),
        Value::Object(object) => match object.get("type").and_then(Value::as_str) {
            Some("struct") => {
                let fields: Vec<String> = object
                    .get("fields")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|f| {
                        let name = f.get("name").and_then(Value::as_str).unwrap_or_default();
                        format!(
                            "{name}:{}",
                            glue_type(f.get("type").unwrap_or(&Value::Null))
                        )
                    })
                    .collect();
                format!("struct<{}>", fields.join(","))
            }
            Some("list") => format!(
                "array<{}>",
                glue_type(object.get("element").unwrap_or(&Value::Null))
            ),
            Some("map") => format!(
                "map<{},{}>",
                glue_type(object.get("key").unwrap_or(&Value::Null)),
                glue_type(object.get("value").unwrap_or(&Value::Null))
            ),
            _ => "string".into(),
        },
        _ => "string".into(),
    }
}

fn primitive(name: &str) -> String {
    let mapped = match name {
        "boolean" => "boolean",
        "int" => "int",
        "long" => "bigint",
        "float" => "float",
        "double" => "double",
        "date" => "date",
        "time" | "string" | "uuid" => "string",
        "timestamp" | "timestamptz" => "timestamp",
        "binary" => "binary",
        _ if name.starts_with("fixed") => "binary",
        _ if name.starts_with("decimal") => {
            // `decimal(10, 2)` in the metadata, `decimal(10,2)` for Glue.
            return name.replace(' ', "");
        }
        other => other,
    };
    mapped.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_as_pyiceberg_writes_them() {
        let nested = json!({"type": "struct", "fields": [
            {"id": 3, "name": "tags", "required": false,
             "type": {"type": "list", "element-id": 4, "element": "string", "element-required": false}},
            {"id": 5, "name": "m", "required": true,
             "type": {"type": "map", "key-id": 6, "key": "int", "value-id": 7, "value": "decimal(10, 2)", "value-required": false}}
        ]});
        assert_eq!(
            glue_type(&nested),
            "struct<tags:array<string>,m:map<int,decimal(10,2)>>"
        );
        assert_eq!(glue_type(&json!("long")), "bigint");
        assert_eq!(glue_type(&json!("timestamptz")), "timestamp");
        assert_eq!(glue_type(&json!("fixed[16]")), "binary");
        assert_eq!(glue_type(&json!("timestamp_ns")), "timestamp_ns");
    }

    #[test]
    fn current_columns_first_then_older_ones() {
        let metadata = json!({
            "location": "s3://b/t",
            "current-schema-id": 1,
            "properties": {"owner": "ops"},
            "schemas": [
                {"schema-id": 0, "fields": [
                    {"id": 1, "name": "id", "required": true, "type": "long"},
                    {"id": 2, "name": "old", "required": false, "type": "string"}]},
                {"schema-id": 1, "fields": [
                    {"id": 1, "name": "id", "required": true, "type": "long", "doc": "key"}]}
            ]
        });
        let d = TableDescriptor::from_metadata(&metadata);
        assert_eq!(d.location.as_deref(), Some("s3://b/t"));
        assert_eq!(d.properties["owner"], "ops");
        assert_eq!(
            d.columns,
            vec![
                json!({"Name": "id", "Type": "bigint", "Comment": "key", "Parameters": {
                    "iceberg.field.id": "1", "iceberg.field.optional": "false", "iceberg.field.current": "true"}}),
                json!({"Name": "old", "Type": "string", "Parameters": {
                    "iceberg.field.id": "2", "iceberg.field.optional": "true", "iceberg.field.current": "false"}}),
            ]
        );
    }
}
