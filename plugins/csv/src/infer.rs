//! Type inference, as the reference (pyarrow's CSV reader) does it.
//!
//! The values of each column are classified as arrow-csv's `Format::infer_schema` does (by hand,
//! in [`crate::classify`], without its regexes); this module maps that to the types the reference gives: integers are `Int64`, decimals `Float64`,
//! `true`/`false` `Boolean`, `YYYY-MM-DD` `Date32`, date-times `Timestamp(Microsecond)` (with
//! `UTC` when every value carries a `Z` or an offset, a string column when some do and some do
//! not), a column with no value `Utf8`, anything else `Utf8`. Every field is nullable.

use crate::classify::Kinds;
use crate::config::Config;
use crate::scan::{Record, Scanner};
use arrow_csv::reader::Format;
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};
use std::io::BufRead;
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

/// What inference found.
#[derive(Debug)]
pub struct Inferred {
    /// arrow-csv's raw schema (what `Format::infer_schema` would give).
    pub raw: Schema,
    /// How many data rows it was inferred from.
    pub rows: usize,
    /// Whether the values of each of the [`timestamp_columns`] of `raw` carry a zone.
    pub zones: Vec<Zones>,
}

/// The state of inference, fed one record at a time.
struct Inference<'c> {
    config: &'c Config,
    max_rows: usize,
    names: Vec<String>,
    kinds: Vec<Kinds>,
    /// Zones of every column (only timestamp columns' are kept).
    zones: Vec<Zones>,
    rows: usize,
    /// What made the scan stop early: an error, or `None` when `max_rows` was reached.
    error: Option<ArrowError>,
}

/// An error of inference: a record with another number of fields than the first, or a field
/// that is not UTF-8 (what the `csv` crate under `Format::infer_schema` rejects). The caller
/// locates the record again for its message.
fn invalid(record: &Record, message: &str) -> ArrowError {
    ArrowError::CsvError(format!(
        "{message} in record {} (line {})",
        record.number, record.line
    ))
}

impl Inference<'_> {
    fn record(&mut self, r: &Record) -> Result<ControlFlow<()>, ArrowError> {
        if r.number == 1 {
            self.names = Vec::with_capacity(r.len());
            for i in 0..r.len() {
                let name =
                    std::str::from_utf8(r.field(i)).map_err(|_| invalid(r, "invalid UTF-8"))?;
                self.names.push(if self.config.has_header {
                    name.to_string()
                } else {
                    format!("column_{}", i + 1)
                });
            }
            self.kinds = vec![Kinds::default(); r.len()];
            self.zones = vec![Zones::default(); r.len()];
            if self.config.has_header {
                return Ok(ControlFlow::Continue(()));
            }
        }
        // Records past the limit are not read (nor checked), as arrow-csv.
        if self.rows >= self.max_rows {
            return Ok(ControlFlow::Break(()));
        }
        if r.len() != self.names.len() {
            return Err(invalid(r, "incorrect number of fields"));
        }
        for i in 0..r.len() {
            let value = std::str::from_utf8(r.field(i)).map_err(|_| invalid(r, "invalid UTF-8"))?;
            if !value.is_empty() {
                self.kinds[i].update(value);
                let zone = &mut self.zones[i];
                if has_zone(value.as_bytes()) {
                    zone.zoned = true;
                } else {
                    zone.naive = true;
                }
            }
        }
        self.rows += 1;
        Ok(ControlFlow::Continue(()))
    }
}

impl<'c> Inference<'c> {
    fn new(config: &'c Config, max_rows: Option<usize>) -> Self {
        Self {
            config,
            max_rows: max_rows.unwrap_or(usize::MAX),
            names: Vec::new(),
            kinds: Vec::new(),
            zones: Vec::new(),
            rows: 0,
            error: None,
        }
    }

    /// Feeds one record to inference; breaks on an error (kept) or past `max_rows`.
    fn each(&mut self, r: &Record) -> ControlFlow<()> {
        match self.record(r) {
            Ok(flow) => flow,
            Err(e) => {
                self.error = Some(e);
                ControlFlow::Break(())
            }
        }
    }

    fn finish(self) -> Result<Inferred, ArrowError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let fields: Vec<Field> = self
            .names
            .iter()
            .zip(&self.kinds)
            .map(|(name, kinds)| Field::new(name, kinds.data_type(), true))
            .collect();
        let raw = Schema::new(fields);
        let zones = timestamp_columns(&raw)
            .into_iter()
            .map(|i| self.zones[i])
            .collect();
        Ok(Inferred {
            raw,
            rows: self.rows,
            zones,
        })
    }
}

