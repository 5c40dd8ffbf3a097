//! One table's status: its snapshots, its pipeline's last run and its monitors' verdicts,
//! gathered from the table's metadata and the recorded runs ([`crate::runs`]), without reading
//! its data.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ldp_config::Config;
use ldp_events::runs::summarize_runs;
use ldp_monitor::{Facts, RunFact, SnapshotFact, Verdict};
use ldp_pipeline::TargetTable;
use serde_json::{Value, json};

use crate::error::Result;
use crate::runs::RunsReader;

/// One table's status.
#[derive(Debug, Clone)]
pub struct TableStatus {
    /// The config that names the table.
    pub config: PathBuf,
    /// The pipeline (the config's identifier).
    pub pipeline: String,
    /// `namespace.table`.
    pub table: String,
    /// How many snapshots it has.
    pub snapshots: usize,
    /// Its newest snapshot's commit time (ms since the epoch).
    pub last_snapshot_ms: Option<i64>,
    /// Its rows now (`total-records` of the current snapshot).
    pub rows: Option<u64>,
    /// Its pipeline's last run: `run_id`, `status`, `started_at`, `started_at_ms`, `checks`,
    /// `rows_written`.
    pub last_run: Option<Value>,
    /// The verdict of each monitor.
    pub verdicts: Vec<Verdict>,
    /// The table's dataset reference, as run events carry it.
    pub target: Value,
}

impl TableStatus {
    /// Whether a monitor is breached.
    pub fn breached(&self) -> bool {
        self.verdicts.iter().any(|v| v.breached)
    }

    /// The status as `ldp status --json` gives it (`alerts` is the caller's).
    pub fn to_json(&self, now_ms: i64) -> Value {
        json!({
            "table": self.table,
            "pipeline": self.pipeline,
            "config": self.config.display().to_string(),
            "ok": !self.breached(),
            "snapshots": self.snapshots,
            "rows": self.rows,
            "last_snapshot_ms": self.last_snapshot_ms,
            "age_s": self.last_snapshot_ms.map(|ms| (now_ms - ms) / 1000),
            "last_run": self.last_run,
            "monitors": self.verdicts,
        })
    }
}

/// What a table's metadata tells its status: its snapshots, its rows, the newest value of the
/// freshness column.
#[derive(Debug, Clone, Default)]
struct MetadataFacts {
    snapshots: Vec<SnapshotFact>,
    rows: Option<u64>,
    newest_row_ms: Option<i64>,
}

/// What was read of each table's metadata file, by table: a metadata file is never rewritten,
/// so a table whose catalog still points at the same file is not read again. One entry per
/// table; a server keeps one cache for its life, a command needs none.
#[derive(Debug, Default)]
pub struct MetadataCache {
    entries: Mutex<HashMap<String, (String, Arc<MetadataFacts>)>>,
}

impl MetadataCache {
    /// An empty cache.
    pub fn new() -> MetadataCache {
        MetadataCache::default()
    }
}

/// The status of the Iceberg target of `config` (read from `file`) at `now_ms`; `runs` reads
/// the recorded runs (pass the same reader for every table of a lake), `cache` keeps what was
/// read of metadata files (when given).
///
/// # Errors
///
/// The target cannot be resolved, the table's metadata or the recorded runs cannot be read.
pub fn gather(
    file: &Path,
    config: &Config,
    now_ms: i64,
    runs: &mut RunsReader,
    cache: Option<&MetadataCache>,
) -> Result<TableStatus> {
    let target = TargetTable::resolve(config, config.target())?;
    let known = metadata_facts(&target, config, cache)?;
    let mut facts = Facts {
        now_ms,
        snapshots: known.snapshots.clone(),
        newest_row_ms: known.newest_row_ms,
        ..Facts::default()
    };
    let rows = known.rows;
    let (events, _) = runs.config_events(config, None)?;
    let mut summaries = summarize_runs(&events, true);
    summaries.retain(|r| !r.is_workflow);
    summaries.sort_by_key(|r| r.started_at);
    facts.runs = summaries
        .iter()
        .map(|r| RunFact {
            status: r.status.as_str().unwrap_or("running").to_string(),
        })
        .collect();
    let last_run = summaries.last().map(|r| {
        json!({"run_id": r.run_id, "status": r.status, "started_at": r.started_at.to_string(),
               "started_at_ms": r.started_at.as_millisecond(), "checks": r.checks,
               "rows_written": r.rows_written})
    });
    Ok(TableStatus {
        config: file.to_path_buf(),
        pipeline: config.identifier.clone(),
        table: target.identifier(),
        snapshots: facts.snapshots.len(),
        last_snapshot_ms: facts.snapshots.last().map(|s| s.timestamp_ms),
        rows,
        last_run,
        verdicts: ldp_monitor::evaluate(&config.metadata.monitors, &facts),
        target: ldp_pipeline::iceberg_ref(&target).to_value(),
    })
}

