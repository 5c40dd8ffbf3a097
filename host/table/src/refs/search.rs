//! The walk of `main`'s ancestry for a snapshot that carries an idempotency key: before a run
//! reads its source (all retained ancestors), and again before each publish (bounded by time
//! and depth).

use crate::read::SnapshotInfo;
use crate::table::Table;

/// The summary property naming the key a snapshot published.
pub const IDEMPOTENCY_KEY: &str = "ldp.idempotency-key";

/// What to look for, and how far.
#[derive(Debug, Clone)]
pub struct KeySearch<'a> {
    /// The idempotency key.
    pub key: &'a str,
    /// Stop after the first snapshot committed before this time (milliseconds since the
    /// epoch); `None`: walk to the root.
    pub since_ms: Option<i64>,
    /// At most this many snapshots are looked at; more fails closed
    /// ([`SearchOutcome::Exhausted`]). `None`: no bound.
    pub max_depth: Option<usize>,
}

/// What the walk found.
#[derive(Debug, Clone, PartialEq)]
pub enum SearchOutcome {
    /// The newest snapshot of `main`'s ancestry carrying the key.
    Found(SnapshotInfo),
    /// No snapshot within the bounds carries it.
    NotFound,
    /// The walk could not finish: the depth bound was reached, or a parent is missing (expired)
    /// before the time bound. The caller must not assume the key is absent.
    Exhausted {
        /// Why.
        reason: String,
    },
}

/// Walks `main` from its head through its parents, newest first, as the Python tool searches
/// for a key (bounded before a publish, unbounded before the source is read): a snapshot is
/// checked for the key, then the walk stops when the snapshot is older than `since_ms` or is
/// the root.
pub fn find_keyed(table: &Table, search: &KeySearch<'_>) -> SearchOutcome {
    let metadata = table.metadata();
    let mut snapshot = metadata.current_snapshot();
    let mut depth = 0usize;
    while let Some(current) = snapshot {
        let summary = &current.summary().additional_properties;
        if summary.get(IDEMPOTENCY_KEY).map(String::as_str) == Some(search.key) {
            return SearchOutcome::Found(SnapshotInfo::of(current));
        }
        let Some(parent_id) = current.parent_snapshot_id() else {
            return SearchOutcome::NotFound;
        };
        if search
            .since_ms
            .is_some_and(|since| current.timestamp_ms() < since)
        {
            return SearchOutcome::NotFound;
        }
        depth += 1;
        if search.max_depth.is_some_and(|max| depth >= max) {
            return SearchOutcome::Exhausted {
                reason: format!(
                    "searched {depth} snapshots of {} for idempotency key '{}' without reaching the time \
                     bound; refusing to publish",
                    table.identifier(),
                    search.key
                ),
            };
        }
        snapshot = metadata.snapshot_by_id(parent_id);
        if snapshot.is_none() && search.since_ms.is_some() {
            return SearchOutcome::Exhausted {
                reason: format!(
                    "the history of {} is truncated at snapshot {parent_id} (expired?) before the time \
                     bound; cannot prove idempotency key '{}' is absent",
                    table.identifier(),
                    search.key
                ),
            };
        }
    }
    SearchOutcome::NotFound
}

/// The snapshots of `main`'s retained history that carry an idempotency key, newest first
/// (`ldp commits`).
pub fn keyed_snapshots(table: &Table) -> Vec<SnapshotInfo> {
    let metadata = table.metadata();
    let mut found = Vec::new();
    let mut snapshot = metadata.current_snapshot();
    while let Some(current) = snapshot {
        if current
            .summary()
            .additional_properties
            .contains_key(IDEMPOTENCY_KEY)
        {
            found.push(SnapshotInfo::of(current));
        }
        snapshot = current
            .parent_snapshot_id()
            .and_then(|parent| metadata.snapshot_by_id(parent));
    }
    found
}
