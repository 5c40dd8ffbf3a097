//! The commit interface: every write ldp makes is one [`TableCommit`], the Iceberg table updates
//! it makes to the metadata it was built on plus the requirements that metadata must still meet,
//! the body of the REST spec's `updateTable` request (`TableUpdate`, `TableRequirement`).
//!
//! A pointer-swap catalog (a SQLite file, PostgreSQL) lands a commit by writing the new metadata
//! file and moving the catalog's pointer with a compare-and-swap on the old one, which is
//! stronger than the requirements (any commit in between fails it). A REST catalog sends the
//! commit to its server, which checks the requirements; its `409` is the same retryable conflict
//! as a lost compare-and-swap. [`TableCommit::apply`] is what both do to the metadata.
//!
//! What the updates cannot say, a pointer-swap catalog still writes: snapshot expiry also
//! unlinks the expired snapshots from their children and keeps the snapshot log as pyiceberg
//! does (`expire.rs`); a REST server applies `remove-snapshots` its own way.

use iceberg::spec::{TableMetadata, TableMetadataBuilder};
use iceberg::{TableRequirement, TableUpdate};
use serde_json::{Value, json};

/// One write: what it requires of the table, and what it changes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableCommit {
    /// What the table must still be (checked atomically with the change).
    pub requirements: Vec<TableRequirement>,
    /// The changes, in order.
    pub updates: Vec<TableUpdate>,
}

impl TableCommit {
    /// The REST spec's `CommitTableRequest` for `namespace.name`.
    pub fn request_body(&self, namespace: &str, name: &str) -> Value {
        json!({
            "identifier": {"namespace": [namespace], "name": name},
            "requirements": self.requirements,
            "updates": self.updates,
        })
    }

    /// Checks the requirements against `base` (whose file is `base_location`), then applies the
    /// updates to it.
    ///
    /// # Errors
    ///
    /// A requirement `base` does not meet (iceberg's `CatalogCommitConflicts`), or an update the
    /// metadata builder refuses.
    pub fn apply(
        &self,
        base: &TableMetadata,
        base_location: &str,
    ) -> iceberg::Result<TableMetadata> {
        for requirement in &self.requirements {
            requirement.check(Some(base))?;
        }
        let mut builder = base.clone().into_builder(Some(base_location.to_string()));
        for update in &self.updates {
            builder = update.clone().apply(builder)?;
        }
        builder.build().map(|built| built.metadata)
    }
}

/// The requirements of a snapshot written on `base`'s `branch`: the same table, the branch where
/// it was (absent when it had no snapshot), and, when the write evolves the schema, the schema it
/// evolved from.
pub(crate) fn snapshot_requirements(
    base: &TableMetadata,
    branch: &str,
    parent: Option<i64>,
    evolves_schema: bool,
) -> Vec<TableRequirement> {
    let mut requirements = vec![
        TableRequirement::UuidMatch { uuid: base.uuid() },
        TableRequirement::RefSnapshotIdMatch {
            r#ref: branch.to_string(),
            snapshot_id: parent,
        },
    ];
    if evolves_schema {
        requirements.push(TableRequirement::CurrentSchemaIdMatch {
            current_schema_id: base.current_schema_id(),
        });
    }
    requirements
}

/// Builds `builder` and returns the new metadata with the updates that made it.
pub(crate) fn build(
    builder: TableMetadataBuilder,
) -> iceberg::Result<(TableMetadata, Vec<TableUpdate>)> {
    builder.build().map(|built| (built.metadata, built.changes))
}
