//! The commit protocol: stage a snapshot (manifests, manifest list, next metadata file), then
//! move the catalog's pointer with a compare-and-swap on the metadata file the snapshot was
//! built on. When another writer got there first, a retrying operation reloads the table,
//! rebuilds its snapshot on the new head (re-using the data files already written) and tries
//! again, waiting uniform(0, min(8, 0.2·2^(n−1))) s after the n-th failure, up to 6 tries or
//! 300 s (the Python tool's policy for a direct append). Every file a failed attempt wrote is
//! deleted.

use std::time::{Duration, Instant};

use iceberg::spec::Operation;
use ldp_catalog::Catalog;
use uuid::Uuid;

use crate::deferred::Registered;
use crate::error::{Error, Result};
use crate::snapshot::Staged;
use crate::table::Table;

/// How often and how long a commit is retried after losing the compare-and-swap.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Tries in all (the first one included). 1 = no retry.
    pub max_attempts: u32,
    /// No new try starts after this long since the first.
    pub deadline: Duration,
    /// The wait bound after the first failure; it doubles after each further one...
    pub base_delay: Duration,
    /// ...up to this bound.
    pub max_delay: Duration,
}

impl RetryPolicy {
    /// The direct-append policy, the Python tool's: 6 tries, 300 s, 0.2 s doubling to 8 s.
    pub fn direct_append() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 6,
            deadline: Duration::from_secs(300),
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(8),
        }
    }

    /// One try, no retry.
    pub fn no_retry() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::direct_append()
        }
    }

    /// The bound of the wait after the `failures`-th failure: min(max, base·2^(failures−1)).
    pub fn delay_bound(&self, failures: u32) -> Duration {
        let exponent = failures.saturating_sub(1).min(30);
        self.base_delay
            .saturating_mul(1u32 << exponent)
            .min(self.max_delay)
    }

    /// A wait drawn uniformly from [0, [`RetryPolicy::delay_bound`]].
    pub fn delay(&self, failures: u32) -> Duration {
        let (random, _) = Uuid::new_v4().as_u64_pair();
        let fraction = (random >> 11) as f64 / (1u64 << 53) as f64;
        self.delay_bound(failures).mul_f64(fraction)
    }
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy::direct_append()
    }
}

/// What a commit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitResult {
    /// `ns.t`.
    pub table: String,
    /// The snapshot added.
    pub snapshot_id: i64,
    /// The operation it records (`append` or `overwrite`; an overwrite of an empty table is an
    /// `append`).
    pub operation: String,
    /// The table's metadata file after the commit.
    pub metadata_location: String,
    /// Rows of the snapshot the commit was built on (`total-records`).
    pub rows_before: u64,
    /// Rows after the commit (`total-records` of the new snapshot).
    pub rows_after: u64,
    /// Rows added.
    pub rows_written: u64,
    /// Tries used (1 when the first compare-and-swap won).
    pub attempts: u32,
}

/// Stages with `stage` on `table` and commits, retrying as `policy` says. On success `table`
/// is the committed table; on failure it is the last version seen and every staged file is
/// deleted. `operation` names the work in messages (`direct append`).
pub(crate) fn commit_with_retries(
    catalog: &Catalog,
    table: &mut Table,
    operation: &str,
    policy: &RetryPolicy,
    mut stage: impl FnMut(&Table) -> Result<Staged>,
) -> Result<CommitResult> {
    commit_unless_unchanged(catalog, table, operation, policy, |base| {
        stage(base).map(Some)
    })?
    .ok_or_else(|| {
        Error::corrupt(
            table.identifier(),
            format!("the {operation} staged no snapshot"),
        )
    })
}

