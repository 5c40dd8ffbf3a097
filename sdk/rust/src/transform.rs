//! Transform plugins: turn one stream of batches into another.

use crate::bindings::types as wit;
use crate::error::wire;
use crate::{PluginError, PluginInfo};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_plugin_ipc::{Decoder, Encoder, Validation};
use std::cell::RefCell;

/// A transform: takes batches, gives zero or more batches per input, and a final flush.
///
/// Export it with [`export_transform!`](crate::export_transform). Every batch it gives must
/// follow [`Transform::output_schema`]; a batch with another schema fails the run.
pub trait Transform: Sized + 'static {
    /// Name, version, description and config schema.
    fn describe() -> PluginInfo;
    /// Starts a stream of batches that follow `input`. `config` is a JSON object text.
    fn open(config: &str, input: SchemaRef) -> Result<Self, PluginError>;
    /// The schema of the batches this transform gives.
    fn output_schema(&self) -> SchemaRef;
    /// Transforms one batch.
    fn push(&mut self, batch: RecordBatch) -> Result<Vec<RecordBatch>, PluginError>;
    /// The input has ended: gives any batches held back. The default gives none.
    fn flush(&mut self) -> Result<Vec<RecordBatch>, PluginError> {
        Ok(Vec::new())
    }
}

trait DynTransform {
    fn push(&mut self, batch: RecordBatch) -> Result<Vec<RecordBatch>, PluginError>;
    fn flush(&mut self) -> Result<Vec<RecordBatch>, PluginError>;
}

impl<T: Transform> DynTransform for T {
    fn push(&mut self, batch: RecordBatch) -> Result<Vec<RecordBatch>, PluginError> {
        Transform::push(self, batch)
    }
    fn flush(&mut self) -> Result<Vec<RecordBatch>, PluginError> {
        Transform::flush(self)
    }
}

struct Open {
    transform: Box<dyn DynTransform>,
    decoder: Decoder,
    output: SchemaRef,
    encoder: Encoder,
}

impl Open {
    fn encode_all(&mut self, batches: Vec<RecordBatch>) -> Result<Vec<Vec<u8>>, wit::PluginError> {
        batches
            .iter()
            .map(|batch| {
                crate::same_schema(&self.output, batch)?;
                self.encoder.encode(batch).map_err(wire)
            })
            .collect()
    }
}

thread_local! {
    static STATE: RefCell<Option<Open>> = const { RefCell::new(None) };
}

#[doc(hidden)]
pub fn __describe<T: Transform>() -> wit::PluginInfo {
    T::describe().into_wit(wit::PluginKind::Transform)
}

#[doc(hidden)]
pub fn __open<T: Transform>(config: String, input: Vec<u8>) -> Result<Vec<u8>, wit::PluginError> {
    let decoder = Decoder::new(input, Validation::Trusted).map_err(wire)?;
    let transform = T::open(&config, decoder.schema().clone())?;
    let output = transform.output_schema();
    let (encoder, schema_msg) = Encoder::new(&output).map_err(wire)?;
    STATE.with_borrow_mut(|state| {
        *state = Some(Open {
            transform: Box::new(transform),
            decoder,
            output,
            encoder,
        })
    });
    Ok(schema_msg)
}

#[doc(hidden)]
pub fn __push(batch: Vec<u8>) -> Result<Vec<Vec<u8>>, wit::PluginError> {
    STATE.with_borrow_mut(|state| {
        let open = state
            .as_mut()
            .ok_or_else(|| PluginError::internal("push called before open"))?;
        let batch = open.decoder.decode(batch).map_err(wire)?;
        let out = open.transform.push(batch)?;
        open.encode_all(out)
    })
}

#[doc(hidden)]
pub fn __flush() -> Result<Vec<Vec<u8>>, wit::PluginError> {
    STATE.with_borrow_mut(|state| {
        let open = state
            .as_mut()
            .ok_or_else(|| PluginError::internal("flush called before open"))?;
        let out = open.transform.flush()?;
        open.encode_all(out)
    })
}

/// Exports a type that implements [`Transform`] as the plugin's transform.
///
/// ```ignore
/// ldp_plugin_sdk::export_transform!(MyTransform);
/// ```
#[macro_export]
macro_rules! export_transform {
    ($ty:ty) => {
        const _: () = {
            struct __LdpTransformExport;
            impl $crate::bindings::transform::exports::ldp::plugin::transform::Guest
                for __LdpTransformExport
            {
                fn describe() -> $crate::bindings::types::PluginInfo {
                    $crate::transform::__describe::<$ty>()
                }
                fn open(
                    config: ::std::string::String,
                    input: ::std::vec::Vec<u8>,
                ) -> ::std::result::Result<::std::vec::Vec<u8>, $crate::bindings::types::PluginError> {
                    $crate::transform::__open::<$ty>(config, input)
                }
                fn push(
                    batch: ::std::vec::Vec<u8>,
                ) -> ::std::result::Result<
                    ::std::vec::Vec<::std::vec::Vec<u8>>,
                    $crate::bindings::types::PluginError,
                > {
                    $crate::transform::__push(batch)
                }
                fn flush() -> ::std::result::Result<
                    ::std::vec::Vec<::std::vec::Vec<u8>>,
                    $crate::bindings::types::PluginError,
                > {
                    $crate::transform::__flush()
                }
            }
            $crate::bindings::transform::export!(__LdpTransformExport with_types_in $crate::bindings::transform);
        };
    };
}
