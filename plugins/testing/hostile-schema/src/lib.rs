//! A transform that lies about its output: it declares the input schema at `open`, then gives
//! back batches of a different schema (one `int64` column `surprise`). It implements the
//! generated bindings directly, because the SDK refuses to send such a batch; the host must
//! refuse it too, when it decodes the batch against the declared schema.

use std::cell::RefCell;
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use ldp_plugin_ipc::{Decoder, Encoder, Validation};
use ldp_plugin_sdk::bindings::transform::exports::ldp::plugin::transform::Guest;
use ldp_plugin_sdk::bindings::types::{ErrorKind, PluginError, PluginInfo, PluginKind};

thread_local! {
    static OTHER: RefCell<Option<Encoder>> = const { RefCell::new(None) };
}

fn internal(message: impl ToString) -> PluginError {
    PluginError {
        kind: ErrorKind::Internal,
        message: message.to_string(),
    }
}

struct Liar;

impl Guest for Liar {
    fn describe() -> PluginInfo {
        PluginInfo {
            name: "hostile-schema".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            kind: PluginKind::Transform,
            description: "Declares one schema and gives batches of another".into(),
            config_schema: "{\"type\": \"object\"}".into(),
        }
    }

    fn open(_config: String, input: Vec<u8>) -> Result<Vec<u8>, PluginError> {
        let decoder = Decoder::new(input, Validation::Trusted).map_err(internal)?;
        let (_, declared) = Encoder::new(decoder.schema()).map_err(internal)?;
        let other = Schema::new(vec![Field::new("surprise", DataType::Int64, false)]);
        let (encoder, _) = Encoder::new(&other).map_err(internal)?;
        OTHER.with_borrow_mut(|o| *o = Some(encoder));
        Ok(declared)
    }

    fn push(_batch: Vec<u8>) -> Result<Vec<Vec<u8>>, PluginError> {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "surprise",
            DataType::Int64,
            false,
        )]));
        let batch = RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(vec![1, 2, 3]))])
            .map_err(internal)?;
        OTHER.with_borrow_mut(|o| {
            let encoder = o.as_mut().ok_or_else(|| internal("push before open"))?;
            Ok(vec![encoder.encode(&batch).map_err(internal)?])
        })
    }

    fn flush() -> Result<Vec<Vec<u8>>, PluginError> {
        Ok(Vec::new())
    }
}

ldp_plugin_sdk::bindings::transform::export!(Liar with_types_in ldp_plugin_sdk::bindings::transform);
