//! Fencing older attempts of a run: their staging branches removed and a fence tag per attempt
//! added, in one commit, so an older attempt still running can no longer stage or publish.

use iceberg::spec::{SnapshotReference, SnapshotRetention};
use ldp_catalog::Catalog;

use super::held::held_only_by;
use super::{Requirements, commit_edit};
use crate::error::{Error, Result};
use crate::table::Table;

/// How long a fence tag is kept (`max-ref-age-ms`): 7 days, as the Python tool.
pub const FENCE_TAG_MAX_AGE_MS: i64 = 604_800_000;

/// Removes the branches `branches` (name and the snapshot each must be at), with the snapshots
/// only they hold (held.rs says why: the attempt that staged them deletes their data files once
/// it finds itself fenced or its key published), and adds the tags
/// `tags` at `main`'s head, asserting that each tag is absent. Does nothing when there is
/// nothing to do.
///
/// # Errors
///
/// [`Error::RefConflict`] when a branch moved or a tag exists, [`Error::Unsupported`] when
/// `main` has no snapshot, catalog errors (a lost compare-and-swap is retryable).
pub fn fence(
    catalog: &Catalog,
    table: &mut Table,
    branches: &[(String, i64)],
    tags: &[String],
) -> Result<()> {
    if branches.is_empty() && tags.is_empty() {
        return Ok(());
    }
    table.refresh(catalog)?;
    let Some(head) = table.main_snapshot().map(|s| s.snapshot_id()) else {
        return Err(Error::unsupported(
            table.identifier(),
            "cannot fence attempts of a table without a snapshot on main",
        ));
    };
    let names: Vec<&str> = branches.iter().map(|(name, _)| name.as_str()).collect();
    let held = held_only_by(table, &names);
    let requirements = Requirements {
        main: None,
        refs: branches
            .iter()
            .map(|(name, at)| (name.clone(), Some(*at)))
            .chain(tags.iter().map(|tag| (tag.clone(), None)))
            .collect(),
        schema_id: None,
        fence_tag: None,
        table_uuid: None,
    };
    commit_edit(
        catalog,
        table,
        "fence older attempts",
        &requirements,
        |mut builder| {
            for (name, _) in branches {
                builder = builder.remove_ref(name);
            }
            if !held.is_empty() {
                builder = builder.remove_snapshots(&held);
            }
            for tag in tags {
                builder = builder.set_ref(
                    tag,
                    SnapshotReference::new(
                        head,
                        SnapshotRetention::Tag {
                            max_ref_age_ms: Some(FENCE_TAG_MAX_AGE_MS),
                        },
                    ),
                )?;
            }
            Ok(builder)
        },
    )
}
