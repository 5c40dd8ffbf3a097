//! Fixtures for the native tests of sink plugins (feature `testing`): a temporary folder, a
//! batch from named columns, a sink's config for a path, and writing batches or events through a
//! [`Sink`] as the host would (open, write each, close) and reading the file back.
//!
//! Every helper panics on failure, naming what failed: they are for tests only.
//!
//! ```
//! use ldp_plugin_sdk::testing::{TempDir, batch, path_config, read_text};
//! use ldp_plugin_sdk::arrow_array::{ArrayRef, Int64Array};
//! use std::sync::Arc;
//!
//! let dir = TempDir::new();
//! let path = dir.path("out.csv");
//! assert_eq!(path_config(&path, r#","compression":"gzip""#), format!(r#"{{"path":"{path}","compression":"gzip"}}"#));
//! let b = batch(vec![("n", Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef)]);
//! assert_eq!(b.num_rows(), 2);
//! std::fs::write(&path, "n\n1\n").unwrap();
//! assert_eq!(read_text(&path), "n\n1\n");
//! ```

use crate::{Sink, SinkSummary};
use arrow_array::{ArrayRef, RecordBatch};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh folder under the system's temporary folder, removed with its files when dropped.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates a folder no other `TempDir` of any process has.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ldp-plugin-test-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        Self(dir)
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.0
    }

    /// The absolute path of `name` in the folder, as a config gives it.
    pub fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A batch of the named columns, in order (each column's field is nullable).
pub fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).expect("columns of one length make a batch")
}

/// The config `{"path": <path>}`, with `extra` inserted before the closing brace (`,"key":1`).
pub fn path_config(path: &str, extra: &str) -> String {
    format!(
        "{{\"path\":{}{extra}}}",
        serde_json::Value::String(path.to_owned())
    )
}

/// Opens sink `S` for the schema of the first batch, writes every batch and closes it.
pub fn write_batches<S: Sink>(config: &str, batches: &[RecordBatch]) -> SinkSummary {
    let first = batches.first().expect("at least one batch, for the schema");
    let mut sink = S::open_batches(config, first.schema())
        .unwrap_or_else(|e| panic!("the sink does not open with {config}: {e}"));
    for (index, batch) in batches.iter().enumerate() {
        sink.write_batch(batch)
            .unwrap_or_else(|e| panic!("the sink does not write batch {index}: {e}"));
    }
    sink.close()
        .unwrap_or_else(|e| panic!("the sink does not close: {e}"))
}

/// Opens sink `S` for run events, writes every event and closes it.
pub fn write_events<S: Sink>(config: &str, events: &[&str]) -> SinkSummary {
    let mut sink = S::open_events(config)
        .unwrap_or_else(|e| panic!("the sink does not open with {config}: {e}"));
    for (index, event) in events.iter().enumerate() {
        sink.write_event(event)
            .unwrap_or_else(|e| panic!("the sink does not write event {index}: {e}"));
    }
    sink.close()
        .unwrap_or_else(|e| panic!("the sink does not close: {e}"))
}

/// Writes `batches` with sink `S` to a file named `name` in a fresh folder and returns the
/// file's text and the summary, whose byte count must be the file's length.
pub fn written_text<S: Sink>(name: &str, batches: &[RecordBatch]) -> (String, SinkSummary) {
    let dir = TempDir::new();
    let path = dir.path(name);
    let summary = write_batches::<S>(&path_config(&path, ""), batches);
    let text = read_text(&path);
    assert_eq!(
        summary.bytes,
        text.len() as u64,
        "the summary counts the bytes of the file"
    );
    (text, summary)
}

/// The text of a UTF-8 file.
pub fn read_text(path: impl AsRef<Path>) -> String {
    let path = path.as_ref();
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}
