//! Snapshot expiry that keeps the idempotency floor intact (`ldp maintain --expire DAYS`, and a
//! workflow's `maintain` task), with the Python tool's rules.
//!
//! The staged publish decides "was this key already published?" by walking `main`'s ancestry
//! ([`find_keyed`](crate::find_keyed)). That answer is only right while every snapshot carrying
//! a key inside the idempotency horizon is still in the table and still reachable from `main`.
//! So on top of the usual rules (keep the current snapshot, every branch and tag head, and the
//! last `retain_last` snapshots of `main`), [`expire_snapshots`] keeps:
//!
//! * every snapshot whose summary carries `ldp.idempotency-key` and whose commit time is at or
//!   after the floor, now − the table's `ldp.idempotency.horizon-days` (default 7);
//! * every snapshot between a branch head and the deepest such keyed snapshot in that branch's
//!   ancestry: the children of an expired snapshot lose their parent link (as pyiceberg 0.12
//!   writes them), so expiring a gap would silently cut the walk short and let a key be
//!   published twice.
//!
//! The commit is one compare-and-swap that removes the snapshots (with their statistics and
//! snapshot-log entries), asserting the table UUID and the snapshot id of every ref, so a
//! rollback racing the expiry cannot lose `main`. A conflicting commit makes the expiry re-plan
//! against the new metadata ([`MAX_EXPIRY_ATTEMPTS`] tries). Only table metadata changes: the
//! data and manifest files of expired snapshots stay on disk (orphan removal reclaims them).
//!
//! ```no_run
//! # fn demo(catalog: &ldp_catalog::Catalog, table: &mut ldp_table::Table, now_ms: i64)
//! #     -> ldp_table::Result<()> {
//! use ldp_table::{ExpireOptions, expire_snapshots};
//!
//! let options = ExpireOptions { older_than_days: 7.0, ..ExpireOptions::default() };
//! let plan = expire_snapshots(catalog, table, &options, now_ms)?; // a dry run
//! println!("would expire {:?}", plan.expired_snapshot_ids);
//! # Ok(()) }
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use iceberg::spec::{MAIN_BRANCH, SnapshotRef, TableMetadata};
use ldp_catalog::Catalog;
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::read::civil_from_days;
use crate::refs::{IDEMPOTENCY_KEY, Requirements, commit_edit_then};
use crate::table::Table;

/// How many of `main`'s most recent snapshots [`expire_snapshots`] keeps by default.
pub const DEFAULT_RETAIN_LAST: usize = 20;

/// How many times [`expire_snapshots`] plans and commits before giving up on concurrent commits.
pub const MAX_EXPIRY_ATTEMPTS: u32 = 3;

/// The table property naming how many days of idempotency keys must stay findable.
pub const HORIZON_PROPERTY: &str = "ldp.idempotency.horizon-days";

/// The idempotency horizon of a table without [`HORIZON_PROPERTY`], in days.
pub const DEFAULT_HORIZON_DAYS: f64 = 7.0;

/// Why a snapshot was kept, as reported under `protected_snapshot_ids`.
pub const PROTECTION_REASONS: [&str; 6] = [
    "current",
    "refs",
    "retain_last",
    "branch_min_snapshots",
    "idempotency_key",
    "key_ancestry",
];

const MS_PER_DAY: f64 = 86_400_000.0;

/// What to expire.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpireOptions {
    /// Only snapshots committed more than this many days before now may expire (`--expire`).
    pub older_than_days: f64,
    /// Keep this many of `main`'s most recent snapshots, the current one included (at least 1).
    pub retain_last: usize,
    /// Commit the expiry (`--apply`); otherwise plan only and change nothing.
    pub apply: bool,
}

impl Default for ExpireOptions {
    /// 7 days, [`DEFAULT_RETAIN_LAST`], a dry run.
    fn default() -> ExpireOptions {
        ExpireOptions {
            older_than_days: 7.0,
            retain_last: DEFAULT_RETAIN_LAST,
            apply: false,
        }
    }
}

/// What an expiry would do to one version of the table metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpiryPlan {
    /// Snapshot ids to expire, sorted.
    pub expire: Vec<i64>,
    /// For each reason of [`PROTECTION_REASONS`], the ids it keeps.
    pub protected: BTreeMap<String, BTreeSet<i64>>,
}

