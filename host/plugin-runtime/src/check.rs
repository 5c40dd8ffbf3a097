//! Running a check plugin: batches in, verdicts at the end.

use crate::Result;
use crate::bindings::check::exports::ldp::plugin::check as wit_check;
use crate::bindings::check::{CheckPlugin, CheckPluginPre};
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

/// The verdict of one check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckResult {
    /// Name of the check, e.g. `not_null`.
    pub name: String,
    /// Whether the data passed.
    pub passed: bool,
    /// One line for the report.
    pub details: String,
    /// Rows that failed.
    pub failing_rows: u64,
    /// Metrics, a JSON object (`{}` when the plugin sent something that is not one).
    pub metrics: serde_json::Value,
}

/// Facts about the run that only the host knows, given to the check at the end of the stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckContext {
    /// Rows read from the source (after a window column kept its window's rows).
    pub source_rows: Option<u64>,
    /// The run's reference time, microseconds since the Unix epoch (UTC): a window's end.
    pub now_micros: Option<i64>,
}

/// A check instance's exports: the generated bindings, and `push` with the batch written
/// straight into the plugin's memory.
pub(crate) struct CheckWorld {
    bindings: CheckPlugin,
    push: BatchExport<(std::result::Result<(), wit::PluginError>,)>,
}

impl CheckWorld {
    fn new(
        pre: &CheckPluginPre<HostState>,
        store: &mut Store<HostState>,
    ) -> wasmtime::Result<Self> {
        let instance = pre.instance_pre().instantiate(&mut *store)?;
        Ok(Self {
            bindings: CheckPlugin::new(&mut *store, &instance)?,
            push: BatchExport::new(&instance, store, "ldp:plugin/check@0.1.0", "push")?,
        })
    }
}

/// An open check.
pub struct CheckStream {
    instance: Instance<CheckWorld>,
    encoder: Encoder,
}

impl Plugin {
    /// Opens this check plugin with `config` (a JSON object text) for batches of `input`.
    pub fn open_check(
        &self,
        config: &str,
        input: &SchemaRef,
        sandbox: &Sandbox,
    ) -> Result<CheckStream> {
        self.expect(PluginKind::Check)?;
        let Pre::Check(pre) = &self.pre else {
            unreachable!("a check plugin has a check world")
        };
        let mut instance = Instance::new(self, sandbox, |s| CheckWorld::new(pre, s))?;
        let (encoder, schema_msg) = crate::ipc::start(&instance, input)?;
        instance.call(|w, s| {
            w.bindings
                .ldp_plugin_check()
                .call_open(s, config, &schema_msg)
        })?;
        Ok(CheckStream { instance, encoder })
    }
}

impl CheckStream {
    /// Shows one batch to the check.
    pub fn push(&mut self, batch: &RecordBatch) -> Result<()> {
        let message = crate::ipc::message(&mut self.instance, &mut self.encoder, batch)?;
        self.instance.call(|w, s| Ok(w.push.call(s, &message)?.0))
    }

    /// Ends the stream: the verdicts, in the order of the checks of the plugin's config.
    pub fn finish(mut self, context: CheckContext) -> Result<Vec<CheckResult>> {
        let context = wit_check::CheckContext {
            source_rows: context.source_rows,
            now_micros: context.now_micros,
        };
        let results = self
            .instance
            .call(|w, s| w.bindings.ldp_plugin_check().call_finish(s, context))?;
        Ok(results
            .into_iter()
            .map(|r| CheckResult {
                name: r.name,
                passed: r.passed,
                details: r.details,
                failing_rows: r.failing_rows,
                metrics: serde_json::from_str::<serde_json::Value>(&r.metrics)
                    .ok()
                    .filter(serde_json::Value::is_object)
                    .unwrap_or_else(|| serde_json::json!({})),
            })
            .collect())
    }
}

impl std::fmt::Debug for CheckStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckStream")
            .field("plugin", self.instance.plugin())
            .finish_non_exhaustive()
    }
}
