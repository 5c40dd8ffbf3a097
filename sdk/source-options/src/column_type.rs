//! The types a CSV column may be given by name in `columns`, and that inference gives.

/// The type of a CSV column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Int64,
    Boolean,
    Date32,
    /// A time of day, in microseconds.
    Time,
    /// A timestamp without a zone, in microseconds.
    Timestamp,
    /// A timestamp in UTC: values with a zone, converted.
    TimestampUtc,
    Float64,
    Utf8,
    /// Inferred only: a column with no value but null markers, read as text with nulls.
    Null,
}

impl ColumnType {
    /// Every name [`ColumnType::parse`] takes, one per type, for messages.
    pub const NAMES: &'static str =
        "string, int64, double, bool, date, time, timestamp, timestamptz";

    /// The type a name gives (with pyarrow's and Iceberg's spellings, in any case).
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "int64" | "long" | "int" | "integer" | "bigint" => ColumnType::Int64,
            "bool" | "boolean" => ColumnType::Boolean,
            "date" | "date32" => ColumnType::Date32,
            "time" => ColumnType::Time,
            "timestamp" => ColumnType::Timestamp,
            "timestamptz" | "timestamp_tz" => ColumnType::TimestampUtc,
            "double" | "float64" | "float" => ColumnType::Float64,
            "string" | "str" | "utf8" | "text" => ColumnType::Utf8,
            _ => return None,
        })
    }

    /// The type's name, as messages show it.
    pub fn name(self) -> &'static str {
        match self {
            ColumnType::Int64 => "int64",
            ColumnType::Boolean => "bool",
            ColumnType::Date32 => "date",
            ColumnType::Time => "time",
            ColumnType::Timestamp => "timestamp",
            ColumnType::TimestampUtc => "timestamptz",
            ColumnType::Float64 => "double",
            ColumnType::Utf8 | ColumnType::Null => "string",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_parses_back() {
        for name in ColumnType::NAMES.split(", ") {
            assert_eq!(ColumnType::parse(name).unwrap().name(), name);
        }
        assert_eq!(ColumnType::parse("LONG"), Some(ColumnType::Int64));
        assert_eq!(ColumnType::parse("varchar"), None);
    }
}
