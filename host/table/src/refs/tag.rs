//! Tagging a snapshot: a named, immutable ref that snapshot expiry keeps (pinned dataset
//! versions tag the snapshot they read, `ldp_ds_<name>_v<N>`).

use iceberg::spec::{SnapshotReference, SnapshotRetention};
use ldp_catalog::Catalog;

use super::{Requirements, commit_edit};
use crate::error::{Error, Result};
use crate::table::Table;

/// Adds the tag `name` at `snapshot_id`, asserting that no ref of that name exists. The tag is
/// kept forever (no `max-ref-age-ms`). On success `table` is the tagged version.
///
/// # Errors
///
/// [`Error::SnapshotNotFound`] when the snapshot is not in the table,
/// [`Error::RefConflict`] when a ref named `name` exists (or appeared meanwhile), catalog
/// errors (a lost compare-and-swap is retryable: reload and try again).
pub fn create_tag(
    catalog: &Catalog,
    table: &mut Table,
    name: &str,
    snapshot_id: i64,
) -> Result<()> {
    table.refresh(catalog)?;
    if table.metadata().snapshot_by_id(snapshot_id).is_none() {
        return Err(Error::SnapshotNotFound {
            table: table.identifier().to_string(),
            snapshot_id,
        });
    }
    let requirements = Requirements {
        refs: vec![(name.to_string(), None)],
        ..Requirements::default()
    };
    commit_edit(
        catalog,
        table,
        &format!("create tag {name}"),
        &requirements,
        |builder| {
            builder.set_ref(
                name,
                SnapshotReference::new(
                    snapshot_id,
                    SnapshotRetention::Tag {
                        max_ref_age_ms: None,
                    },
                ),
            )
        },
    )
}