/// What [`expire_snapshots`] did (or, on a dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpireReport {
    /// `ns.t`.
    pub table: String,
    /// Planned only.
    pub dry_run: bool,
    /// The expiry was committed.
    pub committed: bool,
    /// Only snapshots committed before this may expire (milliseconds since the epoch).
    pub older_than: i64,
    /// The idempotency floor: keyed snapshots committed at or after it are kept (ms).
    pub protect_keys_since: i64,
    /// `main`'s most recent snapshots kept.
    pub retain_last: usize,
    /// Snapshots in the table before.
    pub snapshots_before: usize,
    /// Snapshots in the table after (on a dry run: after the planned expiry).
    pub snapshots_after: usize,
    /// The ids expired, or that would be on a dry run, sorted.
    pub expired_snapshot_ids: Vec<i64>,
    /// Reason (every one of [`PROTECTION_REASONS`]) → the ids it keeps, sorted.
    pub protected: BTreeMap<String, Vec<i64>>,
    /// Plans made (1 unless concurrent commits forced a re-plan).
    pub attempts: u32,
    /// The table's metadata file (after the commit when there was one).
    pub metadata_location: String,
}

impl ExpireReport {
    /// The Python tool's JSON report: the field names of `expire_snapshots`, the two times as
    /// ISO-8601 UTC strings to the millisecond (`2026-08-01T00:00:00.000Z`).
    pub fn to_json(&self) -> Value {
        let protected: serde_json::Map<String, Value> = PROTECTION_REASONS
            .iter()
            .map(|reason| {
                let ids = self.protected.get(*reason).cloned().unwrap_or_default();
                (reason.to_string(), json!(ids))
            })
            .collect();
        json!({
            "table": self.table,
            "dry_run": self.dry_run,
            "committed": self.committed,
            "older_than": iso_millis(self.older_than),
            "protect_keys_since": iso_millis(self.protect_keys_since),
            "retain_last": self.retain_last,
            "snapshots_before": self.snapshots_before,
            "snapshots_after": self.snapshots_after,
            "expired_snapshot_ids": self.expired_snapshot_ids,
            "protected_snapshot_ids": protected,
            "attempts": self.attempts,
            "metadata_location": self.metadata_location,
        })
    }
}

