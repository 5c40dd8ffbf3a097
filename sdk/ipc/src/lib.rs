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
use arrow_ipc::writer::{
    CompressionContext, DictionaryTracker, EncodedData, IpcDataGenerator, IpcWriteOptions,
};
use arrow_ipc::{Block, MessageHeader, MetadataVersion, root_as_message};
use arrow_schema::{ArrowError, Schema, SchemaRef};
use std::sync::Arc;

/// Encodes one stream: the schema message first, then one message per batch.
///
/// A batch is encoded in two steps: [`Encoder::message`] lays out its buffers (the
/// [`Message`]), and the message is then framed into whatever memory the caller has: a new
/// `Vec` ([`Encoder::encode`]), a buffer of the caller's ([`Message::append_to`]), or the
/// plugin's own memory (the host's runtime, which so writes each batch once instead of
/// encoding it and copying it in). The framing is arrow's `StreamWriter`'s, byte for byte.
pub struct Encoder {
    data_gen: IpcDataGenerator,
    tracker: DictionaryTracker,
    options: IpcWriteOptions,
    compression: CompressionContext,
}

impl Encoder {
    /// Starts a stream for `schema`; returns the encoder and the Schema message to send first.
    pub fn new(schema: &Schema) -> Result<(Self, Vec<u8>), ArrowError> {
        let data_gen = IpcDataGenerator::default();
        // As arrow's StreamWriter: a dictionary that changes is sent again, not refused.
        let mut tracker = DictionaryTracker::new(false);
        let options = IpcWriteOptions::try_new(usize::from(ALIGNMENT), false, MetadataVersion::V5)?;
        let schema_msg = Message {
            parts: vec![data_gen.schema_to_bytes_with_dictionary_tracker(
                schema,
                &mut tracker,
                &options,
            )],
        }
        .to_vec();
        let encoder = Self {
            data_gen,
            tracker,
            options,
            compression: CompressionContext::default(),
        };
        Ok((encoder, schema_msg))
    }

    /// Lays out the message(s) of one batch (its dictionaries first), ready to be framed.
    ///
    /// The batch must have the stream's schema: a stream never changes its schema.
    pub fn message(&mut self, batch: &RecordBatch) -> Result<Message, ArrowError> {
        let (mut parts, batch_part) = self.data_gen.encode(
            batch,
            &mut self.tracker,
            &self.options,
            &mut self.compression,
        )?;
        parts.push(batch_part);
        Ok(Message { parts })
    }

    /// Encodes one batch as the message(s) to send for it.
    pub fn encode(&mut self, batch: &RecordBatch) -> Result<Vec<u8>, ArrowError> {
        Ok(self.message(batch)?.to_vec())
    }
}

/// The laid-out message(s) of one batch, not yet framed: each part is a flatbuffer header and
/// a body, which framing joins with the stream format's prefix and padding.
pub struct Message {
    parts: Vec<EncodedData>,
}

impl Message {
    /// The size of the framed message(s), in bytes.
    pub fn len(&self) -> usize {
        self.parts
            .iter()
            .map(|p| Self::header_len(p) + p.arrow_data.len())
            .sum()
    }

    /// Whether the framed message is empty (never: a message has at least its header).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Frames the message(s) into `dst`, which must be exactly [`Message::len`] bytes.
    ///
    /// # Panics
    ///
    /// If `dst` has another length.
    pub fn write_to(&self, dst: &mut [u8]) {
        assert_eq!(dst.len(), self.len(), "the destination of a framed message");
        let mut at = 0;
        self.frame(|piece| {
            dst[at..at + piece.len()].copy_from_slice(piece);
            at += piece.len();
        });
    }

    /// Appends the framed message(s) to `out`.
    pub fn append_to(&self, out: &mut Vec<u8>) {
        out.reserve(self.len());
        self.frame(|piece| out.extend_from_slice(piece));
    }

