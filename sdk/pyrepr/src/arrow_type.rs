//! Arrow types as pyarrow prints them (`str(pa.DataType)`): `int64`, `double`, `string`,
//! `timestamp[s]`, `timestamp[us, tz=UTC]`, `decimal128(10, 2)`, `list<item: int64>`,
//! `struct<a: int64, b: string>`, the text events carry in their `schema`.

use arrow_schema::{DataType, Field, IntervalUnit, TimeUnit};

fn unit(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "us",
        TimeUnit::Nanosecond => "ns",
    }
}

fn child(field: &Field) -> String {
    let not_null = if field.is_nullable() { "" } else { " not null" };
    format!(
        "{}: {}{not_null}",
        field.name(),
        pyarrow_type_name(field.data_type())
    )
}

/// `str()` of the pyarrow type equal to `data_type`.
pub fn pyarrow_type_name(data_type: &DataType) -> String {
    use DataType as D;
    let simple = match data_type {
        D::Null => "null",
        D::Boolean => "bool",
        D::Int8 => "int8",
        D::Int16 => "int16",
        D::Int32 => "int32",
        D::Int64 => "int64",
        D::UInt8 => "uint8",
        D::UInt16 => "uint16",
        D::UInt32 => "uint32",
        D::UInt64 => "uint64",
        D::Float16 => "halffloat",
        D::Float32 => "float",
        D::Float64 => "double",
        D::Utf8 => "string",
        D::LargeUtf8 => "large_string",
        D::Utf8View => "string_view",
        D::Binary => "binary",
        D::LargeBinary => "large_binary",
        D::BinaryView => "binary_view",
        D::Date32 => "date32[day]",
        D::Date64 => "date64[ms]",
        D::Interval(IntervalUnit::MonthDayNano) => "month_day_nano_interval",
        D::Interval(IntervalUnit::DayTime) => "day_time_interval",
        D::Interval(IntervalUnit::YearMonth) => "month_interval",
        _ => "",
    };
    if !simple.is_empty() {
        return simple.to_owned();
    }
    match data_type {
        D::Timestamp(u, None) => format!("timestamp[{}]", unit(*u)),
        D::Timestamp(u, Some(tz)) => format!("timestamp[{}, tz={tz}]", unit(*u)),
        D::Time32(u) => format!("time32[{}]", unit(*u)),
        D::Time64(u) => format!("time64[{}]", unit(*u)),
        D::Duration(u) => format!("duration[{}]", unit(*u)),
        D::Decimal32(p, s) => format!("decimal32({p}, {s})"),
        D::Decimal64(p, s) => format!("decimal64({p}, {s})"),
        D::Decimal128(p, s) => format!("decimal128({p}, {s})"),
        D::Decimal256(p, s) => format!("decimal256({p}, {s})"),
        D::FixedSizeBinary(n) => format!("fixed_size_binary[{n}]"),
        D::List(f) => format!("list<{}>", child(f)),
        D::LargeList(f) => format!("large_list<{}>", child(f)),
        D::ListView(f) => format!("list_view<{}>", child(f)),
        D::LargeListView(f) => format!("large_list_view<{}>", child(f)),
        D::FixedSizeList(f, n) => format!("fixed_size_list<{}>[{n}]", child(f)),
        D::Struct(fields) => {
            let inner: Vec<String> = fields.iter().map(|f| child(f)).collect();
            format!("struct<{}>", inner.join(", "))
        }
        D::Map(entries, _) => match entries.data_type() {
            D::Struct(kv) if kv.len() == 2 => format!(
                "map<{}, {}>",
                pyarrow_type_name(kv[0].data_type()),
                pyarrow_type_name(kv[1].data_type())
            ),
            other => format!("map<{}>", pyarrow_type_name(other)),
        },
        D::Dictionary(key, value) => format!(
            "dictionary<values={}, indices={}, ordered=0>",
            pyarrow_type_name(value),
            pyarrow_type_name(key)
        ),
        D::RunEndEncoded(ends, values) => format!(
            "run_end_encoded<run_ends: {}, values: {}>",
            pyarrow_type_name(ends.data_type()),
            pyarrow_type_name(values.data_type())
        ),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn names_are_pyarrows() {
        let cases = [
            (DataType::Int64, "int64"),
            (DataType::Float64, "double"),
            (DataType::Utf8, "string"),
            (DataType::Timestamp(TimeUnit::Second, None), "timestamp[s]"),
            (
                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                "timestamp[us, tz=UTC]",
            ),
            (DataType::Decimal128(10, 2), "decimal128(10, 2)"),
            (DataType::Date32, "date32[day]"),
            (
                DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
                "list<item: int64>",
            ),
            (
                DataType::Struct(
                    vec![
                        Field::new("a", DataType::Int64, false),
                        Field::new("b", DataType::Utf8, true),
                    ]
                    .into(),
                ),
                "struct<a: int64 not null, b: string>",
            ),
        ];
        for (data_type, name) in cases {
            assert_eq!(pyarrow_type_name(&data_type), name);
        }
    }
}
