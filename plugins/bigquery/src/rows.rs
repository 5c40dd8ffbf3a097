//! BigQuery's result schema and rows (the REST API's JSON: `schema.fields`, `rows[].f[].v`, every
//! value a string or null) as Arrow.
//!
//! | BigQuery | Arrow |
//! |---|---|
//! | `INTEGER`/`INT64` | int64 |
//! | `FLOAT`/`FLOAT64` | double (`NaN`, `Infinity`, `-Infinity` too) |
//! | `BOOLEAN`/`BOOL` | bool |
//! | `STRING` | string |
//! | `BYTES` | binary (the API's base64 decoded) |
//! | `DATE` | date32 |
//! | `DATETIME` | timestamp[us] |
//! | `TIMESTAMP` | timestamp[us, UTC] |
//! | `TIME` | time64[us] |
//! | `NUMERIC` | decimal128(38, 9) |
//! | `BIGNUMERIC`, `GEOGRAPHY`, `JSON`, `INTERVAL`, `RANGE` | string, as the API writes them |
//!
//! `RECORD`/`STRUCT` columns and `REPEATED` ones are not covered: the column is refused by
//! name, with the query's way around it (`TO_JSON_STRING(column)`).

use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, Decimal128Builder, Float64Builder, Int64Builder,
    StringBuilder, Time64MicrosecondBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use base64::Engine;
use ldp_plugin_sdk::PluginError;
use serde_json::Value;

/// A column's BigQuery type, as the rows are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int,
    Float,
    Bool,
    Text,
    Bytes,
    Date,
    DateTime,
    Timestamp,
    Time,
    Numeric,
}

/// The Arrow schema of `fields` (the API's `schema.fields`), and each column's kind.
pub fn schema(fields: &[Value]) -> Result<(SchemaRef, Vec<Kind>), PluginError> {
    let mut arrow = Vec::with_capacity(fields.len());
    let mut kinds = Vec::with_capacity(fields.len());
    for field in fields {
        let name = field["name"].as_str().unwrap_or_default();
        let ty = field["type"]
            .as_str()
            .unwrap_or_default()
            .to_ascii_uppercase();
        if field["mode"].as_str() == Some("REPEATED") || matches!(ty.as_str(), "RECORD" | "STRUCT")
        {
            return Err(PluginError::config(format!(
                "the query's column {name} is {} {ty}, which the BigQuery source does not read; select TO_JSON_STRING({name}) AS {name} for its JSON text",
                field["mode"].as_str().unwrap_or("NULLABLE")
            )));
        }
        let (kind, data_type) = match ty.as_str() {
            "INTEGER" | "INT64" => (Kind::Int, DataType::Int64),
            "FLOAT" | "FLOAT64" => (Kind::Float, DataType::Float64),
            "BOOLEAN" | "BOOL" => (Kind::Bool, DataType::Boolean),
            "BYTES" => (Kind::Bytes, DataType::Binary),
            "DATE" => (Kind::Date, DataType::Date32),
            "DATETIME" => (
                Kind::DateTime,
                DataType::Timestamp(TimeUnit::Microsecond, None),
            ),
            "TIMESTAMP" => (
                Kind::Timestamp,
                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            ),
            "TIME" => (Kind::Time, DataType::Time64(TimeUnit::Microsecond)),
            "NUMERIC" => (Kind::Numeric, DataType::Decimal128(38, 9)),
            _ => (Kind::Text, DataType::Utf8),
        };
        arrow.push(Field::new(name, data_type, true));
        kinds.push(kind);
    }
    Ok((Arc::new(Schema::new(arrow)), kinds))
}

/// One page of rows as a batch of `schema`.
pub fn batch(
    schema: &SchemaRef,
    kinds: &[Kind],
    rows: &[Value],
) -> Result<RecordBatch, PluginError> {
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(kinds.len());
    for (i, kind) in kinds.iter().enumerate() {
        let name = schema.field(i).name();
        let values = rows.iter().map(|row| match &row["f"][i]["v"] {
            Value::Null => None,
            Value::String(text) => Some(text.as_str()),
            _ => Some(""),
        });
        let bad = |text: &str, row: usize| {
            PluginError::data(format!(
                "row {} of the result: column {name} holds {text:?}, not a {kind:?} value",
                row + 1
            ))
        };
        columns.push(column(*kind, values, bad)?);
    }
    RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| PluginError::internal(format!("cannot build a batch: {e}")))
}

