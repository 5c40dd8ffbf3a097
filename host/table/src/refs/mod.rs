//! Branches and tags: the staged publish (`docs/exactly-once.md`) writes a run's snapshot to a
//! branch of its own, then moves `main` to it in one compare-and-swap; a new attempt of a run
//! fences the older ones with a tag. One operation per file:
//!
//! * [`create_branch`] / [`drop_branch`] (branch.rs): a staging branch at `main`'s head, and
//!   its removal when a staged write is abandoned;
//! * [`publish_branch`] (publish.rs): `main` → the branch's snapshot, the branch removed;
//! * [`fence`] (fence.rs): older attempts' branches removed and a fence tag added;
//! * held.rs: the snapshots a removed branch takes with it;
//! * [`create_tag`] (tag.rs): a tag on one snapshot (pinned dataset versions);
//! * [`find_keyed`] (search.rs): the bounded walk of `main`'s ancestry for a snapshot carrying
//!   an idempotency key.
//!
//! Every operation asserts what it expects (the catalog's compare-and-swap is on the metadata
//! file, so any other commit in between makes it fail) and checks its requirements against
//! the table as the catalog has it now: a requirement that does not hold is
//! [`Error::RefConflict`] (retryable: reload and decide again), except a fence tag, which is
//! [`Error::Fenced`] (never retryable: a newer attempt of the run owns the window).

mod branch;
mod fence;
mod held;
mod publish;
mod search;
mod tag;

pub use branch::{create_branch, drop_branch};
pub use fence::{FENCE_TAG_MAX_AGE_MS, fence};
pub use publish::{Publish, publish_branch};
pub use search::{IDEMPOTENCY_KEY, KeySearch, SearchOutcome, find_keyed, keyed_snapshots};
pub use tag::create_tag;

use iceberg::TableRequirement;
use iceberg::spec::{MAIN_BRANCH, TableMetadata, TableMetadataBuilder};
use ldp_catalog::Catalog;

use crate::error::{Error, Result};
use crate::files::FileGuard;
use crate::location::next_metadata_file;
use crate::table::{Table, write_metadata};
use crate::table_commit::TableCommit;

/// What a ref operation requires of the table before it changes it.
#[derive(Debug, Clone, Default)]
pub struct Requirements {
    /// `main` is at this snapshot (`Some(None)`: `main` has no snapshot).
    pub main: Option<Option<i64>>,
    /// Each branch points at the snapshot (`None`: the ref must not exist).
    pub refs: Vec<(String, Option<i64>)>,
    /// The table's current schema id.
    pub schema_id: Option<i32>,
    /// Refs that must not exist; a fence tag among them makes the failure [`Error::Fenced`].
    pub fence_tag: Option<String>,
    /// The table's UUID (a table dropped and created again under the same name fails it).
    pub table_uuid: Option<uuid::Uuid>,
}

impl Requirements {
    /// Checks the requirements against `table` as loaded.
    pub fn check(&self, table: &Table, operation: &str) -> Result<()> {
        let conflict = |message: String| Error::RefConflict {
            table: table.identifier().to_string(),
            operation: operation.to_string(),
            message,
        };
        if let Some(tag) = &self.fence_tag
            && table.ref_snapshot_id(tag).is_some()
        {
            return Err(Error::Fenced {
                table: table.identifier().to_string(),
                tag: tag.clone(),
            });
        }
        if let Some(main) = self.main {
            let actual = table.main_snapshot().map(|s| s.snapshot_id());
            if actual != main {
                return Err(conflict(format!(
                    "main is at {} instead of {}",
                    show(actual),
                    show(main)
                )));
            }
        }
        for (name, expected) in &self.refs {
            let actual = table.ref_snapshot_id(name);
            if actual != *expected {
                return Err(conflict(format!(
                    "ref {name} is at {} instead of {}",
                    show(actual),
                    show(*expected)
                )));
            }
        }
        if let Some(expected) = self.table_uuid {
            let actual = table.metadata().uuid();
            if actual != expected {
                return Err(conflict(format!(
                    "the table's UUID is {actual} instead of {expected}"
                )));
            }
        }
        if let Some(schema_id) = self.schema_id {
            let actual = table.metadata().current_schema_id();
            if actual != schema_id {
                return Err(conflict(format!(
                    "the current schema is {actual} instead of {schema_id}"
                )));
            }
        }
        Ok(())
    }
}

impl Requirements {
    /// The same requirements as the REST spec states them (a fence tag is a tag that must not
    /// exist).
    pub fn to_iceberg(&self) -> Vec<TableRequirement> {
        let mut out = Vec::new();
        if let Some(uuid) = self.table_uuid {
            out.push(TableRequirement::UuidMatch { uuid });
        }
        let refs = self
            .main
            .map(|main| (MAIN_BRANCH.to_string(), main))
            .into_iter()
            .chain(self.refs.iter().cloned())
            .chain(self.fence_tag.iter().map(|tag| (tag.clone(), None)));
        out.extend(refs.map(
            |(r#ref, snapshot_id)| TableRequirement::RefSnapshotIdMatch { r#ref, snapshot_id },
        ));
        if let Some(current_schema_id) = self.schema_id {
            out.push(TableRequirement::CurrentSchemaIdMatch { current_schema_id });
        }
        out
    }
}

fn show(id: Option<i64>) -> String {
    id.map_or_else(|| "no snapshot".to_string(), |id| id.to_string())
}

/// Reloads `table`, checks `requirements`, applies `edit` to its metadata and commits the new
/// metadata file with the catalog's compare-and-swap. On success `table` is the new version;
/// on failure nothing is left behind (the metadata file written is deleted).
pub(crate) fn commit_edit(
    catalog: &Catalog,
    table: &mut Table,
    operation: &str,
    requirements: &Requirements,
    edit: impl FnOnce(TableMetadataBuilder) -> iceberg::Result<TableMetadataBuilder>,
) -> Result<()> {
    commit_edit_then(catalog, table, operation, requirements, edit, Ok)
}

/// As [`commit_edit`], with `finish` applied to the built metadata before it is written (for
/// changes iceberg-rust's builder cannot make, such as snapshot expiry's parent links).
pub(crate) fn commit_edit_then(
    catalog: &Catalog,
    table: &mut Table,
    operation: &str,
    requirements: &Requirements,
    edit: impl FnOnce(TableMetadataBuilder) -> iceberg::Result<TableMetadataBuilder>,
    finish: impl FnOnce(TableMetadata) -> Result<TableMetadata>,
) -> Result<()> {
    table.refresh(catalog)?;
    requirements.check(table, operation)?;
    let identifier = table.identifier().to_string();
    let metadata = table.metadata().clone();
    let builder = metadata.into_builder(Some(table.metadata_location().to_string()));
    let (next, updates) = edit(builder)
        .and_then(crate::table_commit::build)
        .map_err(|source| Error::iceberg(&identifier, format!("cannot {operation}"), source))?;
    let next = finish(next)?;
    let commit = TableCommit {
        requirements: requirements.to_iceberg(),
        updates,
    };
    let location = next_metadata_file(next.location(), Some(table.metadata_location()));
    let mut files = FileGuard::new(&identifier);
    files.push(location.clone());
    write_metadata(&identifier, &next, &location)?;
    let adopted = crate::catalog_commit::commit(catalog, table, &location, &next, &commit)?;
    let (location, next) = adopted.unwrap_or((location, next));
    files.keep();
    table.advance(location, next, commit);
    Ok(())
}
