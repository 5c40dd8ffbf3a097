//! The ledger: `<workflow folder>/.ldp/events.jsonl`, every event of every run of a workflow,
//! one JSON line each, the run events of `ldp_events`. Tasks that run in parallel share one
//! open file, and each event is written with one `write` call of its whole line, so lines
//! never interleave.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ldp_events::{Event, EventSink, SinkError};
use ldp_pipeline::SinkFactory;

use crate::error::{Error, Result};

/// The ledger file of a workflow, open for appending; clones share it.
#[derive(Clone, Debug)]
pub struct Ledger {
    path: PathBuf,
    file: Arc<Mutex<File>>,
}

impl Ledger {
    /// Opens (creating the folder and file) the ledger at `path`.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the folder or file cannot be created.
    pub fn open(path: &Path) -> Result<Ledger> {
        let io = |source| Error::Io {
            what: "cannot open the ledger",
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        Ok(Ledger {
            path: path.to_path_buf(),
            file: Arc::new(Mutex::new(file)),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A sink that writes to this ledger (one per emitter).
    pub fn sink(&self) -> Box<dyn EventSink> {
        Box::new(LedgerSink {
            ledger: self.clone(),
        })
    }

    /// What opens a sink to this ledger for each attempt of a pipeline task.
    pub fn factory(&self) -> SinkFactory {
        let ledger = self.clone();
        Arc::new(move || ledger.sink())
    }

    fn append(&self, line: &str) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        file.write_all(&bytes)
    }

    fn sync(&self) -> std::io::Result<()> {
        self.file
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .sync_data()
    }
}

struct LedgerSink {
    ledger: Ledger,
}

impl EventSink for LedgerSink {
    fn write(&mut self, event: &Event) -> Result<(), SinkError> {
        self.ledger
            .append(&event.to_line())
            .map_err(|source| SinkError::Io {
                path: self.ledger.path.clone(),
                source,
            })
    }

    fn close(&mut self) -> Result<(), SinkError> {
        self.ledger.sync().map_err(|source| SinkError::Io {
            path: self.ledger.path.clone(),
            source,
        })
    }

    fn describe(&self) -> String {
        format!("ledger {}", self.ledger.path.display())
    }
}
