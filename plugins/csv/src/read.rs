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
use crate::convert;
use crate::fast::FastDecoder;
use crate::infer;
use crate::input::Input;
use crate::scan::{self, Located};
use crate::value::ColumnType;
use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_csv::ReaderBuilder;
use arrow_csv::reader::Format;
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use ldp_plugin_sdk::PluginError;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::sync::Arc;

/// The columns of one batch, or the (row in the batch, column) of a value that cannot be read
/// as its column's type.
type Columns = Result<Vec<ArrayRef>, (usize, usize)>;

/// The size of the read buffer, and of the sample types are inferred from by default.
pub const MIB: usize = 1 << 20;

/// The fewest data rows the default inference reads: types come from the whole rows in the
/// first MiB, or from the first this many rows when that MiB holds fewer (long rows, or one huge
/// field that would leave inference too few rows, or none, to type the other columns by).
pub const MIN_INFER_ROWS: usize = 1_000;

/// The longest value quoted in an error message.
const MAX_VALUE_CHARS: usize = 80;

/// An open CSV file, streaming batches.
///
/// Both decoders split records into text fields, and [`convert`] reads the fields as their
/// column's type. The first batch (which holds the header) and every batch the fast decoder
/// declines are split by arrow-csv; the others by [`FastDecoder`]. Both give the same batches.
pub struct CsvReader {
    input: Input,
    /// The schema arrow-csv splits in: every column as text.
    text: SchemaRef,
    /// `None` when the dialect is one the fast decoder does not split.
    fast: Option<FastDecoder>,
    /// Whether the first batch, which arrow-csv decodes with the header, is still to come.
    first: bool,
    context: Context,
    /// Data rows decoded so far (for the line numbers of errors).
    rows_done: usize,
    failed: bool,
}

/// What error messages need.
struct Context {
    config: Config,
    /// The schema batches are announced in.
    output: SchemaRef,
    types: Vec<ColumnType>,
    /// Data rows the types were inferred from.
    inferred_rows: usize,
    /// Which rows those were, for messages: `the first 1 MiB`, `the first 10 rows`.
    inferred_from: String,
}

/// The arrow-csv format of a configuration.
fn format(config: &Config) -> Format {
    let format = Format::default()
        .with_header(config.has_header)
        .with_delimiter(config.delimiter)
        .with_quote(config.quote);
    match config.escape {
        Some(escape) => format.with_escape(escape),
        None => format,
    }
}

fn open_error(path: &str, e: io::Error) -> PluginError {
    PluginError::io(format!("{path}: cannot open the file: {e}"))
}

fn read_error(path: &str, e: io::Error) -> PluginError {
    if e.kind() == io::ErrorKind::InvalidData {
        return PluginError::data(format!("{path}: {e}"));
    }
    PluginError::io(format!("{path}: cannot read the file: {e}"))
}

/// The file's text from its start: decoded to UTF-8, its first `skip_rows` lines skipped.
fn open_text(config: &Config) -> io::Result<Box<dyn Read>> {
    let file: Box<dyn Read> = Box::new(File::open(&config.path)?);
    let decoded = crate::encoding::decode(config.encoding, file);
    if config.skip_rows == 0 {
        return Ok(decoded);
    }
    let mut reader = BufReader::with_capacity(MIB, decoded);
    let mut line = Vec::new();
    for _ in 0..config.skip_rows {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
    }
    Ok(Box::new(reader))
}

/// Appends up to 1 MiB of `text` to `buf`; true at its end.
fn read_mib(path: &str, text: &mut dyn Read, buf: &mut Vec<u8>) -> Result<bool, PluginError> {
    let n = text
        .take(MIB as u64)
        .read_to_end(buf)
        .map_err(|e| read_error(path, e))?;
    Ok(n < MIB)
}

