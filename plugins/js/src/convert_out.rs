//! JavaScript → Arrow batch: the array of row objects `transform` returned, checked against the
//! output schema, one builder per column.

use crate::time::{days_from_epoch_millis, from_epoch_millis, parse_date, parse_timestamp};
use crate::types::{conversion_hint, expected_value, js_member, type_name};
use boa_engine::object::builtins::JsDate;
use boa_engine::object::shape::Shape;
use boa_engine::property::PropertyKey;
use boa_engine::value::JsVariant;
use boa_engine::{Context, JsObject, JsString, JsValue};
use ldp_plugin_sdk::PluginError;
use ldp_plugin_sdk::arrow_array::builder::{
    BooleanBuilder, LargeStringBuilder, PrimitiveBuilder, StringBuilder, StringViewBuilder,
};
use ldp_plugin_sdk::arrow_array::types::{
    ArrowTimestampType, Date32Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use ldp_plugin_sdk::arrow_array::{
    ArrayRef, ArrowPrimitiveType, PrimitiveArray, RecordBatch, RecordBatchOptions,
};
use ldp_plugin_sdk::arrow_schema::{DataType, Field, SchemaRef, TimeUnit};
use std::collections::HashMap;
use std::sync::Arc;

/// The output schema, with the row-object key of each column.
pub struct OutColumns {
    schema: SchemaRef,
    keys: Vec<PropertyKey>,
    index: HashMap<PropertyKey, usize>,
}

impl OutColumns {
    /// The columns of `schema`, every type of which [`crate::types::is_supported`].
    pub fn new(schema: SchemaRef) -> Self {
        let keys: Vec<PropertyKey> = schema
            .fields()
            .iter()
            .map(|f| PropertyKey::from(JsString::from(f.name().as_str())))
            .collect();
        let index = keys
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, k)| (k, i))
            .collect();
        Self {
            schema,
            keys,
            index,
        }
    }

    /// The output schema.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

/// Why a value does not fit its column (beyond its JavaScript type), e.g. "out of range".
type Mismatch = Option<String>;

/// A column's values failed: the row and why.
type Failure = (usize, Mismatch);

fn primitive<T: ArrowPrimitiveType>(
    cells: &[JsValue],
    mut value: impl FnMut(&JsValue) -> Result<T::Native, Mismatch>,
) -> Result<PrimitiveArray<T>, Failure> {
    let mut builder = PrimitiveBuilder::<T>::with_capacity(cells.len());
    for (row, cell) in cells.iter().enumerate() {
        if cell.is_null_or_undefined() {
            builder.append_null();
        } else {
            builder.append_value(value(cell).map_err(|m| (row, m))?);
        }
    }
    Ok(builder.finish())
}

fn int<T: ArrowPrimitiveType>(cells: &[JsValue]) -> Result<ArrayRef, Failure>
where
    T::Native: TryFrom<i128>,
{
    let array = primitive::<T>(cells, |cell| {
        let v = integer(cell)?;
        T::Native::try_from(v).map_err(|_| Some(format!("{v} is out of range")))
    })?;
    Ok(Arc::new(array))
}

macro_rules! strings {
    ($builder:expr, $cells:expr) => {{
        let mut builder = $builder;
        let mut text = String::new();
        for (row, cell) in $cells.iter().enumerate() {
            if cell.is_null_or_undefined() {
                builder.append_null();
            } else {
                builder.append_value(string(cell, &mut text).map_err(|m| (row, m))?);
            }
        }
        Arc::new(builder.finish()) as ArrayRef
    }};
}

fn timestamps<T: ArrowTimestampType>(
    cells: &[JsValue],
    tz: Option<Arc<str>>,
    ctx: &mut Context,
) -> Result<ArrayRef, Failure> {
    let unit = T::UNIT;
    let mut text = String::new();
    let array = primitive::<T>(cells, |cell| match date_millis(cell, ctx) {
        Some(millis) => from_epoch_millis(millis?, unit)
            .ok_or_else(|| Some("out of the range of the column's unit".to_owned())),
        None => parse_timestamp(string(cell, &mut text)?, unit).map_err(Some),
    })?;
    Ok(Arc::new(array.with_timezone_opt(tz)))
}

