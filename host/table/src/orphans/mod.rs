//! Orphan file detection and removal (`ldp maintain --orphans`), with the Python tool's rules.
//!
//! A file is an orphan when it sits under the table location, nothing reachable from the
//! table's metadata names it, and it was last modified before now − `older_than_hours`.
//! Reachable is deliberately generous:
//!
//! * the current metadata file and every file of its metadata log;
//! * for every snapshot (all branches and tags) of the current metadata and of the last
//!   `keep_metadata_versions` previous metadata versions (a version whose file is gone is
//!   skipped): its manifest list, its manifests and every data and delete file their entries
//!   name, entries marked deleted included (an older snapshot may still need them);
//! * the statistics and partition statistics files of those versions.
//!
//! A listed file is skipped, never reported, when a component of its path under the location
//! is hidden (starts with `.`, or with `_` and holds no `=`); when it belongs to a table nested
//! under this one (a folder holding `metadata/*.metadata.json`); when its age is unknown or
//! under the cut (a write in progress may own it). Locations compare normalised
//! ([`normalize_location`]): `file:/x`, `file:///x` and `/x` are one file, local paths are
//! resolved through symbolic links, `s3a://` and `s3n://` are `s3://`.
//!
//! It fails closed: a missing manifest list or manifest of the current metadata is an
//! [`Error::Maintenance`], never "everything is unreferenced". After listing, the table is
//! reloaded; a commit made meanwhile adds its references before anything is reported, up to
//! [`MAX_RECHECKS`] times. It refuses to scan a bucket root, the filesystem root or a folder
//! holding the catalog's warehouse, and to delete files younger than [`MIN_APPLY_AGE_HOURS`]
//! unless `allow_recent` says so. Deleting never stops half-way: a file already gone is
//! reported `missing`, one that cannot be deleted `failed`.

use std::path::Path;
use std::time::Instant;

use ldp_catalog::Catalog;
use ldp_storage::ObjectUri;
use serde::Serialize;
use serde_json::Value;

use crate::error::Result;
use crate::table::Table;

mod listing;
mod locations;
mod references;

use listing::*;
pub use locations::normalize_location;
use locations::*;
pub use references::referenced_files;
use references::*;

/// Files younger than this many hours are never orphans by default.
pub const DEFAULT_ORPHAN_AGE_HOURS: f64 = 72.0;

/// Previous metadata versions whose snapshots also count as references, by default.
pub const DEFAULT_KEEP_METADATA_VERSIONS: usize = 50;

/// [`remove_orphans`] refuses to delete files younger than this many hours unless
/// [`OrphanOptions::allow_recent`] is set.
pub const MIN_APPLY_AGE_HOURS: f64 = 24.0;

/// How many times the scan re-reads a table that committed during the listing before giving up.
pub const MAX_RECHECKS: usize = 3;

/// What to look for, and whether to delete it.
#[derive(Debug, Clone, PartialEq)]
pub struct OrphanOptions {
    /// Only files last modified more than this many hours ago are orphans (`--orphan-age-hours`).
    pub older_than_hours: f64,
    /// Files reachable from this many previous metadata versions are kept too
    /// (`--keep-metadata-versions`; 0: only the current metadata's snapshots).
    pub keep_metadata_versions: usize,
    /// Delete the orphans (`--apply`); otherwise report only.
    pub apply: bool,
    /// Allow deleting with `older_than_hours` under [`MIN_APPLY_AGE_HOURS`].
    pub allow_recent: bool,
    /// The catalog's warehouse (a path or a `file:` URI): a table location holding it is
    /// refused.
    pub warehouse: Option<String>,
}

impl Default for OrphanOptions {
    /// [`DEFAULT_ORPHAN_AGE_HOURS`], [`DEFAULT_KEEP_METADATA_VERSIONS`], a dry run.
    fn default() -> OrphanOptions {
        OrphanOptions {
            older_than_hours: DEFAULT_ORPHAN_AGE_HOURS,
            keep_metadata_versions: DEFAULT_KEEP_METADATA_VERSIONS,
            apply: false,
            allow_recent: false,
            warehouse: None,
        }
    }
}

/// What the scan saw.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OrphanStats {
    /// Files under the location.
    pub listed: usize,
    /// Named by the metadata (at the scan or at a recheck).
    pub referenced: usize,
    /// Younger than the cut, or of unknown age.
    pub recent: usize,
    /// Under a hidden path component.
    pub hidden: usize,
    /// In a table nested under this one.
    pub other_tables: usize,
    /// Metadata versions whose snapshots were read (the current one included).
    pub metadata_versions_read: usize,
    /// Times the table committed during the scan and was re-read.
    pub rechecks: usize,
}

/// An orphan that could not be deleted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OrphanFailure {
    /// Its URI.
    pub path: String,
    /// Why, as `PermissionError: [Errno 13] Cannot delete file '/w/x'. Detail: ...`.
    pub error: String,
}

