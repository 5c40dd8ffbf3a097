//! Running a sink plugin: batches (file targets) or run events (event sinks) in, a summary out.

use crate::Result;
use crate::bindings::sink::{SinkPlugin, SinkPluginPre};
use crate::bindings::wit;
use crate::direct::BatchExport;
use crate::instance::Instance;
use crate::limits::Sandbox;
use crate::plugin::{Plugin, PluginKind, Pre};
use crate::sandbox::HostState;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_plugin_ipc::Encoder;
use serde::Serialize;
use wasmtime::Store;

/// What a sink reports when it closes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SinkSummary {
    /// Rows or events written.
    pub records: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Files written, relative to the staging folder.
    pub files: Vec<String>,
}

/// A sink instance's exports: the generated bindings, and `write-batch` with the batch written
/// straight into the plugin's memory.
pub(crate) struct SinkWorld {
    bindings: SinkPlugin,
    write_batch: BatchExport<(std::result::Result<(), wit::PluginError>,)>,
}

impl SinkWorld {
    fn new(pre: &SinkPluginPre<HostState>, store: &mut Store<HostState>) -> wasmtime::Result<Self> {
        let instance = pre.instance_pre().instantiate(&mut *store)?;
        Ok(Self {
            bindings: SinkPlugin::new(&mut *store, &instance)?,
            write_batch: BatchExport::new(
                &instance,
                store,
                "ldp:plugin/sink@0.1.0",
                "write-batch",
            )?,
        })
    }
}

/// An open sink.
pub struct SinkStream {
    instance: Instance<SinkWorld>,
    encoder: Option<Encoder>,
}

impl Plugin {
    fn open_sink(&self, sandbox: &Sandbox) -> Result<Instance<SinkWorld>> {
        self.expect(PluginKind::Sink)?;
        let Pre::Sink(pre) = &self.pre else {
            unreachable!("a sink plugin has a sink world")
        };
        Instance::new(self, sandbox, |s| SinkWorld::new(pre, s))
    }

    /// Opens this sink for batches of `input` (a file target).
    pub fn open_batch_sink(
        &self,
        config: &str,
        input: &SchemaRef,
        sandbox: &Sandbox,
    ) -> Result<SinkStream> {
        let mut instance = self.open_sink(sandbox)?;
        let (encoder, schema_msg) = crate::ipc::start(&instance, input)?;
        instance.call(|w, s| {
            w.bindings
                .ldp_plugin_sink()
                .call_open_batches(s, config, &schema_msg)
        })?;
        Ok(SinkStream {
            instance,
            encoder: Some(encoder),
        })
    }

    /// Opens this sink for run events (an event sink).
    pub fn open_event_sink(&self, config: &str, sandbox: &Sandbox) -> Result<SinkStream> {
        let mut instance = self.open_sink(sandbox)?;
        instance.call(|w, s| w.bindings.ldp_plugin_sink().call_open_events(s, config))?;
        Ok(SinkStream {
            instance,
            encoder: None,
        })
    }
}

impl SinkStream {
    /// Writes one batch.
    pub fn write_batch(&mut self, batch: &RecordBatch) -> Result<()> {
        let Some(encoder) = self.encoder.as_mut() else {
            return Err(self
                .instance
                .contract("the host wrote a batch to a sink opened for events"));
        };
        let message = crate::ipc::message(&mut self.instance, encoder, batch)?;
        self.instance
            .call(|w, s| Ok(w.write_batch.call(s, &message)?.0))
    }

    /// Writes one run event (a JSON object text).
    pub fn write_event(&mut self, event: &str) -> Result<()> {
        self.instance
            .call(|w, s| w.bindings.ldp_plugin_sink().call_write_event(s, event))
    }

    /// Finishes writing.
    pub fn close(mut self) -> Result<SinkSummary> {
        let summary = self
            .instance
            .call(|w, s| w.bindings.ldp_plugin_sink().call_close(s))?;
        Ok(SinkSummary {
            records: summary.records,
            bytes: summary.bytes,
            files: summary.files,
        })
    }
}

impl std::fmt::Debug for SinkStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SinkStream")
            .field("plugin", self.instance.plugin())
            .finish_non_exhaustive()
    }
}
