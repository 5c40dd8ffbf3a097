//! Query results as JSON, the Python tool's way: columns `{name, type}`, rows as lists; numbers
//! as numbers (NaN and infinities as `"NaN"`, `"Infinity"`, `"-Infinity"`), timestamps and
//! dates in ISO-8601, decimals and everything nested as their text, binary as base64, and a
//! string longer than [`MAX_CELL_CHARS`] cut with `...[N more characters]`.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{DataType, SchemaRef};
use serde_json::{Value, json};

/// Strings (and base64 of binaries) longer than this are cut.
pub const MAX_CELL_CHARS: usize = 4096;

/// `[{name, type}]` of a schema.
pub fn columns(schema: &SchemaRef) -> Value {
    Value::from(
        schema
            .fields()
            .iter()
            .map(
                |f| json!({"name": f.name(), "type": ldp_events::pyarrow_type_name(f.data_type())}),
            )
            .collect::<Vec<_>>(),
    )
}

/// Every row of `batches` as a list of JSON values.
pub fn rows(batches: &[RecordBatch]) -> Vec<Value> {
    let mut out = Vec::new();
    for batch in batches {
        for row in 0..batch.num_rows() {
            out.push(Value::from(
                batch
                    .columns()
                    .iter()
                    .map(|column| cell(column, row))
                    .collect::<Vec<_>>(),
            ));
        }
    }
    out
}

/// One value.
pub fn cell(array: &ArrayRef, row: usize) -> Value {
    if array.is_null(row) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Boolean => Value::from(array.as_boolean().value(row)),
        DataType::Int8 => Value::from(array.as_primitive::<Int8Type>().value(row)),
        DataType::Int16 => Value::from(array.as_primitive::<Int16Type>().value(row)),
        DataType::Int32 => Value::from(array.as_primitive::<Int32Type>().value(row)),
        DataType::Int64 => Value::from(array.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => Value::from(array.as_primitive::<UInt8Type>().value(row)),
        DataType::UInt16 => Value::from(array.as_primitive::<UInt16Type>().value(row)),
        DataType::UInt32 => Value::from(array.as_primitive::<UInt32Type>().value(row)),
        DataType::UInt64 => Value::from(array.as_primitive::<UInt64Type>().value(row)),
        DataType::Float32 => float(f64::from(array.as_primitive::<Float32Type>().value(row))),
        DataType::Float64 => float(array.as_primitive::<Float64Type>().value(row)),
        DataType::Utf8 => text(array.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => text(array.as_string::<i64>().value(row)),
        DataType::Utf8View => text(array.as_string_view().value(row)),
        DataType::Binary => text(&base64(array.as_binary::<i32>().value(row))),
        DataType::LargeBinary => text(&base64(array.as_binary::<i64>().value(row))),
        _ => {
            let options = FormatOptions::default().with_null("");
            match ArrayFormatter::try_new(array.as_ref(), &options) {
                Ok(formatter) => text(&formatter.value(row).to_string()),
                Err(_) => Value::Null,
            }
        }
    }
}

fn float(value: f64) -> Value {
    if value.is_nan() {
        Value::from("NaN")
    } else if value.is_infinite() {
        Value::from(if value > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        Value::from(value)
    }
}

fn text(value: &str) -> Value {
    let count = value.chars().count();
    if count <= MAX_CELL_CHARS {
        return Value::from(value);
    }
    let kept: String = value.chars().take(MAX_CELL_CHARS).collect();
    Value::from(format!(
        "{kept}...[{} more characters]",
        count - MAX_CELL_CHARS
    ))
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(TABLE[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_pads() {
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
    }

    #[test]
    fn long_strings_are_cut() {
        let long = "x".repeat(MAX_CELL_CHARS + 5);
        assert_eq!(
            text(&long),
            Value::from(format!(
                "{}...[5 more characters]",
                "x".repeat(MAX_CELL_CHARS)
            ))
        );
        assert_eq!(float(f64::NAN), Value::from("NaN"));
    }
}
