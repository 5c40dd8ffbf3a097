//! `ldp gold sync CONFIG`: the report of `ldp_pipeline::contract::sync_contract`.

use std::io::Write;

use ldp_pipeline::contract::sync_contract;

use crate::args::GoldSyncArgs;

/// Writes the contract; exit 0 (a broken gold contract is an error with exit 3).
pub fn sync(args: &GoldSyncArgs) -> anyhow::Result<u8> {
    let report = sync_contract(&args.config, args.dbt_manifest.as_deref(), args.dry_run)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", super::json_text(&report.to_json())?)?;
        return Ok(0);
    }
    let changes = report.properties.len() + report.columns.len();
    let verb = match (report.dry_run, report.committed) {
        (_, true) => "wrote",
        (true, false) if changes > 0 => "would write",
        _ => "already holds",
    };
    writeln!(out, "Contract of Iceberg table {}: {verb} it", report.table)?;
    if !report.properties.is_empty() {
        writeln!(out, "  properties: {}", report.properties.join(", "))?;
    }
    if !report.columns.is_empty() {
        writeln!(out, "  column docs: {}", report.columns.join(", "))?;
    }
    Ok(0)
}
