//! The snapshot producer: from a base table, the files to add, the entries to mark deleted, the
//! entries and manifests to carry over, it writes the manifests, the manifest list and the next
//! metadata file, as iceberg-rust's `SnapshotProducer` does (it is not public in 0.10; this one
//! is built on the public `ManifestWriter`, `ManifestListWriter`, `Snapshot` and
//! `TableMetadataBuilder`).
//!
//! The summary is the one Iceberg and pyiceberg write: the collector's `added-*`, `deleted-*`
//! and `removed-*` counts (only when positive), every `total-*` (previous total + added −
//! removed), and the caller's properties.
//!
//! Manifests of the base that list no live file (only entries marked deleted) are not carried
//! into the new snapshot.
//!
//! Every file written is tracked in a [`Staged`]; unless the commit succeeds, they are deleted.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use iceberg::spec::{
    DataFile, FormatVersion, ManifestEntry, ManifestFile, ManifestListWriter,
    ManifestWriterBuilder, Operation, Schema, Snapshot, SnapshotSummaryCollector, Summary,
    TableMetadata,
};
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::files::{FileGuard, block_on};
use crate::location::{manifest_file, manifest_list_file, next_metadata_file};
use crate::read::lists_live_files;
use crate::table::{Table, write_metadata};
use crate::table_commit::{self, TableCommit};

/// Sequence number -1: "assigned at commit" — an added entry inherits its manifest's.
const INHERIT_SEQUENCE_NUMBER: i64 = -1;

/// The `total-*` summary keys with their added and removed counterparts.
const TOTALS: [(&str, &str, &str); 6] = [
    ("total-data-files", "added-data-files", "deleted-data-files"),
    (
        "total-delete-files",
        "added-delete-files",
        "removed-delete-files",
    ),
    ("total-records", "added-records", "deleted-records"),
    ("total-files-size", "added-files-size", "removed-files-size"),
    (
        "total-position-deletes",
        "added-position-deletes",
        "removed-position-deletes",
    ),
    (
        "total-equality-deletes",
        "added-equality-deletes",
        "removed-equality-deletes",
    ),
];

/// What one new snapshot does to its base.
pub(crate) struct SnapshotPlan<'a> {
    /// `append` or `overwrite`.
    pub operation: Operation,
    /// New data files (an `ADDED` manifest).
    pub added: &'a [DataFile],
    /// Live entries of the base to mark `DELETED` (with their sequence numbers).
    pub deleted: Vec<ManifestEntry>,
    /// Live entries of the base carried over into a new manifest as `EXISTING` (the other
    /// entries of a manifest some of whose files are deleted).
    pub existing: Vec<ManifestEntry>,
    /// Manifests of the base carried over unchanged.
    pub kept: Vec<ManifestFile>,
    /// Extra summary properties (`ldp.*`, ...).
    pub properties: &'a BTreeMap<String, String>,
    /// A schema evolved for the data (new columns, widened types), made current in the same
    /// metadata as the snapshot.
    pub schema: Option<&'a Schema>,
}

/// A snapshot written to disk but not committed yet; its files are deleted on drop unless
/// [`Staged::keep`] is called.
pub(crate) struct Staged {
    /// The new metadata.
    pub metadata: TableMetadata,
    /// Its file.
    pub metadata_location: String,
    /// The new snapshot.
    pub snapshot_id: i64,
    /// The write as updates and requirements.
    pub commit: TableCommit,
    files: FileGuard,
}

impl Staged {
    /// The commit succeeded: the files belong to the table. Returns the metadata file and
    /// the metadata.
    pub fn keep(self) -> (String, TableMetadata, TableCommit) {
        let Staged {
            metadata,
            metadata_location,
            commit,
            mut files,
            ..
        } = self;
        files.keep();
        (metadata_location, metadata, commit)
    }
}

