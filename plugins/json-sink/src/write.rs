//! Writing one newline-delimited JSON file: the rows of each batch as they come, one object
//! per line.

use crate::format::{self, Encoders};
use arrow_array::RecordBatch;
use arrow_json::writer::{LineDelimited, Writer, WriterBuilder};
use arrow_schema::{ArrowError, SchemaRef};
use ldp_plugin_sdk::{PluginError, SinkSummary};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::Arc;

/// Bytes buffered before they are written to the file.
const BUFFER_BYTES: usize = 1 << 20;

/// The file, counting the bytes written to it.
#[derive(Debug)]
struct Counted {
    file: BufWriter<File>,
    bytes: u64,
}

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// An open JSON file.
pub struct JsonFile {
    writer: Writer<Counted, LineDelimited>,
    path: String,
    name: String,
    schema: SchemaRef,
    rows: u64,
}

impl std::fmt::Debug for JsonFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonFile")
            .field("path", &self.path)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl JsonFile {
    /// Checks that every column of `schema` can be written (and that no name repeats), then
    /// creates (or truncates) `path`.
    pub fn create(path: &str, schema: SchemaRef) -> Result<Self, PluginError> {
        let name = ldp_sink_text::file_name(path)?;
        format::check_fields(schema.fields(), "the column").map_err(|why| {
            PluginError::data(format!("{path}: cannot write the rows as JSON: {why}"))
        })?;
        let file = File::create(path).map_err(|e| {
            PluginError::io(format!(
                "{path}: cannot create the file: {e}; its folder must exist and be granted to \
                 the plugin"
            ))
        })?;
        let counted = Counted {
            file: BufWriter::with_capacity(BUFFER_BYTES, file),
            bytes: 0,
        };
        let writer = WriterBuilder::new()
            .with_explicit_nulls(true)
            .with_encoder_factory(Arc::new(Encoders))
            .build::<_, LineDelimited>(counted);
        Ok(Self {
            writer,
            path: path.to_string(),
            name,
            schema,
            rows: 0,
        })
    }

    /// Appends the rows of `batch`, one object per line.
    pub fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        if batch.num_columns() != self.schema.fields().len() {
            return Err(PluginError::internal(format!(
                "{}: a batch of {} columns for a file of {}",
                self.path,
                batch.num_columns(),
                self.schema.fields().len()
            )));
        }
        self.writer
            .write(batch)
            .map_err(|e| self.error(e, "write"))?;
        self.rows += batch.num_rows() as u64;
        Ok(())
    }

    fn error(&self, e: ArrowError, action: &str) -> PluginError {
        match e {
            ArrowError::IoError(message, _) => PluginError::io(format!(
                "{}: cannot {action} the file: {message}",
                self.path
            )),
            other => PluginError::data(format!(
                "{}: cannot write rows {} on as JSON: {other}",
                self.path,
                self.rows + 1
            )),
        }
    }

    /// Writes what is buffered and closes the file: rows and bytes written, and the file's
    /// name (relative to its folder, the staging folder the host granted).
    pub fn close(mut self) -> Result<SinkSummary, PluginError> {
        self.writer.finish().map_err(|e| self.error(e, "write"))?;
        self.writer
            .get_mut()
            .flush()
            .map_err(|e| PluginError::io(format!("{}: cannot write the file: {e}", self.path)))?;
        Ok(SinkSummary {
            records: self.rows,
            bytes: self.writer.get_ref().bytes,
            files: vec![self.name],
        })
    }
}