/// An ISO-8601 UTC string to the millisecond (`2026-08-01T00:00:00.000Z`), as the Python tool
/// formats report times.
pub fn iso_millis(ms: i64) -> String {
    let (secs, millis) = (ms.div_euclid(1000), ms.rem_euclid(1000));
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The idempotency horizon of a table in days, from [`HORIZON_PROPERTY`] (default 7).
///
/// # Errors
///
/// [`Error::Maintenance`] when the property is set but is not a non-negative number: guessing
/// a horizon could expire keys that must stay findable, so this fails closed.
pub fn horizon_days(table: &Table) -> Result<f64> {
    let Some(raw) = table.metadata().properties().get(HORIZON_PROPERTY) else {
        return Ok(DEFAULT_HORIZON_DAYS);
    };
    let days = raw.trim().parse::<f64>().unwrap_or(-1.0);
    if days >= 0.0 {
        Ok(days)
    } else {
        Err(Error::Maintenance {
            table: table.identifier().to_string(),
            message: format!(
                "table property {HORIZON_PROPERTY}={} is not a non-negative number of days",
                ldp_pyrepr::repr_str(raw)
            ),
        })
    }
}

/// `days` before `now_ms`, in milliseconds, as the Python tool computes `now - timedelta(days)`
/// (rounded to the microsecond, then floored to the millisecond; saturating).
fn days_before(now_ms: i64, days: f64) -> i64 {
    let delta_us = (days * MS_PER_DAY * 1000.0).round() as i128;
    let instant_us = i128::from(now_ms) * 1000 - delta_us;
    let ms = instant_us.div_euclid(1000);
    ms.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// Decides which snapshots of `metadata` to expire. Pure: it reads the metadata and changes
/// nothing.
///
/// * `older_than_ms`: only snapshots committed before this may expire;
/// * `retain_last`: keep this many of `main`'s most recent snapshots;
/// * `floor_ms`: keep every snapshot carrying `ldp.idempotency-key` committed at or after
///   this, and the ancestry that links it to its branch head.
pub fn plan_expiry(
    metadata: &TableMetadata,
    older_than_ms: i64,
    retain_last: usize,
    floor_ms: i64,
) -> ExpiryPlan {
    let snapshots: HashMap<i64, &SnapshotRef> =
        metadata.snapshots().map(|s| (s.snapshot_id(), s)).collect();
    let mut protected: BTreeMap<String, BTreeSet<i64>> = PROTECTION_REASONS
        .iter()
        .map(|reason| (reason.to_string(), BTreeSet::new()))
        .collect();
    let mut keep = |reason: &str, ids: &[i64]| {
        if let Some(set) = protected.get_mut(reason) {
            set.extend(ids.iter().copied());
        }
    };

    if let Some(current) = metadata.current_snapshot_id()
        && snapshots.contains_key(&current)
    {
        keep("current", &[current]);
    }
    let keyed: HashSet<i64> = snapshots
        .values()
        .filter(|s| is_keyed(s) && s.timestamp_ms() >= floor_ms)
        .map(|s| s.snapshot_id())
        .collect();
    keep(
        "idempotency_key",
        &keyed.iter().copied().collect::<Vec<_>>(),
    );

    for head in branch_heads(metadata) {
        if !snapshots.contains_key(&head.snapshot_id) {
            continue;
        }
        keep("refs", &[head.snapshot_id]);
        if !head.is_branch {
            continue;
        }
        let ancestry = ancestors(&snapshots, head.snapshot_id);
        let minimum = head.min_snapshots_to_keep;
        if head.name == MAIN_BRANCH {
            keep("retain_last", prefix(&ancestry, retain_last.max(minimum)));
        } else {
            keep("branch_min_snapshots", prefix(&ancestry, minimum.max(1)));
        }
        if let Some(deepest) = ancestry.iter().rposition(|id| keyed.contains(id)) {
            keep("key_ancestry", &ancestry[..=deepest]);
        }
    }

    let kept: HashSet<i64> = protected.values().flatten().copied().collect();
    let mut expire: Vec<i64> = snapshots
        .values()
        .filter(|s| s.timestamp_ms() < older_than_ms && !kept.contains(&s.snapshot_id()))
        .map(|s| s.snapshot_id())
        .collect();
    expire.sort_unstable();
    ExpiryPlan { expire, protected }
}

fn prefix(ids: &[i64], n: usize) -> &[i64] {
    &ids[..n.min(ids.len())]
}

fn is_keyed(snapshot: &SnapshotRef) -> bool {
    snapshot
        .summary()
        .additional_properties
        .get(IDEMPOTENCY_KEY)
        .is_some_and(|key| !key.is_empty())
}

/// `head` and its parents, newest first, while the parent is in the table.
fn ancestors(snapshots: &HashMap<i64, &SnapshotRef>, head: i64) -> Vec<i64> {
    let mut out = Vec::new();
    let mut next = snapshots.get(&head);
    while let Some(snapshot) = next {
        out.push(snapshot.snapshot_id());
        if out.len() > snapshots.len() {
            break; // a parent cycle: corrupt metadata, stop rather than loop
        }
        next = snapshot
            .parent_snapshot_id()
            .and_then(|p| snapshots.get(&p));
    }
    out
}

struct Head {
    name: String,
    snapshot_id: i64,
    is_branch: bool,
    min_snapshots_to_keep: usize,
}

/// Every ref, with the current snapshot standing in for a missing `main`. iceberg-rust keeps
/// the refs private; they are read from the metadata's JSON form, as [`Table::refs`] does.
fn branch_heads(metadata: &TableMetadata) -> Vec<Head> {
    let mut heads: Vec<Head> = serde_json::to_value(metadata)
        .ok()
        .and_then(|value| value.get("refs").and_then(Value::as_object).cloned())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(name, r)| {
            Some(Head {
                snapshot_id: r.get("snapshot-id")?.as_i64()?,
                is_branch: r.get("type")?.as_str()? == "branch",
                min_snapshots_to_keep: r
                    .get("min-snapshots-to-keep")
                    .and_then(Value::as_u64)
                    .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX)),
                name,
            })
        })
        .collect();
    if !heads.iter().any(|h| h.name == MAIN_BRANCH)
        && let Some(current) = metadata.current_snapshot_id()
    {
        heads.push(Head {
            name: MAIN_BRANCH.to_string(),
            snapshot_id: current,
            is_branch: true,
            min_snapshots_to_keep: 0,
        });
    }
    heads
}

