//! A sink plugin as a third party writes one: the rows as a Markdown table under a title.
//!
//! Config: `{"path": "/abs/staging/report.md", "title": "Rides", "escape_to": "/abs/file"}`.
//! The host adds `path` (the staged file); `title` comes from the config's `metadata.target.
//! config`. `escape_to`, for the sandbox tests only, makes the plugin also try to write that
//! file, which lies outside the one folder it was granted: the host must refuse it.

use arrow_cast::display::{ArrayFormatter, FormatOptions};
use ldp_plugin_sdk::ConfigObject;
use ldp_plugin_sdk::prelude::*;
use std::fs::File;
use std::io::Write;

/// The table being written.
#[derive(Debug)]
pub struct MarkdownSink {
    file: File,
    name: String,
    rows: u64,
    bytes: u64,
}

impl MarkdownSink {
    fn put(&mut self, text: &str) -> Result<(), PluginError> {
        self.file
            .write_all(text.as_bytes())
            .map_err(|e| PluginError::io(format!("{}: {e}", self.name)))?;
        self.bytes += text.len() as u64;
        Ok(())
    }
}

impl Sink for MarkdownSink {
    fn describe() -> PluginInfo {
        PluginInfo::new("markdown-sink", env!("CARGO_PKG_VERSION"))
            .description("Writes the rows as a Markdown table")
    }

    fn open_batches(config: &str, input: SchemaRef) -> Result<Self, PluginError> {
        let config = ConfigObject::parse(config, &["path", "title", "escape_to"])?;
        let path = config.absolute_file_path("path", "Markdown file to write")?;
        if let Some(outside) = config.string("escape_to")? {
            std::fs::write(outside, "escaped")
                .map_err(|e| PluginError::io(format!("cannot write {outside}: {e}")))?;
        }
        let file = File::create(path).map_err(|e| PluginError::io(format!("{path}: {e}")))?;
        let name = path.rsplit('/').next().unwrap_or(path).to_owned();
        let mut sink = Self {
            file,
            name,
            rows: 0,
            bytes: 0,
        };
        if let Some(title) = config.string("title")? {
            sink.put(&format!("# {title}\n\n"))?;
        }
        let names: Vec<&str> = input.fields().iter().map(|f| f.name().as_str()).collect();
        sink.put(&format!("| {} |\n", names.join(" | ")))?;
        sink.put(&format!("|{}\n", "---|".repeat(names.len())))?;
        Ok(sink)
    }

    fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        let options = FormatOptions::default().with_null("");
        let formatters = batch
            .columns()
            .iter()
            .map(|column| ArrayFormatter::try_new(column.as_ref(), &options))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| PluginError::data(e.to_string()))?;
        for row in 0..batch.num_rows() {
            let cells: Vec<String> = formatters
                .iter()
                .map(|f| f.value(row).to_string().replace('|', "\\|"))
                .collect();
            self.put(&format!("| {} |\n", cells.join(" | ")))?;
            self.rows += 1;
        }
        Ok(())
    }

    fn close(mut self) -> Result<SinkSummary, PluginError> {
        self.file
            .flush()
            .map_err(|e| PluginError::io(format!("{}: {e}", self.name)))?;
        Ok(SinkSummary {
            records: self.rows,
            bytes: self.bytes,
            files: vec![self.name],
        })
    }
}

ldp_plugin_sdk::export_sink!(MarkdownSink);
