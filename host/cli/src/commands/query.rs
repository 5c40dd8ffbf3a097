//! `ldp query CONFIG… SQL`, in this process or on a Ballista cluster (`--cluster`).

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::bail;
use ldp_sql::{Engine, Session, TableName};
use serde_json::json;

use crate::output::arrow::IpcSink;
use crate::output::cell::{Cell, cell};
use crate::output::table;
use crate::settings::{QuerySettings, TimeTravel};

/// Registers the tables of the configs and runs the SQL.
pub fn run(settings: &QuerySettings) -> anyhow::Result<u8> {
    if settings.arrow && std::io::stdout().is_terminal() {
        bail!(
            "--arrow writes a binary Arrow IPC stream to stdout; redirect it to a file or a pipe (ldp query ... --arrow > result.arrows)"
        );
    }
    let single_file = settings.configs.len() == 1 && !settings.configs[0].is_dir();
    let tables = ldp_pipeline::lake::lake_tables(&settings.configs)?;
    if tables.is_empty() {
        bail!(
            "no Iceberg table found in {}; a config names one in metadata.target (format ICEBERG)",
            list(&settings.configs)
        );
    }
    if matches!(settings.at, TimeTravel::Snapshot(_)) && tables.len() > 1 {
        bail!(
            "--snapshot reads an older version of one table, but the configs name {} tables; give the one config whose table to read, or --as-of TIME to read every table as it was then",
            tables.len()
        );
    }
    let mut bare_counts: BTreeMap<&str, usize> = BTreeMap::new();
    for t in &tables {
        *bare_counts.entry(t.name.as_str()).or_default() += 1;
    }
    // The same tables, snapshots and SQL in this process or on a cluster.
    let session: Box<dyn Engine> = match &settings.cluster {
        Some(url) => Box::new(ldp_cluster::ClusterSession::connect(url)?),
        None => Box::new(Session::new()?),
    };
    let released = match settings.at {
        TimeTravel::Release(number) => release_snapshots(&tables, number)?,
        _ => BTreeMap::new(),
    };
    let mut snapshot_read = None;
    for target in &tables {
        let table = target.load()?;
        let snapshot = match settings.at {
            TimeTravel::Current => None,
            TimeTravel::Snapshot(id) => Some(table.snapshot(id)?.snapshot_id),
            TimeTravel::AsOf(ms) if tables.len() > 1 => match table.snapshot_as_of(ms) {
                Ok(snapshot) => Some(snapshot.snapshot_id),
                Err(e) => {
                    eprintln!(
                        "ldp: {} is left out: it had no snapshot then ({e})",
                        target.identifier()
                    );
                    continue;
                }
            },
            TimeTravel::AsOf(ms) => Some(table.snapshot_as_of(ms)?.snapshot_id),
            TimeTravel::Release(_) => released.get(&table_key(target)).copied(),
        };
        snapshot_read = snapshot.or(table.current_snapshot_id());
        let mut names = vec![TableName::qualified(&target.namespace, &target.name)];
        if single_file || bare_counts.get(target.name.as_str()) == Some(&1) {
            names.push(TableName::bare(&target.name));
        }
        tracing::debug!(table = %target.identifier(), ?snapshot, "registering");
        session.register(&table, snapshot, &names)?;
    }
    if settings.arrow {
        let mut sink = IpcSink::new(std::io::BufWriter::new(std::io::stdout().lock()));
        session.query_stream(&settings.sql, settings.timeout, &mut sink)?;
        sink.finish()?;
        return Ok(0);
    }
    let out = session.query(&settings.sql, settings.max_rows, settings.timeout)?;
    let header: Vec<String> = out
        .schema
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    for batch in &out.batches {
        for row in 0..batch.num_rows() {
            rows.push(batch.columns().iter().map(|c| cell(c, row)).collect());
        }
    }
    let mut stdout = std::io::stdout().lock();
    if settings.json {
        let columns: Vec<_> = out
            .schema
            .fields()
            .iter()
            .map(|f| json!({"name": f.name(), "type": f.data_type().to_string()}))
            .collect();
        let records: Vec<serde_json::Value> = rows
            .iter()
            .map(|row| {
                let object: serde_json::Map<String, serde_json::Value> = header
                    .iter()
                    .zip(row)
                    .map(|(name, value)| (name.clone(), value.json()))
                    .collect();
                serde_json::Value::Object(object)
            })
            .collect();
        let mut doc = json!({
            "columns": columns,
            "rows": records,
            "row_count": out.total_rows,
            "truncated": out.total_rows > rows.len() as u64,
            "files_scanned": out.files_scanned,
        });
        if tables.len() == 1 {
            doc["snapshot_id"] = json!(snapshot_read);
        }
        writeln!(stdout, "{}", super::json_text(&doc)?)?;
    } else {
        write!(stdout, "{}", table::render(&header, &rows, out.total_rows))?;
    }
    Ok(0)
}

/// A table, by its warehouse and identifier.
fn table_key(target: &ldp_pipeline::TargetTable) -> (PathBuf, String) {
    (target.warehouse.clone(), target.identifier())
}

/// The snapshot that release rN of each table's namespace names for it; a table the release
/// does not hold is read as it is now. At least one namespace must have the release.
fn release_snapshots(
    tables: &[ldp_pipeline::TargetTable],
    number: u32,
) -> anyhow::Result<BTreeMap<(PathBuf, String), i64>> {
    let name = format!("r{number}");
    let mut places: Vec<(PathBuf, String)> = tables
        .iter()
        .map(|t| (t.warehouse.clone(), t.namespace.clone()))
        .collect();
    places.sort();
    places.dedup();
    let mut snapshots = BTreeMap::new();
    let mut found = false;
    for (warehouse, namespace) in &places {
        let release = match ldp_gold::read_release(warehouse, namespace, &name) {
            Ok(release) => release,
            Err(e) if e.kind() == ldp_gold::ErrorKind::NotFound => continue,
            Err(e) => return Err(e.into()),
        };
        found = true;
        for table in &release.tables {
            snapshots.insert((warehouse.clone(), table.table.clone()), table.snapshot_id);
        }
    }
    if !found {
        let namespaces: Vec<&str> = places.iter().map(|p| p.1.as_str()).collect();
        bail!(
            "no release {name} in the namespaces of these tables ({}); ldp gold releases DIR lists the releases",
            namespaces.join(", ")
        );
    }
    Ok(snapshots)
}

fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