/// Expires old snapshots of `table` without breaking the idempotency floor.
///
/// A snapshot expires only when it was committed before now − `older_than_days` and none of
/// these keep it: it is the current snapshot or the head of a branch or tag (`current`,
/// `refs`); it is one of `main`'s last `retain_last` snapshots, or of another branch's last
/// `min-snapshots-to-keep` (1 when unset; on `main` the larger count wins) (`retain_last`,
/// `branch_min_snapshots`); it carries `ldp.idempotency-key` and was committed at or after
/// the floor, now − the table's horizon (`idempotency_key`); it lies between a branch head
/// and the deepest such keyed snapshot (`key_ancestry`).
///
/// `table` is reloaded first; after a committed expiry it is the new version. Without
/// `options.apply`, or with nothing to expire, nothing is written. `now_ms` is the current
/// time in milliseconds since the epoch.
///
/// # Errors
///
/// [`Error::Maintenance`] when `retain_last` is 0, `older_than_days` is negative or not a
/// number, or the table's `ldp.idempotency.horizon-days` is invalid (nothing changes);
/// [`Error::ExpiryConflict`] when concurrent commits invalidated the plan
/// [`MAX_EXPIRY_ATTEMPTS`] times; catalog, I/O and metadata errors.
pub fn expire_snapshots(
    catalog: &Catalog,
    table: &mut Table,
    options: &ExpireOptions,
    now_ms: i64,
) -> Result<ExpireReport> {
    let invalid = |message: String| Error::Maintenance {
        table: table.identifier().to_string(),
        message,
    };
    if options.retain_last < 1 {
        return Err(invalid(format!(
            "retain_last must be at least 1, got {}",
            options.retain_last
        )));
    }
    if options.older_than_days.is_nan() || options.older_than_days < 0.0 {
        return Err(invalid(format!(
            "older_than must be a non-negative number of days, got {}",
            options.older_than_days
        )));
    }
    let older_than_ms = days_before(now_ms, options.older_than_days);
    let dry_run = !options.apply;
    let mut attempt = 0;
    loop {
        attempt += 1;
        table.refresh(catalog)?;
        let floor_ms = days_before(now_ms, horizon_days(table)?);
        let plan = plan_expiry(
            table.metadata(),
            older_than_ms,
            options.retain_last,
            floor_ms,
        );
        let before = table.metadata().snapshots().len();
        let mut report = ExpireReport {
            table: table.identifier().to_string(),
            dry_run,
            committed: false,
            older_than: older_than_ms,
            protect_keys_since: floor_ms,
            retain_last: options.retain_last,
            snapshots_before: before,
            snapshots_after: before - plan.expire.len(),
            expired_snapshot_ids: plan.expire.clone(),
            protected: plan
                .protected
                .iter()
                .map(|(reason, ids)| (reason.clone(), ids.iter().copied().collect()))
                .collect(),
            attempts: attempt,
            metadata_location: table.metadata_location().to_string(),
        };
        if dry_run || plan.expire.is_empty() {
            tracing::info!(
                table = report.table,
                expire = plan.expire.len(),
                snapshots = before,
                dry_run,
                "{} snapshot expiry",
                if dry_run { "planned" } else { "no-op" }
            );
            return Ok(report);
        }
        match commit_expiry(catalog, table, &plan.expire) {
            Ok(()) => {
                report.committed = true;
                report.snapshots_after = table.metadata().snapshots().len();
                report.metadata_location = table.metadata_location().to_string();
                tracing::info!(
                    table = report.table,
                    expired = plan.expire.len(),
                    snapshots = before,
                    floor = iso_millis(floor_ms),
                    "expired snapshots"
                );
                return Ok(report);
            }
            Err(error) if error.is_retryable() => {
                tracing::info!(
                    table = report.table,
                    attempt,
                    max = MAX_EXPIRY_ATTEMPTS,
                    %error,
                    "snapshot expiry conflicted with a concurrent commit"
                );
                if attempt >= MAX_EXPIRY_ATTEMPTS {
                    return Err(Error::ExpiryConflict {
                        table: report.table,
                        attempts: attempt,
                    });
                }
            }
            Err(error) => return Err(error),
        }
    }
}

