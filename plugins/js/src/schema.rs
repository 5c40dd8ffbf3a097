//! Schemas as the script sees them: `[{name, type, nullable}]`, in and out of `schema(fields)`.

use crate::types::{TYPE_NAMES, is_supported, parse_type_name, type_name};
use boa_engine::object::builtins::JsArray;
use boa_engine::{Context, JsObject, JsString, JsValue};
use ldp_plugin_sdk::PluginError;
use ldp_plugin_sdk::arrow_schema::{Field, Schema, SchemaRef};
use std::collections::HashSet;
use std::sync::Arc;

const EXAMPLE: &str = "function schema(fields) { return [...fields, {name: \"email_domain\", \
                       type: \"string\"}]; }";

/// Refuses an input column whose type a script cannot read.
pub fn check_input(schema: &Schema, label: &str) -> Result<(), PluginError> {
    for field in schema.fields() {
        if !is_supported(field.data_type()) {
            return Err(PluginError::config(format!(
                "{label}: input column '{}' has type {}, which the js transform cannot pass \
                 to JavaScript (it handles {TYPE_NAMES}); drop or cast the column before this \
                 transform",
                field.name(),
                type_name(field.data_type())
            )));
        }
    }
    Ok(())
}

/// The input fields as `[{name, type, nullable}]`.
pub fn fields_to_js(schema: &Schema, ctx: &mut Context) -> Result<JsValue, PluginError> {
    let mut items = Vec::with_capacity(schema.fields().len());
    for field in schema.fields() {
        let object = JsObject::with_object_proto(ctx.intrinsics());
        let props: [(&str, JsValue); 3] = [
            ("name", JsString::from(field.name().as_str()).into()),
            ("type", JsString::from(type_name(field.data_type())).into()),
            ("nullable", field.is_nullable().into()),
        ];
        for (key, value) in props {
            object
                .create_data_property_or_throw(JsString::from(key), value, ctx)
                .map_err(|e| PluginError::internal(format!("building the fields: {e}")))?;
        }
        items.push(JsValue::from(object));
    }
    Ok(JsArray::from_iter(items, ctx).into())
}

fn bad(label: &str, what: impl std::fmt::Display) -> PluginError {
    PluginError::config(format!(
        "{label}: schema(fields) {what}; it must return an array of {{name, type, nullable}} \
         objects, e.g. {EXAMPLE}"
    ))
}

/// The output schema from what `schema(fields)` returned. A field named and typed like an input
/// field keeps its metadata.
pub fn fields_from_js(
    value: &JsValue,
    input: &Schema,
    label: &str,
    ctx: &mut Context,
) -> Result<SchemaRef, PluginError> {
    let array = value
        .as_object()
        .filter(JsObject::is_array)
        .ok_or_else(|| bad(label, format!("returned {}", value.type_of())))?;
    let length = array
        .get(JsString::from("length"), ctx)
        .ok()
        .and_then(|l| l.as_number())
        .unwrap_or(0.0) as u32;
    let mut fields = Vec::with_capacity((length as usize).min(1024));
    let mut seen = HashSet::new();
    for index in 0..length {
        let item = array
            .get(index, ctx)
            .map_err(|e| bad(label, format!("item {index}: {e}")))?;
        let Some(object) = item.as_object().filter(|o| !o.is_array()) else {
            return Err(bad(label, format!("item {index} is {}", item.type_of())));
        };
        let mut get = |key: &str| {
            object
                .get(JsString::from(key), ctx)
                .map_err(|e| bad(label, format!("item {index}.{key}: {e}")))
        };
        let (name, data_type, nullable) = (get("name")?, get("type")?, get("nullable")?);
        let name = match name.as_string() {
            Some(name) if !name.is_empty() => name.to_std_string_lossy(),
            _ => return Err(bad(label, format!("item {index} has no \"name\" string"))),
        };
        let type_text = data_type.as_string().map(|t| t.to_std_string_lossy());
        let Some(data_type) = type_text.as_deref().and_then(parse_type_name) else {
            let got = match &type_text {
                Some(t) => format!("\"{t}\""),
                None => data_type.type_of().to_owned(),
            };
            return Err(PluginError::config(format!(
                "{label}: schema(fields): field '{name}' has type {got}; give one of \
                 {TYPE_NAMES} (as a string, e.g. {{name: \"{name}\", type: \"double\"}})"
            )));
        };
        let nullable = match nullable.as_boolean() {
            Some(n) => n,
            None if nullable.is_null_or_undefined() => true,
            None => {
                return Err(bad(
                    label,
                    format!("field '{name}' has a nullable that is not true or false"),
                ));
            }
        };
        if !seen.insert(name.clone()) {
            return Err(PluginError::config(format!(
                "{label}: schema(fields) returned the column '{name}' twice; column names must \
                 be unique"
            )));
        }
        let field = match input.field_with_name(&name) {
            Ok(same) if same.data_type() == &data_type => {
                same.as_ref().clone().with_nullable(nullable)
            }
            _ => Field::new(name, data_type, nullable),
        };
        fields.push(field);
    }
    Ok(Arc::new(Schema::new_with_metadata(
        fields,
        input.metadata().clone(),
    )))
}
