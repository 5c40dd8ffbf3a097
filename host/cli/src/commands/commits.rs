//! `ldp commits CONFIG [--key K] [--branches] [--json]`: the staged publishes on `main`
//! of a config's Iceberg target, newest first, and the staging branches still present.

use std::io::Write;
use std::path::Path;

use ldp_pipeline::TargetTable;
use ldp_table::SnapshotInfo;
use serde_json::json;

use crate::output::cell::Cell;
use crate::output::table;

/// Lists the keyed snapshots of `main`'s history (one key with `key`), and with `branches` the
/// staging branches (`ldp_r<run>_a<attempt>_<n>`).
pub fn run(config: &Path, key: Option<&str>, branches: bool, json: bool) -> anyhow::Result<u8> {
    let config = ldp_pipeline::open_config(config)?;
    let target = TargetTable::resolve(&config, config.target())?;
    let table = target.load()?;
    let publishes: Vec<SnapshotInfo> = ldp_table::refs::keyed_snapshots(&table)
        .into_iter()
        .filter(|s| {
            key.is_none_or(|k| {
                s.summary
                    .get(ldp_table::refs::IDEMPOTENCY_KEY)
                    .map(String::as_str)
                    == Some(k)
            })
        })
        .collect();
    let staging: Vec<(String, i64)> = table
        .refs()
        .into_iter()
        .filter(|(name, r)| r.is_branch && ldp_pipeline::staged::parse_branch(name).is_some())
        .map(|(name, r)| (name, r.snapshot_id))
        .collect();
    let property = |s: &SnapshotInfo, name: &str| s.summary.get(name).cloned();
    let mut stdout = std::io::stdout().lock();
    if json {
        let rows: Vec<_> = publishes
            .iter()
            .map(|s| {
                json!({
                    "snapshot_id": s.snapshot_id,
                    "timestamp_ms": s.timestamp_ms,
                    "operation": s.operation,
                    "idempotency_key": property(s, "ldp.idempotency-key"),
                    "run_id": property(s, "ldp.run-id"),
                    "attempt": property(s, "ldp.attempt"),
                    "total_records": property(s, "total-records"),
                    "logical_window": property(s, "ldp.logical-window"),
                    "spec_hash": property(s, "ldp.spec-hash"),
                })
            })
            .collect();
        let mut doc = json!({"table": target.identifier(), "publishes": rows});
        if branches {
            doc["branches"] = staging
                .iter()
                .map(|(name, id)| json!({"branch": name, "snapshot_id": id}))
                .collect();
        }
        writeln!(stdout, "{}", super::json_text(&doc)?)?;
        return Ok(0);
    }
    writeln!(
        stdout,
        "LDP publishes on main of {}, newest first:",
        target.identifier()
    )?;
    if publishes.is_empty() {
        writeln!(stdout, "(none)")?;
    } else {
        let header: Vec<String> = [
            "snapshot_id",
            "timestamp_ms",
            "operation",
            "idempotency_key",
            "run_id",
            "attempt",
            "total_records",
        ]
        .map(String::from)
        .to_vec();
        let text = |v: Option<String>| v.map_or(Cell::Null, Cell::Text);
        let rows: Vec<Vec<Cell>> = publishes
            .iter()
            .map(|s| {
                vec![
                    Cell::Int(s.snapshot_id),
                    Cell::Int(s.timestamp_ms),
                    Cell::Text(s.operation.clone()),
                    text(property(s, "ldp.idempotency-key")),
                    text(property(s, "ldp.run-id")),
                    text(property(s, "ldp.attempt")),
                    text(property(s, "total-records")),
                ]
            })
            .collect();
        write!(
            stdout,
            "{}",
            table::render(&header, &rows, rows.len() as u64)
        )?;
    }
    if branches {
        writeln!(stdout, "Staging branches:")?;
        if staging.is_empty() {
            writeln!(stdout, "(none)")?;
        } else {
            let header = vec!["branch".to_string(), "snapshot_id".to_string()];
            let rows: Vec<Vec<Cell>> = staging
                .iter()
                .map(|(name, id)| vec![Cell::Text(name.clone()), Cell::Int(*id)])
                .collect();
            write!(
                stdout,
                "{}",
                table::render(&header, &rows, rows.len() as u64)
            )?;
        }
    }
    Ok(0)
}
