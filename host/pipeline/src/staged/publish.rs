//! The publish loop of a staged run, the Python tool's protocol (`docs/exactly-once.md`), in
//! the steps the functions below are numbered by:
//!
//! 0. Before the source is read, the key is looked for in `main`'s whole retained history;
//!    found, the run is a `skipped_duplicate`.
//! 1. Base: a table without a snapshot gets an empty `append` with `ldp.init=true`.
//! 2. Fence: attempts 1..attempt−1 of the run are fenced in one commit (their branches removed,
//!    a tag `ldp_r<hex>_a<k>_fenced` added).
//! 3. The stage number: one past the highest `_<n>` of this attempt's branches.
//! 4. Each cycle reloads the table and searches the key from `main`'s head back to the search
//!    start (found: a duplicate); this attempt's fence tag fails the run; past
//!    [`PublishPolicy`]'s cycles or deadline the run fails with a retryable conflict.
//! 5. Stage: a branch `ldp_r<hex>_a<attempt>_<n>` at `main`'s head, and the write on it in one
//!    commit.
//! 6. Publish: one compare-and-swap moves `main` to the staged snapshot and removes the branch,
//!    asserting `main`, the branch, the schema and the absence of the fence tag; a lost race
//!    waits and goes back to 4, re-staging on the new head.
//! 7. Once the key is on `main`, the other staging branches carrying it are removed
//!    ([`super::stale`]).

use std::time::Instant;

use arrow_array::RecordBatch;
use ldp_catalog::Catalog;
use ldp_table::{
    Append, DataFiles, Evolution, KeySearch, Overwrite, Publish, SearchOutcome, TOTAL_RECORDS,
    Table, Upsert, WindowFilter, WriterOptions, create_branch, drop_branch, fence, find_keyed,
    publish_branch,
};

use super::names::{attempt_prefix, branch_name, fence_tag, parse_branch, run_hex};
use super::stale::drop_branches_of_published_key;
use super::{INIT_PROPERTY, PublishPolicy, Staging};
use crate::error::{Error, Result};
use crate::report::{UpsertCounts, WriteResult};

/// What a staged run writes.
pub(crate) enum StagedData<'a> {
    /// Data files already written: appended, or replacing every row (`overwrite`).
    Files {
        /// The files (owned by the run: deleted if nothing publishes them).
        files: &'a DataFiles,
        /// Replace every row instead of appending.
        overwrite: bool,
        /// The schema evolution the files were written with.
        evolution: Option<&'a Evolution>,
        /// An overwrite replaces only the rows of this window.
        only_window: Option<&'a WindowFilter>,
    },
    /// Rows replacing the table's rows by key, worked out again on every base.
    Upsert {
        /// The rows.
        batches: &'a [RecordBatch],
        /// The key columns.
        join_cols: &'a [String],
        /// The schema evolution, when the rows bring new columns.
        evolution: Option<&'a Evolution>,
        /// How rewritten files are written.
        writer: &'a WriterOptions,
    },
}

impl StagedData<'_> {
    fn mode(&self) -> &'static str {
        match self {
            StagedData::Files {
                overwrite: false, ..
            } => "append",
            StagedData::Files {
                overwrite: true, ..
            } => "overwrite",
            StagedData::Upsert { .. } => "upsert",
        }
    }
}

/// A write staged on a branch, waiting to be published.
struct Pending {
    branch: String,
    base: i64,
    staged: i64,
    schema_id: i32,
    rows_written: u64,
    upsert: Option<UpsertCounts>,
}

/// Step 0: the key in `main`'s whole retained history, before the source is read. `mode` is
/// the write mode the run would have used (for the result).
pub(crate) fn already_published(
    table: &Table,
    staging: &Staging,
    mode: &str,
) -> Option<WriteResult> {
    let search = KeySearch {
        key: &staging.key,
        since_ms: None,
        max_depth: None,
    };
    match find_keyed(table, &search) {
        SearchOutcome::Found(found) => Some(duplicate(table, staging, mode, found.snapshot_id, 0)),
        _ => None,
    }
}

fn duplicate(
    table: &Table,
    staging: &Staging,
    mode: &str,
    snapshot_id: i64,
    attempts: u32,
) -> WriteResult {
    let rows = table.total_records();
    tracing::info!(
        "idempotency key '{}' is already published to {} (snapshot {snapshot_id}); nothing written",
        staging.key,
        table.identifier()
    );
    WriteResult {
        table_identifier: table.identifier().to_string(),
        mode: mode.to_string(),
        rows_written: 0,
        rows_before: rows,
        rows_after: rows,
        snapshot_id: Some(snapshot_id),
        branch: None,
        idempotency_key: Some(staging.key.clone()),
        attempts,
        skipped_duplicate: true,
        upsert: None,
    }
}

