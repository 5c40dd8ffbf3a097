//! Arrow batch → JavaScript: an array of plain row objects `{column: value}`, column by
//! column, one downcast per column.

use crate::time::{format_date, format_timestamp};
use crate::types::type_name;
use boa_engine::builtins::object::OrdinaryObject;
use boa_engine::object::builtins::JsArray;
use boa_engine::property::{PropertyDescriptor, PropertyKey};
use boa_engine::{Context, JsObject, JsString, JsValue};
use ldp_plugin_sdk::PluginError;
use ldp_plugin_sdk::arrow_array::cast::AsArray;
use ldp_plugin_sdk::arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use ldp_plugin_sdk::arrow_array::{Array, ArrayRef, RecordBatch};
use ldp_plugin_sdk::arrow_schema::{DataType, TimeUnit};

/// The largest integer a JavaScript Number holds exactly (2^53).
const MAX_SAFE: u64 = 1 << 53;

/// What converting one column needs: its key in the row objects and its name.
pub struct InColumn {
    key: PropertyKey,
    name: String,
}

impl InColumn {
    /// The column named `name`.
    pub fn new(name: &str) -> Self {
        Self {
            key: PropertyKey::from(JsString::from(name)),
            name: name.to_owned(),
        }
    }
}

/// Where a value came from, for messages.
struct At<'a> {
    label: &'a str,
    batch: u64,
    column: &'a str,
}

impl At<'_> {
    fn too_large(
        &self,
        row: usize,
        value: impl std::fmt::Display,
        data_type: &DataType,
    ) -> PluginError {
        PluginError::data(format!(
            "{}: input row {row} of batch {}: column '{}' ({}) holds {value}, beyond the \
             integers a JavaScript Number holds exactly (±2^53 = 9007199254740992); cast the \
             column to string or double before this transform",
            self.label,
            self.batch,
            self.column,
            type_name(data_type)
        ))
    }
}

fn set(row: &JsObject, key: &PropertyKey, value: JsValue) {
    row.insert_property(
        key.clone(),
        PropertyDescriptor::builder()
            .value(value)
            .writable(true)
            .enumerable(true)
            .configurable(true),
    );
}

/// Sets `key` on every row to `value(i)`, or to `null` where the column is null.
fn fill(
    rows: &[JsObject],
    key: &PropertyKey,
    column: &ArrayRef,
    mut value: impl FnMut(usize) -> Result<JsValue, PluginError>,
) -> Result<(), PluginError> {
    match column.logical_nulls().filter(|n| n.null_count() > 0) {
        None => {
            for (i, row) in rows.iter().enumerate() {
                set(row, key, value(i)?);
            }
        }
        Some(nulls) => {
            for (i, row) in rows.iter().enumerate() {
                let v = if nulls.is_null(i) {
                    JsValue::null()
                } else {
                    value(i)?
                };
                set(row, key, v);
            }
        }
    }
    Ok(())
}

/// The rows of `batch` as a JavaScript array of objects whose keys are the columns, in order.
pub fn batch_to_js(
    batch: &RecordBatch,
    columns: &[InColumn],
    batch_no: u64,
    label: &str,
    ctx: &mut Context,
) -> Result<JsValue, PluginError> {
    let proto = ctx.intrinsics().constructors().object().prototype();
    let rows: Vec<JsObject> = (0..batch.num_rows())
        .map(|_| JsObject::new(ctx.root_shape(), proto.clone(), OrdinaryObject).upcast())
        .collect();
    for (column, info) in batch.columns().iter().zip(columns) {
        let at = At {
            label,
            batch: batch_no,
            column: &info.name,
        };
        convert_column(&rows, &info.key, column, &at)?;
    }
    Ok(JsArray::from_iter(rows.into_iter().map(JsValue::from), ctx).into())
}

fn convert_column(
    rows: &[JsObject],
    key: &PropertyKey,
    column: &ArrayRef,
    at: &At<'_>,
) -> Result<(), PluginError> {
    use DataType as D;
    let data_type = column.data_type();
    macro_rules! number {
        ($t:ty) => {{
            let values = column.as_primitive::<$t>().values();
            fill(rows, key, column, |i| Ok(JsValue::from(values[i])))
        }};
    }
    match data_type {
        D::Boolean => {
            let values = column.as_boolean();
            fill(rows, key, column, |i| Ok(JsValue::from(values.value(i))))
        }
        D::Int8 => number!(Int8Type),
        D::Int16 => number!(Int16Type),
        D::Int32 => number!(Int32Type),
        D::UInt8 => number!(UInt8Type),
        D::UInt16 => number!(UInt16Type),
        D::UInt32 => number!(UInt32Type),
        D::Float32 => number!(Float32Type),
        D::Float64 => number!(Float64Type),
        D::Int64 => {
            let values = column.as_primitive::<Int64Type>().values();
            fill(rows, key, column, |i| {
                let v = values[i];
                if v.unsigned_abs() > MAX_SAFE {
                    return Err(at.too_large(i, v, data_type));
                }
                Ok(JsValue::from(v))
            })
        }
        D::UInt64 => {
            let values = column.as_primitive::<UInt64Type>().values();
            fill(rows, key, column, |i| {
                let v = values[i];
                if v > MAX_SAFE {
                    return Err(at.too_large(i, v, data_type));
                }
                Ok(JsValue::from(v))
            })
        }
        D::Utf8 => {
            let values = column.as_string::<i32>();
            fill(rows, key, column, |i| {
                Ok(JsString::from(values.value(i)).into())
            })
        }
        D::LargeUtf8 => {
            let values = column.as_string::<i64>();
            fill(rows, key, column, |i| {
                Ok(JsString::from(values.value(i)).into())
            })
        }
        D::Utf8View => {
            let values = column.as_string_view();
            fill(rows, key, column, |i| {
                Ok(JsString::from(values.value(i)).into())
            })
        }
        D::Date32 => {
            let values = column.as_primitive::<Date32Type>().values();
            let mut text = String::with_capacity(10);
            fill(rows, key, column, |i| {
                text.clear();
                format_date(&mut text, values[i]);
                Ok(JsString::from(text.as_str()).into())
            })
        }
        D::Timestamp(unit, tz) => {
            // A column with a time zone holds instants: shown in UTC, with a `Z`.
            let utc = tz.is_some();
            let values = match unit {
                TimeUnit::Second => column.as_primitive::<TimestampSecondType>().values(),
                TimeUnit::Millisecond => column.as_primitive::<TimestampMillisecondType>().values(),
                TimeUnit::Microsecond => column.as_primitive::<TimestampMicrosecondType>().values(),
                TimeUnit::Nanosecond => column.as_primitive::<TimestampNanosecondType>().values(),
            };
            let mut text = String::with_capacity(32);
            fill(rows, key, column, |i| {
                text.clear();
                format_timestamp(&mut text, values[i], *unit, utc);
                Ok(JsString::from(text.as_str()).into())
            })
        }
        other => Err(PluginError::internal(format!(
            "{}: column '{}' has type {}, which open() should have refused",
            at.label,
            at.column,
            type_name(other)
        ))),
    }
}
