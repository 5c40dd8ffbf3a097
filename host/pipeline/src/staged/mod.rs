//! The staged publish (`docs/exactly-once.md`): a run with a window or an idempotency key
//! writes at most one effect per key to `main`, whoever runs it and however often.
//!
//! * [`Staging`]: who is writing under which key (run id, attempt, key, spec hash, window),
//!   and the `ldp.*` properties every snapshot it publishes carries.
//! * The key is looked for in `main`'s whole retained history before the source is read
//!   ([`already_published`]): found, the run is a `skipped_duplicate` and reads nothing.
//! * Otherwise the run streams its data files as a direct run does, and [`publish`] then
//!   bootstraps a base (an empty `ldp.init=true` snapshot on a table without one), fences the
//!   run's older attempts, stages the write on a branch of its own
//!   (`ldp_r<run>_a<attempt>_<n>`), and moves `main` to it in one compare-and-swap that
//!   asserts `main`, the branch, the schema and the absence of this attempt's fence tag. A
//!   lost race searches for the key again and re-stages on the new head, re-using the data
//!   files already written.

mod horizon;
mod names;
mod publish;
mod stale;
mod write;

pub(crate) use horizon::warn_if_the_key_may_have_expired;
pub use names::{attempt_prefix, branch_name, fence_tag, new_run_id, parse_branch, run_hex};
pub(crate) use publish::{StagedData, already_published, publish};

use std::collections::BTreeMap;
use std::time::Duration;

use ldp_config::Window;

/// The property every published snapshot carries: the idempotency key.
pub const IDEMPOTENCY_KEY_PROPERTY: &str = "ldp.idempotency-key";
/// The run id, as given.
pub const RUN_ID_PROPERTY: &str = "ldp.run-id";
/// The attempt number.
pub const ATTEMPT_PROPERTY: &str = "ldp.attempt";
/// The spec hash.
pub const SPEC_HASH_PROPERTY: &str = "ldp.spec-hash";
/// The window, `START/END` in ISO with `+00:00`.
pub const LOGICAL_WINDOW_PROPERTY: &str = "ldp.logical-window";
/// On the empty base snapshot a staged run adds to a table without one.
pub const INIT_PROPERTY: &str = "ldp.init";

/// How far back a run looks for its key before publishing: 7 days (the idempotency horizon).
pub const SEARCH_HORIZON: Duration = Duration::from_secs(7 * 24 * 3600);

/// Who writes under which key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staging {
    /// The run id (`--run-id`, else a new UUIDv7).
    pub run_id: String,
    /// The attempt, from 1 (`--attempt`). Attempt N fences attempts 1..N−1 of the run.
    pub attempt: u32,
    /// The idempotency key.
    pub key: String,
    /// The config's spec hash.
    pub spec_hash: String,
    /// The logical window, when the run has one.
    pub window: Option<Window>,
    /// Snapshots committed before this time (ms since the epoch) end the publish loop's search.
    pub search_since_ms: i64,
}

/// Limits of the publish loop; the default is the Python tool's policy (6 cycles, waits from
/// 0.2 s doubling up to 8 s, 300 s) but for the search depth: [`SEARCH_DEPTH`] snapshots where
/// the Python tool stops at 500.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishPolicy {
    /// Publish cycles before giving up (a retryable conflict: run again as the next attempt).
    pub max_cycles: u32,
    /// Wait bound after the first lost cycle; doubles up to `max_delay`.
    pub base_delay: Duration,
    /// The largest wait bound.
    pub max_delay: Duration,
    /// No new cycle after this long.
    pub deadline: Duration,
    /// Snapshots the publish loop's search may look at.
    pub search_depth: usize,
}

/// Snapshots the publish loop's key search may walk within its 7 days before it fails closed.
/// The Python tool stops at 500, so a table loaded more often than every 20 minutes (or a
/// backlog of 1,000 hourly windows loaded in one afternoon) cannot publish; the walk reads the
/// metadata in memory, microseconds a snapshot, so ldp's bound only guards against a corrupt
/// ancestry.
pub const SEARCH_DEPTH: usize = 100_000;

impl Default for PublishPolicy {
    fn default() -> Self {
        PublishPolicy {
            max_cycles: 6,
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(8),
            deadline: Duration::from_secs(300),
            search_depth: SEARCH_DEPTH,
        }
    }
}

impl Staging {
    /// The `ldp.*` summary properties of every snapshot the run publishes.
    pub fn properties(&self) -> BTreeMap<String, String> {
        let mut properties = BTreeMap::from([
            (IDEMPOTENCY_KEY_PROPERTY.to_string(), self.key.clone()),
            (RUN_ID_PROPERTY.to_string(), self.run_id.clone()),
            (ATTEMPT_PROPERTY.to_string(), self.attempt.to_string()),
        ]);
        if !self.spec_hash.is_empty() {
            properties.insert(SPEC_HASH_PROPERTY.to_string(), self.spec_hash.clone());
        }
        if let Some(window) = &self.window {
            properties.insert(LOGICAL_WINDOW_PROPERTY.to_string(), window.property());
        }
        properties
    }

    /// The search bound of a run started at `now_ms`: 7 days back.
    pub fn search_since(now_ms: i64) -> i64 {
        (now_ms - SEARCH_HORIZON.as_millis() as i64).max(0)
    }
}
