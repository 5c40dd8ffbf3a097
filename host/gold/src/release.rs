//! Releases: a named set of gold tables, each at one snapshot, so that readers see tables that
//! agree.
//!
//! * A release is the file `<warehouse>/.ldp/releases/<namespace>/r<N>.json`:
//!   `{"release": "r1", "namespace", "created_at", "rows", "tables": [{"table": "ns.t",
//!   "snapshot_id", "dataset_version": "ns.t@v1", "run_id", "rows"}]}`. It is written to a
//!   temporary file and linked into place, so a reader sees all of it or none of it, and two
//!   builds cannot both cut `r<N>`.
//! * Each table of a release is pinned as the dataset version `<namespace>.<table>` with the
//!   property `release=r<N>`; the pin tags the snapshot, so snapshot expiry keeps it.
//! * The current release is the one with the highest number.

use std::path::{Path, PathBuf};

use ldp_datasets::{CatalogSpec, PinRequest};
use ldp_pipeline::TargetTable;
use serde_json::{Value, json};

use crate::error::{Error, Result};

/// One table of a release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleasedTable {
    /// `ns.t`.
    pub table: String,
    /// The snapshot readers of the release read.
    pub snapshot_id: i64,
    /// The dataset version that pins it (`ns.t@v3`).
    pub dataset_version: Option<String>,
    /// The run that wrote the snapshot (none for a table checked, not built).
    pub run_id: Option<String>,
    /// Its rows.
    pub rows: u64,
}

/// A release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// `r1`, `r2`, ...
    pub name: String,
    /// The namespace of its tables.
    pub namespace: String,
    /// When it was cut (UTC, ISO 8601).
    pub created_at: String,
    /// Its tables.
    pub tables: Vec<ReleasedTable>,
}

impl Release {
    /// The rows of every table.
    pub fn rows(&self) -> u64 {
        self.tables.iter().map(|t| t.rows).sum()
    }

    /// The snapshot the release reads of `table` (`ns.t`), if it holds that table.
    pub fn snapshot_for(&self, table: &str) -> Option<i64> {
        self.tables
            .iter()
            .find(|t| t.table == table)
            .map(|t| t.snapshot_id)
    }

    /// The release as its file holds it.
    pub fn to_json(&self) -> Value {
        json!({
            "release": self.name,
            "namespace": self.namespace,
            "created_at": self.created_at,
            "rows": self.rows(),
            "tables": self.tables.iter().map(|t| json!({
                "table": t.table,
                "snapshot_id": t.snapshot_id,
                "dataset_version": t.dataset_version,
                "run_id": t.run_id,
                "rows": t.rows,
            })).collect::<Vec<_>>(),
        })
    }

    fn from_json(path: &Path, doc: &Value) -> Result<Release> {
        let bad = |message: &str| Error::BadRelease {
            path: path.to_path_buf(),
            message: message.to_string(),
        };
        let text = |value: &Value, key: &str| value[key].as_str().map(str::to_string);
        let mut tables = Vec::new();
        for table in doc["tables"]
            .as_array()
            .ok_or_else(|| bad("'tables' is not a list"))?
        {
            tables.push(ReleasedTable {
                table: text(table, "table").ok_or_else(|| bad("a table has no name"))?,
                snapshot_id: table["snapshot_id"]
                    .as_i64()
                    .ok_or_else(|| bad("a table has no snapshot_id"))?,
                dataset_version: text(table, "dataset_version"),
                run_id: text(table, "run_id"),
                rows: table["rows"].as_u64().unwrap_or(0),
            });
        }
        Ok(Release {
            name: text(doc, "release").ok_or_else(|| bad("it has no 'release'"))?,
            namespace: text(doc, "namespace").unwrap_or_default(),
            created_at: text(doc, "created_at").unwrap_or_default(),
            tables,
        })
    }
}

/// Where the releases of `namespace` in `warehouse` are.
pub fn releases_dir(warehouse: &Path, namespace: &str) -> PathBuf {
    warehouse.join(".ldp").join("releases").join(namespace)
}

/// The number of a release name (`r12` → 12).
pub fn release_number(name: &str) -> Option<u32> {
    name.strip_prefix('r')
        .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|digits| digits.parse().ok())
}

/// The releases of `namespace`, newest first (none when there are none).
///
/// # Errors
///
/// The folder or a release file cannot be read.
pub fn list_releases(warehouse: &Path, namespace: &str) -> Result<Vec<Release>> {
    let dir = releases_dir(warehouse, namespace);
    let listing = match std::fs::read_dir(&dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::file("list", &dir, e)),
    };
    let mut numbers: Vec<u32> = listing
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".json").and_then(release_number)
        })
        .collect();
    numbers.sort_unstable_by(|a, b| b.cmp(a));
    numbers
        .into_iter()
        .map(|n| read_file(&dir.join(format!("r{n}.json"))))
        .collect()
}

