//! Creating and dropping a staging branch.

use iceberg::spec::{SnapshotReference, SnapshotRetention};
use ldp_catalog::Catalog;

use super::held::held_only_by;
use super::{Requirements, commit_edit};
use crate::error::{Error, Result};
use crate::table::Table;

/// Creates the branch `name` at `main`'s head, asserting that `main` is at `base`, that the
/// branch does not exist and that `fence_tag` (this attempt's fence) does not either.
///
/// # Errors
///
/// [`Error::RefConflict`] when `main` moved or the branch exists, [`Error::Fenced`] when the
/// fence tag exists, [`Error::Unsupported`] when `main` has no snapshot (a branch needs one),
/// and catalog errors (a lost compare-and-swap is retryable).
pub fn create_branch(
    catalog: &Catalog,
    table: &mut Table,
    name: &str,
    base: i64,
    fence_tag: &str,
) -> Result<()> {
    let requirements = Requirements {
        main: Some(Some(base)),
        refs: vec![(name.to_string(), None)],
        schema_id: None,
        fence_tag: Some(fence_tag.to_string()),
        table_uuid: None,
    };
    if name == iceberg::spec::MAIN_BRANCH {
        return Err(Error::unsupported(
            table.identifier(),
            "a staging branch cannot be main",
        ));
    }
    commit_edit(
        catalog,
        table,
        &format!("create branch {name}"),
        &requirements,
        |builder| {
            builder.set_ref(
                name,
                SnapshotReference::new(
                    base,
                    SnapshotRetention::Branch {
                        min_snapshots_to_keep: None,
                        max_snapshot_age_ms: None,
                        max_ref_age_ms: None,
                    },
                ),
            )
        },
    )
}

/// Removes the branch `name` when it exists (an abandoned staged write), with the snapshots
/// only it holds (held.rs says why).
///
/// # Errors
///
/// Catalog errors; a lost compare-and-swap is retried 5 times here, since removing a branch
/// only ever races with other commits, never conflicts with them.
pub fn drop_branch(catalog: &Catalog, table: &mut Table, name: &str) -> Result<()> {
    let mut tries = 0;
    loop {
        tries += 1;
        table.refresh(catalog)?;
        let Some(at) = table.ref_snapshot_id(name) else {
            return Ok(());
        };
        let held = held_only_by(table, &[name]);
        let requirements = Requirements {
            refs: vec![(name.to_string(), Some(at))],
            ..Requirements::default()
        };
        match commit_edit(
            catalog,
            table,
            &format!("drop branch {name}"),
            &requirements,
            |builder| {
                let builder = builder.remove_ref(name);
                Ok(if held.is_empty() {
                    builder
                } else {
                    builder.remove_snapshots(&held)
                })
            },
        ) {
            Err(e) if e.is_retryable() && tries < 6 => continue,
            other => return other,
        }
    }
}
