//! Every file the table's metadata can reach.

use std::collections::{BTreeSet, HashSet};

use iceberg::spec::{ManifestFile, ManifestList, SnapshotRef, TableMetadata};

use super::*;
use crate::error::{Error, Result};
use crate::files::block_on;
use crate::table::Table;

/// Every file the table's metadata can reach, as [`normalize_location`] keys: the current
/// metadata file, its metadata log, and the manifest lists, manifests, data and delete files
/// (deleted entries included) and statistics files of the current metadata and of its last
/// `keep_metadata_versions` previous versions.
///
/// # Errors
///
/// [`Error::Maintenance`] when a manifest list or manifest of the current metadata is missing
/// (or a snapshot has none); I/O and metadata errors when a file exists but cannot be read.
pub fn referenced_files(table: &Table, keep_metadata_versions: usize) -> Result<BTreeSet<String>> {
    Ok(references(table, keep_metadata_versions)?.0)
}

/// [`referenced_files`] and how many metadata versions were read.
pub(super) fn references(table: &Table, keep: usize) -> Result<(BTreeSet<String>, usize)> {
    let metadata = table.metadata();
    let log = metadata.metadata_log();
    let mut walk = Walk {
        table,
        keys: BTreeSet::new(),
        seen_lists: HashSet::new(),
        seen_manifests: HashSet::new(),
    };
    walk.keys
        .insert(normalize_location(table.metadata_location()));
    walk.keys
        .extend(log.iter().map(|e| normalize_location(&e.metadata_file)));

    let mut older = Vec::new();
    for entry in log[log.len().saturating_sub(keep)..].iter().rev() {
        if let Some(version) = walk.read_version(&entry.metadata_file)? {
            older.push((entry.metadata_file.as_str(), version));
        }
    }
    walk.version(table.metadata_location(), metadata, true)?;
    for (location, version) in &older {
        walk.version(location, version, false)?;
    }
    Ok((walk.keys, 1 + older.len()))
}

/// The references collected so far, and the manifest lists and manifests already read.
pub(super) struct Walk<'a> {
    table: &'a Table,
    keys: BTreeSet<String>,
    seen_lists: HashSet<String>,
    seen_manifests: HashSet<String>,
}

impl Walk<'_> {
    /// `result` of reading `path`; `None` when it failed because the file does not exist.
    fn unless_missing<T>(
        &self,
        path: &str,
        what: &str,
        result: iceberg::Result<T>,
    ) -> Result<Option<T>> {
        match result {
            Ok(value) => Ok(Some(value)),
            Err(source) => match block_on(self.table.file_io().exists(path)) {
                Ok(false) => Ok(None),
                _ => Err(Error::iceberg(
                    self.table.identifier(),
                    format!("cannot read the {what} {path}"),
                    source,
                )),
            },
        }
    }

    fn read_version(&self, location: &str) -> Result<Option<TableMetadata>> {
        let read = block_on(TableMetadata::read_from(self.table.file_io(), location));
        self.unless_missing(location, "metadata file", read)
    }

    fn manifests(&self, path: &str, metadata: &TableMetadata) -> Result<Option<Vec<ManifestFile>>> {
        let bytes = block_on(async { self.table.file_io().new_input(path)?.read().await });
        let Some(bytes) = self.unless_missing(path, "manifest list", bytes)? else {
            return Ok(None);
        };
        let list = ManifestList::parse_with_version(&bytes, metadata.format_version()).map_err(
            |source| {
                Error::iceberg(
                    self.table.identifier(),
                    format!("cannot parse the manifest list {path}"),
                    source,
                )
            },
        )?;
        Ok(Some(list.consume_entries().into_iter().collect()))
    }

    /// The file paths of every entry of `manifest`, deleted ones included.
    fn entries(&self, manifest: &ManifestFile) -> Result<Option<Vec<String>>> {
        let path = &manifest.manifest_path;
        let loaded = block_on(manifest.load_manifest(self.table.file_io()));
        let Some(loaded) = self.unless_missing(path, "manifest", loaded)? else {
            return Ok(None);
        };
        let (entries, _) = loaded.into_parts();
        Ok(Some(
            entries.iter().map(|e| e.file_path().to_string()).collect(),
        ))
    }

    /// A missing manifest list or manifest (`file`): an error in the current metadata, skipped
    /// in an older version (at `location`).
    fn gone(&self, current: bool, file: &str, of: &str, location: &str) -> Result<()> {
        if current {
            let name = self.table.identifier();
            let message = format!("{file}{of} is missing; refusing to look for orphans in {name}");
            return Err(maintenance(self.table, message));
        }
        tracing::warn!("{file} of an older metadata version {location} is missing; skipping it");
        Ok(())
    }

    /// Adds what one metadata version reaches; `current` makes a missing file an error.
    fn version(&mut self, location: &str, version: &TableMetadata, current: bool) -> Result<()> {
        let name = self.table.identifier();
        let statistics = version.statistics_iter().map(|s| &s.statistics_path);
        let partition = version
            .partition_statistics_iter()
            .map(|s| &s.statistics_path);
        for path in statistics.chain(partition) {
            self.keys.insert(normalize_location(path));
        }
        let mut snapshots: Vec<&SnapshotRef> = version.snapshots().collect();
        snapshots.sort_by_key(|s| (s.sequence_number(), s.timestamp_ms(), s.snapshot_id()));
        for snapshot in snapshots {
            let id = snapshot.snapshot_id();
            let list = snapshot.manifest_list();
            if list.is_empty() {
                if current {
                    return Err(maintenance(
                        self.table,
                        format!(
                            "snapshot {id} of {name} has no manifest list, so its files can't be enumerated; \
                         refusing to look for orphans"
                        ),
                    ));
                }
                continue;
            }
            if self.seen_lists.contains(list) {
                continue;
            }
            let Some(manifests) = self.manifests(list, version)? else {
                let of = format!(" of snapshot {id}");
                self.gone(current, &format!("manifest list {list}"), &of, location)?;
                continue;
            };
            self.seen_lists.insert(list.to_string());
            self.keys.insert(normalize_location(list));
            for manifest in manifests {
                let path = &manifest.manifest_path;
                if self.seen_manifests.contains(path) {
                    continue;
                }
                let Some(files) = self.entries(&manifest)? else {
                    self.gone(current, &format!("manifest {path}"), "", location)?;
                    continue;
                };
                self.seen_manifests.insert(path.clone());
                self.keys.insert(normalize_location(path));
                self.keys
                    .extend(files.iter().map(|f| normalize_location(f)));
            }
        }
        Ok(())
    }
}