/// [`commit_with_retries`] for work that may find nothing to change: `stage` gives `None` and
/// nothing is committed (`Ok(None)`), as an upsert whose rows are all in the table already.
pub(crate) fn commit_unless_unchanged(
    catalog: &Catalog,
    table: &mut Table,
    operation: &str,
    policy: &RetryPolicy,
    mut stage: impl FnMut(&Table) -> Result<Option<Staged>>,
) -> Result<Option<CommitResult>> {
    let started = Instant::now();
    let mut attempts = 0;
    loop {
        attempts += 1;
        let rows_before = table.total_records();
        let Some(staged) = stage(table)? else {
            return Ok(None);
        };
        let registered = if table.is_pending() {
            crate::deferred::register_for_commit(catalog, table, &staged)?
        } else {
            Registered::AsPlanned
        };
        let outcome = match registered {
            Registered::WithSnapshot => Ok(None),
            Registered::AsPlanned => crate::catalog_commit::commit(
                catalog,
                table,
                &staged.metadata_location,
                &staged.metadata,
                &staged.commit,
            ),
            Registered::Moved => {
                // Not a lost race of ours: stage again on the table as the catalog has it.
                drop(staged);
                attempts -= 1;
                continue;
            }
        };
        let snapshot_id = staged.snapshot_id;
        match outcome {
            Ok(adopted) => {
                let (prepared, metadata, commit) = staged.keep();
                let (metadata_location, metadata) = adopted.unwrap_or((prepared, metadata));
                table.advance(metadata_location.clone(), metadata, commit);
                let (rows_after, rows_written, operation) = table
                    .current_snapshot()
                    .map(|s| {
                        (
                            crate::table::summary_count(s, "total-records"),
                            crate::table::summary_count(s, "added-records"),
                            s.summary().operation.as_str().to_string(),
                        )
                    })
                    .unwrap_or((0, 0, Operation::Append.as_str().to_string()));
                tracing::debug!(
                    table = table.identifier(),
                    snapshot_id,
                    attempts,
                    "committed"
                );
                return Ok(Some(CommitResult {
                    table: table.identifier().to_string(),
                    snapshot_id,
                    operation,
                    metadata_location,
                    rows_before,
                    rows_after,
                    rows_written,
                    attempts,
                }));
            }
            Err(error) if error.is_retryable() => {
                drop(staged);
                let out_of_time = started.elapsed() >= policy.deadline;
                if attempts >= policy.max_attempts || out_of_time {
                    if policy.max_attempts <= 1 {
                        return Err(error);
                    }
                    return Err(Error::RetriesExhausted {
                        table: table.identifier().to_string(),
                        operation: operation.to_string(),
                        attempts,
                        source: Box::new(error),
                    });
                }
                let wait = policy.delay(attempts);
                tracing::info!(
                    table = table.identifier(),
                    attempts,
                    wait_ms = wait.as_millis() as u64,
                    %error,
                    "commit lost the race; retrying on the new head"
                );
                std::thread::sleep(wait);
                table.refresh(catalog)?;
            }
            Err(error) => return Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::{SnapshotPlan, produce};
    use crate::{Append, DataWriter, WriterOptions};
    use arrow_array::{Int64Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};
    use std::collections::BTreeMap;
    use std::sync::Arc;

    fn batch(start: i64) -> RecordBatch {
        let schema = Schema::new(vec![Field::new("id", DataType::Int64, true)]);
        RecordBatch::try_new(
            Arc::new(schema),
            vec![Arc::new(Int64Array::from(vec![start, start + 1]))],
        )
        .expect("batch")
    }

    fn files_in(dir: &std::path::Path) -> usize {
        ["data", "metadata"]
            .iter()
            .filter_map(|sub| std::fs::read_dir(dir.join(sub)).ok())
            .map(Iterator::count)
            .sum()
    }

    /// A competitor commits before every one of our compare-and-swaps: the retries run out,
    /// the error says so, and none of our staged files stay.
    #[test]
    fn retries_run_out_with_the_reference_message() {
        let dir = tempfile::tempdir().expect("temp dir");
        let catalog = Catalog::open(
            dir.path().join("nyc_catalog.db"),
            "nyc",
            ldp_catalog::Mode::Create,
        )
        .expect("catalog");
        let location = dir.path().join("nyc").join("t");
        let mut table =
            Table::create(&catalog, "nyc", "t", &batch(0).schema(), &location).expect("create");
        let mut competitor = table.clone();
        let policy = RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(2),
            ..RetryPolicy::direct_append()
        };
        let properties = BTreeMap::new();
        let mut competitor_files = 0;
        let error = commit_with_retries(&catalog, &mut table, "direct append", &policy, |base| {
            let mut writer = DataWriter::new(&competitor, &WriterOptions::default())?;
            writer.write(&batch(10))?;
            competitor.refresh(&catalog)?;
            Append::new(writer.finish()?).commit(&catalog, &mut competitor)?;
            competitor_files = files_in(&location);
            produce(
                base,
                SnapshotPlan {
                    operation: Operation::Append,
                    added: &[],
                    deleted: Vec::new(),
                    existing: Vec::new(),
                    kept: Vec::new(),
                    properties: &properties,
                    schema: None,
                },
            )
        })
        .expect_err("every try loses");
        assert!(
            matches!(error, Error::RetriesExhausted { attempts: 3, .. }),
            "{error:?}"
        );
        assert!(
            error
                .to_string()
                .starts_with("CommitConflict: direct append to nyc.t lost the commit race on every try, after 3 attempts"),
            "{error}"
        );
        assert!(!error.is_retryable());
        assert_eq!(files_in(&location), competitor_files);
        assert_eq!(table.total_records(), 4);
    }

    #[test]
    fn delays_double_up_to_the_cap() {
        let policy = RetryPolicy::direct_append();
        assert_eq!(policy.delay_bound(1), Duration::from_millis(200));
        assert_eq!(policy.delay_bound(2), Duration::from_millis(400));
        assert_eq!(policy.delay_bound(6), Duration::from_millis(6400));
        assert_eq!(policy.delay_bound(7), Duration::from_secs(8));
        assert_eq!(policy.delay_bound(100), Duration::from_secs(8));
        for failures in 1..8 {
            assert!(policy.delay(failures) <= policy.delay_bound(failures));
        }
    }
}