/// Writes the manifests, manifest list and metadata file of `plan` on top of `base`.
pub(crate) fn produce(base: &Table, plan: SnapshotPlan<'_>) -> Result<Staged> {
    let table = base.identifier();
    let metadata = base.metadata();
    if metadata.format_version() != FormatVersion::V2 {
        return Err(Error::unsupported(
            table,
            format!(
                "the table has format version {}; ldp writes format version 2 tables only",
                metadata.format_version()
            ),
        ));
    }
    let mut files = FileGuard::new(table);
    let snapshot_id = unique_snapshot_id(metadata);
    let commit_uuid = Uuid::new_v4();
    let sequence_number = metadata.next_sequence_number();
    let parent = base.current_snapshot_id();
    if let Some(evolved) = plan.schema
        && !crate::evolve::still_fits(metadata.current_schema(), evolved)
    {
        return Err(Error::schema(
            table,
            "the table's schema changed while this run was writing (another writer added columns); \
             nothing was committed: run again",
        ));
    }
    let schema =
        match plan.schema {
            Some(evolved) => Arc::new(schema_in(metadata, evolved).map_err(|source| {
                Error::iceberg(table, "cannot build the evolved schema", source)
            })?),
            None => metadata.current_schema().clone(),
        };
    let spec = metadata.default_partition_spec().as_ref().clone();
    let location = metadata.location();

    let mut collector = SnapshotSummaryCollector::default();
    let mut manifests = Vec::new();
    let mut manifest_number = 0;
    if !plan.added.is_empty() {
        let path = manifest_file(location, &commit_uuid, manifest_number);
        manifest_number += 1;
        let output = output(base, &path)?;
        files.push(path.clone());
        let mut writer =
            ManifestWriterBuilder::new(output, Some(snapshot_id), schema.clone(), spec.clone())
                .build_v2_data();
        for file in plan.added {
            collector.add_file(
                file,
                schema.clone(),
                metadata.default_partition_spec().clone(),
            );
            writer
                .add_file(file.clone(), INHERIT_SEQUENCE_NUMBER)
                .map_err(|source| {
                    Error::iceberg(
                        table,
                        format!("cannot add {} to the manifest {path}", file.file_path()),
                        source,
                    )
                })?;
        }
        manifests.push(block_on(writer.write_manifest_file()).map_err(|source| {
            Error::iceberg(table, format!("cannot write the manifest {path}"), source)
        })?);
    }
    if !plan.deleted.is_empty() {
        let path = manifest_file(location, &commit_uuid, manifest_number);
        manifest_number += 1;
        let output = output(base, &path)?;
        files.push(path.clone());
        let mut writer =
            ManifestWriterBuilder::new(output, Some(snapshot_id), schema.clone(), spec.clone())
                .build_v2_data();
        for entry in plan.deleted {
            collector.remove_file(
                &entry.data_file,
                schema.clone(),
                metadata.default_partition_spec().clone(),
            );
            let Some(data_sequence_number) = entry.sequence_number else {
                return Err(Error::corrupt(
                    table,
                    format!(
                        "the manifest entry of {} has no sequence number",
                        entry.data_file.file_path()
                    ),
                ));
            };
            let file_path = entry.data_file.file_path().to_string();
            writer
                .add_delete_file(
                    entry.data_file,
                    data_sequence_number,
                    entry.file_sequence_number,
                )
                .map_err(|source| {
                    Error::iceberg(
                        table,
                        format!("cannot mark {file_path} deleted in {path}"),
                        source,
                    )
                })?;
        }
        manifests.push(block_on(writer.write_manifest_file()).map_err(|source| {
            Error::iceberg(table, format!("cannot write the manifest {path}"), source)
        })?);
    }
    if !plan.existing.is_empty() {
        let path = manifest_file(location, &commit_uuid, manifest_number);
        let output = output(base, &path)?;
        files.push(path.clone());
        let mut writer =
            ManifestWriterBuilder::new(output, Some(snapshot_id), schema.clone(), spec.clone())
                .build_v2_data();
        for entry in plan.existing {
            let (Some(added_by), Some(data_sequence_number)) =
                (entry.snapshot_id, entry.sequence_number)
            else {
                return Err(Error::corrupt(
                    table,
                    format!(
                        "the manifest entry of {} has no snapshot id or sequence number",
                        entry.data_file.file_path()
                    ),
                ));
            };
            let file_path = entry.data_file.file_path().to_string();
            writer
                .add_existing_file(
                    entry.data_file,
                    added_by,
                    data_sequence_number,
                    entry.file_sequence_number,
                )
                .map_err(|source| {
                    Error::iceberg(
                        table,
                        format!("cannot carry {file_path} over into {path}"),
                        source,
                    )
                })?;
        }
        manifests.push(block_on(writer.write_manifest_file()).map_err(|source| {
            Error::iceberg(table, format!("cannot write the manifest {path}"), source)
        })?);
    }
    manifests.extend(plan.kept.into_iter().filter(lists_live_files));

    let list_path = manifest_list_file(location, snapshot_id, &commit_uuid);
    let list_output = output(base, &list_path)?;
    files.push(list_path.clone());
    let list_error = |source| {
        Error::iceberg(
            table,
            format!("cannot write the manifest list {list_path}"),
            source,
        )
    };
    let file_write = block_on(list_output.writer()).map_err(list_error)?;
    let mut list_writer = ManifestListWriter::v2(file_write, snapshot_id, parent, sequence_number);
    list_writer
        .add_manifests(manifests.into_iter())
        .map_err(list_error)?;
    block_on(list_writer.close()).map_err(list_error)?;

    let summary = summary(
        plan.operation,
        &collector,
        base.current_snapshot().map(|s| s.summary()),
        plan.properties,
    );
    let snapshot = Snapshot::builder()
        .with_snapshot_id(snapshot_id)
        .with_parent_snapshot_id(parent)
        .with_sequence_number(sequence_number)
        .with_timestamp_ms(now_ms())
        .with_manifest_list(list_path.clone())
        .with_summary(summary)
        .with_schema_id(schema.schema_id())
        .build();
    let mut builder = metadata
        .clone()
        .into_builder(Some(base.metadata_location().to_string()));
    if plan.schema.is_some() && schema.schema_id() != metadata.current_schema_id() {
        builder = builder
            .add_current_schema(schema.as_ref().clone())
            .map_err(|source| Error::iceberg(table, "cannot add the evolved schema", source))?;
    }
    let (next, updates) = builder
        .set_branch_snapshot(snapshot, base.branch())
        .and_then(table_commit::build)
        .map_err(|source| {
            Error::iceberg(
                table,
                format!("cannot add snapshot {snapshot_id} to the metadata"),
                source,
            )
        })?;
    let commit = TableCommit {
        requirements: table_commit::snapshot_requirements(
            metadata,
            base.branch(),
            base.ref_snapshot_id(base.branch()),
            plan.schema.is_some(),
        ),
        updates,
    };
    let metadata_location = next_metadata_file(location, Some(base.metadata_location()));
    files.push(metadata_location.clone());
    write_metadata(table, &next, &metadata_location)?;
    Ok(Staged {
        metadata: next,
        metadata_location,
        snapshot_id,
        commit,
        files,
    })
}