/// What [`remove_orphans`] found and (with `apply`) deleted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrphanReport {
    /// `ns.t`.
    pub table: String,
    /// The table location scanned.
    pub location: String,
    /// Reported only.
    pub dry_run: bool,
    /// The age cut, in hours.
    pub older_than_hours: f64,
    /// Previous metadata versions whose references were kept.
    pub keep_metadata_versions: usize,
    /// The orphans' URIs, sorted, in the table location's scheme.
    pub orphans: Vec<String>,
    /// Their total size in bytes.
    pub orphan_bytes: u64,
    /// The orphans deleted.
    pub deleted: Vec<String>,
    /// The orphans already gone when deleted.
    pub missing: Vec<String>,
    /// The orphans that could not be deleted.
    pub failed: Vec<OrphanFailure>,
    /// What the scan saw.
    pub stats: OrphanStats,
}

impl OrphanReport {
    /// The Python tool's JSON report, with the keys of its `remove_orphans`: `table`,
    /// `location`, `dry_run`, `older_than_hours`, `keep_metadata_versions`, `orphans`,
    /// `orphan_bytes`, `deleted`, `missing`, `failed` (`[{path, error}]`) and `stats`.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

// --------------------------------------------------------------------------------------- scan

/// Lists the location and keeps the unreferenced files older than the cut, re-reading the
/// table while it commits.
fn scan(
    catalog: &Catalog,
    table: &Table,
    options: &OrphanOptions,
    now_ms: i64,
) -> Result<(Vec<Listed>, OrphanStats)> {
    let location = table.location();
    guard_location(table, location, options.warehouse.as_deref())?;
    let cutoff = now_ms as f64 / 1000.0 - options.older_than_hours * 3600.0;
    let keep = options.keep_metadata_versions;
    let (referenced, versions) = references(table, keep)?;
    let listed = list_files(table, location)?;

    let nested: Vec<String> = listed
        .iter()
        .filter_map(|item| {
            let parts: Vec<&str> = item.rel.split('/').collect();
            let n = parts.len();
            (n >= 3 && parts[n - 2] == "metadata" && parts[n - 1].ends_with(".metadata.json"))
                .then(|| format!("{}/", parts[..n - 2].join("/")))
        })
        .collect();
    let mut stats = OrphanStats {
        listed: listed.len(),
        metadata_versions_read: versions,
        ..OrphanStats::default()
    };
    let mut candidates = Vec::new();
    for item in listed {
        if item.rel.split('/').any(is_hidden) {
            stats.hidden += 1;
        } else if nested
            .iter()
            .any(|root| item.rel.starts_with(root.as_str()))
        {
            stats.other_tables += 1;
        } else if referenced.contains(&item.key) {
            stats.referenced += 1;
        } else if item.mtime.is_none_or(|mtime| mtime >= cutoff) {
            stats.recent += 1;
        } else {
            candidates.push(item);
        }
    }

    // A commit made while the location was listed only adds references: add them.
    let mut metadata_location = table.metadata_location().to_string();
    for _ in 0..=MAX_RECHECKS {
        let fresh = Table::load(catalog, table.namespace(), table.name())?;
        if fresh.metadata_location() == metadata_location {
            break;
        }
        stats.rechecks += 1;
        if stats.rechecks > MAX_RECHECKS {
            return Err(maintenance(
                table,
                format!(
                    "{} kept committing while it was scanned; no orphans reported",
                    table.identifier()
                ),
            ));
        }
        metadata_location = fresh.metadata_location().to_string();
        let (newer, _) = references(&fresh, keep)?;
        let before = candidates.len();
        candidates.retain(|item| !newer.contains(&item.key));
        stats.referenced += before - candidates.len();
    }
    Ok((candidates, stats))
}

/// Finds the orphan files of `table` and, with `options.apply`, deletes them.
///
/// `table` is re-read from `catalog` after the listing (see the module docs); `now_ms` is the
/// current time in milliseconds since the epoch. The report lists the orphans in the table
/// location's scheme (`file:///...`, `s3://...`), sorted.
///
/// # Errors
///
/// [`Error::Maintenance`] (nothing deleted) for the refusals of the module docs and a negative
/// `older_than_hours`; catalog, I/O and metadata errors. A file that cannot be deleted is not
/// an error: it is reported under `failed`.
pub fn remove_orphans(
    catalog: &Catalog,
    table: &Table,
    options: &OrphanOptions,
    now_ms: i64,
) -> Result<OrphanReport> {
    let hours = options.older_than_hours;
    let refuse = |message: String| Err(maintenance(table, message));
    if hours.is_nan() || hours < 0.0 {
        let got = ldp_pyrepr::py_float(hours);
        return refuse(format!(
            "older_than_hours must be a non-negative number, got {got}"
        ));
    }
    if options.apply && hours < MIN_APPLY_AGE_HOURS && !options.allow_recent {
        let (min, hours) = (format_g(MIN_APPLY_AGE_HOURS), format_g(hours));
        return refuse(format!(
            "refusing to delete files younger than {min} hours (older_than_hours={hours}): they may \
             belong to a write in progress. Pass --allow-recent to override."
        ));
    }
    let started = Instant::now();
    let (mut orphans, stats) = scan(catalog, table, options, now_ms)?;
    orphans.sort_by(|a, b| a.uri.cmp(&b.uri));
    let mut report = OrphanReport {
        table: table.identifier().to_string(),
        location: table.location().to_string(),
        dry_run: !options.apply,
        older_than_hours: hours,
        keep_metadata_versions: options.keep_metadata_versions,
        orphans: orphans.iter().map(|item| item.uri.clone()).collect(),
        orphan_bytes: orphans.iter().map(|item| item.size).sum(),
        deleted: Vec::new(),
        missing: Vec::new(),
        failed: Vec::new(),
        stats,
    };
    if options.apply {
        delete_orphans(table, &orphans, &mut report);
    }
    tracing::info!(
        table = report.table,
        found = report.orphans.len(),
        deleted = report.deleted.len(),
        failed = report.failed.len(),
        bytes = report.orphan_bytes,
        seconds = started.elapsed().as_secs_f64(),
        "orphan files"
    );
    Ok(report)
}

/// Deletes each orphan; a missing one goes to `missing`, a failure to `failed`.
fn delete_orphans(table: &Table, orphans: &[Listed], report: &mut OrphanReport) {
    let remote = orphans.iter().any(|item| item.path.is_none());
    let storage = remote.then(|| object_storage(table, table.location()).map(|(s, _)| s));
    for item in orphans {
        let outcome = match (&item.path, &storage) {
            (Some(path), _) => match std::fs::remove_file(path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
                done => done.map(|()| true).map_err(|e| python_os_error(&e, path)),
            },
            (None, Some(Ok(storage))) => match ObjectUri::parse(&item.uri) {
                Ok(object) => match storage.delete(&object) {
                    Err(e) if e.kind() == ldp_storage::ErrorKind::NotFound => Ok(false),
                    done => done.map(|()| true).map_err(|e| format!("OSError: {e}")),
                },
                Err(e) => Err(format!("OSError: {e}")),
            },
            (None, Some(Err(e))) => Err(format!("OSError: {e}")),
            (None, None) => Err("OSError: no object storage".into()),
        };
        match outcome {
            Ok(true) => report.deleted.push(item.uri.clone()),
            Ok(false) => report.missing.push(item.uri.clone()),
            Err(error) => report.failed.push(OrphanFailure {
                path: item.uri.clone(),
                error,
            }),
        }
    }
}

/// A failed delete as the Python tool reports it (pyarrow's message): `PermissionError: [Errno
/// 13] Cannot delete file '/w/x'. Detail: [errno 13] Permission denied`.
fn python_os_error(error: &std::io::Error, path: &Path) -> String {
    let name = match error.kind() {
        std::io::ErrorKind::PermissionDenied => "PermissionError",
        std::io::ErrorKind::IsADirectory => "IsADirectoryError",
        std::io::ErrorKind::NotADirectory => "NotADirectoryError",
        _ => "OSError",
    };
    let text = error.to_string();
    let Some(errno) = error.raw_os_error() else {
        return format!("{name}: {text}");
    };
    let text = text
        .strip_suffix(&format!(" (os error {errno})"))
        .unwrap_or(&text);
    let path = ldp_pyrepr::repr_str(&path.to_string_lossy());
    format!("{name}: [Errno {errno}] Cannot delete file {path}. Detail: [errno {errno}] {text}")
}

/// Python's `format(value, "g")`: six significant digits, positional for exponents from -4 to
/// 5, trailing zeros dropped (`24`, `0.5`, `1e-05`, `1.23457e+06`).
fn format_g(value: f64) -> String {
    if !value.is_finite() {
        return ldp_pyrepr::py_float(value);
    }
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let scientific = format!("{value:.5e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let trim = |text: &str| {
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text.to_string()
        }
    };
    if (-4..6).contains(&exponent) {
        let decimals = usize::try_from(5 - exponent).unwrap_or(0);
        trim(&format!("{value:.decimals$}"))
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exponent.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_errors_read_as_python_prints_them() {
        let error = std::io::Error::from_raw_os_error(13);
        assert_eq!(
            python_os_error(&error, Path::new("/w/x")),
            "PermissionError: [Errno 13] Cannot delete file '/w/x'. Detail: [errno 13] Permission denied"
        );
    }

    #[test]
    fn g_format() {
        let formatted = [24.0, 0.5, 1e-5, 12.3456789, 1_234_567.0].map(format_g);
        assert_eq!(formatted.join(" "), "24 0.5 1e-05 12.3457 1.23457e+06");
    }
}
