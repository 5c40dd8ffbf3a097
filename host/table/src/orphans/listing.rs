//! The files under a table location, local or on object storage.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use ldp_storage::{ObjectStorage, ObjectUri};

use super::*;
use crate::error::{Error, Result};
use crate::table::Table;

/// A file under the table location.
pub(super) struct Listed {
    /// The location to report and delete, in the table location's scheme.
    pub(super) uri: String,
    /// [`normalize_location`]'s key.
    pub(super) key: String,
    /// `/`-separated, relative to the table location.
    pub(super) rel: String,
    pub(super) size: u64,
    /// Seconds since the epoch, `None` when unknown.
    pub(super) mtime: Option<f64>,
    /// The local file (so a name that is not UTF-8 is still deleted).
    pub(super) path: Option<PathBuf>,
}

pub(super) fn list_files(table: &Table, location: &str) -> Result<Vec<Listed>> {
    match place(location) {
        Place::Local(root) => {
            let with_scheme = location
                .get(..5)
                .is_some_and(|s| s.eq_ignore_ascii_case("file:"));
            let mut out = Vec::new();
            let root = Path::new(root);
            if root.is_dir() {
                walk_local(table, root, root, with_scheme, &mut out)?;
            }
            Ok(out)
        }
        Place::Remote {
            scheme,
            netloc,
            path,
        } => list_remote(table, location, &scheme, &format!("{netloc}{path}")),
    }
}

/// Lists the files under `dir`, sorted, folder by folder; symbolic links to folders are not
/// followed, and folders that cannot be read are skipped (as Python's `os.walk` does).
pub(super) fn walk_local(
    table: &Table,
    root: &Path,
    dir: &Path,
    with_scheme: bool,
    out: &mut Vec<Listed>,
) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            tracing::warn!("cannot list {}: {error}; skipping it", dir.display());
            return Ok(());
        }
    };
    let (mut files, mut folders) = (Vec::new(), Vec::new());
    for entry in entries.flatten() {
        let path = entry.path();
        let is_dir = path.is_dir();
        if is_dir && entry.file_type().is_ok_and(|kind| kind.is_symlink()) {
            continue; // a link to a folder: neither walked nor listed, as os.walk does
        }
        let into = if is_dir { &mut folders } else { &mut files };
        into.push(path);
    }
    files.sort();
    folders.sort();
    for path in files {
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(table.identifier(), "read", &path, e)),
        };
        let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy();
        let scheme = if with_scheme { "file://" } else { "" };
        out.push(Listed {
            uri: format!("{scheme}{}", path.display()),
            key: local_key(&path),
            rel: rel.replace(std::path::MAIN_SEPARATOR, "/"),
            size: meta.len(),
            mtime: meta.modified().ok().map(epoch_seconds),
            path: Some(path),
        });
    }
    for folder in folders {
        walk_local(table, root, &folder, with_scheme, out)?;
    }
    Ok(())
}

pub(super) fn epoch_seconds(time: SystemTime) -> f64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_secs_f64(),
        Err(before) => -before.duration().as_secs_f64(),
    }
}

/// The store's error listing `uri` as an I/O error (without the store's own "cannot list").
pub(super) fn storage_io(table: &Table, uri: &str, error: ldp_storage::Error) -> Error {
    let source = std::error::Error::source(&error).map(ToString::to_string);
    let message = source.unwrap_or_else(|| error.to_string());
    Error::io(
        table.identifier(),
        "list",
        uri,
        std::io::Error::other(message),
    )
}

pub(super) fn object_storage(table: &Table, uri: &str) -> Result<(ObjectStorage, ObjectUri)> {
    let object =
        ObjectUri::parse(uri.trim_end_matches('/')).map_err(|e| storage_io(table, uri, e))?;
    let storage = ObjectStorage::from_env(&object).map_err(|e| storage_io(table, uri, e))?;
    Ok((storage, object))
}

/// Lists an object-store location; `base` is `bucket/prefix`.
pub(super) fn list_remote(
    table: &Table,
    location: &str,
    scheme: &str,
    base: &str,
) -> Result<Vec<Listed>> {
    let base = base.trim_end_matches('/');
    let (storage, prefix) = object_storage(table, location)?;
    let objects = storage
        .list(&prefix)
        .map_err(|e| storage_io(table, location, e))?;
    Ok(objects
        .into_iter()
        .map(|object| {
            let path = object.uri.trim_start_matches("s3://");
            let rel = match path.strip_prefix(base) {
                Some(rest) => rest.trim_start_matches('/'),
                None => path.rsplit('/').next().unwrap_or_default(),
            };
            let uri = format!("{scheme}://{path}");
            Listed {
                key: normalize_location(&uri),
                uri,
                rel: rel.to_string(),
                size: object.size,
                mtime: object.last_modified_ms.map(|ms| ms as f64 / 1000.0),
                path: None,
            }
        })
        .collect())
}

/// Refuses a location that holds more than this table: a bucket root, the filesystem root, a
/// folder holding the catalog's warehouse.
pub(super) fn guard_location(table: &Table, location: &str, warehouse: Option<&str>) -> Result<()> {
    let refuse = |what: String| -> Result<()> {
        Err(maintenance(
            table,
            format!("table location {location} {what}; refusing to look for orphans"),
        ))
    };
    let root = match place(location) {
        Place::Remote { path, .. } => {
            return if path.trim_matches('/').is_empty() {
                refuse("is a bucket root".into())
            } else {
                Ok(())
            };
        }
        Place::Local(root) => realpath(Path::new(root)),
    };
    if root.parent().is_none() {
        return refuse("is a filesystem root".into());
    }
    if let Some(warehouse) = warehouse
        && let Place::Local(path) = place(warehouse)
        && realpath(Path::new(path)).starts_with(&root)
    {
        return refuse(format!("contains the catalog warehouse {warehouse}"));
    }
    Ok(())
}
