//! Sink plugins: write batches (file targets) or run events (event sinks).

use crate::bindings::sink::exports::ldp::plugin::sink as wit_sink;
use crate::bindings::types as wit;
use crate::error::wire;
use crate::{PluginError, PluginInfo};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_plugin_ipc::{Decoder, Validation};
use std::cell::RefCell;

/// What a sink reports when it closes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SinkSummary {
    /// Rows or events written.
    pub records: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Files written, relative to the staging folder the host granted.
    pub files: Vec<String>,
}

/// A sink. A file target implements `open_batches` and `write_batch`; an event sink implements
/// `open_events` and `write_event`. The methods a sink does not implement refuse with a config
/// error. Export it with [`export_sink!`](crate::export_sink).
pub trait Sink: Sized + 'static {
    /// Name, version, description and config schema.
    fn describe() -> PluginInfo;
    /// Starts writing batches that follow `input`.
    fn open_batches(config: &str, input: SchemaRef) -> Result<Self, PluginError> {
        let _ = (config, input);
        Err(PluginError::config(format!(
            "the sink '{}' writes run events, not batches",
            Self::describe().name
        )))
    }
    /// Starts writing run events.
    fn open_events(config: &str) -> Result<Self, PluginError> {
        let _ = config;
        Err(PluginError::config(format!(
            "the sink '{}' writes batches, not run events",
            Self::describe().name
        )))
    }
    /// Writes one batch.
    fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        let _ = batch;
        Err(PluginError::internal("this sink does not write batches"))
    }
    /// Writes one run event (a JSON object text).
    fn write_event(&mut self, event: &str) -> Result<(), PluginError> {
        let _ = event;
        Err(PluginError::internal("this sink does not write run events"))
    }
    /// Finishes writing.
    fn close(self) -> Result<SinkSummary, PluginError>;
}

trait DynSink {
    fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), PluginError>;
    fn write_event(&mut self, event: &str) -> Result<(), PluginError>;
    fn close(self: Box<Self>) -> Result<SinkSummary, PluginError>;
}

impl<T: Sink> DynSink for T {
    fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        Sink::write_batch(self, batch)
    }
    fn write_event(&mut self, event: &str) -> Result<(), PluginError> {
        Sink::write_event(self, event)
    }
    fn close(self: Box<Self>) -> Result<SinkSummary, PluginError> {
        Sink::close(*self)
    }
}

struct Open {
    sink: Box<dyn DynSink>,
    decoder: Option<Decoder>,
}

thread_local! {
    static STATE: RefCell<Option<Open>> = const { RefCell::new(None) };
}

fn with_open<R>(
    f: impl FnOnce(&mut Open) -> Result<R, wit::PluginError>,
) -> Result<R, wit::PluginError> {
    STATE.with_borrow_mut(|state| match state.as_mut() {
        Some(open) => f(open),
        None => Err(PluginError::internal("write called before open").into()),
    })
}

#[doc(hidden)]
pub fn __describe<T: Sink>() -> wit::PluginInfo {
    T::describe().into_wit(wit::PluginKind::Sink)
}

#[doc(hidden)]
pub fn __open_batches<T: Sink>(config: String, input: Vec<u8>) -> Result<(), wit::PluginError> {
    let decoder = Decoder::new(input, Validation::Trusted).map_err(wire)?;
    let sink = T::open_batches(&config, decoder.schema().clone())?;
    STATE.with_borrow_mut(|state| {
        *state = Some(Open {
            sink: Box::new(sink),
            decoder: Some(decoder),
        })
    });
    Ok(())
}

#[doc(hidden)]
pub fn __open_events<T: Sink>(config: String) -> Result<(), wit::PluginError> {
    let sink = T::open_events(&config)?;
    STATE.with_borrow_mut(|state| {
        *state = Some(Open {
            sink: Box::new(sink),
            decoder: None,
        })
    });
    Ok(())
}

#[doc(hidden)]
pub fn __write_batch(batch: Vec<u8>) -> Result<(), wit::PluginError> {
    with_open(|open| {
        let decoder = open
            .decoder
            .as_mut()
            .ok_or_else(|| PluginError::internal("write-batch on a sink opened for events"))?;
        let batch = decoder.decode(batch).map_err(wire)?;
        Ok(open.sink.write_batch(&batch)?)
    })
}

#[doc(hidden)]
pub fn __write_event(event: String) -> Result<(), wit::PluginError> {
    with_open(|open| Ok(open.sink.write_event(&event)?))
}

#[doc(hidden)]
pub fn __close() -> Result<wit_sink::SinkSummary, wit::PluginError> {
    let open = STATE
        .with_borrow_mut(Option::take)
        .ok_or_else(|| PluginError::internal("close called before open"))?;
    let summary = open.sink.close()?;
    Ok(wit_sink::SinkSummary {
        records: summary.records,
        bytes: summary.bytes,
        files: summary.files,
    })
}

/// Exports a type that implements [`Sink`] as the plugin's sink.
///
/// ```ignore
/// ldp_plugin_sdk::export_sink!(MySink);
/// ```
#[macro_export]
macro_rules! export_sink {
    ($ty:ty) => {
        const _: () = {
            struct __LdpSinkExport;
            impl $crate::bindings::sink::exports::ldp::plugin::sink::Guest for __LdpSinkExport {
                fn describe() -> $crate::bindings::types::PluginInfo {
                    $crate::sink::__describe::<$ty>()
                }
                fn open_batches(
                    config: ::std::string::String,
                    input: ::std::vec::Vec<u8>,
                ) -> ::std::result::Result<(), $crate::bindings::types::PluginError> {
                    $crate::sink::__open_batches::<$ty>(config, input)
                }
                fn write_batch(
                    batch: ::std::vec::Vec<u8>,
                ) -> ::std::result::Result<(), $crate::bindings::types::PluginError> {
                    $crate::sink::__write_batch(batch)
                }
                fn open_events(
                    config: ::std::string::String,
                ) -> ::std::result::Result<(), $crate::bindings::types::PluginError> {
                    $crate::sink::__open_events::<$ty>(config)
                }
                fn write_event(
                    event: ::std::string::String,
                ) -> ::std::result::Result<(), $crate::bindings::types::PluginError> {
                    $crate::sink::__write_event(event)
                }
                fn close() -> ::std::result::Result<
                    $crate::bindings::sink::exports::ldp::plugin::sink::SinkSummary,
                    $crate::bindings::types::PluginError,
                > {
                    $crate::sink::__close()
                }
            }
    $crate::bindings::sink::export!(__LdpSinkExport with_types_in $crate::bindings::sink);
        };
    };
}
