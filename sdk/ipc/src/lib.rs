//! The wire format of the ldp plugin contract (`ldp:plugin@0.1.0`).
//!
//! Tabular data crosses the WebAssembly boundary as Arrow IPC *stream* messages: the Schema
//! message once at the start of a stream, then one message per batch (with the dictionary
//! batches it needs in front of it). Concatenated, the messages of one stream form a valid Arrow
//! IPC stream. Both sides use this crate: the host (`ldp-plugin-runtime`) and the plugin SDK
//! (`ldp-plugin-sdk`), so they cannot disagree on the framing.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Int64Array, RecordBatch};
//! use arrow_schema::{DataType, Field, Schema};
//! use ldp_plugin_ipc::{Decoder, Encoder, Validation};
//!
//! let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)]));
//! let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(vec![1, 2]))])?;
//! let (mut encoder, schema_msg) = Encoder::new(&schema)?;
//! let batch_msg = encoder.encode(&batch)?;
//! let mut decoder = Decoder::new(schema_msg, Validation::Full)?;
//! assert_eq!(decoder.decode(batch_msg)?, batch);
//! # Ok::<(), arrow_schema::ArrowError>(())
//! ```

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::convert::try_schema_from_ipc_buffer;
use arrow_ipc::reader::{FileDecoder, StreamDecoder};
use arrow_ipc::writer::StreamWriter;
use arrow_ipc::{Block, MessageHeader, MetadataVersion, root_as_message};
use arrow_schema::{ArrowError, Schema, SchemaRef};
use std::sync::Arc;

/// Bytes kept in front of a batch's own size when sizing the output buffer (message header,
/// padding).
const MESSAGE_OVERHEAD: usize = 1024;

/// Encodes one stream: the schema message first, then one message per batch.
pub struct Encoder {
    writer: StreamWriter<Vec<u8>>,
}

impl Encoder {
    /// Starts a stream for `schema`; returns the encoder and the Schema message to send first.
    pub fn new(schema: &Schema) -> Result<(Self, Vec<u8>), ArrowError> {
        let mut writer = StreamWriter::try_new(Vec::with_capacity(MESSAGE_OVERHEAD), schema)?;
        let schema_msg = std::mem::take(writer.get_mut());
        Ok((Self { writer }, schema_msg))
    }

    /// Encodes one batch as the message(s) to send for it.
    ///
    /// The batch must have the stream's schema; a different schema is an error (a stream never
    /// changes its schema).
    pub fn encode(&mut self, batch: &RecordBatch) -> Result<Vec<u8>, ArrowError> {
        *self.writer.get_mut() = Vec::with_capacity(message_capacity(batch));
        self.writer.write(batch)?;
        Ok(std::mem::take(self.writer.get_mut()))
    }

    /// As [`Encoder::encode`], into a buffer the encoder keeps and reuses from batch to batch:
    /// for a caller that only lends the message (the host, which copies it into the plugin's
    /// memory), one allocation per stream instead of one per batch.
    pub fn encode_ref(&mut self, batch: &RecordBatch) -> Result<&Vec<u8>, ArrowError> {
        let buffer = self.writer.get_mut();
        buffer.clear();
        buffer.reserve(message_capacity(batch));
        self.writer.write(batch)?;
        Ok(self.writer.get_ref())
    }
}

/// The bytes a batch's message needs, about, without walking its arrays: the memory the batch
/// holds, capped at 16 bytes per cell. The cap matters for a slice, whose arrays report the
/// whole buffers they point into (a 1-row slice of a large batch would otherwise allocate, and
/// fault in, megabytes per message); a message that outgrows the estimate grows its buffer.
fn message_capacity(batch: &RecordBatch) -> usize {
    let cells = batch.num_rows().saturating_mul(batch.num_columns());
    batch
        .get_array_memory_size()
        .min(cells.saturating_mul(16))
        .saturating_add(MESSAGE_OVERHEAD)
}

/// Whether a decoder validates what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validation {
    /// Check every buffer, offset and UTF-8 string: for bytes from an untrusted party (the host
    /// reading what a plugin sent).
    Full,
    /// Trust the bytes: only for messages produced by [`Encoder`] in a trusted party (a plugin
    /// reading what the host sent). Malformed input is then undefined behaviour inside the
    /// plugin's sandbox, never in the host.
    Trusted,
}

/// Decodes one stream: built from its Schema message, then fed one batch message at a time.
pub struct Decoder {
    inner: Inner,
    schema: SchemaRef,
}

enum Inner {
    /// Validates everything (arrow's stream decoder).
    Validated(StreamDecoder),
    /// Skips validation: arrow's stream decoder does not honour `with_skip_validation` for
    /// record batches (arrow 58), its file decoder does, so trusted messages are split here and
    /// handed to the file decoder one by one.
    Trusted(FileDecoder),
}