impl CsvReader {
    /// Opens the file, infers its schema and gets ready to stream it.
    pub fn open(config: Config) -> Result<Self, PluginError> {
        let path = config.path.clone();
        let text = open_text(&config).map_err(|e| open_error(&path, e))?;
        let (inferred, input, inferred_from) = match config.infer_rows {
            InferRows::Default => Self::infer_default(&config, text)?,
            InferRows::Rows(n) => {
                let (inferred, input) = Self::infer_pass(&config, text, Some(n))?;
                (inferred, input, format!("the first {n} rows"))
            }
            InferRows::All => {
                let (inferred, input) = Self::infer_pass(&config, text, None)?;
                (inferred, input, "the whole file".to_string())
            }
        };
        if inferred.names.is_empty() {
            return Err(PluginError::data(format!(
                "{path}: the file is empty; a CSV file needs {}",
                if config.has_header {
                    "a header row"
                } else {
                    "at least one row"
                }
            )));
        }
        let types = infer::column_types(&config, &inferred).map_err(PluginError::config)?;
        let output = infer::schema(&inferred.names, &types);
        let text = Arc::new(Schema::new(
            inferred
                .names
                .iter()
                .map(|name| Field::new(name, DataType::Utf8, true))
                .collect::<Vec<_>>(),
        ));
        let fast = FastDecoder::new(&types, config.delimiter, config.quote, config.escape);
        Ok(Self {
            input: Input::new(input),
            text,
            fast,
            first: true,
            context: Context {
                config,
                output,
                types,
                inferred_rows: inferred.rows,
                inferred_from,
            },
            rows_done: 0,
            failed: false,
        })
    }

    /// The default inference: from the whole rows in the first MiB, then that MiB followed by
    /// the rest of the file is streamed (the file is read once); when that MiB holds fewer than
    /// [`MIN_INFER_ROWS`] whole data rows and the file goes on, from the first
    /// [`MIN_INFER_ROWS`] rows instead, in a pass of their own. Gives which rows they were.
    fn infer_default(
        config: &Config,
        mut text: Box<dyn Read>,
    ) -> Result<(infer::Inferred, Box<dyn Read>, String), PluginError> {
        let mut head = Vec::with_capacity(MIB);
        let at_eof = read_mib(&config.path, &mut text, &mut head)?;
        // Inference sees the whole records of the sample only.
        let sampled =
            infer::infer_sample(config, &head, at_eof).map_err(|e| inference_error(config, e))?;
        match sampled {
            Some((inferred, _end)) if at_eof || inferred.rows >= MIN_INFER_ROWS => {
                let rest = BufReader::with_capacity(MIB, text);
                let input = Box::new(Cursor::new(head).chain(rest));
                Ok((inferred, input, "the first 1 MiB".to_string()))
            }
            _ => {
                let text = Box::new(Cursor::new(head).chain(text));
                let (inferred, input) = Self::infer_pass(config, text, Some(MIN_INFER_ROWS))?;
                Ok((inferred, input, format!("the first {MIN_INFER_ROWS} rows")))
            }
        }
    }

    /// Infers from a pass of its own over the first `max_rows` rows (or all), then reopens the
    /// file to stream it.
    fn infer_pass(
        config: &Config,
        text: Box<dyn Read>,
        max_rows: Option<usize>,
    ) -> Result<(infer::Inferred, Box<dyn Read>), PluginError> {
        let path = &config.path;
        let inferred = infer::infer(config, BufReader::with_capacity(MIB, text), max_rows)
            .map_err(|e| match e {
                ArrowError::IoError(_, io) => read_error(path, io),
                e => inference_error(config, e),
            })?;
        let input = Box::new(BufReader::with_capacity(
            MIB,
            open_text(config).map_err(|e| open_error(path, e))?,
        ));
        Ok((inferred, input))
    }

    /// The schema every batch follows.
    pub fn schema(&self) -> SchemaRef {
        self.context.output.clone()
    }

