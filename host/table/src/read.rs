//! Reading a table back: its snapshots, the data files of a snapshot, and a simple full read
//! of a snapshot's rows (for tests and small tables; the SQL layer scans with DataFusion).

use std::collections::BTreeMap;
use std::fs::File;

use arrow_array::RecordBatch;
use iceberg::spec::{
    DataFile, ManifestContentType, ManifestEntry, ManifestFile, ManifestList, SnapshotRef,
};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::error::{Error, Result};
use crate::files::block_on;
use crate::location::local_path;
use crate::table::Table;

/// One snapshot of a table, as `ldp` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotInfo {
    /// The snapshot id.
    pub snapshot_id: i64,
    /// Its parent, if any.
    pub parent_snapshot_id: Option<i64>,
    /// The table's sequence number when it was committed.
    pub sequence_number: i64,
    /// Commit time, milliseconds since the epoch.
    pub timestamp_ms: i64,
    /// `append`, `overwrite`, `delete` or `replace`.
    pub operation: String,
    /// The summary properties (without `operation`).
    pub summary: BTreeMap<String, String>,
    /// The manifest list file.
    pub manifest_list: String,
}

impl SnapshotInfo {
    fn of(snapshot: &SnapshotRef) -> SnapshotInfo {
        SnapshotInfo {
            snapshot_id: snapshot.snapshot_id(),
            parent_snapshot_id: snapshot.parent_snapshot_id(),
            sequence_number: snapshot.sequence_number(),
            timestamp_ms: snapshot.timestamp_ms(),
            operation: snapshot.summary().operation.as_str().to_string(),
            summary: snapshot
                .summary()
                .additional_properties
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            manifest_list: snapshot.manifest_list().to_string(),
        }
    }

    /// A count in the summary (`total-records`, `added-data-files`, ...); 0 when absent.
    pub fn count(&self, key: &str) -> u64 {
        self.summary
            .get(key)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }
}

impl Table {
    /// Every snapshot the metadata keeps, oldest first.
    pub fn snapshots(&self) -> Vec<SnapshotInfo> {
        let mut snapshots: Vec<SnapshotInfo> =
            self.metadata().snapshots().map(SnapshotInfo::of).collect();
        snapshots.sort_by_key(|s| (s.sequence_number, s.timestamp_ms, s.snapshot_id));
        snapshots
    }

    /// One snapshot.
    pub fn snapshot(&self, snapshot_id: i64) -> Result<SnapshotInfo> {
        self.snapshot_ref(snapshot_id).map(SnapshotInfo::of)
    }

    fn snapshot_ref(&self, snapshot_id: i64) -> Result<&SnapshotRef> {
        self.metadata()
            .snapshot_by_id(snapshot_id)
            .ok_or_else(|| Error::SnapshotNotFound {
                table: self.identifier().to_string(),
                snapshot_id,
            })
    }

    /// The snapshot asked for, or the current one (`None` when the table has no snapshot).
    fn resolve(&self, snapshot_id: Option<i64>) -> Result<Option<&SnapshotRef>> {
        match snapshot_id {
            Some(id) => self.snapshot_ref(id).map(Some),
            None => Ok(self.current_snapshot()),
        }
    }

    /// The live data files of a snapshot (default: the current one), with their statistics.
    pub fn data_files(&self, snapshot_id: Option<i64>) -> Result<Vec<DataFile>> {
        let Some(snapshot) = self.resolve(snapshot_id)? else {
            return Ok(Vec::new());
        };
        let manifests = self.manifest_list(snapshot)?;
        Ok(self
            .live_entries(&manifests, ManifestContentType::Data)?
            .into_iter()
            .map(|entry| entry.data_file)
            .collect())
    }

    /// The paths (`file://` URIs) of [`Table::data_files`].
    pub fn data_file_paths(&self, snapshot_id: Option<i64>) -> Result<Vec<String>> {
        Ok(self
            .data_files(snapshot_id)?
            .iter()
            .map(|f| f.file_path().to_string())
            .collect())
    }

    /// Every row of a snapshot (default: the current one), file by file, as Parquet stores it.
    pub fn read_all(&self, snapshot_id: Option<i64>) -> Result<Vec<RecordBatch>> {
        let mut batches = Vec::new();
        for file in self.data_files(snapshot_id)? {
            let uri = file.file_path();
            let path = local_path(self.identifier(), uri)?;
            let handle =
                File::open(&path).map_err(|e| Error::io(self.identifier(), "open", &path, e))?;
            let parquet = |source| Error::Parquet {
                table: self.identifier().to_string(),
                action: "read",
                path: uri.to_string(),
                source: Box::new(source),
            };
            let reader = ParquetRecordBatchReaderBuilder::try_new(handle)
                .and_then(|b| b.build())
                .map_err(parquet)?;
            for batch in reader {
                batches.push(batch.map_err(|e| parquet(e.into()))?);
            }
        }
        Ok(batches)
    }

    /// The manifests listed by a snapshot's manifest list.
    pub(crate) fn manifest_list(&self, snapshot: &SnapshotRef) -> Result<Vec<ManifestFile>> {
        let path = snapshot.manifest_list();
        let bytes =
            block_on(async { self.file_io().new_input(path)?.read().await }).map_err(|source| {
                Error::iceberg(
                    self.identifier(),
                    format!("cannot read the manifest list {path}"),
                    source,
                )
            })?;
        let list = ManifestList::parse_with_version(&bytes, self.metadata().format_version())
            .map_err(|source| {
                Error::iceberg(
                    self.identifier(),
                    format!("cannot parse the manifest list {path}"),
                    source,
                )
            })?;
        Ok(list.consume_entries().into_iter().collect())
    }

    /// The live (added or existing) entries of the manifests of one content type, with their
    /// inherited sequence numbers.
    pub(crate) fn live_entries(
        &self,
        manifests: &[ManifestFile],
        content: ManifestContentType,
    ) -> Result<Vec<ManifestEntry>> {
        let mut entries = Vec::new();
        for manifest in manifests.iter().filter(|m| m.content == content) {
            let loaded = block_on(manifest.load_manifest(self.file_io())).map_err(|source| {
                Error::iceberg(
                    self.identifier(),
                    format!("cannot read the manifest {}", manifest.manifest_path),
                    source,
                )
            })?;
            let (manifest_entries, _) = loaded.into_parts();
            entries.extend(
                manifest_entries
                    .into_iter()
                    .filter(|e| e.is_alive())
                    .map(|e| e.as_ref().clone()),
            );
        }
        Ok(entries)
    }
}