fn column<'a>(
    kind: Kind,
    values: impl Iterator<Item = Option<&'a str>>,
    bad: impl Fn(&str, usize) -> PluginError,
) -> Result<ArrayRef, PluginError> {
    macro_rules! build {
        ($builder:expr, $parse:expr) => {{
            let mut builder = $builder;
            for (row, value) in values.enumerate() {
                match value {
                    None => builder.append_null(),
                    Some(text) => builder.append_value($parse(text).ok_or_else(|| bad(text, row))?),
                }
            }
            Arc::new(builder.finish()) as ArrayRef
        }};
    }
    Ok(match kind {
        Kind::Int => build!(Int64Builder::new(), |t: &str| t.parse::<i64>().ok()),
        Kind::Float => build!(Float64Builder::new(), parse_float),
        Kind::Bool => build!(BooleanBuilder::new(), |t: &str| match t {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }),
        Kind::Text => build!(StringBuilder::new(), |t: &str| Some(t.to_string())),
        Kind::Bytes => build!(BinaryBuilder::new(), |t: &str| {
            base64::engine::general_purpose::STANDARD.decode(t).ok()
        }),
        Kind::Date => build!(Date32Builder::new(), parse_date),
        Kind::DateTime => build!(TimestampMicrosecondBuilder::new(), parse_datetime),
        Kind::Timestamp => build!(
            TimestampMicrosecondBuilder::new().with_timezone("UTC"),
            parse_timestamp
        ),
        Kind::Time => build!(Time64MicrosecondBuilder::new(), parse_time),
        Kind::Numeric => build!(
            Decimal128Builder::new()
                .with_precision_and_scale(38, 9)
                .map_err(|e| PluginError::internal(e.to_string()))?,
            |t: &str| parse_decimal(t, 9)
        ),
    })
}

fn parse_float(text: &str) -> Option<f64> {
    match text {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => text.parse().ok(),
    }
}

/// Days since 1970-01-01 of `YYYY-MM-DD`.
fn parse_date(text: &str) -> Option<i32> {
    let mut parts = text.splitn(3, '-');
    let year: i64 = parts.next()?.parse().ok()?;
    let month: i64 = parts.next()?.parse().ok()?;
    let day: i64 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    i32::try_from(era * 146_097 + doe - 719_468).ok()
}

/// Microseconds since midnight of `HH:MM:SS[.ffffff]`.
fn parse_time(text: &str) -> Option<i64> {
    let (hms, fraction) = text.split_once('.').unwrap_or((text, ""));
    let mut parts = hms.splitn(3, ':');
    let h: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let s: i64 = parts.next()?.parse().ok()?;
    if h > 23
        || m > 59
        || s > 59
        || fraction.len() > 6
        || !fraction.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let micros: i64 = format!("{fraction:0<6}").parse().ok()?;
    Some(((h * 60 + m) * 60 + s) * 1_000_000 + micros)
}

/// Microseconds since the epoch of a wall-clock `YYYY-MM-DD[T ]HH:MM:SS[.ffffff]`.
fn parse_datetime(text: &str) -> Option<i64> {
    let (date, time) = text.split_once(['T', ' '])?;
    Some(i64::from(parse_date(date)?) * 86_400_000_000 + parse_time(time)?)
}

/// A TIMESTAMP: microseconds since the epoch (the API's int64 form), or seconds as a float (its
/// older form).
fn parse_timestamp(text: &str) -> Option<i64> {
    text.parse::<i64>().ok().or_else(|| {
        let seconds: f64 = text.parse().ok()?;
        seconds.is_finite().then(|| (seconds * 1e6).round() as i64)
    })
}

/// `[-]digits[.digits]` as an integer of `scale` decimals.
fn parse_decimal(text: &str, scale: usize) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && fraction.is_empty()
        || fraction.len() > scale
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let text = format!("{whole}{fraction:0<scale$}");
    let value: i128 = text.parse().ok()?;
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_as_the_api_writes_them() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2024-01-01"), Some(19_723));
        assert_eq!(parse_date("1969-12-31"), Some(-1));
        assert_eq!(parse_time("00:54:38.5"), Some(3_278_500_000));
        assert_eq!(
            parse_datetime("2024-01-01T00:54:38"),
            Some(1_704_070_478_000_000)
        );
        assert_eq!(
            parse_timestamp("1704070478000000"),
            Some(1_704_070_478_000_000)
        );
        assert_eq!(
            parse_timestamp("1.704070478E9"),
            Some(1_704_070_478_000_000)
        );
        assert_eq!(parse_decimal("-12.5", 9), Some(-12_500_000_000));
        assert_eq!(parse_decimal("1.0000000001", 9), None);
        assert!(parse_float("NaN").is_some_and(f64::is_nan));
        assert_eq!(parse_date("2024-13-01"), None);
    }

    #[test]
    fn a_record_column_is_refused_by_name() {
        let fields = serde_json::json!([{"name": "tags", "type": "STRING", "mode": "REPEATED"}]);
        let e = schema(fields.as_array().unwrap()).unwrap_err();
        assert!(e.message.contains("TO_JSON_STRING(tags)"), "{}", e.message);
    }
}
