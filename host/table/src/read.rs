//! Reading a table back: its snapshots, the data files of a snapshot, and a simple full read
//! of a snapshot's rows (for tests and small tables; the SQL layer scans with DataFusion).

use std::collections::BTreeMap;
use std::fs::File;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use iceberg::spec::{
    DataFile, ManifestContentType, ManifestEntry, ManifestFile, ManifestList, SnapshotRef,
};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::error::{Error, Result};
use crate::files::block_on;
use crate::io::is_object_location;
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
    pub(crate) fn of(snapshot: &SnapshotRef) -> SnapshotInfo {
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

    /// The newest snapshot committed at or before `as_of_ms` (milliseconds since the epoch),
    /// for `--as-of`.
    ///
    /// # Errors
    ///
    /// [`Error::NoSnapshotAsOf`] when every snapshot is newer (the message gives the oldest
    /// commit time), [`Error::NoSnapshots`] when the table has none.
    pub fn snapshot_as_of(&self, as_of_ms: i64) -> Result<SnapshotInfo> {
        let snapshots = self.snapshots();
        let Some(oldest) = snapshots.iter().min_by_key(|s| s.timestamp_ms) else {
            return Err(Error::NoSnapshots {
                table: self.identifier().to_string(),
            });
        };
        snapshots
            .iter()
            .filter(|s| s.timestamp_ms <= as_of_ms)
            .max_by_key(|s| (s.timestamp_ms, s.sequence_number))
            .cloned()
            .ok_or_else(|| Error::NoSnapshotAsOf {
                table: self.identifier().to_string(),
                as_of: utc_millis_text(as_of_ms),
                oldest: utc_millis_text(oldest.timestamp_ms),
            })
    }

    /// The Arrow schema of a snapshot (default: the current one): the schema the snapshot was
    /// written with, so time travel sees the columns of its day. A table without snapshots has
    /// its current schema.
    pub fn arrow_schema_at(&self, snapshot_id: Option<i64>) -> Result<SchemaRef> {
        let schema = match self.resolve(snapshot_id)? {
            Some(snapshot) => match snapshot.schema_id() {
                Some(id) => self
                    .metadata()
                    .schema_by_id(id)
                    .cloned()
                    .unwrap_or_else(|| self.schema().clone()),
                None => self.schema().clone(),
            },
            None => self.schema().clone(),
        };
        crate::schema::arrow_schema(self.identifier(), &schema)
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
            for batch in self.read_data_file(file.file_path(), None)? {
                batches.push(batch?);
            }
        }
        Ok(batches)
    }

    /// The rows of one data file (a `file://` URI), as Parquet stores them, in batches of
    /// `batch_rows` (default: the Parquet reader's 1024). The same file read twice with the same
    /// `batch_rows` gives the same batches.
    pub fn read_data_file(
        &self,
        uri: &str,
        batch_rows: Option<usize>,
    ) -> Result<impl Iterator<Item = Result<RecordBatch>> + use<>> {
        let table = self.identifier().to_string();
        // On object storage the whole file is fetched into memory (first version; `Bytes` is a
        // Parquet `ChunkReader`).
        let reader = if is_object_location(uri) {
            let bytes = block_on(async { self.file_io().new_input(uri)?.read().await }).map_err(
                |source| Error::iceberg(&table, format!("cannot read the data file {uri}"), source),
            )?;
            parquet_reader(bytes, batch_rows)
        } else {
            let path = local_path(&table, uri)?;
            let handle = File::open(&path).map_err(|e| Error::io(&table, "open", &path, e))?;
            parquet_reader(handle, batch_rows)
        };
        let uri = uri.to_string();
        let parquet = move |source| Error::Parquet {
            table: table.clone(),
            action: "read",
            path: uri.clone(),
            source: Box::new(source),
        };
        let reader = reader.map_err(&parquet)?;
        Ok(reader.map(move |batch| batch.map_err(|e| parquet(e.into()))))
    }

    /// The live data entries of the manifests, manifest by manifest (delete manifests are
    /// left out).
    pub(crate) fn live_data_entries_by_manifest(
        &self,
        manifests: &[ManifestFile],
    ) -> Result<Vec<(ManifestFile, Vec<ManifestEntry>)>> {
        manifests
            .iter()
            .filter(|m| m.content == ManifestContentType::Data)
            .map(|manifest| {
                let entries =
                    self.live_entries(std::slice::from_ref(manifest), ManifestContentType::Data)?;
                Ok((manifest.clone(), entries))
            })
            .collect()
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
    /// inherited sequence numbers. A manifest whose counts in the manifest list say it lists no
    /// live file is not opened.
    pub(crate) fn live_entries(
        &self,
        manifests: &[ManifestFile],
        content: ManifestContentType,
    ) -> Result<Vec<ManifestEntry>> {
        let mut entries = Vec::new();
        for manifest in manifests
            .iter()
            .filter(|m| m.content == content && lists_live_files(m))
        {
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

/// `YYYY-MM-DD HH:MM:SS.fff UTC` of milliseconds since the epoch (proleptic Gregorian).
pub fn utc_millis_text(ms: i64) -> String {
    let (secs, millis) = (ms.div_euclid(1000), ms.rem_euclid(1000));
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{millis:03} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Howard Hinnant's `civil_from_days`: (year, month, day) of days since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// A Parquet reader over `input` in batches of `batch_rows` (default: the reader's 1024).
fn parquet_reader<T: parquet::file::reader::ChunkReader + 'static>(
    input: T,
    batch_rows: Option<usize>,
) -> parquet::errors::Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader> {
    let mut builder = ParquetRecordBatchReaderBuilder::try_new(input)?;
    if let Some(rows) = batch_rows {
        builder = builder.with_batch_size(rows);
    }
    builder.build()
}

/// Whether a manifest lists a live (added or existing) file, by the counts the manifest list
/// keeps for it (unknown counts are taken as live). A manifest that only marks files deleted
/// (written by an overwrite, upsert or compaction) is not opened by a scan and not carried into
/// the next snapshot, as Iceberg's own writers do: the files it names become orphans once no
/// snapshot or kept metadata version reaches them.
pub(crate) fn lists_live_files(manifest: &ManifestFile) -> bool {
    match (manifest.added_files_count, manifest.existing_files_count) {
        (Some(added), Some(existing)) => added + existing > 0,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::utc_millis_text;

    #[test]
    fn formats_utc_millis() {
        assert_eq!(utc_millis_text(0), "1970-01-01 00:00:00.000 UTC");
        assert_eq!(
            utc_millis_text(1_577_836_800_000),
            "2020-01-01 00:00:00.000 UTC"
        );
        assert_eq!(
            utc_millis_text(1_709_210_096_789),
            "2024-02-29 12:34:56.789 UTC"
        );
    }
}
