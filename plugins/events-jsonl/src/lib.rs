//! The `events-jsonl` sink: appends every run event it is given to a JSONL file, one line per
//! event, as the Python tool's `jsonl` sink does.
//!
//! Config: `{"path": "/abs/path/events.jsonl"}`. The host hands each event as its canonical line
//! (compact JSON with sorted keys, see `ldp_events::Event::to_line`) and grants read-write access
//! to the file's folder. Each event is written with one `write` on a file opened with
//! `O_APPEND`, so that concurrent writers on a local disk never interleave lines, and at once, so
//! that a crash loses nothing already written.

mod config;

use ldp_plugin_sdk::prelude::*;

pub use config::{Config, SCHEMA};
pub use ldp_plugin_sdk::AppendFile;

/// The plugin: one open events file.
pub struct EventsJsonl {
    file: AppendFile,
}

impl Sink for EventsJsonl {
    fn describe() -> PluginInfo {
        PluginInfo::new("events-jsonl", env!("CARGO_PKG_VERSION"))
            .description("Appends run events to a JSONL file, one line per event")
            .config_schema(SCHEMA)
    }

    fn open_events(config: &str) -> Result<Self, PluginError> {
        let config = Config::parse(config)?;
        Ok(Self {
            file: AppendFile::open(&config.path)?,
        })
    }

    fn write_event(&mut self, event: &str) -> Result<(), PluginError> {
        self.file.append_line(event)
    }

    fn close(self) -> Result<SinkSummary, PluginError> {
        Ok(self.file.summary())
    }
}

ldp_plugin_sdk::export_sink!(EventsJsonl);

#[cfg(test)]
mod tests;
