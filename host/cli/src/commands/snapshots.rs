//! `ldp snapshots CONFIG`.

use std::io::Write;
use std::path::Path;

use ldp_pipeline::TargetTable;
use serde_json::json;

use crate::output::cell::Cell;
use crate::output::table;

/// Lists the target table's snapshots, oldest first.
pub fn run(config: &Path, json: bool) -> anyhow::Result<u8> {
    let config = ldp_pipeline::open_config(config)?;
    let target = TargetTable::resolve(&config, config.target())?;
    let table = target.load()?;
    let snapshots = table.snapshots();
    let mut stdout = std::io::stdout().lock();
    if json {
        let list: Vec<_> = snapshots
            .iter()
            .map(|s| {
                json!({
                    "snapshot_id": s.snapshot_id,
                    "parent_id": s.parent_snapshot_id,
                    "committed_at_utc": committed_at(s.timestamp_ms),
                    "timestamp_ms": s.timestamp_ms,
                    "operation": s.operation,
                    "total_records": s.count("total-records"),
                    "added_records": s.count("added-records"),
                    "deleted_records": s.count("deleted-records"),
                    "summary": s.summary,
                })
            })
            .collect();
        let doc = json!({"table": target.identifier(), "snapshots": list});
        writeln!(stdout, "{}", super::json_text(&doc)?)?;
        return Ok(0);
    }
    if snapshots.is_empty() {
        writeln!(
            stdout,
            "Iceberg table {} has no snapshots",
            target.identifier()
        )?;
        return Ok(0);
    }
    writeln!(
        stdout,
        "Snapshots of Iceberg table {}, oldest first:",
        target.identifier()
    )?;
    let header: Vec<String> = [
        "snapshot_id",
        "parent_id",
        "committed_at_utc",
        "operation",
        "total_records",
        "added_records",
        "deleted_records",
    ]
    .map(String::from)
    .to_vec();
    let rows: Vec<Vec<Cell>> = snapshots
        .iter()
        .map(|s| {
            vec![
                Cell::Int(s.snapshot_id),
                s.parent_snapshot_id.map_or(Cell::Null, Cell::Int),
                Cell::Text(committed_at(s.timestamp_ms)),
                Cell::Text(s.operation.clone()),
                Cell::UInt(s.count("total-records")),
                Cell::UInt(s.count("added-records")),
                Cell::UInt(s.count("deleted-records")),
            ]
        })
        .collect();
    write!(
        stdout,
        "{}",
        table::render(&header, &rows, rows.len() as u64)
    )?;
    Ok(0)
}

/// `YYYY-MM-DD HH:MM:SS` (UTC) of a commit time.
fn committed_at(ms: i64) -> String {
    let text = ldp_table::utc_millis_text(ms);
    text.get(..19).unwrap_or(&text).to_string()
}
