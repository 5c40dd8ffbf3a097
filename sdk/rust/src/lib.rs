#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

extern crate self as ldp_plugin_sdk;

mod append;
#[doc(hidden)]
pub mod bindings;
pub mod check;
pub mod config;
mod error;
mod info;
pub mod log;
pub mod sink;
pub mod source;
#[cfg(feature = "testing")]
pub mod testing;
pub mod transform;

pub use append::AppendFile;
pub use arrow_array;
pub use arrow_schema;
pub use check::{Check, CheckContext, CheckResult};
pub use config::ConfigObject;
pub use error::{ErrorKind, PluginError};
pub use info::PluginInfo;
pub use sink::{Sink, SinkSummary};
pub use source::Source;
pub use transform::Transform;

/// Everything a plugin usually needs.
pub mod prelude {
    pub use crate::arrow_array::{ArrayRef, RecordBatch};
    pub use crate::arrow_schema::{DataType, Field, Schema, SchemaRef};
    pub use crate::{
        Check, CheckContext, CheckResult, ConfigObject, ErrorKind, PluginError, PluginInfo, Sink,
        SinkSummary, Source, Transform,
    };
}

#[doc(hidden)]
pub mod __private {
    pub use wit_bindgen;
}

/// A batch given to the host must follow the schema announced for its stream.
pub(crate) fn same_schema(
    schema: &arrow_schema::SchemaRef,
    batch: &arrow_array::RecordBatch,
) -> Result<(), PluginError> {
    let got = batch.schema_ref();
    if std::sync::Arc::ptr_eq(schema, got) || schema.fields() == got.fields() {
        Ok(())
    } else {
        Err(PluginError::internal(format!(
            "the plugin gave a batch whose schema ({got}) differs from the schema it announced \
             for the stream ({schema}); a stream never changes its schema"
        )))
    }
}
