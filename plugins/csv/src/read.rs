//! Opening and streaming a CSV file, and turning arrow-csv's errors into messages that name the
//! file, the line, the column and what to do.
//!
//! ## Line numbers
//!
//! arrow-csv 58.4.1 reports *record* numbers, counted from the start of the reader (the header is
//! a record), and not all alike:
//!
//! - a row with the wrong number of fields: `incorrect number of fields for line {n}, ...` where
//!   `n` is 1-based (the header is record 1);
//! - a value that does not parse: `... for column {c} at line {n}. Row data: ...` and
//!   `Error parsing column {c} at line {n}: ...` where `n` is 0-based (the first data row is
//!   1 with a header, 0 without), and `c` the 0-based column;
//! - invalid UTF-8: `... for line {n} and field {f}` with `n` 1-based and `f` 1-based.
//!
//! A record is not a line: a quoted field may span lines and blank lines are skipped. So the
//! record number is turned into the line the record starts on by scanning the file again with
//! [`crate::scan`], which splits records as arrow-csv does. That scan happens on the error path
//! only. Errors of inference (a ragged record, a field that is not UTF-8, found by the scanner
//! that inference runs on) are located the same way, by finding the first record arrow-csv would
//! reject.

use crate::config::{Config, InferRows};
use crate::fast::FastDecoder;
use crate::infer::{self, Schemas};
use crate::input::Input;
use crate::scan::{self, Located};
use arrow_array::cast::AsArray;
use arrow_array::types::TimestampMicrosecondType;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_csv::ReaderBuilder;
use arrow_schema::{ArrowError, DataType, SchemaRef};
use ldp_plugin_sdk::PluginError;
use std::fs::File;
use std::io::{self, BufReader, Cursor, Read};
use std::sync::Arc;

/// The size of the read buffer, and of the sample types are inferred from by default.
pub const MIB: usize = 1 << 20;

/// The longest value quoted in an error message.
const MAX_VALUE_CHARS: usize = 80;

/// What inference leaves for streaming: arrow-csv's raw schema, the rows it was inferred from,
/// the zones of its timestamp columns, and the file to stream from its start.
type Opened = (
    arrow_schema::Schema,
    usize,
    Vec<infer::Zones>,
    Box<dyn Read>,
);

/// An open CSV file, streaming batches.
///
/// The first batch (which holds the header) and every batch the fast decoder declines are
/// decoded by arrow-csv; the others by [`FastDecoder`]. Both give the same batches.
pub struct CsvReader {
    input: Input,
    /// The schema batches are decoded in: timestamps as text.
    decode: SchemaRef,
    /// `None` when a column has a type the fast decoder does not build.
    fast: Option<FastDecoder>,
    /// Whether the first batch, which arrow-csv decodes with the header, is still to come.
    first: bool,
    context: Context,
    /// Columns whose timestamps are parsed without a zone and announced in UTC.
    utc_columns: Vec<usize>,
    /// Timestamp columns decoded as strings and parsed by [`crate::timestamp`].
    timestamp_columns: Vec<usize>,
    /// Data rows decoded so far (for the line numbers of timestamp errors).
    rows_done: usize,
    failed: bool,
}

/// What error messages need.
struct Context {
    config: Config,
    schemas: Schemas,
    /// Data rows the types were inferred from.
    inferred_rows: usize,
}

fn open_file(path: &str) -> Result<File, PluginError> {
    File::open(path).map_err(|e| PluginError::io(format!("{path}: cannot open the file: {e}")))
}

fn read_error(path: &str, e: io::Error) -> PluginError {
    PluginError::io(format!("{path}: cannot read the file: {e}"))
}

/// Appends up to 1 MiB of `file` to `buf`; true at the end of the file.
fn read_mib(path: &str, file: &mut File, buf: &mut Vec<u8>) -> Result<bool, PluginError> {
    let n = file
        .take(MIB as u64)
        .read_to_end(buf)
        .map_err(|e| read_error(path, e))?;
    Ok(n < MIB)
}