/// Infers the schema of `reader` (up to `max_rows` data rows), in one pass: the types as
/// arrow-csv's `Format::infer_schema` infers them (see [`crate::classify`]) and, for timestamp
/// columns, whether their values carry a zone.
pub fn infer<R: BufRead>(
    config: &Config,
    reader: R,
    max_rows: Option<usize>,
) -> Result<Inferred, ArrowError> {
    let mut state = Inference::new(config, max_rows);
    let mut scanner = Scanner::new(config.delimiter, config.quote, config.escape);
    scanner.scan(reader, &mut |r: &Record| state.each(r))?;
    state.finish()
}

/// Infers the schema from the whole records of `sample`, the start of a file (all of it when
/// `at_eof`), in one pass, and gives where those records end; `None` when the sample does not
/// yet hold one whole record (read more and call again).
pub fn infer_sample(
    config: &Config,
    sample: &[u8],
    at_eof: bool,
) -> Result<Option<(Inferred, usize)>, ArrowError> {
    let mut state = Inference::new(config, None);
    let mut scanner = Scanner::new(config.delimiter, config.quote, config.escape);
    let mut each = |r: &Record| state.each(r);
    // Only whole records are fed to `each`; the partial one at the end waits for `finish`.
    if scanner.feed(sample, &mut each).is_continue() && at_eof {
        let _ = scanner.finish(&mut each);
    }
    let end = if at_eof {
        sample.len()
    } else {
        scanner.last_record_end()
    };
    if end == 0 && !at_eof {
        return Ok(None);
    }
    state.finish().map(|inferred| Some((inferred, end)))
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
        let inferred = super::infer(&config, text.as_bytes(), None).unwrap();
        let schemas = map_schema(&config, &inferred.raw, &inferred.zones);
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

    /// The raw schema and row count agree with arrow-csv's `Format::infer_schema` on whole files:
    /// header or not, CRLF, a BOM, blank lines, quoted fields with line breaks, a row limit.
    #[test]
    fn agrees_with_arrow_csv_on_files() {
        let texts = [
            "a,b,c\n1,x,2026-08-01\n2.5,,2026-08-01 07:15:00\n",
            "\u{feff}a;b\r\n\r\n\"1\";\"tr\nue\"\r\n-3;\"\"\"x\"\r\n",
            "a\n\n\n",
            "a,b\n,\n,\n",
            "x,y\n1,2\n3,4",
            "only\n9223372036854775808\n",
            "",
        ];
        for text in texts {
            for has_header in [true, false] {
                for max_rows in [None, Some(0), Some(1), Some(2)] {
                    let mut c = config(has_header);
                    if text.contains(';') {
                        c.delimiter = b';';
                    }
                    let ours = super::infer(&c, text.as_bytes(), max_rows).unwrap();
                    let (theirs, rows) =
                        format(&c).infer_schema(text.as_bytes(), max_rows).unwrap();
                    assert_eq!(ours.raw, theirs, "{text:?} {has_header} {max_rows:?}");
                    assert_eq!(ours.rows, rows, "{text:?} {has_header} {max_rows:?}");
                }
            }
        }
    }

    #[test]
    fn ragged_rows_and_bad_utf8_are_errors() {
        let c = config(true);
        assert!(super::infer(&c, &b"a,b\n1\n"[..], None).is_err());
        assert!(super::infer(&c, &b"a,b\n1,\xff\n"[..], None).is_err());
        assert!(super::infer(&c, &b"a,\xff\n"[..], None).is_err());
        // Past the row limit, nothing is looked at (as arrow-csv).
        let text = &b"a,b\n1,2\n1\n"[..];
        assert!(super::infer(&c, text, Some(1)).is_ok());
        assert!(format(&c).infer_schema(text, Some(1)).is_ok());
        assert!(format(&c).infer_schema(text, None).is_err());
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
        let (inferred, end) = infer_sample(&c, text, false).unwrap().unwrap();
        assert_eq!((end, inferred.rows), (12, 1));
        assert_eq!(inferred.raw.field(1).data_type(), &DataType::Utf8);
        let (inferred, end) = infer_sample(&c, text, true).unwrap().unwrap();
        assert_eq!((end, inferred.rows), (text.len(), 2));
        assert!(infer_sample(&c, b"a,b", false).unwrap().is_none());
        let (inferred, end) = infer_sample(&c, b"a,b", true).unwrap().unwrap();
        assert_eq!((end, inferred.rows, inferred.raw.fields().len()), (3, 0, 2));
        // The same answer as reading the whole records.
        let whole = super::infer(&c, &text[..12], None).unwrap();
        let (sampled, _) = infer_sample(&c, text, false).unwrap().unwrap();
        assert_eq!((whole.raw, whole.rows), (sampled.raw, sampled.rows));
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
