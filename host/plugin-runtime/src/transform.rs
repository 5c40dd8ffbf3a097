//! Running a transform plugin: batches in, batches out.

use crate::Result;
use crate::bindings::transform::{TransformPlugin, TransformPluginPre};
use crate::bindings::wit;
use crate::direct::BatchExport;
use crate::instance::Instance;
use crate::limits::Sandbox;
use crate::plugin::{Plugin, PluginKind, Pre};
use crate::sandbox::HostState;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_plugin_ipc::{Decoder, Encoder, Validation};
use wasmtime::Store;

/// A transform instance's exports: the generated bindings, and `push` with the batch written
/// straight into the plugin's memory (the hot path, once per batch).
pub(crate) struct TransformWorld {
    bindings: TransformPlugin,
    push: BatchExport<(std::result::Result<Vec<Vec<u8>>, wit::PluginError>,)>,
}

impl TransformWorld {
    fn new(
        pre: &TransformPluginPre<HostState>,
        store: &mut Store<HostState>,
    ) -> wasmtime::Result<Self> {
        let instance = pre.instance_pre().instantiate(&mut *store)?;
        Ok(Self {
            bindings: TransformPlugin::new(&mut *store, &instance)?,
            push: BatchExport::new(&instance, store, "ldp:plugin/transform@0.1.0", "push")?,
        })
    }
}

/// An open transform.
pub struct TransformStream {
    instance: Instance<TransformWorld>,
    input: SchemaRef,
    encoder: Encoder,
    decoder: Decoder,
}

impl Plugin {
    /// Opens this transform plugin with `config` (a JSON object text) for batches of `input`.
    pub fn open_transform(
        &self,
        config: &str,
        input: &SchemaRef,
        sandbox: &Sandbox,
    ) -> Result<TransformStream> {
        self.expect(PluginKind::Transform)?;
        let Pre::Transform(pre) = &self.pre else {
            unreachable!("a transform plugin has a transform world")
        };
        let mut instance = Instance::new(self, sandbox, |s| TransformWorld::new(pre, s))?;
        let (encoder, schema_msg) = crate::ipc::start(&instance, input)?;
        let out_msg = instance.call(|w, s| {
            w.bindings
                .ldp_plugin_transform()
                .call_open(s, config, &schema_msg)
        })?;
        let decoder = Decoder::new(out_msg, Validation::Full)
            .map_err(|e| instance.contract(format!("its output schema is not Arrow IPC: {e}")))?;
        Ok(TransformStream {
            instance,
            input: input.clone(),
            encoder,
            decoder,
        })
    }
}

impl TransformStream {
    /// The schema of the batches this transform gives.
    pub fn output_schema(&self) -> &SchemaRef {
        self.decoder.schema()
    }

    /// Transforms one batch (which must follow the input schema).
    pub fn push(&mut self, batch: &RecordBatch) -> Result<Vec<RecordBatch>> {
        if batch.schema_ref().fields() != self.input.fields() {
            return Err(self.instance.contract(format!(
                "the host gave a batch of schema {} to a stream opened for {}",
                batch.schema(),
                self.input
            )));
        }
        let message = crate::ipc::message(&mut self.instance, &mut self.encoder, batch)?;
        let out = self.instance.call(|w, s| Ok(w.push.call(s, &message)?.0))?;
        self.decode_all(out)
    }

    /// Ends the input: any batches the transform held back.
    pub fn flush(&mut self) -> Result<Vec<RecordBatch>> {
        let out = self
            .instance
            .call(|w, s| w.bindings.ldp_plugin_transform().call_flush(s))?;
        self.decode_all(out)
    }

    fn decode_all(&mut self, msgs: Vec<Vec<u8>>) -> Result<Vec<RecordBatch>> {
        msgs.into_iter()
            .map(|msg| crate::ipc::decode(&mut self.instance, &mut self.decoder, msg))
            .collect()
    }
}

impl std::fmt::Debug for TransformStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransformStream")
            .field("plugin", self.instance.plugin())
            .finish_non_exhaustive()
    }
}
