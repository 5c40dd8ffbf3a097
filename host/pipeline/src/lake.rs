//! A lake of configs: the Iceberg tables that dataset configs name (each config's Iceberg
//! target and source), for `ldp query DIR|CONFIG…` and the MCP server. A folder is read one level
//! deep (`*.json`, sorted); a file in it that is not a usable config is skipped with a warning,
//! a file named directly is an error. Each table is listed once (by catalog file and name).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::target::{TargetTable, open_config};

/// The Iceberg tables the configs (files, or folders of `*.json` configs) name, once each, in
/// the order found.
///
/// # Errors
///
/// A folder cannot be listed, or a config named directly cannot be read or has a target that
/// cannot be resolved.
pub fn lake_tables(paths: &[PathBuf]) -> Result<Vec<TargetTable>> {
    let mut tables: Vec<TargetTable> = Vec::new();
    let mut add = |t: TargetTable| {
        if !tables
            .iter()
            .any(|o| o.catalog == t.catalog && o.identifier() == t.identifier())
        {
            tables.push(t);
        }
    };
    for path in paths {
        if path.is_dir() {
            let listing = std::fs::read_dir(path).map_err(|e| Error::Unsupported {
                message: format!("cannot list {}: {e}", path.display()),
            })?;
            let mut files: Vec<PathBuf> = listing
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
                .collect();
            files.sort();
            for file in files {
                match config_tables(&file) {
                    Ok(found) => found.into_iter().for_each(&mut add),
                    Err(e) => tracing::warn!("skipping {}: {e:#}", file.display()),
                }
            }
        } else {
            config_tables(path)?.into_iter().for_each(&mut add);
        }
    }
    Ok(tables)
}

/// The Iceberg target (and source) of one config.
///
/// # Errors
///
/// The config cannot be read, or a table of it cannot be resolved.
pub fn config_tables(file: &Path) -> Result<Vec<TargetTable>> {
    let config = open_config(file)?;
    let mut found = Vec::new();
    for block in [config.target(), config.source()] {
        if block.is_iceberg() {
            found.push(TargetTable::resolve(&config, block)?);
        }
    }
    Ok(found)
}