    /// The framed message(s) in a new `Vec`.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.append_to(&mut out);
        out
    }

    /// Gives the framed message's pieces in order: per part, the continuation marker, the
    /// metadata length (the flatbuffer and its padding, not the prefix), the flatbuffer, its
    /// padding and the body (which arrow's encoder has already padded).
    fn frame(&self, mut put: impl FnMut(&[u8])) {
        const PADDING: [u8; ALIGNMENT as usize] = [0; ALIGNMENT as usize];
        for part in &self.parts {
            let header = Self::header_len(part);
            let meta_len = i32::try_from(header - PREFIX).unwrap_or(i32::MAX);
            put(&CONTINUATION_MARKER);
            put(&meta_len.to_le_bytes());
            put(&part.ipc_message);
            put(&PADDING[..header - PREFIX - part.ipc_message.len()]);
            put(&part.arrow_data);
        }
    }

    /// The prefix, the flatbuffer and its padding to the alignment.
    fn header_len(part: &EncodedData) -> usize {
        let a = usize::from(ALIGNMENT) - 1;
        (part.ipc_message.len() + PREFIX + a) & !a
    }
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Message")
            .field("parts", &self.parts.len())
            .field("len", &self.len())
            .finish()
    }
}

/// The alignment of every buffer and header (arrow's default).
const ALIGNMENT: u8 = 64;
/// The stream format's prefix: the continuation marker and the metadata length.
const PREFIX: usize = 8;
const CONTINUATION_MARKER: [u8; 4] = [0xff; 4];

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
        //
        // arrow-ipc 58 panics on some types it cannot read (a type NONE, an Int of 12 bits):
        // from an untrusted party that is an error like any other.
        let read = std::panic::catch_unwind(|| try_schema_from_ipc_buffer(&schema_msg))
            .unwrap_or_else(|_| Err(ArrowError::IpcError("a type arrow-ipc cannot read".into())));
        let schema = Arc::new(read.map_err(|e| {
            ArrowError::IpcError(format!(
                "the stream does not start with a Schema message: {e}"
            ))
        })?);
        let inner = match validation {
            Validation::Full => {
                // Bytes after the Schema message are refused before arrow-ipc reads them: its
                // stream decoder would go on to decode them as batches, unchecked, and panic on
                // a buffer outside its body.
                let (block, _) = read_message(&schema_msg)?;
                let end = usize::try_from(block.bodyLength())
                    .ok()
                    .and_then(|body| body.checked_add(block.metaDataLength() as usize));
                if end != Some(schema_msg.len()) {
                    return Err(followed());
                }
                let mut inner = StreamDecoder::new();
                let mut buffer = Buffer::from_vec(schema_msg);
                let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    inner.decode(&mut buffer)
                }))
                .unwrap_or_else(|_| {
                    Err(ArrowError::IpcError(
                        "a Schema message arrow-ipc cannot read".into(),
                    ))
                });
                if read?.is_some() || !buffer.is_empty() {
                    return Err(followed());
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
                check_buffers(&buffer)?;
                let batch = match inner.decode(&mut buffer)? {
                    Some(batch) => batch,
                    // arrow-ipc 58's stream decoder completes a message without a body (a
                    // batch of no rows, or of columns without buffers) only when more bytes
                    // arrive: it is given bytes it does not read.
                    None if buffer.is_empty() => {
                        let mut next = Buffer::from_vec(CONTINUATION.to_vec());
                        let batch = inner.decode(&mut next)?;
                        if next.len() != CONTINUATION.len() {
                            return Err(ArrowError::IpcError(
                                "the message holds no complete RecordBatch".into(),
                            ));
                        }
                        batch.ok_or_else(|| {
                            ArrowError::IpcError("the message holds no complete RecordBatch".into())
                        })?
                    }
                    None => {
                        return Err(ArrowError::IpcError(
                            "the message holds no complete RecordBatch".into(),
                        ));
                    }
                };
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
    let (block, message) = read_message(buffer)?;
    Ok((block, message.header_type()))
}

