//! The table write lock, the same file the Python tool locks: an exclusive advisory lock (`flock`)
//! on `<warehouse>/.ldp/locks/<namespace>.<table>.lock`, held by overwrites (and upserts) on a
//! local catalog. The file is created when missing and never deleted; the lock goes with the
//! process.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A held table lock; dropping it releases the lock.
#[derive(Debug)]
pub struct TableLock {
    _file: File,
    path: PathBuf,
}

impl TableLock {
    /// Blocks until the lock of `namespace.table` under `warehouse` is held.
    ///
    /// # Errors
    ///
    /// [`Error::Lock`] when the lock folder or file cannot be created or locked.
    pub fn acquire(warehouse: &Path, namespace: &str, table: &str) -> Result<TableLock> {
        let dir = warehouse.join(".ldp").join("locks");
        let path = dir.join(format!("{namespace}.{table}.lock"));
        let fail = |source| Error::Lock {
            table: format!("{namespace}.{table}"),
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&dir).map_err(fail)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(fail)?;
        file.lock().map_err(fail)?;
        tracing::debug!(lock = %path.display(), "holding the table lock");
        Ok(TableLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
