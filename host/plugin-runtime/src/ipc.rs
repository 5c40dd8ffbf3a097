//! Moving batches across the boundary, on the host's side: what a plugin sends is validated.

use crate::instance::Instance;
use crate::{Result, RuntimeError};
use arrow_array::RecordBatch;
use ldp_plugin_ipc::{Decoder, Encoder, Message};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Decodes a batch a plugin sent, validating every buffer; bad bytes are the plugin's fault.
pub(crate) fn decode<W>(
    instance: &mut Instance<W>,
    decoder: &mut Decoder,
    msg: Vec<u8>,
) -> Result<RecordBatch> {
    // The decoder validates, but a panic on hostile bytes must not take the host down.
    let bytes = msg.len();
    match catch_unwind(AssertUnwindSafe(|| decoder.decode(msg))) {
        Ok(Ok(batch)) => {
            instance.received(batch.num_rows(), bytes);
            Ok(batch)
        }
        Ok(Err(e)) => {
            Err(instance.contract(format!("it sent a batch that is not valid Arrow IPC: {e}")))
        }
        Err(_) => Err(instance.contract("it sent a batch that the Arrow IPC decoder cannot read")),
    }
}

/// Lays out a batch's message for a plugin; the call framing it straight into the plugin's
/// memory ([`crate::direct::BatchExport`]) writes its bytes.
pub(crate) fn message<W>(
    instance: &mut Instance<W>,
    encoder: &mut Encoder,
    batch: &RecordBatch,
) -> Result<Message> {
    let message = encoder
        .message(batch)
        .map_err(|source| RuntimeError::Encode {
            plugin: instance.plugin().to_string(),
            source,
        })?;
    instance.sent(batch.num_rows(), message.len());
    Ok(message)
}

/// Starts a stream for a plugin: the encoder and the Schema message.
pub(crate) fn start<W>(
    instance: &Instance<W>,
    schema: &arrow_schema::Schema,
) -> Result<(Encoder, Vec<u8>)> {
    Encoder::new(schema).map_err(|source| RuntimeError::Encode {
        plugin: instance.plugin().to_string(),
        source,
    })
}
