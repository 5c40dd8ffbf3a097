//! Opening a JSON file, inferring its schema, and streaming it as batches with arrow-json's
//! decoder; errors name the file, the line and the column.
//!
//! The file is read twice when the types are inferred from every record (the default, as
//! `pyarrow.json.read_json` infers from the whole file): once by [`crate::infer`], once to
//! decode. Each batch's records are gathered (one batch of text in memory), decoded in one
//! call, and, when arrow-json refuses them, decoded again one by one to find the record at
//! fault and its line.

use crate::config::Config;
use crate::infer::{InferError, Inferring, Keys, infer_record};
use crate::scan::{ScanError, Scanner};
use arrow_array::{ArrayRef, RecordBatch, make_array};
use arrow_json::reader::{Decoder, ReaderBuilder};
use arrow_schema::{ArrowError, DataType, SchemaRef};
use ldp_plugin_sdk::PluginError;
use std::fs::File;

/// Where a record of the current batch starts.
#[derive(Debug, Clone, Copy)]
struct Start {
    offset: usize,
    line: usize,
    column: usize,
}

/// An open JSON file, streaming batches.
pub struct JsonReader {
    path: String,
    scanner: Scanner<File>,
    decoder: Decoder,
    /// What arrow-json decodes (zoned timestamps without their zone).
    parse_schema: SchemaRef,
    /// What the stream announces.
    schema: SchemaRef,
    batch_size: usize,
    /// Records the types were inferred from, when not all of them.
    inferred_from: Option<usize>,
    /// The inferred keys, against which the records past the first `inferred_from` are
    /// checked (arrow-json would otherwise truncate `2.5` into an `int64` column, or accept a
    /// trailing comma).
    keys: Keys,
    /// Whether a key holding scalars of two kinds is an error.
    strict_types: bool,
    /// Records read so far.
    records: usize,
    /// The text of the current batch's records, one per line, and where each starts.
    pending: Vec<u8>,
    starts: Vec<Start>,
    done: bool,
}

fn open_file(path: &str) -> Result<File, PluginError> {
    File::open(path).map_err(|e| PluginError::io(format!("{path}: cannot open the file: {e}")))
}

fn scan_error(path: &str, e: ScanError) -> PluginError {
    let message = format!(
        "{path}: line {}, column {}: {}",
        e.line, e.column, e.message
    );
    if e.io {
        PluginError::io(message)
    } else {
        PluginError::data(message)
    }
}

/// An error in the record that starts at `line`, `column`.
fn record_error(path: &str, line: usize, column: usize, e: &InferError) -> PluginError {
    let (at_line, at_column) = match e.line {
        0 => (line, column),
        1 => (line, column + e.column.saturating_sub(1)),
        n => (line + n - 1, e.column),
    };
    let prefix = if e.syntax { "invalid JSON: " } else { "" };
    PluginError::data(format!(
        "{path}: line {at_line}, column {at_column}: {prefix}{}",
        e.message
    ))
}

