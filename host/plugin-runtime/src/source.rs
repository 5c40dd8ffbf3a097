//! Running a source plugin: one stream of batches.

use crate::bindings::source::SourcePlugin;
use crate::instance::Instance;
use crate::limits::Sandbox;
use crate::plugin::{Plugin, PluginKind, Pre};
use crate::{Result, RuntimeError};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_plugin_ipc::{Decoder, Validation};

/// An open source: its schema, then batches until `None`.
pub struct SourceStream {
    instance: Instance<SourcePlugin>,
    decoder: Decoder,
    done: bool,
}

impl Plugin {
    /// Opens this source plugin with `config` (a JSON object text) in `sandbox`.
    pub fn open_source(&self, config: &str, sandbox: &Sandbox) -> Result<SourceStream> {
        self.expect(PluginKind::Source)?;
        let Pre::Source(pre) = &self.pre else {
            unreachable!("a source plugin has a source world")
        };
        let mut instance = Instance::new(self, sandbox, |s| pre.instantiate(s))?;
        let schema_msg = instance.call(|w, s| w.ldp_plugin_source().call_open(s, config))?;
        let decoder = Decoder::new(schema_msg, Validation::Full)
            .map_err(|e| instance.contract(format!("its schema is not Arrow IPC: {e}")))?;
        Ok(SourceStream {
            instance,
            decoder,
            done: false,
        })
    }
}

impl SourceStream {
    /// The schema every batch follows.
    pub fn schema(&self) -> &SchemaRef {
        self.decoder.schema()
    }

    /// The next batch, or `None` at the end of the stream.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if self.done {
            return Ok(None);
        }
        match self
            .instance
            .call(|w, s| w.ldp_plugin_source().call_next(s))?
        {
            None => {
                self.done = true;
                Ok(None)
            }
            Some(msg) => crate::ipc::decode(&mut self.instance, &mut self.decoder, msg).map(Some),
        }
    }
}

impl Iterator for SourceStream {
    type Item = Result<RecordBatch, RuntimeError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().transpose()
    }
}

impl std::fmt::Debug for SourceStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceStream")
            .field("plugin", self.instance.plugin())
            .finish_non_exhaustive()
    }
}
