//! Arrow types as pyarrow names them: [`type_name`] prints a type the way `str(pa.DataType)`
//! does (`int64`, `double`, `string`, `timestamp[us, tz=UTC]`, `decimal128(10, 2)`...), and
//! [`parse_type`] reads a type string the way the Python tool's `parse_type` does (any
//! `pyarrow.type_for_alias` alias, `timestamp[unit, tz=ZONE]`, `decimal(p, s)`).

use arrow_schema::{DataType, IntervalUnit, TimeUnit};
use ldp_check_params::{ArrowType, TimeUnit as Unit};

/// The unit as pyarrow prints it: `s`, `ms`, `us`, `ns`.
pub fn unit_name(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "us",
        TimeUnit::Nanosecond => "ns",
    }
}

/// `str()` of the pyarrow type equal to `data_type` (the one implementation the host shares).
pub fn type_name(data_type: &DataType) -> String {
    ldp_pyrepr::pyarrow_type_name(data_type)
}

/// The Python tool's `parse_type`: the Arrow type a pyarrow type string names (read by the
/// check parameters' rule, [`ArrowType::parse`]).
///
/// # Errors
///
/// The Python tool's message when the text names no type.
pub fn parse_type(spec: &str) -> Result<DataType, String> {
    ArrowType::parse(spec).map(|parsed| data_type(&parsed))
}

/// The Arrow type of a `schema` check's type string.
pub fn data_type(parsed: &ArrowType) -> DataType {
    use ArrowType as T;
    use DataType as D;
    let unit = |unit: &Unit| match unit {
        Unit::S => TimeUnit::Second,
        Unit::Ms => TimeUnit::Millisecond,
        Unit::Us => TimeUnit::Microsecond,
        Unit::Ns => TimeUnit::Nanosecond,
    };
    match parsed {
        T::Null => D::Null,
        T::Boolean => D::Boolean,
        T::Int8 => D::Int8,
        T::Int16 => D::Int16,
        T::Int32 => D::Int32,
        T::Int64 => D::Int64,
        T::UInt8 => D::UInt8,
        T::UInt16 => D::UInt16,
        T::UInt32 => D::UInt32,
        T::UInt64 => D::UInt64,
        T::Float16 => D::Float16,
        T::Float32 => D::Float32,
        T::Float64 => D::Float64,
        T::Utf8 => D::Utf8,
        T::LargeUtf8 => D::LargeUtf8,
        T::Utf8View => D::Utf8View,
        T::Binary => D::Binary,
        T::LargeBinary => D::LargeBinary,
        T::BinaryView => D::BinaryView,
        T::Date32 => D::Date32,
        T::Date64 => D::Date64,
        T::Time32(u) => D::Time32(unit(u)),
        T::Time64(u) => D::Time64(unit(u)),
        T::Duration(u) => D::Duration(unit(u)),
        T::Timestamp(u, zone) => D::Timestamp(unit(u), zone.as_deref().map(Into::into)),
        T::Decimal128(precision, scale) => D::Decimal128(*precision, *scale),
        T::Decimal256(precision, scale) => D::Decimal256(*precision, *scale),
        T::MonthDayNanoInterval => D::Interval(IntervalUnit::MonthDayNano),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (spec, name) in [
            ("int64", "int64"),
            ("Double", "double"),
            ("float64", "double"),
            ("utf8", "string"),
            ("large_utf8", "large_string"),
            ("date32", "date32[day]"),
            ("timestamp[US]", "timestamp[us]"),
            ("timestamp[ us , tz=UTC ]", "timestamp[us, tz=UTC]"),
            (
                "timestamp[ms, tz=Europe/Paris]",
                "timestamp[ms, tz=Europe/Paris]",
            ),
            ("decimal(10,2)", "decimal128(10, 2)"),
            ("decimal256(40, -2)", "decimal256(40, -2)"),
            ("float", "float"),
            ("boolean", "bool"),
        ] {
            assert_eq!(type_name(&parse_type(spec).unwrap()), name, "{spec}");
        }
        for bad in [
            "int65",
            "timestamp[m]",
            "timestamp[us, zone=UTC]",
            "decimal(10)",
            "",
        ] {
            assert!(parse_type(bad).is_err(), "{bad}");
        }
    }
}
