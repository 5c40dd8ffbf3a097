//! The `jsonl` and `openlineage` event sinks: built-in plugins (`events-jsonl`,
//! `events-openlineage`) that get each event's JSONL line and append it to their file, with
//! write access to that file's folder only.

use std::path::{Path, PathBuf};

use ldp_events::{Event, EventSink, SinkError};
use ldp_plugin_runtime::{Grants, Runtime, Sandbox, SinkStream};

/// An event sink plugin, open for one run.
pub(crate) struct PluginEventSink {
    stream: Option<SinkStream>,
    what: String,
}

impl PluginEventSink {
    /// Opens the built-in plugin `name` with `config` (a JSON object), writing `file`.
    pub fn open(
        runtime: &Runtime,
        name: &str,
        config: &serde_json::Value,
        file: &Path,
    ) -> Result<PluginEventSink, String> {
        let what = format!("{name} {}", file.display());
        let folder = file
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        std::fs::create_dir_all(&folder)
            .map_err(|e| format!("{what}: cannot create {}: {e}", folder.display()))?;
        let builtin = ldp_builtin_plugins::get(name)
            .ok_or_else(|| format!("{what}: the built-in plugin is missing from this build"))?;
        let plugin = runtime
            .load_embedded(
                &format!("built-in plugin '{name}'"),
                builtin.bytes,
                builtin.sha256,
            )
            .map_err(|e| format!("{what}: {e:#}"))?;
        let sandbox = Sandbox {
            grants: Grants {
                read_dirs: Vec::new(),
                write_dir: Some(folder),
                ..Grants::default()
            },
            ..Sandbox::default()
        };
        let stream = plugin
            .open_event_sink(&config.to_string(), &sandbox)
            .map_err(|e| format!("{what}: {e:#}"))?;
        Ok(PluginEventSink {
            stream: Some(stream),
            what,
        })
    }
}

impl EventSink for PluginEventSink {
    fn write(&mut self, event: &Event) -> Result<(), SinkError> {
        let Some(stream) = self.stream.as_mut() else {
            return Ok(());
        };
        stream
            .write_event(&event.to_line())
            .map_err(|e| SinkError::failed(format!("{e:#}")))
    }

    fn close(&mut self) -> Result<(), SinkError> {
        match self.stream.take() {
            Some(stream) => stream
                .close()
                .map(|_| ())
                .map_err(|e| SinkError::failed(format!("{e:#}"))),
            None => Ok(()),
        }
    }

    fn describe(&self) -> String {
        self.what.clone()
    }
}