/// Steps 1–6: base, fence, stage, publish, until the key is on `main` (ours or another
/// writer's). `table` is the target on `main`; it is left at the latest version seen.
pub(crate) fn publish(
    catalog: &Catalog,
    table: &mut Table,
    staging: &Staging,
    data: &StagedData<'_>,
    policy: &PublishPolicy,
) -> Result<WriteResult> {
    let started = Instant::now();
    let mode = data.mode();
    ensure_base(catalog, table)?;
    fence_older_attempts(catalog, table, staging)?;
    let fence = fence_tag(&staging.run_id, staging.attempt);
    let mut n = next_stage_number(table, staging);
    let mut pending: Option<Pending> = None;
    let mut cycles = 0u32;
    loop {
        table.refresh(catalog)?;
        let search = KeySearch {
            key: &staging.key,
            since_ms: Some(staging.search_since_ms),
            max_depth: Some(policy.search_depth),
        };
        match find_keyed(table, &search) {
            SearchOutcome::Found(found) => {
                if let Some(p) = &pending
                    && p.staged == found.snapshot_id
                {
                    // Our own publish landed although its answer was lost.
                    let result = published(table, staging, mode, p, cycles);
                    drop_branches_of_published_key(catalog, table, &staging.key);
                    return Ok(result);
                }
                if let Some(p) = pending.take() {
                    abandon(catalog, table, &p.branch);
                }
                let result = duplicate(table, staging, mode, found.snapshot_id, cycles);
                drop_branches_of_published_key(catalog, table, &staging.key);
                return Ok(result);
            }
            SearchOutcome::Exhausted { reason } => {
                if let Some(p) = pending.take() {
                    abandon(catalog, table, &p.branch);
                }
                return Err(Error::SearchExhausted { message: reason });
            }
            SearchOutcome::NotFound => {}
        }
        if table.ref_snapshot_id(&fence).is_some() {
            return Err(ldp_table::Error::Fenced {
                table: table.identifier().to_string(),
                tag: fence.clone(),
            }
            .into());
        }
        if let Some(p) = &pending {
            if table.ref_snapshot_id(&p.branch).is_none() {
                return Err(ldp_table::Error::Fenced {
                    table: table.identifier().to_string(),
                    tag: fence.clone(),
                }
                .into());
            }
            if !publishable(table, p) {
                // main or the schema moved: this staged write can never publish.
                tracing::debug!(branch = %p.branch, "main moved; staging again on the new head");
                abandon(catalog, table, &p.branch);
                pending = None;
            }
        }
        cycles += 1;
        if cycles > policy.max_cycles || started.elapsed() > policy.deadline {
            if let Some(p) = pending.take() {
                abandon(catalog, table, &p.branch);
            }
            return Err(Error::PublishExhausted {
                mode: mode.to_string(),
                table: table.identifier().to_string(),
                key: staging.key.clone(),
                cycles: policy.max_cycles,
                deadline_s: policy.deadline.as_secs(),
                next_attempt: staging.attempt + 1,
            });
        }
        let current = match pending.take() {
            Some(p) => p,
            None => match stage(catalog, table, staging, data, n) {
                Ok(p) => {
                    n += 1;
                    p
                }
                Err(e) if e.is_retryable() => {
                    tracing::debug!("staging lost a race ({e}); trying again");
                    n += 1;
                    std::thread::sleep(backoff(policy, cycles));
                    continue;
                }
                Err(e) => return Err(e),
            },
        };
        let attempt = Publish {
            branch: &current.branch,
            base: current.base,
            staged: current.staged,
            schema_id: current.schema_id,
            fence_tag: &fence,
        };
        match publish_branch(catalog, table, &attempt) {
            Ok(()) => {
                tracing::info!(
                    "published {} to main of {} (snapshot {})",
                    current.branch,
                    table.identifier(),
                    current.staged
                );
                let result = published(table, staging, mode, &current, cycles);
                drop_branches_of_published_key(catalog, table, &staging.key);
                return Ok(result);
            }
            Err(e) if e.is_retryable() => {
                tracing::info!(
                    "publish of {} lost a race ({e}); checking again",
                    current.branch
                );
                pending = Some(current);
                std::thread::sleep(backoff(policy, cycles));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

fn published(
    table: &Table,
    staging: &Staging,
    mode: &str,
    p: &Pending,
    cycles: u32,
) -> WriteResult {
    let total = |id: i64| {
        table
            .metadata()
            .snapshot_by_id(id)
            .and_then(|s| {
                s.summary()
                    .additional_properties
                    .get(TOTAL_RECORDS)
                    .cloned()
            })
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    WriteResult {
        table_identifier: table.identifier().to_string(),
        mode: mode.to_string(),
        rows_written: p.rows_written,
        rows_before: total(p.base),
        rows_after: total(p.staged),
        snapshot_id: Some(p.staged),
        branch: Some(p.branch.clone()),
        idempotency_key: Some(staging.key.clone()),
        attempts: cycles,
        skipped_duplicate: false,
        upsert: p.upsert.clone(),
    }
}

fn publishable(table: &Table, p: &Pending) -> bool {
    table.main_snapshot().map(|s| s.snapshot_id()) == Some(p.base)
        && table.ref_snapshot_id(&p.branch) == Some(p.staged)
        && table.metadata().current_schema_id() == p.schema_id
}

fn backoff(policy: &PublishPolicy, cycles: u32) -> std::time::Duration {
    ldp_table::RetryPolicy {
        max_attempts: policy.max_cycles,
        deadline: policy.deadline,
        base_delay: policy.base_delay,
        max_delay: policy.max_delay,
    }
    .delay(cycles)
}

/// Step 1: a table without a snapshot gets an empty `append` with `ldp.init=true`, so there is
/// a base to branch from. Two writers doing it at once both land (they hold no rows).
fn ensure_base(catalog: &Catalog, table: &mut Table) -> Result<()> {
    if table.main_snapshot().is_some() {
        return Ok(());
    }
    let empty = DataFiles::from_files(table.identifier(), Vec::new());
    Append::new(empty)
        .allow_empty(true)
        .property(INIT_PROPERTY, "true")
        .commit(catalog, table)?;
    tracing::debug!(
        table = table.identifier(),
        "bootstrapped with an ldp.init snapshot"
    );
    Ok(())
}

/// Step 2: attempts 1..attempt−1 of the run fenced in one commit (retried 10 times).
fn fence_older_attempts(catalog: &Catalog, table: &mut Table, staging: &Staging) -> Result<()> {
    if staging.attempt <= 1 {
        return Ok(());
    }
    let hex = run_hex(&staging.run_id);
    let mut tries = 0;
    loop {
        tries += 1;
        table.refresh(catalog)?;
        let refs = table.refs();
        let branches: Vec<(String, i64)> = refs
            .iter()
            .filter(|(name, r)| {
                r.is_branch
                    && parse_branch(name).is_some_and(|(h, a, _)| h == hex && a < staging.attempt)
            })
            .map(|(name, r)| (name.clone(), r.snapshot_id))
            .collect();
        let tags: Vec<String> = (1..staging.attempt)
            .map(|older| fence_tag(&staging.run_id, older))
            .filter(|tag| !refs.contains_key(tag))
            .collect();
        match fence(catalog, table, &branches, &tags) {
            Ok(()) => {
                if !branches.is_empty() || !tags.is_empty() {
                    tracing::info!(
                        "fenced attempts before {} of run {}: removed branches {:?}, tags {:?}",
                        staging.attempt,
                        staging.run_id,
                        branches.iter().map(|(n, _)| n).collect::<Vec<_>>(),
                        tags
                    );
                }
                return Ok(());
            }
            Err(e) if e.is_retryable() && tries < 10 => {
                std::thread::sleep(std::time::Duration::from_millis(20 << tries.min(5)));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Step 3: one past the highest stage number this attempt's branches have.
fn next_stage_number(table: &Table, staging: &Staging) -> u32 {
    let prefix = format!("{}_", attempt_prefix(&staging.run_id, staging.attempt));
    table
        .refs()
        .keys()
        .filter(|name| name.starts_with(&prefix))
        .filter_map(|name| parse_branch(name).map(|(_, _, n)| n + 1))
        .max()
        .unwrap_or(0)
}

/// Step 5: a branch at `main`'s head, and the write on it in one commit.
fn stage(
    catalog: &Catalog,
    table: &mut Table,
    staging: &Staging,
    data: &StagedData<'_>,
    n: u32,
) -> Result<Pending> {
    let Some(base) = table.main_snapshot().map(|s| s.snapshot_id()) else {
        return Err(ldp_table::Error::RefConflict {
            table: table.identifier().to_string(),
            operation: "stage".into(),
            message: "main has no snapshot".into(),
        }
        .into());
    };
    let branch = branch_name(&staging.run_id, staging.attempt, n);
    create_branch(
        catalog,
        table,
        &branch,
        base,
        &fence_tag(&staging.run_id, staging.attempt),
    )?;
    let staged = write_on_branch(catalog, table, staging, data, &branch, base);
    if staged.is_err() {
        abandon(catalog, table, &branch);
    }
    staged
}

fn write_on_branch(
    catalog: &Catalog,
    table: &Table,
    staging: &Staging,
    data: &StagedData<'_>,
    branch: &str,
    base: i64,
) -> Result<Pending> {
    let mut on_branch = table.clone().on_branch(branch);
    if on_branch.current_snapshot_id() != Some(base) {
        return Err(ldp_table::Error::Fenced {
            table: table.identifier().to_string(),
            tag: fence_tag(&staging.run_id, staging.attempt),
        }
        .into());
    }
    let properties = staging.properties();
    let (rows_written, upsert) = match data {
        StagedData::Files {
            files,
            overwrite,
            evolution,
            only_window,
        } => {
            let result = if *overwrite {
                let mut op = Overwrite::new(files.borrowed()).properties(properties.clone());
                if let Some(filter) = only_window {
                    op = op.only_window((*filter).clone());
                }
                if let Some(e) = evolution {
                    op = op.schema(e.schema.clone());
                }
                op.commit(catalog, &mut on_branch)?
            } else {
                let mut op = Append::new(files.borrowed())
                    .allow_empty(true)
                    .properties(properties.clone());
                if let Some(e) = evolution {
                    op = op.schema(e.schema.clone());
                }
                op.commit(catalog, &mut on_branch)?
            };
            (result.rows_written, None)
        }
        StagedData::Upsert {
            batches,
            join_cols,
            evolution,
            writer,
        } => {
            let mut op = Upsert::new(table.identifier(), batches, join_cols)?
                .writer_options((*writer).clone())
                .properties(properties.clone());
            if let Some(e) = evolution {
                op = op.schema(e.schema.clone());
            }
            let result = op.commit(catalog, &mut on_branch)?;
            if result.commit.is_none() {
                // Nothing changed: an empty append records the key.
                Append::new(DataFiles::from_files(table.identifier(), Vec::new()))
                    .allow_empty(true)
                    .properties(properties.clone())
                    .commit(catalog, &mut on_branch)?;
            }
            let counts = UpsertCounts {
                rows_updated: result.rows_updated,
                rows_inserted: result.rows_inserted,
                rows_unchanged: result.rows_unchanged,
                snapshot_added: result.commit.is_some(),
                files_before: result.files_before,
                files_read: result.files_read,
                files_rewritten: result.files_rewritten,
                rows_rewritten: result.rows_rewritten,
            };
            (result.rows_written(), Some(counts))
        }
    };
    let Some(staged) = on_branch.current_snapshot_id() else {
        return Err(fenced_while_staging(table, branch, base));
    };
    if !descends(&on_branch, staged, base) {
        return Err(fenced_while_staging(table, branch, base));
    }
    Ok(Pending {
        branch: branch.to_string(),
        base,
        staged,
        schema_id: on_branch.metadata().current_schema_id(),
        rows_written,
        upsert,
    })
}

fn fenced_while_staging(table: &Table, branch: &str, base: i64) -> Error {
    ldp_table::Error::RefConflict {
        table: table.identifier().to_string(),
        operation: format!("stage on {branch}"),
        message: format!(
            "the branch no longer descends from base {base}: the attempt was fenced while staging"
        ),
    }
    .into()
}

/// Whether `staged` is a strict descendant of `base`.
fn descends(table: &Table, staged: i64, base: i64) -> bool {
    let metadata = table.metadata();
    let mut current = metadata.snapshot_by_id(staged);
    while let Some(snapshot) = current {
        match snapshot.parent_snapshot_id() {
            Some(parent) if parent == base => return true,
            Some(parent) => current = metadata.snapshot_by_id(parent),
            None => return false,
        }
    }
    false
}

/// Drops a staging branch; a failure is logged, never raised (maintenance removes leftovers).
fn abandon(catalog: &Catalog, table: &mut Table, branch: &str) {
    if let Err(e) = drop_branch(catalog, table, branch) {
        tracing::debug!("could not remove the staging branch {branch}: {e}");
    }
}
