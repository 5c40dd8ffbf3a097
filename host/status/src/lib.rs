//! What ldp knows of a lake's tables without reading their data, gathered in one place for
//! `ldp status`, `ldp runs` and `ldp ui`:
//!
//! * [`runs`]: the run events a pipeline recorded, from `_ldp.runs` of its catalog or its JSONL
//!   file, picked as the Python tool picks them;
//! * [`TableStatus`]: one table's snapshots, last run and monitors' verdicts
//!   ([`ldp_monitor`]), from its metadata and its recorded runs;
//! * [`lake_configs`]: the configs of a lake folder.

mod error;
pub mod runs;
mod table;

use std::path::PathBuf;

use ldp_config::Config;

pub use error::{Error, ErrorKind, Result};
pub use runs::RunsReader;
pub use table::{MetadataCache, TableStatus, gather};

/// The configs of `paths`: a lake folder's (one that is not a config is skipped with a warning),
/// a file as named.
///
/// # Errors
///
/// A folder cannot be listed, or a file named directly is not a usable config.
pub fn lake_configs(paths: &[PathBuf]) -> Result<Vec<(PathBuf, Config)>> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            for file in ldp_pipeline::lake::folder_configs(path)? {
                match ldp_pipeline::open_config(&file) {
                    Ok(config) => found.push((file, config)),
                    Err(e) => tracing::warn!("skipping {}: {e}", file.display()),
                }
            }
        } else {
            found.push((path.clone(), ldp_pipeline::open_config(path)?));
        }
    }
    Ok(found)
}
