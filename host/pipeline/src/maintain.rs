//! Table maintenance of a config's Iceberg table (`ldp maintain`, and a workflow's `maintain`
//! task): which operations run, on which table, in which order.
//!
//! * The table is the config's target when it is Iceberg, else its source.
//! * With none of expiry, orphans, compaction or manifest rewrite asked for, expiry (7 days)
//!   and orphan removal run, as in the Python tool.
//! * Order: compaction, manifest rewrite, expiry, orphans. Compaction and manifest rewrite
//!   commit first so that expiry sees their snapshots; orphan removal runs last, so a failure of
//!   any commit (a catalog that refuses writes, a conflict) stops the run before a file is
//!   deleted.
//! * Nothing changes unless `apply`.

use std::path::Path;

use ldp_catalog::Mode;
use ldp_table::{
    CompactOptions, CompactReport, ExpireOptions, ExpireReport, ManifestRewriteReport,
    OrphanOptions, OrphanReport, Table, compact, expire_snapshots, remove_orphans,
    rewrite_manifests,
};
use serde_json::{Map, Value};

use crate::error::Result;
use crate::target::TargetTable;

/// Days of snapshots kept when neither expiry nor another operation is asked for.
pub const DEFAULT_EXPIRE_DAYS: f64 = 7.0;

/// What to do to the table.
#[derive(Debug, Clone, PartialEq)]
pub struct MaintainRequest {
    /// Expire snapshots committed more than this many days ago.
    pub expire: Option<f64>,
    /// Find (and with `apply` delete) files no metadata references.
    pub orphans: bool,
    /// Compact small data files (with these options; their `apply` is ignored).
    pub compact: Option<CompactOptions>,
    /// Merge the data manifests.
    pub rewrite_manifests: bool,
    /// Make the changes; otherwise everything is a dry run.
    pub apply: bool,
    /// Keep `main`'s last N snapshots.
    pub retain_last: usize,
    /// Only files older than this are orphans.
    pub orphan_age_hours: f64,
    /// Files reachable from this many previous metadata versions are referenced.
    pub keep_metadata_versions: usize,
    /// Allow deleting orphans younger than 24 hours.
    pub allow_recent: bool,
}

impl Default for MaintainRequest {
    /// The Python tool's defaults: nothing selected (so expiry and orphans), a dry run.
    fn default() -> MaintainRequest {
        let orphans = OrphanOptions::default();
        MaintainRequest {
            expire: None,
            orphans: false,
            compact: None,
            rewrite_manifests: false,
            apply: false,
            retain_last: ldp_table::expire::DEFAULT_RETAIN_LAST,
            orphan_age_hours: orphans.older_than_hours,
            keep_metadata_versions: orphans.keep_metadata_versions,
            allow_recent: false,
        }
    }
}

impl MaintainRequest {
    /// Whether the request names no operation (then expiry and orphans run).
    fn selects_nothing(&self) -> bool {
        self.expire.is_none() && !self.orphans && self.compact.is_none() && !self.rewrite_manifests
    }

    /// The expiry age to run with, if expiry runs.
    pub fn expire_days(&self) -> Option<f64> {
        match self.expire {
            Some(days) => Some(days),
            None if self.selects_nothing() => Some(DEFAULT_EXPIRE_DAYS),
            None => None,
        }
    }

    /// Whether orphan removal runs.
    pub fn runs_orphans(&self) -> bool {
        self.orphans || self.selects_nothing()
    }
}

/// What a maintenance run did, operation by operation.
#[derive(Debug, Clone)]
pub struct MaintainReport {
    /// `ns.t`.
    pub table: String,
    /// Planned only.
    pub dry_run: bool,
    /// The compaction, when it ran.
    pub compact: Option<CompactReport>,
    /// The manifest rewrite, when it ran.
    pub rewrite_manifests: Option<ManifestRewriteReport>,
    /// The expiry, when it ran.
    pub expire: Option<ExpireReport>,
    /// The orphan removal, when it ran.
    pub orphans: Option<OrphanReport>,
}

impl MaintainReport {
    /// Whether a file could not be deleted (exit 1).
    pub fn failed(&self) -> bool {
        self.orphans.as_ref().is_some_and(|o| !o.failed.is_empty())
    }

    /// The Python tool's `--json` document: `table`, `dry_run` and one key per operation that
    /// ran (`expire`, `orphans`, and ldp's `compact` and `rewrite_manifests`), every object's
    /// keys sorted.
    pub fn to_json(&self) -> Value {
        let mut doc = Map::new();
        doc.insert("table".into(), self.table.clone().into());
        doc.insert("dry_run".into(), self.dry_run.into());
        if let Some(report) = &self.compact {
            doc.insert("compact".into(), report.to_json());
        }
        if let Some(report) = &self.rewrite_manifests {
            doc.insert("rewrite_manifests".into(), report.to_json());
        }
        if let Some(report) = &self.expire {
            doc.insert("expire".into(), report.to_json());
        }
        if let Some(report) = &self.orphans {
            doc.insert("orphans".into(), report.to_json());
        }
        ldp_config::sort_keys(Value::Object(doc))
    }
}

/// Maintains the Iceberg table of the config at `path` as `request` says (see the module docs).
///
/// # Errors
///
/// Config errors, a table that does not exist, and the errors of each operation; an operation
/// that fails stops the run and the later ones do not start.
pub fn maintain(path: &Path, request: &MaintainRequest, now_ms: i64) -> Result<MaintainReport> {
    let config = crate::open_config(path)?;
    let target = TargetTable::of_config(&config, path)?;
    let mode = if request.apply {
        Mode::ReadWrite
    } else {
        Mode::ReadOnly
    };
    let catalog = target.open_catalog(mode)?;
    let mut table = Table::load(&catalog, &target.namespace, &target.name)?;
    let mut report = MaintainReport {
        table: target.identifier(),
        dry_run: !request.apply,
        compact: None,
        rewrite_manifests: None,
        expire: None,
        orphans: None,
    };
    if let Some(options) = &request.compact {
        let options = CompactOptions {
            apply: request.apply,
            ..options.clone()
        };
        report.compact = Some(compact(&catalog, &mut table, &options)?);
    }
    if request.rewrite_manifests {
        report.rewrite_manifests = Some(rewrite_manifests(&catalog, &mut table, request.apply)?);
    }
    if let Some(days) = request.expire_days() {
        let options = ExpireOptions {
            older_than_days: days,
            retain_last: request.retain_last,
            apply: request.apply,
        };
        report.expire = Some(expire_snapshots(&catalog, &mut table, &options, now_ms)?);
    }
    if request.runs_orphans() {
        let options = OrphanOptions {
            older_than_hours: request.orphan_age_hours,
            keep_metadata_versions: request.keep_metadata_versions,
            apply: request.apply,
            allow_recent: request.allow_recent,
            warehouse: target
                .object_location
                .is_none()
                .then(|| target.warehouse.display().to_string()),
        };
        report.orphans = Some(remove_orphans(&catalog, &table, &options, now_ms)?);
    }
    Ok(report)
}