    /// The next batch, or `None` at the end of the file.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        if self.failed {
            return Ok(None);
        }
        // Records (the header included) before this batch's first data row.
        let records_before = usize::from(self.context.config.has_header) + self.rows_done;
        // arrow-csv numbers the records of a batch it splits from the start of that batch,
        // the header included in the first one.
        let arrow_base = if self.first { 0 } else { records_before };
        let finished = match self.decode_next() {
            Ok(None) => return Ok(None),
            Ok(Some(Ok(columns))) => {
                self.rows_done += columns.first().map_or(0, |c| c.len());
                RecordBatch::try_new(self.context.output.clone(), columns).map_err(internal)
            }
            Ok(Some(Err((row, column)))) => {
                Err(self.context.value_error(records_before + row + 1, column))
            }
            Err(e) => Err(self.context.translate(e, arrow_base)),
        };
        self.failed = finished.is_err();
        finished.map(Some)
    }

    /// The columns of the next batch, split by the fast decoder or else by arrow-csv; a value
    /// that cannot be read as its column's type as `Err((row in the batch, column))`.
    fn decode_next(&mut self) -> Result<Option<Columns>, ArrowError> {
        if std::mem::take(&mut self.first) {
            return self.arrow_batch(self.context.config.has_header);
        }
        if let Some(fast) = &mut self.fast {
            let len = self.input.lines(self.context.config.batch_size)?;
            if len == 0 {
                return Ok(None);
            }
            if let Some(columns) = fast.decode(
                &self.input.buffered()[..len],
                &self.context.config.null_values,
            ) {
                self.input.consume(len);
                return Ok(Some(Ok(columns)));
            }
        }
        self.arrow_batch(false)
    }

    /// The next batch, split by arrow-csv from the next record on (`header`: skipping the
    /// header first), then read as the columns' types.
    fn arrow_batch(&mut self, header: bool) -> Result<Option<Columns>, ArrowError> {
        let mut decoder = ReaderBuilder::new(self.text.clone())
            .with_format(format(&self.context.config).with_header(header))
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
        let Some(batch) = decoder.flush()? else {
            return Ok(None);
        };
        let nulls = &self.context.config.null_values;
        let mut columns = Vec::with_capacity(batch.num_columns());
        for (i, (column, &column_type)) in
            batch.columns().iter().zip(&self.context.types).enumerate()
        {
            match convert::convert(column_type, column.as_string::<i32>(), nulls) {
                Ok(array) => columns.push(array),
                Err(row) => return Ok(Some(Err((row, i)))),
            }
        }
        Ok(Some(Ok(columns)))
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

/// Scans the file from its start for record `target` or the first record arrow-csv rejects;
/// the line it gives counts the skipped lines too.
fn locate(config: &Config, target: Option<usize>) -> io::Result<Option<Located>> {
    let text = BufReader::with_capacity(MIB, open_text(config)?);
    let found = scan::locate(text, config.delimiter, config.quote, config.escape, target)?;
    Ok(found.map(|mut found| {
        found.line += config.skip_rows;
        found
    }))
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
        "{path}: line {}: {column}: the value is not valid UTF-8; set the source's \"encoding\" \
         (latin-1, windows-1252, utf-16) or convert the file to UTF-8",
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
        match self.output.fields().get(column) {
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
            _ => generic(&e),
        }
    }

    /// A value of `record` (1-based, counting the header) cannot be read as its column's
    /// type.
    fn value_error(&self, record: usize, column: usize) -> PluginError {
        let path = self.path();
        let found = match locate(&self.config, Some(record)) {
            Ok(Some(found)) if found.number == record => found,
            Ok(_) => {
                return PluginError::data(format!(
                    "{path}: record {record}: {}: a value is not a valid {}",
                    self.column_name(column),
                    self.types[column].name()
                ));
            }
            Err(io) => return read_error(path, io),
        };
        let value = found.fields.get(column).map_or("?", String::as_str);
        let type_name = self.types[column].name();
        let name = self.output.field(column).name();
        let data_row = record - usize::from(self.config.has_header);
        let hint = if self.config.columns.iter().any(|(n, _)| n == name) {
            "the config's \"columns\" sets its type; fix the value or the type".to_string()
        } else if data_row <= self.inferred_rows || self.config.infer_rows == InferRows::All {
            format!(
                "the type was inferred from values like this one, but this one is not a valid \
                 {type_name}; fix it in the file, or set the column's type in \"columns\""
            )
        } else {
            format!(
                "the type was inferred from {}; set \"infer_rows\": \"all\" to infer from the \
                 whole file, or the column's type in \"columns\"",
                self.inferred_from
            )
        };
        PluginError::data(format!(
            "{path}: line {}: {}: cannot parse {} as {type_name} ({hint})",
            found.line,
            self.column_name(column),
            quote_value(value),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_arrow_messages() {
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
