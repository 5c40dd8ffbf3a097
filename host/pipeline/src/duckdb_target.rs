//! A DUCKDB target: one table of a local DuckDB file, appended to or overwritten by the
//! `duckdb-sink` plugin through the host's `duckdb-write` interface.
//!
//! The file is written as every file target is: the sink writes a staged copy in the private
//! staging folder, and the host renames the copy over the file only after the checks passed and
//! the sink closed cleanly, so the file's other tables, and the table itself after a failed
//! run, stay as they were. While a run holds the copy, the target's folder is locked (`flock`
//! on the folder itself, released with the process), so two runs into one file take turns
//! instead of one losing the other's rows.

use std::fs::File;
use std::path::Path;

use ldp_config::{Config, WriteMode};
use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// Holds the lock of a DUCKDB target's folder while a run writes its staged copy.
#[derive(Debug)]
pub(crate) struct DuckdbTarget {
    _lock: File,
}

impl DuckdbTarget {
    /// Locks the folder of `target` (waiting for another run to finish), then puts a copy of
    /// the file, when it exists, at `staged` for the sink to write into.
    ///
    /// # Errors
    ///
    /// The folder cannot be locked, the file is open in a DuckDB process (its `.wal` exists),
    /// or the copy fails.
    pub(crate) fn prepare(target: &Path, staged: &Path) -> Result<DuckdbTarget> {
        let folder = target.parent().unwrap_or(Path::new("."));
        let io = |action: &str, e: std::io::Error| Error::Unsupported {
            message: format!("cannot {action} {}: {e}", target.display()),
        };
        let lock = File::open(folder).map_err(|e| io("open the folder of", e))?;
        lock.lock().map_err(|e| io("lock the folder of", e))?;
        let mut wal = target.as_os_str().to_owned();
        wal.push(".wal");
        if Path::new(&wal).exists() {
            return Err(Error::Unsupported {
                message: format!(
                    "the DuckDB file {} is open in another DuckDB process or was not closed \
                     cleanly ({} exists): close it (or open and close it once in DuckDB) and \
                     run again",
                    target.display(),
                    Path::new(&wal).display()
                ),
            });
        }
        if target.exists() {
            std::fs::copy(target, staged).map_err(|e| io("copy", e))?;
        }
        Ok(DuckdbTarget { _lock: lock })
    }
}

/// The `duckdb-sink` plugin's options for `config`'s target run in `mode`: the table (the
/// target's `name`) and `append` or `overwrite`.
pub(crate) fn sink_options(config: &Config, mode: WriteMode) -> Map<String, Value> {
    let mut options = Map::new();
    options.insert("table".into(), Value::String(config.target().name.clone()));
    options.insert("mode".into(), Value::String(mode.as_str().to_owned()));
    options
}
