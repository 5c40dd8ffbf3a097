//! Publishing a staged snapshot: `main` moves to the branch's head and the branch goes, in one
//! compare-and-swap.

use iceberg::spec::{MAIN_BRANCH, SnapshotReference, SnapshotRetention};
use ldp_catalog::Catalog;

use super::{Requirements, commit_edit};
use crate::error::Result;
use crate::table::Table;

/// What a publish asserts.
#[derive(Debug, Clone)]
pub struct Publish<'a> {
    /// The staging branch.
    pub branch: &'a str,
    /// `main`'s head the branch was created at.
    pub base: i64,
    /// The staged snapshot (the branch's head).
    pub staged: i64,
    /// The schema the staged snapshot was written with (the table's current schema).
    pub schema_id: i32,
    /// This attempt's fence tag, which must not exist.
    pub fence_tag: &'a str,
}

/// Moves `main` to `publish.staged` and removes the branch, asserting `main` = base, the
/// branch = staged, the current schema = the staged schema and no fence tag.
///
/// # Errors
///
/// [`crate::Error::RefConflict`] when a requirement does not hold (another writer published
/// first: re-stage on the new head), [`crate::Error::Fenced`] when a newer attempt fenced this
/// one, catalog errors (a lost compare-and-swap is retryable).
pub fn publish_branch(catalog: &Catalog, table: &mut Table, publish: &Publish<'_>) -> Result<()> {
    let requirements = Requirements {
        main: Some(Some(publish.base)),
        refs: vec![(publish.branch.to_string(), Some(publish.staged))],
        schema_id: Some(publish.schema_id),
        fence_tag: Some(publish.fence_tag.to_string()),
        table_uuid: None,
    };
    commit_edit(
        catalog,
        table,
        &format!("publish branch {}", publish.branch),
        &requirements,
        |builder| {
            Ok(builder
                .set_ref(
                    MAIN_BRANCH,
                    SnapshotReference::new(
                        publish.staged,
                        SnapshotRetention::Branch {
                            min_snapshots_to_keep: None,
                            max_snapshot_age_ms: None,
                            max_ref_age_ms: None,
                        },
                    ),
                )?
                .remove_ref(publish.branch))
        },
    )
}
