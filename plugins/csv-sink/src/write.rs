//! Writing one CSV file: the header when it opens, the rows of each batch as they come.

use crate::format::{self, CellError, Zone};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;
use ldp_plugin_sdk::{PluginError, SinkSummary};
use std::fs::File;
use std::io::Write;

/// Text is written to the file once this much of it is buffered.
const FLUSH_BYTES: usize = 1 << 20;

/// An open CSV file.
#[derive(Debug)]
pub struct CsvFile {
    file: File,
    path: String,
    name: String,
    schema: SchemaRef,
    /// The zone of each zoned timestamp column (`None` for the other columns).
    zones: Vec<Option<Zone>>,
    buffer: String,
    rows: u64,
    bytes: u64,
}

impl CsvFile {
    /// Checks that every column of `schema` can be written, then creates (or truncates) `path`
    /// and writes the header: every column name quoted, as pyarrow writes it.
    pub fn create(path: &str, schema: SchemaRef) -> Result<Self, PluginError> {
        let name = ldp_sink_text::file_name(path)?;
        let zones = ldp_sink_text::column_zones(path, &schema, "CSV", format::check_type)?;
        let file = File::create(path).map_err(|e| {
            PluginError::io(format!(
                "{path}: cannot create the file: {e}; its folder must exist and be granted to \
                 the plugin"
            ))
        })?;
        let mut buffer = String::with_capacity(FLUSH_BYTES + (64 << 10));
        for (i, field) in schema.fields().iter().enumerate() {
            if i > 0 {
                buffer.push(',');
            }
            format::quoted(&mut buffer, field.name());
        }
        // A table without columns is an empty file, as pyarrow writes it.
        if !schema.fields().is_empty() {
            buffer.push('\n');
        }
        Ok(Self {
            file,
            path: path.to_string(),
            name,
            schema,
            zones,
            buffer,
            rows: 0,
            bytes: 0,
        })
    }

    /// Appends the rows of `batch`.
    pub fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        if batch.num_columns() != self.schema.fields().len() {
            return Err(PluginError::internal(format!(
                "{}: a batch of {} columns for a file of {}",
                self.path,
                batch.num_columns(),
                self.schema.fields().len()
            )));
        }
        let columns: Vec<Values> = batch.columns().iter().map(Values::of).collect();
        for row in 0..batch.num_rows() {
            for (i, column) in columns.iter().enumerate() {
                if i > 0 {
                    self.buffer.push(',');
                }
                if let Some(at) = column.at(row) {
                    format::cell(
                        &mut self.buffer,
                        column.array.as_ref(),
                        at,
                        self.zones[i].as_ref(),
                    )
                    .map_err(|e| self.cell_error(e, i))?;
                }
            }
            self.buffer.push('\n');
            self.rows += 1;
            if self.buffer.len() >= FLUSH_BYTES {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn cell_error(&self, e: CellError, column: usize) -> PluginError {
        let name = self.schema.field(column).name();
        match e {
            CellError::NotUtf8(_) => PluginError::data(format!(
                "{}: column {name:?}, row {} of the data: a binary value that is not UTF-8 has \
                 no CSV text (pyarrow fails the same way: Invalid UTF8 payload); encode the \
                 column (e.g. as hex or base64) with a transform first",
                self.path,
                self.rows + 1
            )),
        }
    }

    fn flush(&mut self) -> Result<(), PluginError> {
        self.file
            .write_all(self.buffer.as_bytes())
            .map_err(|e| PluginError::io(format!("{}: cannot write the file: {e}", self.path)))?;
        self.bytes += self.buffer.len() as u64;
        self.buffer.clear();
        Ok(())
    }

    /// Writes what is buffered and closes the file: rows and bytes written, and the file's
    /// name (relative to its folder, the staging folder the host granted).
    pub fn close(mut self) -> Result<SinkSummary, PluginError> {
        self.flush()?;
        self.file
            .flush()
            .map_err(|e| PluginError::io(format!("{}: cannot write the file: {e}", self.path)))?;
        Ok(SinkSummary {
            records: self.rows,
            bytes: self.bytes,
            files: vec![self.name],
        })
    }
}

/// A column as it is written: the array that holds its values and, for a dictionary, the
/// index of each row's value in that array (dictionaries are looked up, not decoded).
struct Values {
    array: ArrayRef,
    keys: Option<Vec<Option<usize>>>,
}

impl Values {
    fn of(column: &ArrayRef) -> Self {
        let Some(dictionary) = column.as_any_dictionary_opt() else {
            return Self {
                array: column.clone(),
                keys: None,
            };
        };
        let keys = dictionary.normalized_keys();
        let inner = Self::of(dictionary.values());
        let keys = (0..column.len())
            .map(|row| {
                let key = *keys.get(row)?;
                if !column.is_valid(row) {
                    return None;
                }
                match &inner.keys {
                    None => Some(key),
                    Some(inner_keys) => inner_keys.get(key).copied().flatten(),
                }
            })
            .collect();
        Self {
            array: inner.array,
            keys: Some(keys),
        }
    }

    /// The index in [`Self::array`] of the value of `row`, or `None` for a null.
    fn at(&self, row: usize) -> Option<usize> {
        let index = match &self.keys {
            None => row,
            Some(keys) => keys.get(row).copied().flatten()?,
        };
        self.array.is_valid(index).then_some(index)
    }
}
