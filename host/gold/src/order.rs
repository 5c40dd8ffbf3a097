//! The gold configs of a folder, in the order their inputs give.
//!
//! * A gold config is a dataset config in the folder (`*.json`, one level deep) whose
//!   `metadata.docs.layer` is `gold`. Other files (silver configs, workflow files) are left
//!   alone; a file that is not a usable config is skipped with a warning, unless it says it is
//!   gold, which is an error.
//! * A gold config that names another gold config of the folder among its `inputs` comes after
//!   it. Otherwise the file order (by name) holds.
//! * A cycle is refused before anything runs, and the error names its files.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ldp_config::Config;
use ldp_config::docs::Layer;
use ldp_config::paths::PathContext;
use ldp_pipeline::TargetTable;

use crate::error::{Error, Result};

/// A gold config of a folder.
#[derive(Debug, Clone)]
pub struct GoldConfig {
    /// The file, as found in the folder.
    pub path: PathBuf,
    /// The config.
    pub config: Config,
    /// The Iceberg table it writes.
    pub table: TargetTable,
    /// Its `inputs`, resolved against its folder (empty: the table is built elsewhere).
    pub inputs: Vec<PathBuf>,
}

impl GoldConfig {
    /// Whether the build runs it (it has inputs) or only checks it.
    pub fn is_built_here(&self) -> bool {
        !self.inputs.is_empty()
    }

    /// The file name, for messages.
    pub fn file_name(&self) -> String {
        self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }
}

/// The gold configs of `folder`, in the order to build them.
///
/// # Errors
///
/// The folder cannot be listed; a gold config is invalid or writes no Iceberg table;
/// [`Error::Cycle`] when inputs go round.
pub fn gold_configs(folder: &Path) -> Result<Vec<GoldConfig>> {
    let listing = std::fs::read_dir(folder).map_err(|e| Error::file("list", folder, e))?;
    let mut files: Vec<PathBuf> = listing
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    files.sort();
    let mut found = Vec::new();
    for file in files {
        if let Some(gold) = read_gold(&file)? {
            found.push(gold);
        }
    }
    build_order(folder, found)
}

/// The config at `file` when it is a gold config.
fn read_gold(file: &Path) -> Result<Option<GoldConfig>> {
    let config = match ldp_pipeline::open_config(file) {
        Ok(config) => config,
        Err(e) if says_gold(file) => return Err(e.into()),
        Err(e) => {
            tracing::debug!("{} is not a gold config: {e}", file.display());
            return Ok(None);
        }
    };
    let gold = config.metadata.docs.as_ref().and_then(|docs| docs.layer) == Some(Layer::Gold);
    if !gold {
        return Ok(None);
    }
    let table = TargetTable::resolve(&config, config.target()).map_err(|e| {
        if config.target().is_iceberg() {
            Error::from(e)
        } else {
            Error::Pipeline(ldp_pipeline::Error::Unsupported {
                message: format!(
                    "{}: a gold config writes an Iceberg table, and this one writes a {} file",
                    file.display(),
                    config.target().format.as_str()
                ),
            })
        }
    })?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let context = PathContext::new(config.base_dir.as_deref(), &cwd);
    let inputs = config
        .source()
        .inputs
        .iter()
        .map(|input| context.resolve(input).path)
        .collect();
    Ok(Some(GoldConfig {
        path: file.to_path_buf(),
        config,
        table,
        inputs,
    }))
}

/// Whether the raw JSON of `file` says `"layer": "gold"` (for a file that does not load).
fn says_gold(file: &Path) -> bool {
    std::fs::read_to_string(file)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|doc| doc["metadata"]["docs"]["layer"] == "gold")
}

/// The same path, for comparing an input with a file of the folder.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Orders `configs` so that each comes after the gold configs it reads; among those ready at
/// once, the file order holds.
fn build_order(folder: &Path, configs: Vec<GoldConfig>) -> Result<Vec<GoldConfig>> {
    let n = configs.len();
    // reads[i]: the configs (by index) that config i reads.
    let reads: Vec<BTreeSet<usize>> = configs
        .iter()
        .map(|config| {
            config
                .inputs
                .iter()
                .filter_map(|input| configs.iter().position(|c| same_file(&c.path, input)))
                .collect()
        })
        .collect();
    let mut done = vec![false; n];
    let mut order: Vec<usize> = Vec::with_capacity(n);
    while order.len() < n {
        let ready = (0..n).find(|&i| !done[i] && reads[i].iter().all(|&j| done[j]));
        match ready {
            Some(i) => {
                done[i] = true;
                order.push(i);
            }
            None => {
                let cycle = find_cycle(&reads, &done)
                    .into_iter()
                    .map(|i| configs[i].file_name())
                    .collect();
                return Err(Error::Cycle {
                    folder: folder.to_path_buf(),
                    cycle,
                });
            }
        }
    }
    let mut slots: Vec<Option<GoldConfig>> = configs.into_iter().map(Some).collect();
    Ok(order.into_iter().filter_map(|i| slots[i].take()).collect())
}

/// A cycle among the configs not done: walk from the first one along what it reads until a
/// config repeats; the walk from that config back to it is the cycle.
fn find_cycle(reads: &[BTreeSet<usize>], done: &[bool]) -> Vec<usize> {
    let Some(start) = (0..reads.len()).find(|&i| !done[i]) else {
        return Vec::new();
    };
    let mut path = vec![start];
    loop {
        let last = path[path.len() - 1];
        let Some(&next) = reads[last].iter().find(|&&j| !done[j]) else {
            return path;
        };
        if let Some(at) = path.iter().position(|&i| i == next) {
            let mut cycle = path[at..].to_vec();
            cycle.push(next);
            return cycle;
        }
        path.push(next);
    }
}
