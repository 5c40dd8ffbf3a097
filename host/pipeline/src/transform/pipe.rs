//! An external transform over two pipes (`ldp run --pipe-transform TO,FROM`): ldp writes the
//! batches to TO as an Arrow IPC stream and reads the transformed ones from FROM, another Arrow
//! IPC stream. The protocol, in order:
//!
//! 1. ldp writes the stream's schema to TO.
//! 2. The other side writes its output schema to FROM (ldp's Python package calls the function
//!    on an empty batch of the input schema to learn it).
//! 3. For each batch ldp writes, the other side writes exactly one batch back (it may have no
//!    rows).
//! 4. ldp ends its stream; the other side ends its own.
//!
//! The paths are files ldp opens, such as `/dev/fd/5` for a pipe it inherited. A side that
//! closes its stream early fails the run, which then commits nothing.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Write};
use std::path::PathBuf;

use arrow_array::RecordBatch;
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::SchemaRef;

use super::external::{ExternalError, ExternalStream, ExternalTransform};

/// A transform at the other end of two pipes.
#[derive(Debug, Clone)]
pub struct PipeTransform {
    /// Where ldp writes the batches.
    pub to: PathBuf,
    /// Where ldp reads the transformed batches.
    pub from: PathBuf,
}

impl ExternalTransform for PipeTransform {
    fn name(&self) -> &str {
        "the transform on --pipe-transform"
    }

    fn open(&self, schema: &SchemaRef) -> Result<Box<dyn ExternalStream>, ExternalError> {
        let to = OpenOptions::new()
            .write(true)
            .open(&self.to)
            .map_err(|e| format!("cannot open {}: {e}", self.to.display()))?;
        let mut writer = StreamWriter::try_new(BufWriter::new(to), schema)?;
        writer.flush()?;
        let from = File::open(&self.from)
            .map_err(|e| format!("cannot open {}: {e}", self.from.display()))?;
        let reader = StreamReader::try_new(BufReader::new(from), None).map_err(|e| {
            format!("it gave no output schema (its stream ended or is not Arrow IPC: {e})")
        })?;
        Ok(Box::new(PipeStream {
            schema: reader.schema(),
            writer: Some(writer),
            reader,
        }))
    }
}

struct PipeStream {
    schema: SchemaRef,
    writer: Option<StreamWriter<BufWriter<File>>>,
    reader: StreamReader<BufReader<File>>,
}

impl ExternalStream for PipeStream {
    fn output_schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn push(&mut self, batch: &RecordBatch) -> Result<Vec<RecordBatch>, ExternalError> {
        let writer = self
            .writer
            .as_mut()
            .ok_or("a batch came after the end of the stream")?;
        writer.write(batch)?;
        writer.flush()?;
        match self.reader.next() {
            Some(batch) => Ok(vec![batch?]),
            None => Err("it ended its stream without answering a batch".into()),
        }
    }

    fn finish(&mut self) -> Result<Vec<RecordBatch>, ExternalError> {
        if let Some(mut writer) = self.writer.take() {
            writer.finish()?;
            writer.get_mut().flush()?;
        }
        match self.reader.next() {
            None => Ok(Vec::new()),
            Some(Err(e)) => Err(e.into()),
            Some(Ok(_)) => Err("it gave a batch that answered none of ldp's".into()),
        }
    }
}