/// One output column from its values (`null` and `undefined` are null), one type dispatch per
/// column.
fn build_column(
    data_type: &DataType,
    cells: &[JsValue],
    ctx: &mut Context,
) -> Result<ArrayRef, Failure> {
    use DataType as D;
    let n = cells.len();
    Ok(match data_type {
        D::Boolean => {
            let mut builder = BooleanBuilder::with_capacity(n);
            for (row, cell) in cells.iter().enumerate() {
                if cell.is_null_or_undefined() {
                    builder.append_null();
                } else {
                    builder.append_value(cell.as_boolean().ok_or((row, None))?);
                }
            }
            Arc::new(builder.finish())
        }
        D::Int8 => int::<Int8Type>(cells)?,
        D::Int16 => int::<Int16Type>(cells)?,
        D::Int32 => int::<Int32Type>(cells)?,
        D::Int64 => int::<Int64Type>(cells)?,
        D::UInt8 => int::<UInt8Type>(cells)?,
        D::UInt16 => int::<UInt16Type>(cells)?,
        D::UInt32 => int::<UInt32Type>(cells)?,
        D::UInt64 => int::<UInt64Type>(cells)?,
        D::Float32 => Arc::new(primitive::<Float32Type>(cells, |cell| {
            cell.as_number().map(|v| v as f32).ok_or(None)
        })?),
        D::Float64 => Arc::new(primitive::<Float64Type>(cells, |cell| {
            cell.as_number().ok_or(None)
        })?),
        D::Utf8 => strings!(StringBuilder::with_capacity(n, n * 8), cells),
        D::LargeUtf8 => strings!(LargeStringBuilder::with_capacity(n, n * 8), cells),
        D::Utf8View => strings!(StringViewBuilder::with_capacity(n), cells),
        D::Date32 => {
            let mut text = String::new();
            Arc::new(primitive::<Date32Type>(cells, |cell| {
                match date_millis(cell, ctx) {
                    Some(millis) => days_from_epoch_millis(millis?).ok_or(None),
                    None => parse_date(string(cell, &mut text)?).map_err(Some),
                }
            })?)
        }
        D::Timestamp(TimeUnit::Second, tz) => {
            timestamps::<TimestampSecondType>(cells, tz.clone(), ctx)?
        }
        D::Timestamp(TimeUnit::Millisecond, tz) => {
            timestamps::<TimestampMillisecondType>(cells, tz.clone(), ctx)?
        }
        D::Timestamp(TimeUnit::Microsecond, tz) => {
            timestamps::<TimestampMicrosecondType>(cells, tz.clone(), ctx)?
        }
        D::Timestamp(TimeUnit::Nanosecond, tz) => {
            timestamps::<TimestampNanosecondType>(cells, tz.clone(), ctx)?
        }
        // open() refuses the other types.
        _ => return Err((0, Some("the type is not supported".to_owned()))),
    })
}

/// An integral Number (or a BigInt), exactly.
fn integer(value: &JsValue) -> Result<i128, Mismatch> {
    match value.variant() {
        JsVariant::Integer32(i) => Ok(i128::from(i)),
        JsVariant::Float64(f) if f.is_finite() => {
            if f.fract() != 0.0 {
                Err(Some("it is not an integer".to_owned()))
            } else if f.abs() < 1.8e19 {
                Ok(f as i128)
            } else {
                Err(Some(format!("{f} is out of range")))
            }
        }
        JsVariant::BigInt(b) => b
            .to_string()
            .parse()
            .map_err(|_| Some(format!("{b}n is out of range"))),
        _ => Err(None),
    }
}

/// A string value as UTF-8 (in `text`, reused).
fn string<'a>(value: &JsValue, text: &'a mut String) -> Result<&'a str, Mismatch> {
    let JsVariant::String(s) = value.variant() else {
        return Err(None);
    };
    text.clear();
    match s.as_str().variant() {
        boa_engine::string::JsStrVariant::Latin1(bytes) => match std::str::from_utf8(bytes) {
            Ok(ascii) if bytes.is_ascii() => text.push_str(ascii),
            _ => text.extend(bytes.iter().map(|&b| char::from(b))),
        },
        boa_engine::string::JsStrVariant::Utf16(units) => {
            text.extend(char::decode_utf16(units.iter().copied()).map(|c| c.unwrap_or('\u{FFFD}')));
        }
    }
    Ok(text.as_str())
}