/// Refuses a RecordBatch or DictionaryBatch message with a buffer outside its body: arrow-ipc
/// 58 slices the body at each buffer's offset and length unchecked, and panics. Messages whose
/// framing cannot be read are left to arrow's decoder, which reports them.
fn check_buffers(mut bytes: &[u8]) -> Result<(), ArrowError> {
    while let Ok((block, message)) = read_message(bytes) {
        let body = message.bodyLength();
        let buffers = match message.header_type() {
            MessageHeader::RecordBatch => {
                message.header_as_record_batch().and_then(|b| b.buffers())
            }
            MessageHeader::DictionaryBatch => message
                .header_as_dictionary_batch()
                .and_then(|d| d.data())
                .and_then(|b| b.buffers()),
            _ => None,
        };
        for (i, buffer) in buffers.iter().flatten().enumerate() {
            let (offset, length) = (buffer.offset(), buffer.length());
            let end = offset.checked_add(length);
            if offset < 0 || length < 0 || end.is_none_or(|end| end > body) {
                return Err(ArrowError::IpcError(format!(
                    "buffer {i} ({length} bytes at offset {offset}) is outside the message body of {body} bytes"
                )));
            }
        }
        let Some(next) = usize::try_from(body)
            .ok()
            .and_then(|body| (block.metaDataLength() as usize).checked_add(body))
            .and_then(|end| bytes.get(end..))
        else {
            break;
        };
        bytes = next;
    }
    Ok(())
}

/// The continuation marker that starts an IPC message.
const CONTINUATION: [u8; 4] = [0xff; 4];

/// The block of the encapsulated message at the start of `buffer`, and the message.
fn read_message(buffer: &[u8]) -> Result<(Block, arrow_ipc::Message<'_>), ArrowError> {
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
    Ok((block, message))
}