/// The release `name` of `namespace`.
///
/// # Errors
///
/// [`Error::NoRelease`] naming the releases there are.
pub fn read_release(warehouse: &Path, namespace: &str, name: &str) -> Result<Release> {
    let dir = releases_dir(warehouse, namespace);
    let path = dir.join(format!("{name}.json"));
    if release_number(name).is_some() && path.is_file() {
        return read_file(&path);
    }
    let known: Vec<String> = list_releases(warehouse, namespace)?
        .into_iter()
        .map(|r| r.name)
        .collect();
    Err(Error::NoRelease {
        message: format!(
            "no release {name} of namespace {namespace} in {}; {}",
            dir.display(),
            if known.is_empty() {
                "it has none yet: ldp gold build cuts one".to_string()
            } else {
                format!("it has {}", known.join(", "))
            }
        ),
    })
}

/// The current release of `namespace` (the newest), if any.
///
/// # Errors
///
/// As [`list_releases`].
pub fn current_release(warehouse: &Path, namespace: &str) -> Result<Option<Release>> {
    Ok(list_releases(warehouse, namespace)?.into_iter().next())
}

fn read_file(path: &Path) -> Result<Release> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::file("read", path, e))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| Error::BadRelease {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    Release::from_json(path, &doc)
}

/// A table to release: where it is, its snapshot, the run that wrote it and its rows.
#[derive(Debug, Clone)]
pub struct ReleaseItem {
    /// The table.
    pub table: TargetTable,
    /// The snapshot to release.
    pub snapshot_id: i64,
    /// The run that wrote it.
    pub run_id: Option<String>,
    /// Its rows.
    pub rows: u64,
}

/// Cuts the next release of the namespace of `items` (all in one namespace of one local
/// warehouse): each table pinned at its snapshot, then the release file linked into place.
///
/// # Errors
///
/// A pin fails, or the file cannot be written.
pub fn cut_release(warehouse: &Path, namespace: &str, items: &[ReleaseItem]) -> Result<Release> {
    let dir = releases_dir(warehouse, namespace);
    std::fs::create_dir_all(&dir).map_err(|e| Error::file("create", &dir, e))?;
    let mut number = list_releases(warehouse, namespace)?
        .first()
        .and_then(|r| release_number(&r.name))
        .unwrap_or(0)
        + 1;
    let created_at = jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%S%.6fZ")
        .to_string();
    // The pins first: a release file only ever names snapshots that are tagged.
    let mut pinned: Vec<ReleasedTable> = Vec::with_capacity(items.len());
    for item in items {
        let version = pin(item, &format!("r{number}"))?;
        pinned.push(ReleasedTable {
            table: item.table.identifier(),
            snapshot_id: item.snapshot_id,
            dataset_version: Some(version),
            run_id: item.run_id.clone(),
            rows: item.rows,
        });
    }
    loop {
        let release = Release {
            name: format!("r{number}"),
            namespace: namespace.to_string(),
            created_at: created_at.clone(),
            tables: pinned.clone(),
        };
        let path = dir.join(format!("{}.json", release.name));
        let tmp = dir.join(format!(
            ".{}.{}.tmp",
            release.name,
            uuid::Uuid::new_v4().simple()
        ));
        let text = serde_json::to_string_pretty(&release.to_json()).unwrap_or_default() + "\n";
        std::fs::write(&tmp, text).map_err(|e| Error::file("write", &tmp, e))?;
        // A hard link fails when the name is taken: another build cut this number first.
        let linked = std::fs::hard_link(&tmp, &path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => return Ok(release),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => number += 1,
            Err(e) => return Err(Error::file("write", &path, e)),
        }
    }
}

/// Pins the snapshot of `item` as a version of the dataset `<namespace>.<table>`; returns
/// its reference.
fn pin(item: &ReleaseItem, release: &str) -> Result<String> {
    let target = &item.table;
    let catalog = target.open_catalog(ldp_catalog::Mode::ReadWrite)?;
    let mut table = ldp_table::Table::load(&catalog, &target.namespace, &target.name)
        .map_err(ldp_pipeline::Error::from)?;
    let mut request = PinRequest::new(
        target.identifier(),
        target.warehouse.clone(),
        CatalogSpec::recorded(
            &target.catalog,
            &target.catalog_name,
            &target.warehouse,
            target.local,
        ),
    );
    request.snapshot_id = Some(item.snapshot_id);
    request
        .properties
        .insert("release".to_string(), release.to_string());
    let version = ldp_datasets::pin(&catalog, &mut table, &request)?;
    Ok(version.reference())
}