/// `schema` with the id the metadata gives it: an identical schema's id, else one above the
/// highest (as the metadata builder assigns it, so the snapshot names the schema it gets).
fn schema_in(metadata: &TableMetadata, schema: &Schema) -> iceberg::Result<Schema> {
    let same = |other: &Schema| {
        other.as_struct() == schema.as_struct()
            && other
                .identifier_field_ids()
                .eq(schema.identifier_field_ids())
    };
    let id = metadata
        .schemas_iter()
        .find(|s| same(s))
        .map(|s| s.schema_id())
        .unwrap_or_else(|| {
            metadata
                .schemas_iter()
                .map(|s| s.schema_id())
                .max()
                .unwrap_or(metadata.current_schema_id())
                + 1
        });
    Schema::builder()
        .with_schema_id(id)
        .with_fields(schema.as_struct().fields().to_vec())
        .with_identifier_field_ids(schema.identifier_field_ids())
        .build()
}

fn output(base: &Table, path: &str) -> Result<iceberg::io::OutputFile> {
    base.file_io()
        .new_output(path)
        .map_err(|source| Error::iceberg(base.identifier(), format!("cannot open {path}"), source))
}

/// The summary of a new snapshot (see the module docs).
fn summary(
    operation: Operation,
    collector: &SnapshotSummaryCollector,
    previous: Option<&Summary>,
    properties: &BTreeMap<String, String>,
) -> Summary {
    let mut additional: HashMap<String, String> = properties.clone().into_iter().collect();
    let counts = collector.build();
    let count = |key: &str| {
        counts
            .get(key)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    for (total, added, removed) in TOTALS {
        let before = previous
            .and_then(|p| p.additional_properties.get(total))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        let after = before
            .saturating_add(count(added))
            .saturating_sub(count(removed));
        additional.insert(total.to_string(), after.to_string());
    }
    additional.extend(counts);
    Summary {
        operation,
        additional_properties: additional,
    }
}

/// A positive snapshot id not used by the table yet (iceberg-rust's recipe: two UUID halves
/// xor-ed).
fn unique_snapshot_id(metadata: &TableMetadata) -> i64 {
    loop {
        let (high, low) = Uuid::new_v4().as_u64_pair();
        let id = ((high ^ low) & (i64::MAX as u64)) as i64;
        if id != 0 && metadata.snapshot_by_id(id).is_none() {
            return id;
        }
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_add_and_remove() {
        let previous = Summary {
            operation: Operation::Append,
            additional_properties: HashMap::from([
                ("total-records".to_string(), "10".to_string()),
                ("total-data-files".to_string(), "2".to_string()),
            ]),
        };
        let properties = BTreeMap::from([("ldp.run-id".to_string(), "r".to_string())]);
        let out = summary(
            Operation::Append,
            &SnapshotSummaryCollector::default(),
            Some(&previous),
            &properties,
        );
        let props = &out.additional_properties;
        assert_eq!(props["total-records"], "10");
        assert_eq!(props["total-data-files"], "2");
        assert_eq!(props["total-equality-deletes"], "0");
        assert_eq!(props["ldp.run-id"], "r");
        assert!(!props.contains_key("added-records"));
    }
}