/// Removes `expire` in one compare-and-swap that asserts the table UUID and pins every ref to
/// the snapshot it had when planned (`main` included, or its absence).
fn commit_expiry(catalog: &Catalog, table: &mut Table, expire: &[i64]) -> Result<()> {
    let mut refs: Vec<(String, Option<i64>)> = table
        .refs()
        .into_iter()
        .map(|(name, r)| (name, Some(r.snapshot_id)))
        .collect();
    if !refs.iter().any(|(name, _)| name == MAIN_BRANCH) {
        refs.push((MAIN_BRANCH.to_string(), None));
    }
    let requirements = Requirements {
        main: None,
        refs,
        schema_id: None,
        fence_tag: None,
        table_uuid: Some(table.metadata().uuid()),
    };
    let base_log = serde_json::to_value(table.metadata())
        .ok()
        .and_then(|value| value.get("snapshot-log").cloned());
    let identifier = table.identifier().to_string();
    commit_edit_then(
        catalog,
        table,
        "expire snapshots",
        &requirements,
        |mut builder| {
            builder = builder.remove_snapshots(expire);
            for id in expire {
                builder = builder.remove_statistics(*id);
            }
            Ok(builder)
        },
        |metadata| unlink_expired(&identifier, metadata, expire, base_log),
    )
}

/// What pyiceberg 0.12 writes that iceberg-rust's builder does not: the children of an
/// expired snapshot lose their `parent-snapshot-id`, and the snapshot log keeps every entry of
/// a remaining snapshot (iceberg-rust drops the history before the last removed entry).
fn unlink_expired(
    table: &str,
    metadata: TableMetadata,
    expire: &[i64],
    base_log: Option<Value>,
) -> Result<TableMetadata> {
    let removed: HashSet<i64> = expire.iter().copied().collect();
    let corrupt = |e: serde_json::Error| {
        Error::corrupt(
            table,
            format!("cannot rewrite the metadata after expiring snapshots: {e}"),
        )
    };
    let mut value = serde_json::to_value(&metadata).map_err(corrupt)?;
    if let Some(snapshots) = value.get_mut("snapshots").and_then(Value::as_array_mut) {
        for snapshot in snapshots {
            let orphaned = snapshot
                .get("parent-snapshot-id")
                .and_then(Value::as_i64)
                .is_some_and(|parent| removed.contains(&parent));
            if orphaned && let Some(fields) = snapshot.as_object_mut() {
                fields.remove("parent-snapshot-id");
            }
        }
    }
    if let Some(Value::Array(entries)) = base_log {
        let kept: Vec<Value> = entries
            .into_iter()
            .filter(|entry| {
                entry
                    .get("snapshot-id")
                    .and_then(Value::as_i64)
                    .is_some_and(|id| !removed.contains(&id))
            })
            .collect();
        if let Some(fields) = value.as_object_mut() {
            fields.insert("snapshot-log".to_string(), Value::Array(kept));
        }
    }
    serde_json::from_value(value).map_err(corrupt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_millis_is_the_reference_format() {
        assert_eq!(iso_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_millis(1_785_542_400_123), "2026-08-01T00:00:00.123Z");
        assert_eq!(iso_millis(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn days_before_rounds_like_timedelta() {
        let now = 1_785_542_400_123;
        assert_eq!(days_before(now, 7.0), now - 7 * 86_400_000);
        assert_eq!(days_before(now, 0.0), now);
        // 1e-9 days = 86.4 µs: now − 86.4 µs floors to the millisecond before.
        assert_eq!(days_before(now, 1e-9), now - 1);
        assert_eq!(days_before(now, f64::INFINITY), i64::MIN);
    }
}