/// The time value of a `Date`, or `None` when `value` is not a `Date`.
fn date_millis(value: &JsValue, ctx: &mut Context) -> Option<Result<f64, Mismatch>> {
    let date = JsDate::from_object(value.as_object()?).ok()?;
    let time = date.get_time(ctx).ok().and_then(|t| t.as_number());
    Some(match time {
        Some(t) if t.is_finite() => Ok(t),
        _ => Err(Some("it is an invalid Date".to_owned())),
    })
}

/// A JavaScript value in a message: `the string "12.5"`, `the number 3`, `an object {...}`.
pub fn describe(value: &JsValue) -> String {
    match value.variant() {
        JsVariant::String(s) => {
            let mut text = s.to_std_string_lossy();
            if text.chars().count() > 80 {
                text = text.chars().take(80).collect::<String>() + "...";
            }
            format!("the string {}", serde_json::Value::from(text))
        }
        JsVariant::Integer32(_) | JsVariant::Float64(_) => {
            format!("the number {}", value.display())
        }
        JsVariant::Boolean(b) => format!("the boolean {b}"),
        JsVariant::BigInt(b) => format!("the BigInt {b}n"),
        JsVariant::Symbol(_) => "a symbol".to_owned(),
        JsVariant::Null => "null".to_owned(),
        JsVariant::Undefined => "undefined".to_owned(),
        JsVariant::Object(o) if o.is_array() => "an array".to_owned(),
        JsVariant::Object(o) if o.is_callable() => "a function".to_owned(),
        JsVariant::Object(o) if JsDate::from_object(o.clone()).is_ok() => "a Date".to_owned(),
        JsVariant::Object(_) => "an object".to_owned(),
    }
}

/// The pyarrow type a value suggests, for the hint of an undeclared key.
fn guess_type(value: &JsValue) -> &'static str {
    match value.variant() {
        // An integral Number is as likely a measure as a count: double holds both.
        JsVariant::Integer32(_) | JsVariant::Float64(_) => "double",
        JsVariant::Boolean(_) => "bool",
        JsVariant::BigInt(_) => "int64",
        JsVariant::Object(o) if JsDate::from_object(o.clone()).is_ok() => "timestamp[us, tz=UTC]",
        _ => "string",
    }
}

/// The keys of the last row whose shape was shared, and the column of each: rows built the
/// same way (`{...row, x}`, the input rows) share a shape, so their keys are read and checked
/// once.
struct ShapeCache {
    shape: Shape,
    keys: Vec<(PropertyKey, usize)>,
}