impl CsvReader {
    /// Opens the file, infers its schema and gets ready to stream it.
    pub fn open(config: Config) -> Result<Self, PluginError> {
        let path = config.path.clone();
        let mut file = open_file(&path)?;
        let (raw, inferred_rows, zones, input): Opened = match config.infer_rows {
            InferRows::FirstMiB => {
                // Infer from the first MiB (cut at a record boundary), then stream that MiB
                // followed by the rest of the file: the file is read once.
                let mut head = Vec::with_capacity(MIB);
                let mut at_eof = read_mib(&path, &mut file, &mut head)?;
                let inferred = loop {
                    // Inference sees the whole records of the sample only.
                    match infer::infer_sample(&config, &head, at_eof)
                        .map_err(|e| inference_error(&config, e))?
                    {
                        Some((inferred, _end)) => break inferred,
                        // Not one whole record yet (a header longer than 1 MiB): read on.
                        None => at_eof = read_mib(&path, &mut file, &mut head)?,
                    }
                };
                let rest = BufReader::with_capacity(MIB, file);
                let input = Box::new(Cursor::new(head).chain(rest));
                (inferred.raw, inferred.rows, inferred.zones, input)
            }
            InferRows::Rows(n) => Self::infer_pass(&config, file, Some(n))?,
            InferRows::All => Self::infer_pass(&config, file, None)?,
        };
        if raw.fields().is_empty() {
            return Err(PluginError::data(format!(
                "{path}: the file is empty; a CSV file needs {}",
                if config.has_header {
                    "a header row"
                } else {
                    "at least one row"
                }
            )));
        }
        let schemas = infer::map_schema(&config, &raw, &zones);
        let utc_columns = (0..schemas.output.fields().len())
            .filter(|&i| schemas.output.field(i).data_type() != schemas.parse.field(i).data_type())
            .collect();
        let timestamp_columns: Vec<usize> = (0..schemas.parse.fields().len())
            .filter(|&i| {
                schemas.parse.field(i).data_type()
                    == &DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, None)
            })
            .collect();
        let decode = Arc::new(arrow_schema::Schema::new(
            schemas
                .parse
                .fields()
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    if timestamp_columns.contains(&i) {
                        arrow_schema::Field::new(f.name(), DataType::Utf8, true)
                    } else {
                        f.as_ref().clone()
                    }
                })
                .collect::<Vec<_>>(),
        ));
        let fast = FastDecoder::new(
            &decode,
            &timestamp_columns,
            config.delimiter,
            config.quote,
            config.escape,
        );
        Ok(Self {
            input: Input::new(input),
            decode,
            fast,
            first: true,
            context: Context {
                config,
                schemas,
                inferred_rows,
            },
            utc_columns,
            timestamp_columns,
            rows_done: 0,
            failed: false,
        })
    }

    /// Infers from a pass of its own over the first `max_rows` rows (or all), then reopens the
    /// file to stream it.
    fn infer_pass(
        config: &Config,
        file: File,
        max_rows: Option<usize>,
    ) -> Result<Opened, PluginError> {
        let path = &config.path;
        let inferred = infer::infer(config, BufReader::with_capacity(MIB, file), max_rows)
            .map_err(|e| match e {
                ArrowError::IoError(_, io) => read_error(path, io),
                e => inference_error(config, e),
            })?;
        let input = Box::new(BufReader::with_capacity(MIB, open_file(path)?));
        Ok((inferred.raw, inferred.rows, inferred.zones, input))
    }

    /// The schema every batch follows.
    pub fn schema(&self) -> SchemaRef {
        self.context.schemas.output.clone()
    }

    /// The next batch, or `None` at the end of the file.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        if self.failed {
            return Ok(None);
        }
        // Records (the header included) before this batch: arrow-csv numbers the records of
        // a batch it decodes from there.
        let records_before = if self.first {
            0
        } else {
            usize::from(self.context.config.has_header) + self.rows_done
        };
        let finished = match self.decode_next() {
            Ok(None) => return Ok(None),
            Ok(Some(columns)) => self.finish_batch(columns),
            Err(e) => Err(self.context.translate(e, records_before)),
        };
        self.failed = finished.is_err();
        finished.map(Some)
    }

    /// The columns of the next batch, decoded by the fast decoder or else by arrow-csv.
    fn decode_next(&mut self) -> Result<Option<Vec<ArrayRef>>, ArrowError> {
        if std::mem::take(&mut self.first) {
            return self.arrow_batch(self.context.config.has_header);
        }
        if let Some(fast) = &mut self.fast {
            let len = self.input.lines(self.context.config.batch_size)?;
            if len == 0 {
                return Ok(None);
            }
            if let Some(columns) = fast.decode(&self.input.buffered()[..len]) {
                self.input.consume(len);
                return Ok(Some(columns));
            }
        }
        self.arrow_batch(false)
    }

    /// The next batch, decoded by arrow-csv from the next record on (`header`: skipping the
    /// header first); arrow-csv's own streaming loop, on the buffered file.
    fn arrow_batch(&mut self, header: bool) -> Result<Option<Vec<ArrayRef>>, ArrowError> {
        let mut decoder = ReaderBuilder::new(self.decode.clone())
            .with_format(infer::format(&self.context.config).with_header(header))
            .with_batch_size(self.context.config.batch_size)
            .build_decoder();
        loop {
            if self.input.buffered().is_empty() {
                self.input.fill()?;
            }
            let decoded = decoder.decode(self.input.buffered())?;
            if decoded == 0 {
                break;
            }
            self.input.consume(decoded);
        }
        Ok(decoder.flush()?.map(|batch| batch.columns().to_vec()))
    }

    /// Parses the timestamp columns still in text, puts the zone back on zoned ones and makes
    /// the batch, in the output schema.
    fn finish_batch(&mut self, mut columns: Vec<ArrayRef>) -> Result<RecordBatch, PluginError> {
        let output = self.context.schemas.output.clone();
        let line = usize::from(self.context.config.has_header) + self.rows_done;
        self.rows_done += columns.first().map_or(0, |c| c.len());
        for &i in &self.timestamp_columns {
            let Some(strings) = columns[i].as_string_opt::<i32>() else {
                // Parsed by the fast decoder already.
                continue;
            };
            let parsed = crate::timestamp::parse_micros(strings, i, line)
                .map_err(|e| self.context.translate(e, 0))?;
            columns[i] = Arc::new(parsed) as ArrayRef;
        }
        for &i in &self.utc_columns {
            let array = columns[i]
                .as_primitive_opt::<TimestampMicrosecondType>()
                .ok_or_else(|| PluginError::internal("a timestamp column is not a timestamp"))?;
            columns[i] = Arc::new(array.clone().with_timezone(infer::UTC)) as ArrayRef;
        }
        RecordBatch::try_new(output, columns).map_err(internal)
    }
}

