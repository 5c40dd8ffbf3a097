//! Staging branches of a key that is on `main`: once a staged run's key is published (by its
//! own publish, or another writer's), every other staging branch whose snapshot carries the key
//! is removed, in one commit. Their attempts can never publish (each finds the key on `main`
//! and ends as a duplicate), and an attempt that was killed never removes its own, so without
//! this a re-run of a killed window left the killed run's branch for ever.

use ldp_catalog::Catalog;
use ldp_table::{Table, fence};

use super::IDEMPOTENCY_KEY_PROPERTY;
use super::names::parse_branch;

/// Removes the staging branches that carry `key`; a failure is logged, never raised (the next
/// run of the key tries again).
pub(crate) fn drop_branches_of_published_key(catalog: &Catalog, table: &mut Table, key: &str) {
    let branches: Vec<(String, i64)> = table
        .refs()
        .into_iter()
        .filter(|(name, r)| r.is_branch && parse_branch(name).is_some())
        .filter(|(_, r)| {
            table
                .metadata()
                .snapshot_by_id(r.snapshot_id)
                .and_then(|s| {
                    s.summary()
                        .additional_properties
                        .get(IDEMPOTENCY_KEY_PROPERTY)
                        .cloned()
                })
                .is_some_and(|carried| carried == key)
        })
        .map(|(name, r)| (name, r.snapshot_id))
        .collect();
    if branches.is_empty() {
        return;
    }
    let names: Vec<&str> = branches.iter().map(|(name, _)| name.as_str()).collect();
    match fence(catalog, table, &branches, &[]) {
        Ok(()) => tracing::info!(
            "removed the staging branches {names:?} of {}: their key is on main",
            table.identifier()
        ),
        Err(e) => tracing::debug!("could not remove the staging branches {names:?}: {e}"),
    }
}