impl JsonReader {
    /// Opens the file, infers its schema and gets ready to stream it.
    pub fn open(config: &Config) -> Result<Self, PluginError> {
        let path = config.path.clone();
        let lines = config.lines_by_name();
        let mut scanner = Scanner::new(open_file(&path)?, lines);
        let mut keys = Keys::default();
        let mut records = 0usize;
        while config.infer_rows.is_none_or(|n| records < n) {
            match scanner.next_record() {
                Ok(Some(r)) => {
                    let how = Inferring {
                        line: r.line,
                        strict: config.strict_types,
                    };
                    let (_, widened) = infer_record(r.bytes, &mut keys, how)
                        .map_err(|e| record_error(&path, r.line, r.column, &e))?;
                    for widened in widened {
                        ldp_plugin_sdk::warn!("{path}: {widened}");
                    }
                    records += 1;
                }
                Ok(None) => break,
                Err(e) => return Err(scan_error(&path, e)),
            }
        }
        if records == 0 {
            return Err(PluginError::data(format!(
                "{path}: the file holds no JSON record; it needs one object per line, or one \
                 array of objects"
            )));
        }
        if keys.is_empty() {
            return Err(PluginError::data(format!(
                "{path}: the records have no keys, so there is no column to read"
            )));
        }
        let (parse_schema, schema) = keys.schemas();
        // A key of mixed scalars is a string column: numbers and booleans read as their text.
        let decoder = ReaderBuilder::new(parse_schema.clone())
            .with_batch_size(config.batch_size)
            .with_strict_mode(true)
            .with_coerce_primitive(true)
            .build_decoder()
            .map_err(|e| PluginError::internal(format!("{path}: {e}")))?;
        let inferred_from = match config.infer_rows {
            Some(n) if records == n => Some(n),
            _ => None,
        };
        Ok(Self {
            scanner: Scanner::new(open_file(&path)?, lines),
            path,
            decoder,
            parse_schema,
            schema,
            batch_size: config.batch_size,
            inferred_from,
            keys,
            strict_types: config.strict_types,
            records: 0,
            pending: Vec::new(),
            starts: Vec::with_capacity(config.batch_size.min(1 << 16)),
            done: false,
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The next batch, or `None` after the last record.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        if self.done {
            return Ok(None);
        }
        self.pending.clear();
        self.starts.clear();
        while self.starts.len() < self.batch_size {
            let record = match self.scanner.next_record() {
                Ok(record) => record,
                Err(e) => {
                    self.done = true;
                    return Err(scan_error(&self.path, e));
                }
            };
            let Some(record) = record else {
                self.done = true;
                break;
            };
            self.records += 1;
            if self.inferred_from.is_some_and(|n| self.records > n) {
                let how = Inferring {
                    line: record.line,
                    strict: self.strict_types,
                };
                let changed = infer_record(record.bytes, &mut self.keys, how)
                    .map_err(|e| record_error(&self.path, record.line, record.column, &e));
                let changed = match changed {
                    Ok((changed, _)) => changed,
                    Err(e) => {
                        self.done = true;
                        return Err(e);
                    }
                };
                if changed {
                    let (parse, _) = self.keys.schemas();
                    if parse != self.parse_schema {
                        self.done = true;
                        let what = difference(&self.parse_schema, &parse);
                        return Err(PluginError::data(format!(
                            "{}: line {}, column {}: {what}{}",
                            self.path,
                            record.line,
                            record.column,
                            hint(self.inferred_from)
                        )));
                    }
                }
            }
            self.starts.push(Start {
                offset: self.pending.len(),
                line: record.line,
                column: record.column,
            });
            self.pending.extend_from_slice(record.bytes);
            self.pending.push(b'\n');
        }
        if self.starts.is_empty() {
            return Ok(None);
        }
        match self.decode() {
            Ok(batch) => Ok(Some(batch)),
            Err(e) => {
                self.done = true;
                Err(self.locate(e))
            }
        }
    }

    fn decode(&mut self) -> Result<RecordBatch, ArrowError> {
        let consumed = self.decoder.decode(&self.pending)?;
        if consumed != self.pending.len() {
            return Err(ArrowError::JsonError(format!(
                "the decoder took {consumed} of {} bytes",
                self.pending.len()
            )));
        }
        let batch = self
            .decoder
            .flush()?
            .ok_or_else(|| ArrowError::JsonError("the decoder gave no batch".to_string()))?;
        if self.parse_schema == self.schema {
            return Ok(batch);
        }
        let columns = batch
            .columns()
            .iter()
            .zip(self.schema.fields())
            .map(|(column, field)| retype(column, field.data_type()))
            .collect::<Result<Vec<_>, _>>()?;
        RecordBatch::try_new(self.schema.clone(), columns)
    }

    /// The error of the first record of the batch that does not decode on its own.
    fn locate(&self, batch_error: ArrowError) -> PluginError {
        let path = &self.path;
        for (i, start) in self.starts.iter().enumerate() {
            let end = self
                .starts
                .get(i + 1)
                .map_or(self.pending.len(), |next| next.offset)
                - 1;
            let bytes = &self.pending[start.offset..end];
            if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
                let e = InferError::from_serde(&e, &[]);
                return record_error(path, start.line, start.column, &e);
            }
            if let Err(e) = decode_one(&self.parse_schema, bytes) {
                return PluginError::data(format!(
                    "{path}: line {}, column {}: {}{}",
                    start.line,
                    start.column,
                    arrow_message(&e),
                    hint(self.inferred_from)
                ));
            }
        }
        let first = self.starts.first().map_or(0, |s| s.line);
        PluginError::data(format!(
            "{path}: the records from line {first} on do not decode: {}{}",
            arrow_message(&batch_error),
            hint(self.inferred_from)
        ))
    }
}

/// What to do when the types were inferred from the first records only.
fn hint(inferred_from: Option<usize>) -> String {
    match inferred_from {
        Some(n) => format!(
            "; the column types were inferred from the first {n} records: set \
             \"infer_rows\": \"all\" to infer them from the whole file"
        ),
        None => String::new(),
    }
}

/// How a record changes the inferred schema `was` into `now`: the first column that differs.
fn difference(was: &SchemaRef, now: &SchemaRef) -> String {
    for field in now.fields() {
        match was.field_with_name(field.name()) {
            Err(_) => return format!("the key {:?} is not one of the columns", field.name()),
            Ok(old) if old.data_type() != field.data_type() => {
                return format!(
                    "the key {:?} needs the type {} here, but the column was inferred as {}",
                    field.name(),
                    field.data_type(),
                    old.data_type()
                );
            }
            Ok(_) => {}
        }
    }
    "this record changes the column types".to_string()
}

/// Decodes one record on its own.
fn decode_one(schema: &SchemaRef, bytes: &[u8]) -> Result<(), ArrowError> {
    let mut decoder = ReaderBuilder::new(schema.clone())
        .with_batch_size(1)
        .with_strict_mode(true)
        .with_coerce_primitive(true)
        .build_decoder()?;
    decoder.decode(bytes)?;
    decoder.flush().map(|_| ())
}

/// arrow-json's message, in the words of this plugin.
fn arrow_message(e: &ArrowError) -> String {
    let text = match e {
        ArrowError::JsonError(s) => s.clone(),
        other => other.to_string(),
    };
    match text.split_once("column '") {
        Some((before, rest)) if rest.ends_with("' missing from schema") => {
            let key = rest.trim_end_matches("' missing from schema");
            format!("{before}the key {key:?} is not one of the columns")
        }
        _ => text,
    }
}

/// `column` relabelled as `to`, a type that differs from its own only by zone names: the
/// buffers are shared, not copied.
fn retype(column: &ArrayRef, to: &DataType) -> Result<ArrayRef, ArrowError> {
    if column.data_type() == to {
        return Ok(column.clone());
    }
    retype_data(column.to_data(), to).map(make_array)
}

fn retype_data(
    data: arrow_data::ArrayData,
    to: &DataType,
) -> Result<arrow_data::ArrayData, ArrowError> {
    let children: Vec<&DataType> = match to {
        DataType::Struct(fields) => fields.iter().map(|f| f.data_type()).collect(),
        DataType::List(item) => vec![item.data_type()],
        _ => Vec::new(),
    };
    let child_data = data
        .child_data()
        .iter()
        .zip(&children)
        .map(|(child, to)| retype_data(child.clone(), to))
        .collect::<Result<Vec<_>, _>>()?;
    let mut builder = data.into_builder().data_type(to.clone());
    if !children.is_empty() {
        builder = builder.child_data(child_data);
    }
    builder.build()
}
