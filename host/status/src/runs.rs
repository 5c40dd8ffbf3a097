//! The run events a pipeline recorded, as the Python tool picks them: a `.jsonl` file (or
//! `--jsonl`) as given; for a config, `_ldp.runs` of its Iceberg catalog when that catalog
//! exists and the table has its events, or it lists an `iceberg` sink, or no `jsonl` sink; else
//! its JSONL file. Nothing is created while looking.
//!
//! A [`RunsReader`] reads each catalog's `_ldp.runs` once, however many pipelines of the lake
//! record there.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ldp_config::{Config, DEFAULT_JSONL_PATH, SinkKind};
use ldp_events::runs::{is_selected, select_events};
use ldp_events::system_tables::{RUNS_TABLE, SYSTEM_NAMESPACE};
use ldp_events::{Event, events_from_runs_batch, read_events_file};
use ldp_pipeline::TargetTable;

use crate::error::Result;

/// Which events to read.
#[derive(Debug, Clone, Copy)]
pub struct RunsQuery<'a> {
    /// A config, or a `.jsonl` events file.
    pub target: &'a Path,
    /// An events file to read instead of the config's (`--jsonl`).
    pub jsonl: Option<&'a Path>,
    /// Only this run's events.
    pub run: Option<&'a str>,
}

/// Reads run events, each catalog's `_ldp.runs` once.
#[derive(Debug, Default)]
pub struct RunsReader {
    /// The events of `<catalog>::<namespace>.runs`, every pipeline's.
    tables: HashMap<String, Arc<Vec<Event>>>,
}

impl RunsReader {
    /// A reader that has read nothing yet.
    pub fn new() -> RunsReader {
        RunsReader::default()
    }

    /// The events `query` asks for, and where they were read (a file, or `_ldp.runs`).
    ///
    /// # Errors
    ///
    /// The config cannot be read, or the events file or table cannot.
    pub fn load(&mut self, query: &RunsQuery<'_>) -> Result<(Vec<Event>, String)> {
        let path = query.target;
        let is_jsonl = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"));
        if let Some(file) = query.jsonl.or(is_jsonl.then_some(path)) {
            return Ok((
                read_file(file, None, query.run)?,
                file.display().to_string(),
            ));
        }
        let config = ldp_pipeline::open_config(path)?;
        self.config_events(&config, query.run)
    }

    /// The events of the pipeline of `config` (of run `run` only, when given), and where
    /// they were read.
    ///
    /// # Errors
    ///
    /// The events file or table cannot be read.
    pub fn config_events(
        &mut self,
        config: &Config,
        run: Option<&str>,
    ) -> Result<(Vec<Event>, String)> {
        let metadata = config
            .raw
            .get("metadata")
            .and_then(|m| m.as_object())
            .cloned()
            .unwrap_or_default();
        let specs = ldp_config::sink_specs(&metadata).unwrap_or_default();
        let iceberg = specs.iter().find(|s| s.kind == SinkKind::Iceberg);
        let jsonl = specs.iter().find(|s| s.kind == SinkKind::Jsonl);
        let namespace = iceberg
            .and_then(|s| s.options.get("namespace"))
            .and_then(|v| v.as_str())
            .unwrap_or(SYSTEM_NAMESPACE)
            .to_string();
        let table = [config.target(), config.source()]
            .into_iter()
            .find(|b| b.is_iceberg())
            .and_then(|block| TargetTable::resolve(config, block).ok());
        if let Some(table) = table.filter(TargetTable::catalog_may_exist) {
            let all = self.table_events(&table, &namespace)?;
            let events: Vec<Event> = all
                .iter()
                .filter(|e| is_selected(e, Some(&config.identifier), run))
                .cloned()
                .collect();
            if !events.is_empty() || iceberg.is_some() || jsonl.is_none() {
                return Ok((events, format!("{namespace}.{RUNS_TABLE}")));
            }
        }
        let text = jsonl
            .and_then(|s| s.options.get("path"))
            .and_then(|v| v.as_str())
            .unwrap_or(DEFAULT_JSONL_PATH);
        let base = config
            .base_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from("."));
        let file = if Path::new(text).is_absolute() {
            PathBuf::from(text)
        } else {
            base.join(text)
        };
        Ok((
            read_file(&file, Some(&config.identifier), run)?,
            file.display().to_string(),
        ))
    }

    /// Every event in `<namespace>.runs` of the table's catalog (none when that table does not
    /// exist), read once per catalog and namespace.
    fn table_events(&mut self, table: &TargetTable, namespace: &str) -> Result<Arc<Vec<Event>>> {
        let key = format!("{:?}::{}::{namespace}", table.catalog, table.catalog_name);
        if let Some(events) = self.tables.get(&key) {
            return Ok(Arc::clone(events));
        }
        let catalog = table.open_catalog(ldp_catalog::Mode::ReadOnly)?;
        let mut events = Vec::new();
        if catalog.table_exists(namespace, RUNS_TABLE)? {
            let runs = ldp_table::Table::load(&catalog, namespace, RUNS_TABLE)?;
            for batch in runs.read_all(None)? {
                events.extend(events_from_runs_batch(&batch)?);
            }
        }
        let events = Arc::new(events);
        self.tables.insert(key, Arc::clone(&events));
        Ok(events)
    }
}

fn read_file(file: &Path, pipeline: Option<&str>, run: Option<&str>) -> Result<Vec<Event>> {
    if !file.is_file() {
        return Ok(Vec::new());
    }
    let events = read_events_file(file)?;
    Ok(select_events(events, pipeline, run))
}