fn internal(e: ArrowError) -> PluginError {
    PluginError::internal(e.to_string())
}

/// An error of inference: find the first record arrow-csv rejects and say where it is.
fn inference_error(config: &Config, e: ArrowError) -> PluginError {
    let path = &config.path;
    match locate(config, None) {
        Ok(Some(found)) => match found.bad_utf8 {
            Some(field) => utf8_error(path, &found, &format!("field {}", field + 1)),
            None => ragged_error(config, &found),
        },
        Ok(None) => PluginError::data(format!("{path}: {e}")),
        Err(io) => read_error(path, io),
    }
}

/// Scans the file from its start for record `target` or the first record arrow-csv rejects.
fn locate(config: &Config, target: Option<usize>) -> io::Result<Option<Located>> {
    let file = BufReader::with_capacity(MIB, File::open(&config.path)?);
    scan::locate(file, config.delimiter, config.quote, config.escape, target)
}

fn ragged_error(config: &Config, found: &Located) -> PluginError {
    let first = if config.has_header {
        "the header"
    } else {
        "the first row"
    };
    PluginError::data(format!(
        "{}: line {}: expected {} fields, got {}; every row needs as many fields as {first} \
         (quote a field that holds the delimiter {:?})",
        config.path,
        found.line,
        found.width,
        found.fields.len(),
        config.delimiter as char
    ))
}

fn utf8_error(path: &str, found: &Located, column: &str) -> PluginError {
    PluginError::data(format!(
        "{path}: line {}: {column}: the value is not valid UTF-8; convert the file to UTF-8 \
         (e.g. with iconv)",
        found.line
    ))
}

/// Quotes a value for a message, shortened if long.
fn quote_value(value: &str) -> String {
    if value.chars().count() <= MAX_VALUE_CHARS {
        format!("'{value}'")
    } else {
        let head: String = value.chars().take(MAX_VALUE_CHARS).collect();
        format!("'{head}...'")
    }
}

/// Parses the decimal number at the start of `s`.
fn number_at(s: &str) -> Option<(usize, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    Some((s[..digits].parse().ok()?, &s[digits..]))
}

/// (column, 0-based record) of an arrow-csv parse error message.
fn parse_error_position(message: &str) -> Option<(usize, usize)> {
    // "Error parsing column {c} at line {n}: {error}" (timestamps)
    if let Some(rest) = message.strip_prefix("Error parsing column ") {
        let (column, rest) = number_at(rest)?;
        let (line, _) = number_at(rest.strip_prefix(" at line ")?)?;
        return Some((column, line));
    }
    // "Error while parsing value '{v}' as type '{t}' for column {c} at line {n}. Row data: '..'"
    // The value and the row are free text: take the first place where the pattern holds.
    let mut from = 0;
    while let Some(at) = message[from..].find("' for column ") {
        let rest = &message[from + at + "' for column ".len()..];
        let parsed = number_at(rest).and_then(|(column, rest)| {
            let (line, rest) = number_at(rest.strip_prefix(" at line ")?)?;
            rest.starts_with(". Row data: '").then_some((column, line))
        });
        if parsed.is_some() {
            return parsed;
        }
        from += at + 1;
    }
    None
}