fn followed() -> ArrowError {
    ArrowError::IpcError("the Schema message is followed by other bytes".into())
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

    /// The framing is arrow's StreamWriter's, byte for byte: schema, dictionaries that change
    /// between batches, nested and empty batches.
    #[test]
    fn frames_as_arrow_stream_writer_does() {
        use arrow_array::{Int64Array, ListArray, types::Int64Type};
        use arrow_ipc::writer::StreamWriter;
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, true),
            Field::new(
                "d",
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
                true,
            ),
            Field::new(
                "l",
                DataType::List(Arc::new(Field::new_list_field(DataType::Int64, true))),
                true,
            ),
            Field::new("s", DataType::Utf8, true),
        ]));
        let batch = |n: i64, words: Vec<&str>| {
            let rows = words.len();
            let dict: DictionaryArray<Int32Type> = words.iter().copied().collect();
            let lists = ListArray::from_iter_primitive::<Int64Type, _, _>(
                (0..rows as i64).map(|i| Some(vec![Some(i), None, Some(n)])),
            );
            RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(Int64Array::from_iter_values(
                        (0..rows as i64).map(|i| i * n),
                    )),
                    Arc::new(dict),
                    Arc::new(lists),
                    Arc::new(StringArray::from_iter_values(
                        words.iter().map(|w| w.repeat(3)),
                    )),
                ],
            )
            .unwrap()
        };
        let batches = [
            batch(1, vec!["a", "b", "a"]),
            batch(2, vec!["a", "b", "a", "b"]),
            batch(3, vec!["c", "dd", "eee"]),
            batch(4, vec![]),
        ];
        let mut expected = Vec::new();
        let mut writer = StreamWriter::try_new(&mut expected, &schema).unwrap();
        for b in &batches {
            writer.write(b).unwrap();
        }
        drop(writer);
        let (mut encoder, mut actual) = Encoder::new(&schema).unwrap();
        for (i, b) in batches.iter().enumerate() {
            match i % 3 {
                0 => actual.extend(encoder.encode(b).unwrap()),
                1 => encoder.message(b).unwrap().append_to(&mut actual),
                _ => {
                    let message = encoder.message(b).unwrap();
                    let mut framed = vec![7; message.len()];
                    message.write_to(&mut framed);
                    actual.extend(framed);
                }
            }
        }
        assert_eq!(actual, expected);
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

    /// Pins a fuzz finding (fuzz target `ipc`): a Schema message with a field of type NONE
    /// made arrow-ipc panic (`Type NONE not supported`) in `Decoder::new`, which the host calls
    /// on a plugin's schema; it is an error.
    #[test]
    fn a_schema_arrow_cannot_read_is_an_error() {
        let hex = concat!(
            "ffffffffb8000000100000000c00180014001600100008000c00000000000000",
            "0000000000000000100000000400010008000800000004000800000004000000",
            "010000001800000012001800040014001500080000000c001000000014000000",
            "1400000020",
        );
        let mut msg: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        msg.resize(192, 0);
        let e = Decoder::new(msg, Validation::Full)
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            e,
            "Ipc error: the stream does not start with a Schema message: \
             Ipc error: a type arrow-ipc cannot read"
        );
    }

    /// Pins a fuzz finding (fuzz target `ipc`): a batch message with a buffer past the end of
    /// its body made arrow-ipc's decoder panic on an out-of-bounds slice; it is an error.
    /// Pins a fuzz finding (the `json` target, on a line `{"": { }}`): a batch whose message
    /// has no body, here one row of a struct without fields, was refused as holding no
    /// complete RecordBatch, because arrow-ipc's stream decoder waits for more bytes.
    #[test]
    fn a_batch_without_a_body_decodes() {
        use arrow_array::StructArray;
        use arrow_schema::Fields;
        let empty = StructArray::new_empty_fields(1, None);
        let schema = Arc::new(Schema::new(vec![Field::new(
            "",
            DataType::Struct(Fields::empty()),
            true,
        )]));
        let batch =
            RecordBatch::try_new(schema.clone(), vec![Arc::new(empty) as ArrayRef]).unwrap();
        let (mut enc, schema_msg) = Encoder::new(&schema).unwrap();
        let mut full = Decoder::new(schema_msg, Validation::Full).unwrap();
        for _ in 0..2 {
            let decoded = full.decode(enc.encode(&batch).unwrap()).unwrap();
            assert_eq!(decoded.num_rows(), 1);
            assert_eq!(decoded.schema(), schema);
        }
        let none = RecordBatch::new_empty(schema);
        assert_eq!(
            full.decode(enc.encode(&none).unwrap()).unwrap().num_rows(),
            0
        );
    }

    /// Fuzz finding (the `ipc` target): a Schema message followed, in the same message, by a
    /// batch with a buffer outside its body made arrow-ipc's stream decoder read that batch
    /// unchecked and panic inside `Decoder::new`, where the host catches nothing.
    #[test]
    fn a_schema_message_followed_by_a_batch_is_an_error() {
        use arrow_array::Int64Array;
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef],
        )
        .unwrap();
        let (mut enc, mut first) = Encoder::new(&schema).unwrap();
        let mut msg = enc.encode(&batch).unwrap();
        let mut values = [0u8; 16];
        values[8..].copy_from_slice(&16i64.to_le_bytes());
        let at = msg.windows(16).position(|w| w == values).unwrap();
        msg[at..at + 8].copy_from_slice(&4096i64.to_le_bytes());
        first.extend_from_slice(&msg);
        let e = Decoder::new(first, Validation::Full)
            .err()
            .expect("refused");
        assert_eq!(
            e.to_string(),
            "Ipc error: the Schema message is followed by other bytes"
        );
    }

    #[test]
    fn a_buffer_outside_the_body_is_an_error() {
        use arrow_array::Int64Array;
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef],
        )
        .unwrap();
        let (mut enc, schema_msg) = Encoder::new(&schema).unwrap();
        let mut msg = enc.encode(&batch).unwrap();
        // The values buffer in the metadata: offset 0, 16 bytes; moved to offset 64, the end of
        // the (padded) body.
        let mut values = [0u8; 16];
        values[8..].copy_from_slice(&16i64.to_le_bytes());
        let at = msg.windows(16).position(|w| w == values).unwrap();
        msg[at..at + 8].copy_from_slice(&64i64.to_le_bytes());
        let mut decoder = Decoder::new(schema_msg, Validation::Full).unwrap();
        let e = decoder.decode(msg).unwrap_err().to_string();
        assert_eq!(
            e,
            "Ipc error: buffer 1 (16 bytes at offset 64) is outside the message body of 64 bytes"
        );
    }
}
