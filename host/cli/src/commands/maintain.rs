//! `ldp maintain CONFIG`: the reports of `ldp_pipeline::maintain`, as the Python tool prints
//! them (and the same lines for compaction and the manifest rewrite).

use std::io::Write;

use ldp_pipeline::maintain::{DEFAULT_EXPIRE_DAYS, MaintainReport, maintain};
use ldp_table::{CompactReport, ExpireReport, ManifestRewriteReport, OrphanReport};

use crate::settings::MaintainSettings;

/// Runs the maintenance; exit 1 when a file could not be deleted.
pub fn run(settings: &MaintainSettings) -> anyhow::Result<u8> {
    let now_ms = jiff::Timestamp::now().as_millisecond();
    let report = maintain(&settings.config, &settings.request, now_ms)?;
    let code = u8::from(report.failed());
    let mut out = std::io::stdout().lock();
    if settings.json {
        writeln!(out, "{}", super::json_text(&report.to_json())?)?;
        return Ok(code);
    }
    print(&mut out, settings, &report)?;
    Ok(code)
}

fn print(
    out: &mut impl Write,
    settings: &MaintainSettings,
    report: &MaintainReport,
) -> std::io::Result<()> {
    let mode = if report.dry_run {
        "dry run; pass --apply to make the changes"
    } else {
        "applied"
    };
    writeln!(
        out,
        "Maintenance of Iceberg table {} ({mode})",
        report.table
    )?;
    if let Some(compact) = &report.compact {
        print_compaction(out, compact)?;
    }
    if let Some(manifests) = &report.rewrite_manifests {
        print_manifests(out, manifests)?;
    }
    if let Some(expire) = &report.expire {
        print_expiry(out, expire, settings.expire.unwrap_or(DEFAULT_EXPIRE_DAYS))?;
    }
    if let Some(orphans) = &report.orphans {
        print_orphans(out, orphans)?;
        if report.dry_run
            && report
                .expire
                .as_ref()
                .is_some_and(|e| !e.expired_snapshot_ids.is_empty())
        {
            writeln!(
                out,
                "  files only the expiring snapshots reference show up once the expiry is applied and {} newer metadata versions exist",
                settings.request.keep_metadata_versions
            )?;
        }
    }
    Ok(())
}

fn print_compaction(out: &mut impl Write, report: &CompactReport) -> std::io::Result<()> {
    let sorted = if report.sort_by.is_empty() {
        String::new()
    } else {
        format!(", sorted by {}", report.sort_by.join(", "))
    };
    writeln!(
        out,
        "Compaction of small data files into files of {}{sorted}:",
        size(report.target_file_size)
    )?;
    let verb = if report.committed {
        "rewrote"
    } else {
        "would rewrite"
    };
    if report.files_rewritten == 0 {
        writeln!(
            out,
            "  nothing to compact ({} data files)",
            report.files_before
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "  {verb} {} files ({}, {} rows) of {} partitions into {}",
        report.files_rewritten,
        size(report.bytes_rewritten),
        report.rows_rewritten,
        report.partitions,
        report.files_written
    )?;
    writeln!(
        out,
        "  data files {} -> {}, manifests {} -> {}",
        report.files_before, report.files_after, report.manifests_before, report.manifests_after
    )?;
    if let Some(id) = report.snapshot_id {
        writeln!(
            out,
            "  snapshot {id} (replace), {} attempts",
            report.attempts
        )?;
    }
    Ok(())
}

fn print_manifests(out: &mut impl Write, report: &ManifestRewriteReport) -> std::io::Result<()> {
    writeln!(out, "Manifests:")?;
    if report.manifests_before == report.manifests_after && !report.committed {
        writeln!(
            out,
            "  nothing to merge ({} manifests)",
            report.manifests_before
        )?;
        return Ok(());
    }
    let verb = if report.committed {
        "merged"
    } else {
        "would merge"
    };
    writeln!(
        out,
        "  {verb} {} manifests into {} ({} data files)",
        report.manifests_before, report.manifests_after, report.entries
    )
}

fn print_expiry(out: &mut impl Write, report: &ExpireReport, days: f64) -> std::io::Result<()> {
    let json = report.to_json();
    let verb = if report.dry_run {
        "would expire"
    } else {
        "expired"
    };
    writeln!(
        out,
        "Snapshots older than {} days ({}), keeping the last {} and every idempotency key since {}:",
        number(days),
        json["older_than"].as_str().unwrap_or_default(),
        report.retain_last,
        json["protect_keys_since"].as_str().unwrap_or_default()
    )?;
    let ids: Vec<String> = report
        .expired_snapshot_ids
        .iter()
        .map(i64::to_string)
        .collect();
    let list = if ids.is_empty() {
        String::new()
    } else {
        format!(": {}", ids.join(", "))
    };
    writeln!(
        out,
        "  {verb} {} of {} snapshots{list}",
        ids.len(),
        report.snapshots_before
    )?;
    let kept: Vec<String> = ldp_table::expire::PROTECTION_REASONS
        .iter()
        .filter_map(|reason| {
            let count = report.protected.get(*reason).map_or(0, Vec::len);
            (count > 0).then(|| format!("{reason} {count}"))
        })
        .collect();
    if !kept.is_empty() {
        writeln!(out, "  kept by: {}", kept.join(", "))?;
    }
    Ok(())
}

fn print_orphans(out: &mut impl Write, report: &OrphanReport) -> std::io::Result<()> {
    let (verb, count) = if report.dry_run {
        ("would delete", report.orphans.len())
    } else {
        ("deleted", report.deleted.len())
    };
    writeln!(
        out,
        "Orphan files older than {} hours under {}:",
        number(report.older_than_hours),
        report.location
    )?;
    writeln!(
        out,
        "  {verb} {count} files ({})",
        size(report.orphan_bytes)
    )?;
    for path in &report.orphans {
        writeln!(out, "    {path}")?;
    }
    for failure in &report.failed {
        writeln!(out, "  failed: {}: {}", failure.path, failure.error)?;
    }
    let stats = &report.stats;
    writeln!(
        out,
        "  listed {}: referenced {}, too recent {}, hidden {}, other tables {}",
        stats.listed, stats.referenced, stats.recent, stats.hidden, stats.other_tables
    )
}

/// A number as Python's `{:g}` prints it for these values (`7`, `0.5`, `72`).
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// A size as the Python tool prints it: `12 B`, `1.5 KB`, `3.0 MB`, `1.2 GB`.
fn size(bytes: u64) -> String {
    let mut value = bytes as f64;
    for unit in ["B", "KB", "MB", "GB"] {
        if value < 1024.0 || unit == "GB" {
            return if unit == "B" {
                format!("{value:.0} {unit}")
            } else {
                format!("{value:.1} {unit}")
            };
        }
        value /= 1024.0;
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_numbers_print_as_the_python_tool_prints_them() {
        assert_eq!(size(0), "0 B");
        assert_eq!(size(1536), "1.5 KB");
        assert_eq!(size(128 * 1024 * 1024), "128.0 MB");
        assert_eq!(number(7.0), "7");
        assert_eq!(number(0.5), "0.5");
    }
}
