//! Running a check plugin: batches in, verdicts at the end.

use crate::Result;
use crate::bindings::check::CheckPlugin;
use crate::instance::Instance;
use crate::limits::Sandbox;
use crate::plugin::{Plugin, PluginKind, Pre};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_plugin_ipc::Encoder;
use serde::Serialize;

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

/// An open check.
pub struct CheckStream {
    instance: Instance<CheckPlugin>,
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
        let mut instance = Instance::new(self, sandbox, |s| pre.instantiate(s))?;
        let (encoder, schema_msg) = crate::ipc::start(&instance, input)?;
        instance.call(|w, s| w.ldp_plugin_check().call_open(s, config, &schema_msg))?;
        Ok(CheckStream { instance, encoder })
    }
}

impl CheckStream {
    /// Shows one batch to the check.
    pub fn push(&mut self, batch: &RecordBatch) -> Result<()> {
        let msg = crate::ipc::encode(&self.instance, &mut self.encoder, batch)?;
        self.instance
            .call(|w, s| w.ldp_plugin_check().call_push(s, &msg))
    }

    /// Ends the stream: the verdicts.
    pub fn finish(mut self) -> Result<Vec<CheckResult>> {
        let results = self
            .instance
            .call(|w, s| w.ldp_plugin_check().call_finish(s))?;
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
