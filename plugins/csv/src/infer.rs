//! Type inference, as the reference (pyarrow's CSV reader) does it.
//!
//! arrow-csv's [`Format::infer_schema`] classifies the values of each column; this module maps its
//! answer to the types the reference gives: integers are `Int64`, decimals `Float64`,
//! `true`/`false` `Boolean`, `YYYY-MM-DD` `Date32`, date-times `Timestamp(Microsecond)` (with
//! `UTC` when every value carries a `Z` or an offset, a string column when some do and some do
//! not), a column with no value `Utf8`, anything else `Utf8`. Every field is nullable.

use crate::config::Config;
use crate::scan::{Record, Scanner};
use arrow_csv::reader::Format;
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};
use std::io::{self, BufRead};
use std::ops::ControlFlow;
use std::sync::Arc;

/// The timezone of columns whose values carry an offset (they are converted to UTC).
pub const UTC: &str = "UTC";

/// The arrow-csv format of a configuration.
pub fn format(config: &Config) -> Format {
    let format = Format::default()
        .with_header(config.has_header)
        .with_delimiter(config.delimiter)
        .with_quote(config.quote);
    match config.escape {
        Some(escape) => format.with_escape(escape),
        None => format,
    }
}

/// Where, in a sample of the start of a file, inference must stop so that it sees whole records
/// only: the end of the last complete record, the whole sample at the end of the file, or `None`
/// when the sample does not yet hold one whole record.
pub fn sample_end(config: &Config, sample: &[u8], at_eof: bool) -> Option<usize> {
    if at_eof {
        return Some(sample.len());
    }
    let mut scanner = Scanner::new(config.delimiter, config.quote, config.escape);
    let _ = scanner.feed(sample, &mut |_: &Record| ControlFlow::Continue(()));
    match scanner.last_record_end() {
        0 => None,
        end => Some(end),
    }
}

/// Infers the raw arrow-csv schema from `reader` (up to `max_rows` data rows) and gives it with
/// the number of data rows read.
pub fn infer_raw<R: io::Read>(
    config: &Config,
    reader: R,
    max_rows: Option<usize>,
) -> Result<(Schema, usize), ArrowError> {
    format(config).infer_schema(reader, max_rows)
}

/// Whether a timestamp column's values carry a zone.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Zones {
    pub naive: bool,
    pub zoned: bool,
}

/// Columns of `schema` that arrow-csv inferred as timestamps.
pub fn timestamp_columns(schema: &Schema) -> Vec<usize> {
    (0..schema.fields().len())
        .filter(|&i| matches!(schema.field(i).data_type(), DataType::Timestamp(..)))
        .collect()
}

/// Looks at the values of `columns` in `reader` (up to `max_rows` data rows): which carry a zone.
pub fn zones<R: BufRead>(
    config: &Config,
    reader: R,
    columns: &[usize],
    max_rows: Option<usize>,
) -> io::Result<Vec<Zones>> {
    let mut zones = vec![Zones::default(); columns.len()];
    if columns.is_empty() {
        return Ok(zones);
    }
    let header = usize::from(config.has_header);
    let last = max_rows.map_or(usize::MAX, |n| n.saturating_add(header));
    let mut scanner = Scanner::new(config.delimiter, config.quote, config.escape);
    scanner.scan(reader, &mut |r: &Record| {
        if r.number > last {
            return ControlFlow::Break(());
        }
        if r.number > header {
            for (zone, &i) in zones.iter_mut().zip(columns) {
                if i < r.len() && !r.field(i).is_empty() {
                    if has_zone(r.field(i)) {
                        zone.zoned = true;
                    } else {
                        zone.naive = true;
                    }
                }
            }
        }
        ControlFlow::Continue(())
    })?;
    Ok(zones)
}

/// Whether a date-time value (`YYYY-MM-DD HH:MM:SS[.f]` then anything) ends with a zone: `Z` or
/// an offset, maybe after a space.
fn has_zone(value: &[u8]) -> bool {
    let Some(rest) = value.get(19..) else {
        return false;
    };
    let rest = match rest.strip_prefix(b".") {
        Some(fraction) => {
            let digits = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
            &fraction[digits..]
        }
        None => rest,
    };
    let rest = rest.trim_ascii_start();
    matches!(rest.first(), Some(b'Z' | b'z' | b'+' | b'-'))
}

/// The schemas of the stream.
#[derive(Debug, Clone)]
pub struct Schemas {
    /// What the stream announces.
    pub output: Arc<Schema>,
    /// What arrow-csv parses with: the output schema, but zoned timestamps without their zone
    /// (arrow-csv without chrono-tz cannot parse into a named zone; values with an offset are
    /// converted to UTC either way, and the zone is put back on each batch).
    pub parse: Arc<Schema>,
}