/// The facts of the table's current metadata file: from `cache` when it has them, else read
/// (and kept there). A table that does not exist yet, or cannot be read, has none (its
/// freshness monitor then says there is no snapshot).
fn metadata_facts(
    target: &TargetTable,
    config: &Config,
    cache: Option<&MetadataCache>,
) -> Result<Arc<MetadataFacts>> {
    if !target.catalog_may_exist() {
        return Ok(Arc::default());
    }
    let Ok(catalog) = target.open_catalog(ldp_catalog::Mode::ReadOnly) else {
        return Ok(Arc::default());
    };
    let Ok(Some(record)) = catalog.load_table(&target.namespace, &target.name) else {
        return Ok(Arc::default());
    };
    let monitors = &config.metadata.monitors;
    let key = format!(
        "{:?}|{}|{}|{}|{}",
        target.catalog,
        target.catalog_name,
        target.identifier(),
        monitors.freshness_column.as_deref().unwrap_or(""),
        monitors.schema_drift
    );
    let location = record.metadata_location;
    if let Some(facts) = cache
        .and_then(|c| c.entries.lock().ok())
        .and_then(|entries| entries.get(&key).cloned())
        .and_then(|(read, facts)| (read == location).then_some(facts))
    {
        return Ok(facts);
    }
    let Ok(table) =
        ldp_table::Table::from_metadata_location(&target.namespace, &target.name, &location)
    else {
        return Ok(Arc::default());
    };
    let newest_row_ms = match &monitors.freshness_column {
        Some(column) => table
            .newest_value_micros(column)?
            .map(|micros| micros.div_euclid(1_000)),
        None => None,
    };
    let facts = Arc::new(MetadataFacts {
        snapshots: snapshot_facts(&table, monitors.schema_drift),
        rows: table.current_snapshot().map(|_| table.total_records()),
        newest_row_ms,
    });
    if let Some(mut entries) = cache.and_then(|c| c.entries.lock().ok()) {
        entries.insert(key, (location, Arc::clone(&facts)));
    }
    Ok(facts)
}

/// Each snapshot's time and added rows, oldest first; the schemas of the newest two only when
/// schema drift is watched (no other is converted).
fn snapshot_facts(table: &ldp_table::Table, schema_drift: bool) -> Vec<SnapshotFact> {
    let snapshots = table.snapshots();
    let compared = if schema_drift {
        snapshots.len().saturating_sub(2)
    } else {
        snapshots.len()
    };
    snapshots
        .iter()
        .enumerate()
        .map(|(position, snapshot)| SnapshotFact {
            timestamp_ms: snapshot.timestamp_ms,
            added_rows: snapshot
                .summary
                .get("added-records")
                .and_then(|v| v.parse().ok()),
            columns: if position >= compared {
                columns(table, snapshot.snapshot_id)
            } else {
                Vec::new()
            },
        })
        .collect()
}

fn columns(table: &ldp_table::Table, snapshot_id: i64) -> Vec<(String, String)> {
    table
        .arrow_schema_at(Some(snapshot_id))
        .map(|schema| {
            schema
                .fields()
                .iter()
                .map(|f| (f.name().clone(), f.data_type().to_string()))
                .collect()
        })
        .unwrap_or_default()
}
