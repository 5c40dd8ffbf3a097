//! Results as an Arrow IPC stream (`ldp query --arrow`): the schema, then each batch as it
//! comes, then the end-of-stream marker, so a reader (pyarrow's `ipc.open_stream`) gets the
//! rows without a text format in between.

use std::io::Write;

use arrow_array::RecordBatch;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{ArrowError, SchemaRef};

/// Writes an Arrow IPC stream to `out`, opened when the schema arrives.
pub struct IpcSink<W: Write> {
    out: Option<W>,
    writer: Option<StreamWriter<W>>,
}

impl<W: Write> IpcSink<W> {
    /// A stream that will go to `out`.
    pub fn new(out: W) -> IpcSink<W> {
        IpcSink {
            out: Some(out),
            writer: None,
        }
    }

    /// Writes the end-of-stream marker and flushes.
    ///
    /// # Errors
    ///
    /// Writing failed.
    pub fn finish(mut self) -> std::io::Result<()> {
        if let Some(writer) = &mut self.writer {
            writer.finish().map_err(io)?;
            writer.get_mut().flush()?;
        }
        Ok(())
    }
}

impl<W: Write> ldp_sql::BatchSink for IpcSink<W> {
    fn schema(&mut self, schema: &SchemaRef) -> std::io::Result<()> {
        let out = self
            .out
            .take()
            .ok_or_else(|| std::io::Error::other("the stream's schema was already written"))?;
        self.writer = Some(StreamWriter::try_new(out, schema).map_err(io)?);
        Ok(())
    }

    fn batch(&mut self, batch: &RecordBatch) -> std::io::Result<()> {
        let writer = self
            .writer
            .as_mut()
            .ok_or_else(|| std::io::Error::other("a batch came before the stream's schema"))?;
        writer.write(batch).map_err(io)
    }
}

/// An Arrow error as an I/O error, keeping an I/O error (a closed pipe) as it was.
fn io(e: ArrowError) -> std::io::Error {
    match e {
        ArrowError::IoError(_, source) => source,
        other => std::io::Error::other(other),
    }
}
