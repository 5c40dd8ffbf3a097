//! `ldp gold sync CONFIG` (the report of `ldp_pipeline::contract::sync_contract`), `ldp gold
//! build DIR` and `ldp gold releases DIR` (`ldp_gold`).

use std::io::Write;

use ldp_gold::{BuildOptions, Release};
use ldp_pipeline::contract::sync_contract;
use ldp_plugin_runtime::Runtime;
use serde_json::json;

use crate::args::{GoldBuildArgs, GoldReleasesArgs, GoldSyncArgs};

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

/// Builds the gold tables of the folder: a line per table as it ends, the summary and the
/// release (or `--json`); exit 3 when a gate held a table back, 1 when one failed.
pub fn build(runtime: Runtime, args: &GoldBuildArgs) -> anyhow::Result<u8> {
    let options = BuildOptions {
        release: !args.no_release,
    };
    // On a terminal, each table is named as it ends; the report follows on stdout.
    let live = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let report = ldp_gold::build_gold(&args.dir, &runtime, options, &mut |outcome| {
        if live {
            eprintln!("ldp: {} {}", outcome.name, outcome.status.as_str());
        }
    })?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", super::json_text(&report.to_json())?)?;
        return Ok(report.exit_code());
    }
    for line in report.table_lines() {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "{}", report.summary_line())?;
    if let Some(line) = report.release_line() {
        writeln!(out, "{line}")?;
    }
    Ok(report.exit_code())
}

/// Lists the releases of the folder's gold tables, newest first, or the tables of one.
pub fn releases(args: &GoldReleasesArgs) -> anyhow::Result<u8> {
    let configs = ldp_gold::gold_configs(&args.dir)?;
    let mut places: Vec<(std::path::PathBuf, String)> = configs
        .iter()
        .map(|g| (g.table.warehouse.clone(), g.table.namespace.clone()))
        .collect();
    places.dedup();
    let [(warehouse, namespace)] = places.as_slice() else {
        anyhow::bail!(
            "{} holds {} gold tables in {} namespaces or warehouses; releases are kept per namespace, so list a folder whose gold tables share one",
            args.dir.display(),
            configs.len(),
            places.len()
        );
    };
    let mut out = std::io::stdout().lock();
    if let Some(name) = &args.show {
        let release = ldp_gold::read_release(warehouse, namespace, name)?;
        if args.json {
            writeln!(out, "{}", super::json_text(&release.to_json())?)?;
            return Ok(0);
        }
        writeln!(out, "{}", release_line(&release))?;
        for t in &release.tables {
            writeln!(
                out,
                "  {}  snapshot {}  {} rows  {}",
                t.table,
                t.snapshot_id,
                t.rows,
                t.dataset_version.as_deref().unwrap_or("not pinned")
            )?;
        }
        return Ok(0);
    }
    let releases = ldp_gold::list_releases(warehouse, namespace)?;
    if args.json {
        let list: Vec<serde_json::Value> = releases.iter().map(Release::to_json).collect();
        writeln!(
            out,
            "{}",
            super::json_text(&json!({"namespace": namespace, "releases": list}))?
        )?;
        return Ok(0);
    }
    if releases.is_empty() {
        writeln!(
            out,
            "no release of namespace {namespace} yet; ldp gold build {} cuts one",
            args.dir.display()
        )?;
    }
    for release in &releases {
        writeln!(out, "{}", release_line(release))?;
    }
    Ok(0)
}

/// `r2  2026-12-07T02:00:00Z  2 tables  112 rows`.
fn release_line(release: &Release) -> String {
    format!(
        "{}  {}  {} tables  {} rows",
        release.name,
        release.created_at,
        release.tables.len(),
        release.rows()
    )
}
