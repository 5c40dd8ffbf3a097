//! Source plugins: read their configuration, produce one stream of batches.

use crate::bindings::types as wit;
use crate::error::wire;
use crate::{PluginError, PluginInfo};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_plugin_ipc::Encoder;
use std::cell::RefCell;

/// A source: opened with its JSON config, gives its schema, then batches until the end.
///
/// Export it with [`export_source!`](crate::export_source). The host makes one instance per
/// stream, so `open` is called once per plugin instance.
pub trait Source: Sized + 'static {
    /// Name, version, description and config schema.
    fn describe() -> PluginInfo;
    /// Opens the source. `config` is the plugin's configuration, a JSON object text.
    fn open(config: &str) -> Result<Self, PluginError>;
    /// The schema every batch follows.
    fn schema(&self) -> SchemaRef;
    /// The next batch, or `None` at the end.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError>;
}

trait DynSource {
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError>;
}

impl<T: Source> DynSource for T {
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        Source::next_batch(self)
    }
}

struct Open {
    source: Box<dyn DynSource>,
    schema: SchemaRef,
    encoder: Encoder,
}

thread_local! {
    static STATE: RefCell<Option<Open>> = const { RefCell::new(None) };
}

#[doc(hidden)]
pub fn __describe<T: Source>() -> wit::PluginInfo {
    T::describe().into_wit(wit::PluginKind::Source)
}

#[doc(hidden)]
pub fn __open<T: Source>(config: String) -> Result<Vec<u8>, wit::PluginError> {
    let source = T::open(&config)?;
    let schema = source.schema();
    let (encoder, schema_msg) = Encoder::new(&schema).map_err(wire)?;
    STATE.with_borrow_mut(|state| {
        *state = Some(Open {
            source: Box::new(source),
            schema,
            encoder,
        })
    });
    Ok(schema_msg)
}

#[doc(hidden)]
pub fn __next() -> Result<Option<Vec<u8>>, wit::PluginError> {
    STATE.with_borrow_mut(|state| {
        let open = state
            .as_mut()
            .ok_or_else(|| PluginError::internal("next called before open"))?;
        match open.source.next_batch()? {
            None => Ok(None),
            Some(batch) => {
                crate::same_schema(&open.schema, &batch)?;
                Ok(Some(open.encoder.encode(&batch).map_err(wire)?))
            }
        }
    })
}

/// Exports a type that implements [`Source`] as the plugin's source.
///
/// ```ignore
/// ldp_plugin_sdk::export_source!(MySource);
/// ```
#[macro_export]
macro_rules! export_source {
    ($ty:ty) => {
        const _: () = {
            struct __LdpSourceExport;
            impl $crate::bindings::source::exports::ldp::plugin::source::Guest for __LdpSourceExport {
                fn describe() -> $crate::bindings::types::PluginInfo {
                    $crate::source::__describe::<$ty>()
                }
                fn open(
                    config: ::std::string::String,
                ) -> ::std::result::Result<::std::vec::Vec<u8>, $crate::bindings::types::PluginError> {
                    $crate::source::__open::<$ty>(config)
                }
                fn next() -> ::std::result::Result<
                    ::std::option::Option<::std::vec::Vec<u8>>,
                    $crate::bindings::types::PluginError,
                > {
                    $crate::source::__next()
                }
            }
            $crate::bindings::source::export!(__LdpSourceExport with_types_in $crate::bindings::source);
        };
    };
}
