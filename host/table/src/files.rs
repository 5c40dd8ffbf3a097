//! Small file helpers: running iceberg's async I/O from the sync API, writing a file that must
//! not exist yet, and deleting what a failed write left behind.

use std::future::Future;
use std::io::Write;

use crate::error::{Error, Result};
use crate::io::{file_io_for, is_object_location};
use crate::location::local_path;

/// Runs one of iceberg-rust's futures to completion on the calling thread.
///
/// iceberg's local file I/O, manifest and Parquet writers do their work synchronously inside
/// `async fn`s and never need a reactor (the S3 storage of [`crate::io`] blocks on its own
/// runtime), so a plain executor is enough; unlike a tokio runtime created here, it does not
/// panic when the caller itself runs inside one.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    futures_executor::block_on(future)
}

/// Writes `bytes` to the file at `uri`, which must not exist yet (parent folders are created).
/// On object storage the object is put whole, without a "must not exist" condition (the names
/// written here carry a fresh UUID).
pub(crate) fn write_new(table: &str, uri: &str, bytes: &[u8]) -> Result<()> {
    if is_object_location(uri) {
        let bytes = bytes::Bytes::copy_from_slice(bytes);
        return block_on(async { file_io_for(uri).new_output(uri)?.write(bytes).await })
            .map_err(|source| Error::iceberg(table, format!("cannot write {uri}"), source));
    }
    let path = local_path(table, uri)?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::io(table, "create folder", parent, e))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| Error::io(table, "create", &path, e))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io(table, "write", &path, e))
}

/// Deletes the files at `uris`, best effort: a file already gone is fine, any other failure is
/// logged (the caller is already reporting the error that made it clean up).
pub(crate) fn delete_all<'a>(table: &str, uris: impl IntoIterator<Item = &'a str>) {
    for uri in uris {
        if let Err(error) = delete(table, uri) {
            tracing::warn!(table, file = uri, %error, "could not delete a file left by a failed write");
        }
    }
}

/// Files written for a change that is not committed yet: deleted on drop unless kept.
#[derive(Debug)]
pub(crate) struct FileGuard {
    table: String,
    files: Vec<String>,
    kept: bool,
}

impl FileGuard {
    pub(crate) fn new(table: &str) -> FileGuard {
        FileGuard {
            table: table.to_string(),
            files: Vec::new(),
            kept: false,
        }
    }

    /// Tracks one more file (call before creating it).
    pub(crate) fn push(&mut self, uri: String) {
        self.files.push(uri);
    }

    /// The files now belong to the table.
    pub(crate) fn keep(&mut self) {
        self.kept = true;
    }
}

impl Drop for FileGuard {
    fn drop(&mut self) {
        if !self.kept {
            delete_all(&self.table, self.files.iter().map(String::as_str));
        }
    }
}

/// Deletes one file; a missing file is not an error.
pub(crate) fn delete(table: &str, uri: &str) -> Result<()> {
    if is_object_location(uri) {
        return block_on(file_io_for(uri).delete(uri))
            .map_err(|source| Error::iceberg(table, format!("cannot delete {uri}"), source));
    }
    let path = local_path(table, uri)?;
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(table, "delete", &path, e)),
    }
}