/// Maps the raw schema of arrow-csv to the reference's types. `zones` follows
/// [`timestamp_columns`] of `raw`.
pub fn map_schema(config: &Config, raw: &Schema, zones: &[Zones]) -> Schemas {
    let mut zones = zones.iter();
    let mut output = Vec::with_capacity(raw.fields().len());
    let mut parse = Vec::with_capacity(raw.fields().len());
    for (i, field) in raw.fields().iter().enumerate() {
        let name = if config.has_header {
            field.name().clone()
        } else {
            format!("f{i}")
        };
        let (out, parse_as) = match field.data_type() {
            DataType::Null => (DataType::Utf8, DataType::Utf8),
            DataType::Timestamp(..) => {
                let micros = DataType::Timestamp(TimeUnit::Microsecond, None);
                match zones.next().copied().unwrap_or_default() {
                    Zones {
                        naive: true,
                        zoned: true,
                    } => (DataType::Utf8, DataType::Utf8),
                    Zones { zoned: true, .. } => (
                        DataType::Timestamp(TimeUnit::Microsecond, Some(UTC.into())),
                        micros,
                    ),
                    _ => (micros.clone(), micros),
                }
            }
            other => (other.clone(), other.clone()),
        };
        output.push(Field::new(&name, out, true));
        parse.push(Field::new(&name, parse_as, true));
    }
    Schemas {
        output: Arc::new(Schema::new(output)),
        parse: Arc::new(Schema::new(parse)),
    }
}

/// The reference's name of a type, for messages.
pub fn type_name(data_type: &DataType) -> String {
    match data_type {
        DataType::Int64 => "int64".into(),
        DataType::Float64 => "double".into(),
        DataType::Boolean => "bool".into(),
        DataType::Date32 => "date32".into(),
        DataType::Utf8 => "string".into(),
        DataType::Timestamp(TimeUnit::Microsecond, None) => "timestamp[us]".into(),
        DataType::Timestamp(TimeUnit::Microsecond, Some(tz)) => format!("timestamp[us, tz={tz}]"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(has_header: bool) -> Config {
        let mut c = Config::parse(r#"{"path":"/x.csv"}"#).unwrap();
        c.has_header = has_header;
        c
    }

    /// Infers the output schema of `text` read whole.
    fn infer(text: &str, has_header: bool) -> Vec<(String, DataType)> {
        let config = config(has_header);
        let (raw, _) = infer_raw(&config, text.as_bytes(), None).unwrap();
        let zones = zones(&config, text.as_bytes(), &timestamp_columns(&raw), None).unwrap();
        let schemas = map_schema(&config, &raw, &zones);
        assert!(schemas.output.fields().iter().all(|f| f.is_nullable()));
        schemas
            .output
            .fields()
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect()
    }

    fn col(name: &str, t: DataType) -> (String, DataType) {
        (name.to_string(), t)
    }

    #[test]
    fn each_type() {
        let text = "i,f,b,d,ts,tsf,tz,s,e,mixed,nan\n\
                    1,1.5,true,2026-08-01,2026-08-01 07:15:00,2026-08-01T07:15:00.123456,2026-08-01T07:15:00Z,x,,1,NaN\n\
                    -20,3,false,2026-08-02,2026-08-01T08:00:00,2026-08-01 07:15:00.5,2026-08-01 07:15:00+02:00,2,,1.5,2\n";
        let ts = DataType::Timestamp(TimeUnit::Microsecond, None);
        assert_eq!(
            infer(text, true),
            vec![
                col("i", DataType::Int64),
                col("f", DataType::Float64),
                col("b", DataType::Boolean),
                col("d", DataType::Date32),
                col("ts", ts.clone()),
                col("tsf", ts),
                col(
                    "tz",
                    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
                ),
                col("s", DataType::Utf8),
                col("e", DataType::Utf8),
                col("mixed", DataType::Float64),
                col("nan", DataType::Float64),
            ]
        );
    }

    #[test]
    fn mixed_zones_and_mixed_kinds_are_strings() {
        let text = "a,b,c\n2026-08-01 07:15:00,1,2026-08-01\n2026-08-01 07:15:00Z,x,7\n";
        assert_eq!(
            infer(text, true),
            vec![
                col("a", DataType::Utf8),
                col("b", DataType::Utf8),
                col("c", DataType::Utf8),
            ]
        );
    }

    #[test]
    fn without_header_columns_are_named_like_pyarrow() {
        assert_eq!(
            infer("1,x\n2,y\n", false),
            vec![col("f0", DataType::Int64), col("f1", DataType::Utf8)]
        );
    }

    #[test]
    fn zone_detection() {
        assert!(has_zone(b"2026-08-01T07:15:00Z"));
        assert!(has_zone(b"2026-08-01 07:15:00.123456+02:00"));
        assert!(has_zone(b"2023-01-01 04:05:06.789 -08"));
        assert!(!has_zone(b"2026-08-01 07:15:00"));
        assert!(!has_zone(b"2026-08-01 07:15:00.5"));
    }

    #[test]
    fn sample_stops_at_a_whole_record() {
        let c = config(true);
        let text = b"a,b\n1,\"x\ny\"\n2,\"open\n";
        assert_eq!(sample_end(&c, text, false), Some(12));
        assert_eq!(sample_end(&c, text, true), Some(text.len()));
        assert_eq!(sample_end(&c, b"a,b", false), None);
    }

    #[test]
    fn type_names() {
        assert_eq!(type_name(&DataType::Float64), "double");
        assert_eq!(
            type_name(&DataType::Timestamp(
                TimeUnit::Microsecond,
                Some("UTC".into())
            )),
            "timestamp[us, tz=UTC]"
        );
    }
}
