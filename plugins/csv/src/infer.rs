//! Type inference, as the Python tool (pyarrow's CSV reader) does it: each value that is not a
//! null marker is classified by [`crate::value::classify`], and a column takes the first kind,
//! in pyarrow's order, that all its values allow ([`crate::value::infer_type`]). A config's `columns`
//! sets the type of the columns it names instead. Every field is nullable.

use crate::config::Config;
use crate::convert;
use crate::scan::{Record, Scanner};
use crate::value::{ColumnType, kind};
use arrow_schema::{ArrowError, Field, Schema};
use std::io::BufRead;
use std::ops::ControlFlow;
use std::sync::Arc;

/// What inference found.
#[derive(Debug)]
pub struct Inferred {
    /// The column names (`f0`, `f1`, ... without a header, as pyarrow names them).
    pub names: Vec<String>,
    /// The inferred type of each column.
    pub types: Vec<ColumnType>,
    /// How many data rows it was inferred from.
    pub rows: usize,
}

/// The state of inference, fed one record at a time.
struct Inference<'c> {
    config: &'c Config,
    max_rows: usize,
    names: Vec<String>,
    /// The kinds every value so far allows, per column.
    allowed: Vec<u8>,
    /// Whether a column had a value that is not a null marker.
    seen: Vec<bool>,
    rows: usize,
    /// What made the scan stop early: an error, or `None` when `max_rows` was reached.
    error: Option<ArrowError>,
}

/// An error of inference: a record with another number of fields than the first, or a field
/// that is not UTF-8. The caller locates the record again for its message.
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
                    format!("f{i}")
                });
            }
            self.allowed = vec![kind::ANY; r.len()];
            self.seen = vec![false; r.len()];
            if self.config.has_header {
                return Ok(ControlFlow::Continue(()));
            }
        }
        // Records past the limit are not read (nor checked).
        if self.rows >= self.max_rows {
            return Ok(ControlFlow::Break(()));
        }
        if r.len() != self.names.len() {
            return Err(invalid(r, "incorrect number of fields"));
        }
        for i in 0..r.len() {
            let value = std::str::from_utf8(r.field(i)).map_err(|_| invalid(r, "invalid UTF-8"))?;
            if self.allowed[i] != 0 && !self.config.null_values.is_null(value) {
                self.allowed[i] &= crate::value::classify(value);
                self.seen[i] = true;
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
            allowed: Vec::new(),
            seen: Vec::new(),
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
        let types = self
            .allowed
            .iter()
            .zip(&self.seen)
            .map(|(&allowed, &seen)| crate::value::infer_type(allowed, seen))
            .collect();
        Ok(Inferred {
            names: self.names,
            types,
            rows: self.rows,
        })
    }
}

/// Infers the schema of `reader` (up to `max_rows` data rows), in one pass.
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

/// The types of the columns: the config's `columns` where it names them (every name must be a
/// column), the inferred ones elsewhere.
pub fn column_types(config: &Config, inferred: &Inferred) -> Result<Vec<ColumnType>, String> {
    let mut types = inferred.types.clone();
    for (name, column_type) in &config.columns {
        let Some(at) = inferred.names.iter().position(|n| n == name) else {
            return Err(format!(
                "config.columns.{name}: the file has no column {name:?}; its columns are {}",
                inferred.names.join(", ")
            ));
        };
        types[at] = *column_type;
    }
    Ok(types)
}

/// The schema batches are announced in.
pub fn schema(names: &[String], types: &[ColumnType]) -> Arc<Schema> {
    Arc::new(Schema::new(
        names
            .iter()
            .zip(types)
            .map(|(name, &t)| Field::new(name, convert::data_type(t), true))
            .collect::<Vec<_>>(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::DataType;

    fn config(has_header: bool) -> Config {
        let mut c = Config::parse(r#"{"path":"/x.csv"}"#).unwrap();
        c.has_header = has_header;
        c
    }

    /// Infers the output schema of `text` read whole.
    fn infer(text: &str, has_header: bool) -> Vec<(String, DataType)> {
        let config = config(has_header);
        let inferred = super::infer(&config, text.as_bytes(), None).unwrap();
        let types = column_types(&config, &inferred).unwrap();
        schema(&inferred.names, &types)
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
        let text = "i,f,b,d,ts,tsf,tz,s,e,mixed,nan,t\n\
                    1,1.5,true,2026-08-01,2026-08-01 07:15:00,2026-08-01T07:15:00.123456,2026-08-01T07:15:00Z,x,,1,NaN,10:00\n\
                    -20,3,false,2026-08-02,2026-08-01T08:00:00,2026-08-01 07:15:00.5,2026-08-01 07:15:00+02:00,2,,1.5,2,10:00:01\n";
        let ts = DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, None);
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
                    DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, Some("UTC".into()))
                ),
                col("s", DataType::Utf8),
                col("e", DataType::Utf8),
                col("mixed", DataType::Float64),
                col("nan", DataType::Int64),
                col("t", DataType::Time64(arrow_schema::TimeUnit::Microsecond)),
            ]
        );
    }

    #[test]
    fn ragged_rows_and_bad_utf8_are_errors() {
        let c = config(true);
        assert!(super::infer(&c, &b"a,b\n1\n"[..], None).is_err());
        assert!(super::infer(&c, &b"a,b\n1,\xff\n"[..], None).is_err());
        assert!(super::infer(&c, &b"a,\xff\n"[..], None).is_err());
        // Past the row limit, nothing is looked at.
        let text = &b"a,b\n1,2\n1\n"[..];
        assert!(super::infer(&c, text, Some(1)).is_ok());
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
    fn columns_set_types_by_name() {
        let mut c = config(true);
        c.columns = vec![("zip".into(), ColumnType::Utf8)];
        let inferred = super::infer(&c, &b"zip,n\n02134,1\n"[..], None).unwrap();
        assert_eq!(inferred.types, vec![ColumnType::Int64, ColumnType::Int64]);
        let types = column_types(&c, &inferred).unwrap();
        assert_eq!(types, vec![ColumnType::Utf8, ColumnType::Int64]);
        c.columns = vec![("zap".into(), ColumnType::Utf8)];
        let err = column_types(&c, &inferred).unwrap_err();
        assert!(
            err.starts_with("config.columns.zap: the file has no column"),
            "{err}"
        );
    }

    #[test]
    fn sample_stops_at_a_whole_record() {
        let c = config(true);
        let text = b"a,b\n1,\"x\ny\"\n2,\"open\n";
        let (inferred, end) = infer_sample(&c, text, false).unwrap().unwrap();
        assert_eq!((end, inferred.rows), (12, 1));
        assert_eq!(inferred.types[1], ColumnType::Utf8);
        let (inferred, end) = infer_sample(&c, text, true).unwrap().unwrap();
        assert_eq!((end, inferred.rows), (text.len(), 2));
        assert!(infer_sample(&c, b"a,b", false).unwrap().is_none());
        let (inferred, end) = infer_sample(&c, b"a,b", true).unwrap().unwrap();
        assert_eq!((end, inferred.rows, inferred.names.len()), (3, 0, 2));
    }
}