/// The 1-based record of "incorrect number of fields for line {n}, ...".
fn ragged_record(message: &str) -> Option<usize> {
    let rest = message.strip_prefix("incorrect number of fields for line ")?;
    number_at(rest).map(|(n, _)| n)
}

/// (1-based record, 0-based column) of "Encountered invalid UTF-8 data for line {n} and field {f}".
fn utf8_position(message: &str) -> Option<(usize, usize)> {
    let rest = message.strip_prefix("Encountered invalid UTF-8 data for line ")?;
    let (line, rest) = number_at(rest)?;
    let (field, _) = number_at(rest.strip_prefix(" and field ")?)?;
    Some((line, field.checked_sub(1)?))
}

impl Context {
    fn path(&self) -> &str {
        &self.config.path
    }

    fn column_name(&self, column: usize) -> String {
        match self.schemas.output.fields().get(column) {
            Some(field) => format!("column '{}'", field.name()),
            None => format!("column {}", column + 1),
        }
    }

    /// Turns an error of arrow-csv while streaming into a message for the user; the records
    /// it numbers come after `records_before` (those of the file before the batch it decoded).
    fn translate(&self, e: ArrowError, records_before: usize) -> PluginError {
        let path = self.path();
        let generic = |e: &ArrowError| PluginError::data(format!("{path}: {e}"));
        match &e {
            ArrowError::IoError(_, io) => {
                PluginError::io(format!("{path}: cannot read the file: {io}"))
            }
            ArrowError::CsvError(message) => {
                if let Some(record) = ragged_record(message) {
                    match locate(&self.config, Some(records_before + record)) {
                        Ok(Some(found)) if found.bad_utf8.is_none() => {
                            ragged_error(&self.config, &found)
                        }
                        Ok(Some(found)) => utf8_error(path, &found, "a field"),
                        Ok(None) => generic(&e),
                        Err(io) => read_error(path, io),
                    }
                } else if let Some((record, column)) = utf8_position(message) {
                    match locate(&self.config, Some(records_before + record)) {
                        Ok(Some(found)) => utf8_error(path, &found, &self.column_name(column)),
                        Ok(None) => generic(&e),
                        Err(io) => read_error(path, io),
                    }
                } else {
                    generic(&e)
                }
            }
            ArrowError::ParseError(message) => match parse_error_position(message) {
                Some((column, line)) => self.parse_error(records_before + line + 1, column, &e),
                None => generic(&e),
            },
            _ => generic(&e),
        }
    }

    /// A value of `record` (1-based, counting the header) did not parse as its column's type.
    fn parse_error(&self, record: usize, column: usize, e: &ArrowError) -> PluginError {
        let path = self.path();
        let found = match locate(&self.config, Some(record)) {
            Ok(Some(found)) if found.number == record => found,
            Ok(_) => return PluginError::data(format!("{path}: {e}")),
            Err(io) => return read_error(path, io),
        };
        let value = found.fields.get(column).map_or("?", String::as_str);
        let data_type = self
            .schemas
            .output
            .fields()
            .get(column)
            .map_or(DataType::Utf8, |f| f.data_type().clone());
        let data_row = record - usize::from(self.config.has_header);
        let hint = if data_row <= self.inferred_rows || self.config.infer_rows == InferRows::All {
            format!(
                "the type was inferred from values like this one, but this one is not a valid {}; \
                 fix it in the file",
                infer::type_name(&data_type)
            )
        } else {
            let from = match self.config.infer_rows {
                InferRows::Rows(n) => format!("the first {n} rows"),
                _ => "the first 1 MiB".to_string(),
            };
            format!(
                "the type was inferred from {from}; set \"infer_rows\": \"all\" to infer from the \
                 whole file"
            )
        };
        PluginError::data(format!(
            "{path}: line {}: {}: cannot parse {} as {} ({hint})",
            found.line,
            self.column_name(column),
            quote_value(value),
            infer::type_name(&data_type),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_arrow_messages() {
        assert_eq!(
            parse_error_position(
                "Error while parsing value 'a' for column 9 at line 1' as type 'Int64' for \
                 column 2 at line 41. Row data: '[1,2,a]'"
            ),
            Some((2, 41))
        );
        assert_eq!(
            parse_error_position("Error parsing column 3 at line 7: Parser error: bad"),
            Some((3, 7))
        );
        assert_eq!(
            ragged_record("incorrect number of fields for line 12, expected 3 got 4"),
            Some(12)
        );
        assert_eq!(
            utf8_position("Encountered invalid UTF-8 data for line 5 and field 2"),
            Some((5, 1))
        );
    }

    #[test]
    fn long_values_are_shortened() {
        let long = "x".repeat(200);
        assert_eq!(quote_value(&long).len(), MAX_VALUE_CHARS + 5);
        assert_eq!(quote_value("abc"), "'abc'");
    }
}