/// Converts the array `transform` (or `flush`) returned. `origin` names it in messages
/// ("batch 3", "flush()"). Gives `None` for zero rows.
pub fn js_to_batch(
    value: &JsValue,
    out: &OutColumns,
    origin: &str,
    label: &str,
    ctx: &mut Context,
) -> Result<Option<RecordBatch>, PluginError> {
    let what = if origin == "flush()" {
        "flush()"
    } else {
        "transform(rows)"
    };
    let Some(array) = value.as_object().filter(JsObject::is_array) else {
        return Err(PluginError::data(format!(
            "{label}: {what} on {origin} returned {}, not an array of row objects; end it \
             with `return rows;` (an array, possibly empty)",
            describe(value)
        )));
    };
    let length = array
        .get(JsString::from("length"), ctx)
        .ok()
        .and_then(|l| l.as_number())
        .unwrap_or(0.0) as u32;
    if length == 0 {
        return Ok(None);
    }
    let fields = out.schema.fields();
    let width = fields.len();
    // Column-major, grown row by row: `length` is the script's to set (`rows.length = 1e9`),
    // so nothing is reserved for rows that may not exist.
    let reserve = (length as usize).min(1 << 16);
    let mut cells: Vec<Vec<JsValue>> = (0..width).map(|_| Vec::with_capacity(reserve)).collect();
    let js_err = |e: boa_engine::JsError| {
        PluginError::data(format!(
            "{label}: reading the rows {what} returned on {origin}: {e}"
        ))
    };
    let mut cache: Option<ShapeCache> = None;
    for index in 0..length {
        let row_index = index as usize;
        for column in &mut cells {
            column.push(JsValue::undefined());
        }
        let row = array.get(index, ctx).map_err(js_err)?;
        let Some(row) = row
            .as_object()
            .filter(|o| !o.is_array() && !o.is_callable())
        else {
            return Err(PluginError::data(format!(
                "{label}: output row {row_index} of {origin} is {}, not a row object \
                 {{column: value}}; {what} must return an array of objects",
                describe(&row)
            )));
        };
        let shape = {
            let object = row.borrow();
            let plain = row.is_ordinary()
                && object.shape().is_shared()
                && object.properties().index_property_keys().next().is_none();
            plain.then(|| object.shape().clone())
        };
        let cached = match (&cache, &shape) {
            (Some(c), Some(s)) => c.shape.to_addr_usize() == s.to_addr_usize(),
            _ => false,
        };
        if !cached {
            let mut keys = Vec::with_capacity(width);
            let mut hint = 0;
            for key in row.own_property_keys(ctx).map_err(js_err)? {
                let column = if out.keys.get(hint) == Some(&key) {
                    hint
                } else if let Some(&c) = out.index.get(&key) {
                    c
                } else if matches!(key, PropertyKey::Symbol(_)) {
                    continue;
                } else {
                    let value = row.get(key.clone(), ctx).map_err(js_err)?;
                    return Err(undeclared(label, origin, row_index, &key, &value, out));
                };
                hint = column + 1;
                keys.push((key, column));
            }
            match shape {
                Some(shape) => cache = Some(ShapeCache { shape, keys }),
                None => {
                    // Not cacheable: read this row's values with the keys just found.
                    for (key, column) in keys {
                        cells[column][row_index] = row.get(key, ctx).map_err(js_err)?;
                    }
                    continue;
                }
            }
        }
        if let Some(c) = &cache {
            for (key, column) in &c.keys {
                cells[*column][row_index] = row.get(key.clone(), ctx).map_err(js_err)?;
            }
        }
    }
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(width);
    for (field, values) in fields.iter().zip(&cells) {
        if !field.is_nullable()
            && let Some(row) = values.iter().position(JsValue::is_null_or_undefined)
        {
            return Err(not_nullable(field, label, origin, row));
        }
        let column = build_column(field.data_type(), values, ctx).map_err(|(row, why)| {
            PluginError::data(format!(
                "{label}: output row {row} of {origin}: column '{}' is {} and takes {}, but the \
                 value is {}{}; convert it in {what} ({}) or declare the column with another \
                 type in schema(fields)",
                field.name(),
                type_name(field.data_type()),
                expected_value(field.data_type()),
                describe(&values[row]),
                why.map(|w| format!(" ({w})")).unwrap_or_default(),
                conversion_hint(field.data_type(), field.name()),
            ))
        })?;
        columns.push(column);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(length as usize));
    RecordBatch::try_new_with_options(out.schema.clone(), columns, &options)
        .map(Some)
        .map_err(|e| PluginError::internal(format!("{label}: building the output batch: {e}")))
}

fn not_nullable(field: &Field, label: &str, origin: &str, row_index: usize) -> PluginError {
    PluginError::data(format!(
        "{label}: output row {row_index} of {origin}: column '{}' is not nullable, but the row \
         gives it no value (null, undefined or a missing key); set row{} or declare the column \
         with nullable: true in schema(fields)",
        field.name(),
        js_member(field.name())
    ))
}

fn undeclared(
    label: &str,
    origin: &str,
    row_index: usize,
    key: &PropertyKey,
    value: &JsValue,
    out: &OutColumns,
) -> PluginError {
    let columns: Vec<&str> = out
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    let name = key.to_string();
    PluginError::data(format!(
        "{label}: output row {row_index} of {origin} has the key '{name}', which is not a \
         column of the output schema [{}]; declare it in schema(fields), e.g. function \
         schema(fields) {{ return [...fields, {{name: {}, type: \"{}\"}}]; }} (or delete \
         row{} before returning the row)",
        columns.join(", "),
        serde_json::Value::from(name.as_str()),
        guess_type(value),
        js_member(&name),
    ))
}
