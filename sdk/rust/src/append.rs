//! Appending lines to a file opened with `O_APPEND`, one `write` per line: what an event sink
//! (a JSONL log, OpenLineage lines) needs, in the folder the host granted it.

use std::fs::{File, OpenOptions};
use std::io::Write;

use crate::{PluginError, SinkSummary};

/// A file that lines are appended to.
#[derive(Debug)]
pub struct AppendFile {
    file: File,
    path: String,
    lines: u64,
    bytes: u64,
}

impl AppendFile {
    /// Opens (creates when missing) `path` for appending.
    pub fn open(path: &str) -> Result<Self, PluginError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| {
                PluginError::io(format!(
                    "could not open {path} for appending: {e}; its folder must exist and be \
                     granted to the plugin"
                ))
            })?;
        Ok(Self {
            file,
            path: path.to_owned(),
            lines: 0,
            bytes: 0,
        })
    }

    /// Appends `line` and a newline in one write (a trailing newline of `line` is not doubled).
    pub fn append_line(&mut self, line: &str) -> Result<(), PluginError> {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let mut buffer = Vec::with_capacity(line.len() + 1);
        buffer.extend_from_slice(line.as_bytes());
        buffer.push(b'\n');
        // A regular file takes the whole buffer in one write; `write_all` only loops on a short
        // write, as the Python tool does.
        self.file
            .write_all(&buffer)
            .map_err(|e| PluginError::io(format!("could not append to {}: {e}", self.path)))?;
        self.lines += 1;
        self.bytes += buffer.len() as u64;
        Ok(())
    }

    /// Lines and bytes written so far.
    pub fn summary(&self) -> SinkSummary {
        SinkSummary {
            records: self.lines,
            bytes: self.bytes,
            files: Vec::new(),
        }
    }
}
