//! Manifest rewrite (`ldp maintain --rewrite-manifests`): every live entry of the default
//! partition spec's data manifests merged into one manifest, in one `replace` snapshot that adds
//! and removes no data file.
//!
//! Each append adds a manifest, so a table loaded window by window lists thousands of them and
//! every query opens each one. After the rewrite the manifest list holds one data manifest (plus
//! those of older partition specs and delete manifests, kept as they are). Entries keep their
//! snapshot ids and sequence numbers. A table with at most one such manifest is left alone. A
//! concurrent commit makes the rewrite plan again on the new head (nothing it carries over can
//! be lost: it re-reads the live entries each time).

use std::collections::BTreeMap;

use iceberg::spec::{ManifestContentType, ManifestFile, Operation};
use ldp_catalog::Catalog;
use serde_json::{Value, json};

use crate::commit::{RetryPolicy, commit_unless_unchanged};
use crate::error::Result;
use crate::snapshot::{SnapshotPlan, produce};
use crate::table::Table;

/// What [`rewrite_manifests`] did (or, on a dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestRewriteReport {
    /// `ns.t`.
    pub table: String,
    /// Planned only.
    pub dry_run: bool,
    /// A snapshot was committed.
    pub committed: bool,
    /// Manifests in the current manifest list before.
    pub manifests_before: usize,
    /// Manifests after (on a dry run: after the planned rewrite).
    pub manifests_after: usize,
    /// Live data files carried over.
    pub entries: usize,
    /// The `replace` snapshot, when committed.
    pub snapshot_id: Option<i64>,
    /// Commit tries (0 when nothing was committed).
    pub attempts: u32,
    /// The table's metadata file (after the commit when there was one).
    pub metadata_location: String,
}

impl ManifestRewriteReport {
    /// The report as JSON (the field names above).
    pub fn to_json(&self) -> Value {
        json!({
            "table": self.table,
            "dry_run": self.dry_run,
            "committed": self.committed,
            "manifests_before": self.manifests_before,
            "manifests_after": self.manifests_after,
            "entries": self.entries,
            "snapshot_id": self.snapshot_id,
            "attempts": self.attempts,
            "metadata_location": self.metadata_location,
        })
    }
}

/// Merges the data manifests of `table`'s current snapshot (see the module docs); commits when
/// `apply`, and `table` is moved to the new metadata.
///
/// # Errors
///
/// Read, write and catalog errors; [`crate::Error::RetriesExhausted`] when other writers won
/// every try. Whatever the error, the table is unchanged.
pub fn rewrite_manifests(
    catalog: &Catalog,
    table: &mut Table,
    apply: bool,
) -> Result<ManifestRewriteReport> {
    let (merge, kept) = split_by_spec(table)?;
    let entries = table.live_entries(&merge, ManifestContentType::Data)?.len();
    let manifests_before = merge.len() + kept.len();
    let worth_it = merge.len() > 1;
    let mut report = ManifestRewriteReport {
        table: table.identifier().to_string(),
        dry_run: !apply,
        committed: false,
        manifests_before,
        manifests_after: if worth_it {
            kept.len() + usize::from(entries > 0)
        } else {
            manifests_before
        },
        entries,
        snapshot_id: None,
        attempts: 0,
        metadata_location: table.metadata_location().to_string(),
    };
    if !apply || !worth_it {
        return Ok(report);
    }
    let properties = BTreeMap::new();
    let result = commit_unless_unchanged(
        catalog,
        table,
        "manifest rewrite",
        &RetryPolicy::direct_append(),
        |base| {
            let (merge, kept) = split_by_spec(base)?;
            if merge.len() <= 1 {
                return Ok(None);
            }
            let existing = base.live_entries(&merge, ManifestContentType::Data)?;
            let plan = SnapshotPlan {
                operation: Operation::Replace,
                added: &[],
                deleted: Vec::new(),
                existing,
                kept,
                properties: &properties,
                schema: None,
            };
            produce(base, plan).map(Some)
        },
    )?;
    let Some(result) = result else {
        return Ok(report);
    };
    let (merge, kept) = split_by_spec(table)?;
    report.committed = true;
    report.manifests_after = merge.len() + kept.len();
    report.entries = table.live_entries(&merge, ManifestContentType::Data)?.len();
    report.snapshot_id = Some(result.snapshot_id);
    report.attempts = result.attempts;
    report.metadata_location = result.metadata_location;
    Ok(report)
}

/// The manifests of the current snapshot, split into the data manifests of the default spec
/// (whose entries a `replace` snapshot may carry over into one manifest) and the others (kept as
/// they are).
pub(crate) fn split_by_spec(table: &Table) -> Result<(Vec<ManifestFile>, Vec<ManifestFile>)> {
    let manifests = match table.current_snapshot() {
        Some(snapshot) => table.manifest_list(snapshot)?,
        None => Vec::new(),
    };
    let spec_id = table.metadata().default_partition_spec_id();
    Ok(manifests
        .into_iter()
        .partition(|m| m.content == ManifestContentType::Data && m.partition_spec_id == spec_id))
}