impl Decoder {
    /// Starts decoding a stream from its Schema message.
    pub fn new(schema_msg: Vec<u8>, validation: Validation) -> Result<Self, ArrowError> {
        // The stream decoder only finishes a body-less Schema message when the next bytes
        // arrive, so the schema is read here on its own; the decoder completes it with the
        // first batch.
        let schema = Arc::new(try_schema_from_ipc_buffer(&schema_msg).map_err(|e| {
            ArrowError::IpcError(format!(
                "the stream does not start with a Schema message: {e}"
            ))
        })?);
        let inner = match validation {
            Validation::Full => {
                let mut inner = StreamDecoder::new();
                let mut buffer = Buffer::from_vec(schema_msg);
                if inner.decode(&mut buffer)?.is_some() || !buffer.is_empty() {
                    return Err(ArrowError::IpcError(
                        "the Schema message is followed by other bytes".into(),
                    ));
                }
                Inner::Validated(inner)
            }
            Validation::Trusted => {
                let decoder = FileDecoder::new(schema.clone(), MetadataVersion::V5);
                // SAFETY: only used on bytes produced by `Encoder` in the trusted host (see
                // `Validation::Trusted`); inside a plugin a bad buffer cannot reach the host.
                Inner::Trusted(unsafe { decoder.with_skip_validation(true) })
            }
        };
        Ok(Self { inner, schema })
    }

    /// The schema of the stream.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Decodes the message(s) of one batch.
    pub fn decode(&mut self, batch_msg: Vec<u8>) -> Result<RecordBatch, ArrowError> {
        let mut buffer = Buffer::from_vec(batch_msg);
        match &mut self.inner {
            Inner::Validated(inner) => {
                let batch = inner.decode(&mut buffer)?.ok_or_else(|| {
                    ArrowError::IpcError("the message holds no complete RecordBatch".into())
                })?;
                if !buffer.is_empty() {
                    return Err(ArrowError::IpcError(format!(
                        "{} bytes after the RecordBatch message",
                        buffer.len()
                    )));
                }
                Ok(batch)
            }
            Inner::Trusted(inner) => loop {
                let (block, header) = next_message(&buffer)?;
                let end = block.metaDataLength() as usize + block.bodyLength() as usize;
                let message = buffer.slice_with_length(0, end);
                match header {
                    MessageHeader::DictionaryBatch => inner.read_dictionary(&block, &message)?,
                    MessageHeader::RecordBatch => {
                        return inner.read_record_batch(&block, &message)?.ok_or_else(|| {
                            ArrowError::IpcError("the message holds no RecordBatch".into())
                        });
                    }
                    other => {
                        return Err(ArrowError::IpcError(format!(
                            "expected a RecordBatch message, found {other:?}"
                        )));
                    }
                }
                buffer = buffer.slice(end);
            },
        }
    }
}

/// The block (metadata and body lengths) and header type of the encapsulated message at the
/// start of `buffer`.
fn next_message(buffer: &[u8]) -> Result<(Block, MessageHeader), ArrowError> {
    let short = || ArrowError::IpcError("truncated IPC message".into());
    let word = |at: usize| -> Result<u32, ArrowError> {
        let bytes = buffer.get(at..at + 4).ok_or_else(short)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    };
    let (prefix, len) = if word(0)? == u32::MAX {
        (8, word(4)? as usize)
    } else {
        (4, word(0)? as usize)
    };
    let meta = buffer.get(prefix..prefix + len).ok_or_else(short)?;
    let message = root_as_message(meta)
        .map_err(|e| ArrowError::IpcError(format!("not an IPC message: {e}")))?;
    let block = Block::new(0, (prefix + len) as i32, message.bodyLength());
    Ok((block, message.header_type()))
}

/// Decodes a lone Schema message (for a stream's output schema announced before any batch).
pub fn decode_schema(schema_msg: Vec<u8>) -> Result<SchemaRef, ArrowError> {
    Ok(Decoder::new(schema_msg, Validation::Full)?.schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, DictionaryArray, StringArray, types::Int32Type};
    use arrow_schema::{DataType, Field};

    #[test]
    fn round_trips_dictionaries_across_batches() {
        let dict: DictionaryArray<Int32Type> = vec!["a", "b", "a"].into_iter().collect();
        let schema = Arc::new(Schema::new(vec![Field::new(
            "d",
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            true,
        )]));
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(dict) as ArrayRef]).unwrap();
        let (mut enc, schema_msg) = Encoder::new(&schema).unwrap();
        let mut full = Decoder::new(schema_msg.clone(), Validation::Full).unwrap();
        let mut trusted = Decoder::new(schema_msg, Validation::Trusted).unwrap();
        for _ in 0..3 {
            let msg = enc.encode(&batch).unwrap();
            assert_eq!(trusted.decode(msg.clone()).unwrap(), batch);
            assert_eq!(full.decode(msg).unwrap(), batch);
        }
    }

    #[test]
    fn a_batch_message_is_not_a_schema() {
        let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, true)]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(StringArray::from(vec!["x"])) as ArrayRef],
        )
        .unwrap();
        let (mut enc, _) = Encoder::new(&schema).unwrap();
        let msg = enc.encode(&batch).unwrap();
        assert!(Decoder::new(msg, Validation::Full).is_err());
        assert!(decode_schema(vec![1, 2, 3]).is_err());
    }
}
