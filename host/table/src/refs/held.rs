//! The snapshots a set of branches holds alone: removing a branch removes them with it, since
//! the writer of an abandoned staged write deletes their data files, so no snapshot of the
//! table may still name them (a read of such a snapshot by id would fail, or miss rows).

use std::collections::HashSet;

use crate::table::Table;

/// The snapshots only the refs `names` reach: each one's head and its parents up to the first
/// snapshot a ref outside `names` reaches.
pub(crate) fn held_only_by(table: &Table, names: &[&str]) -> Vec<i64> {
    let metadata = table.metadata();
    let parent = |id: i64| {
        metadata
            .snapshot_by_id(id)
            .and_then(|s| s.parent_snapshot_id())
    };
    let refs = table.refs();
    let mut reached = HashSet::new();
    for (other, r) in &refs {
        if names.contains(&other.as_str()) {
            continue;
        }
        let mut at = Some(r.snapshot_id);
        while let Some(id) = at {
            if !reached.insert(id) {
                break;
            }
            at = parent(id);
        }
    }
    let mut held = Vec::new();
    for name in names {
        let mut at = refs.get(*name).map(|r| r.snapshot_id);
        while let Some(id) = at.filter(|id| !reached.contains(id)) {
            reached.insert(id);
            held.push(id);
            at = parent(id);
        }
    }
    held
}
