//! The sources of a dbt project: every Iceberg table the configs of the sources folder name is
//! copied, at its current snapshot, into schema `raw` of the project's DuckDB file, under its
//! table name, and declared as the dbt source `raw` in `models/ldp_sources.yml` (a file ldp
//! writes before each dbt command), so a model reads it with `{{ source('raw', 'orders') }}`.
//!
//! A table copied before is copied again only when its snapshot changed
//! (`target/ldp_sources.json` records the snapshot of each copy). A config whose table does not
//! exist yet is declared all the same (so the project parses) and copied once it exists; until
//! then, a model that reads it fails with DuckDB's missing-table error, and a warning says why.

use std::collections::BTreeMap;
use std::path::Path;

use ldp_duckdb::{Input, QueryOptions};
use ldp_pipeline::{SnapshotReader, TargetTable};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::project::{Project, SOURCE_SCHEMA};

/// The file that records which snapshot of each source the DuckDB file holds.
const COPIED_FILE: &str = "ldp_sources.json";
/// The dbt sources file ldp writes.
pub const SOURCES_YML: &str = "models/ldp_sources.yml";

/// One source table.
#[derive(Debug, Clone)]
pub struct Source {
    /// Its name in schema `raw` (the Iceberg table's name).
    pub name: String,
    /// The Iceberg table (`ns.t`).
    pub table: String,
    /// The snapshot copied.
    pub snapshot_id: Option<i64>,
    /// Whether this run copied it (else the copy was already at that snapshot).
    pub copied: bool,
    /// Whether the Iceberg table exists.
    pub exists: bool,
}

/// The Iceberg tables of the sources folder, by name; two of one name are refused.
pub fn source_tables(project: &Project) -> Result<BTreeMap<String, TargetTable>> {
    let mut by_name: BTreeMap<String, TargetTable> = BTreeMap::new();
    for table in ldp_pipeline::lake::lake_tables(std::slice::from_ref(&project.sources))? {
        if let Some(other) = by_name.get(&table.name)
            && other.identifier() != table.identifier()
        {
            return Err(Error::Project {
                message: format!(
                    "the configs of {} name two tables called {} ({} and {}); a dbt source names a table by its name alone, so give one of them another name",
                    project.sources.display(),
                    table.name,
                    other.identifier(),
                    table.identifier()
                ),
            });
        }
        by_name.insert(table.name.clone(), table);
    }
    Ok(by_name)
}

/// Copies the source tables into the DuckDB file and writes `models/ldp_sources.yml`.
///
/// # Errors
///
/// A table that cannot be read, a DuckDB file another process holds, a file that cannot be
/// written.
pub fn register_sources(project: &Project) -> Result<Vec<Source>> {
    let tables = source_tables(project)?;
    let record_path = project.target_dir().join(COPIED_FILE);
    let mut recorded: BTreeMap<String, i64> = std::fs::read_to_string(&record_path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let file = project.duckdb_file();
    if !file.exists() {
        recorded.clear();
    }
    let mut sources = Vec::new();
    let mut inputs = Vec::new();
    for (name, target) in &tables {
        let table = match target.load() {
            Ok(table) => table,
            Err(e) if e.kind() == ldp_pipeline::ErrorKind::NotFound => {
                tracing::warn!(
                    "source {name}: the Iceberg table {} does not exist yet, so a model that reads it fails; run its config first",
                    target.identifier()
                );
                sources.push(Source {
                    name: name.clone(),
                    table: target.identifier(),
                    snapshot_id: None,
                    copied: false,
                    exists: false,
                });
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let snapshot_id = table.current_snapshot_id();
        let key = target.identifier();
        let copied = snapshot_id.is_none() || recorded.get(&key) != snapshot_id.as_ref();
        if copied {
            inputs.push(Input {
                name: name.clone(),
                reader: Box::new(SnapshotReader::open(table, snapshot_id)?),
            });
        }
        sources.push(Source {
            name: name.clone(),
            table: key,
            snapshot_id,
            copied,
            exists: true,
        });
    }
    if !inputs.is_empty() {
        let spill = tempfile::Builder::new()
            .prefix("ldp-dbt-")
            .tempdir()
            .map_err(|e| Error::file("create", &std::env::temp_dir(), e))?;
        let options = QueryOptions {
            temp_directory: Some(spill.path().to_path_buf()),
            ..QueryOptions::default()
        };
        // The record goes first: a copy that fails half-way is copied again next time.
        for source in &sources {
            recorded.remove(&source.table);
        }
        write_record(&record_path, &recorded)?;
        ldp_duckdb::write_tables(&file, SOURCE_SCHEMA, inputs, &options).map_err(|source| {
            Error::Register {
                file: file.clone(),
                source,
            }
        })?;
    }
    for source in &sources {
        if let Some(id) = source.snapshot_id {
            recorded.insert(source.table.clone(), id);
        }
    }
    write_record(&record_path, &recorded)?;
    write_sources_yml(project, &sources)?;
    Ok(sources)
}

fn write_record(path: &Path, recorded: &BTreeMap<String, i64>) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::file("create", dir, e))?;
    }
    let text = serde_json::to_string_pretty(recorded).unwrap_or_default();
    std::fs::write(path, text).map_err(|e| Error::file("write", path, e))
}

/// `models/ldp_sources.yml`: the dbt source `raw` with one table per source.
fn write_sources_yml(project: &Project, sources: &[Source]) -> Result<()> {
    let mut text = format!(
        "# Written by ldp dbt before each dbt command: the Iceberg tables of the configs in\n\
         # {}, copied into schema {SOURCE_SCHEMA} of {}. Edits are overwritten.\n\
         version: 2\n\nsources:\n  - name: {SOURCE_SCHEMA}\n    schema: {SOURCE_SCHEMA}\n    tables:\n",
        project.sources.display(),
        crate::project::DUCKDB_FILE
    );
    if sources.is_empty() {
        text.push_str("      []\n");
    }
    for source in sources {
        text.push_str(&format!(
            "      - name: {}\n        description: {}\n",
            yaml_string(&source.name),
            yaml_string(&format!("The Iceberg table {}.", source.table))
        ));
    }
    let path = project.dir.join(SOURCES_YML);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::file("create", dir, e))?;
    }
    std::fs::write(&path, text).map_err(|e| Error::file("write", &path, e))
}

/// A YAML scalar in double quotes (JSON's escapes are YAML's).
fn yaml_string(text: &str) -> String {
    Value::from(text).to_string()
}
