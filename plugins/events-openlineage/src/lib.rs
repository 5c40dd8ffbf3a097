//! The `events-openlineage` sink: the ldp events of each run become OpenLineage 2-0-2 run
//! events, exactly as the Python tool's `openlineage` sink writes them.
//!
//! * `run.started` gives a `START` event; `run.finished` a `COMPLETE` (published or skipped
//!   duplicate) or `FAIL` (blocked by quality checks, or failed) event. The other events of the
//!   run are kept for their facets: the source's `schema` (from `run.extracted`), the target's
//!   `schema`, `dataQualityMetrics` and `dataQualityAssertions` (from `quality.evaluated`), its
//!   `outputStatistics` (from `run.published`), and the run's `nominalTime`, `parent`,
//!   `errorMessage` and custom `ldp_run` facets ([`lineage`]).
//! * `runId` is the ldp run id as a canonical UUID, or `uuid5(NAMESPACE_URL, "ldp-run:<id>")`
//!   for an id that is none ([`run_id`]); `eventTime` is the ldp event's time with milliseconds.
//! * Each event is appended to the file as one compact line with sorted keys, in one `O_APPEND`
//!   write.
//!
//! Config: `{"path": "/abs/openlineage.jsonl", "namespace": "ldp"}`. The plugin has no network:
//! a `url` is refused here, and a config's sink with a `url` is posted by the host, which gives
//! the plugin a `path`.

mod config;
pub mod event;
pub mod facets;
pub mod json;
pub mod lineage;
mod monitor;
pub mod run_id;

use ldp_plugin_sdk::prelude::*;

pub use config::{Config, SCHEMA};
use event::LdpEvent;
use ldp_plugin_sdk::AppendFile;
use lineage::Lineage;

/// The plugin: the runs seen so far and the open file.
pub struct EventsOpenLineage {
    lineage: Lineage,
    file: AppendFile,
}

impl Sink for EventsOpenLineage {
    fn describe() -> PluginInfo {
        PluginInfo::new("events-openlineage", env!("CARGO_PKG_VERSION"))
            .description(
                "Writes each run as OpenLineage START and COMPLETE/FAIL events to a JSONL file",
            )
            .config_schema(SCHEMA)
    }

    fn open_events(config: &str) -> Result<Self, PluginError> {
        let config = Config::parse(config)?;
        Ok(Self {
            lineage: Lineage::new(&config.namespace, facets::PRODUCER),
            file: AppendFile::open(&config.path)?,
        })
    }

    fn write_event(&mut self, event: &str) -> Result<(), PluginError> {
        if let Some(lineage) = self.lineage.fold(LdpEvent::parse(event)?)? {
            self.file.append_line(&json::canonical(&lineage))?;
        }
        Ok(())
    }

    fn close(self) -> Result<SinkSummary, PluginError> {
        Ok(self.file.summary())
    }
}

ldp_plugin_sdk::export_sink!(EventsOpenLineage);

/// The OpenLineage lines the sink writes for a sequence of ldp event texts, without a file.
pub fn openlineage_lines<'a>(
    events: impl IntoIterator<Item = &'a str>,
    namespace: &str,
) -> Result<Vec<String>, PluginError> {
    let mut lineage = Lineage::new(namespace, facets::PRODUCER);
    let mut lines = Vec::new();
    for text in events {
        if let Some(value) = lineage.fold(LdpEvent::parse(text)?)? {
            lines.push(json::canonical(&value));
        }
    }
    Ok(lines)
}

#[cfg(test)]
mod tests;
