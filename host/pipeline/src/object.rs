//! `s3://` and `gs://` sources and file targets (`docs/storage.md`). Plugins never get network access:
//! the host downloads a source object into a private temporary folder that only the source
//! plugin may read, and uploads a file target from the sink's staging folder once the run
//! passed its checks and the sink closed cleanly. The store is configured from the
//! environment only ([`ldp_storage`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ldp_storage::{ErrorKind, ObjectStorage, ObjectUri};

use crate::error::{Error, Result};

/// Whether a config path names an object in a store rather than a local file.
pub(crate) fn is_object(path: &str) -> bool {
    ldp_storage::is_object_uri(path)
}

/// Parses the object URI of a config path; `what` names the block for messages.
pub(crate) fn parse(what: &str, path: &str, upload: bool) -> Result<ObjectUri> {
    ObjectUri::parse(path).map_err(|source| storage_error(what, upload, source))
}

/// A source object downloaded into a private folder, removed when the last clone of the
/// source is dropped.
#[derive(Debug, Clone)]
pub(crate) struct Downloaded {
    /// The private folder (mode 0700), the source plugin's only grant.
    pub folder: Arc<tempfile::TempDir>,
    /// The local copy in it, named as the object.
    pub file: PathBuf,
}

/// Downloads the source object `path` (window placeholders already filled). A missing object
/// is [`Error::SourceMissing`], which a workflow retries since a drop may land late.
pub(crate) fn download_source(what: &str, path: &str) -> Result<Downloaded> {
    let uri = parse(what, path, false)?;
    let storage = ObjectStorage::from_env(&uri).map_err(|e| storage_error(what, false, e))?;
    let folder = tempfile::Builder::new()
        .prefix("ldp-source-")
        .tempdir()
        .map_err(|e| Error::Unsupported {
            message: format!(
                "cannot create a private folder to download {uri} into: {e}; check TMPDIR"
            ),
        })?;
    let file = folder.path().join(uri.file_name());
    match storage.download(&uri, &file) {
        Ok(bytes) => tracing::info!("downloaded {uri} ({bytes} bytes) for {what}"),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Err(Error::SourceMissing {
                message: format!(
                    "the source object {uri} does not exist (metadata.source.path {path:?}); \
                     check the bucket and key, and that {} names the store that holds it",
                    match uri.provider() {
                        ldp_storage::Provider::S3 => "AWS_ENDPOINT_URL",
                        ldp_storage::Provider::Gcs => "the environment (STORAGE_EMULATOR_HOST)",
                    }
                ),
            });
        }
        Err(e) => return Err(storage_error(what, false, e)),
    }
    Ok(Downloaded {
        folder: Arc::new(folder),
        file,
    })
}

/// Uploads the staged file of a file target as the object `uri`: visible whole once the
/// upload completes, never in part.
pub(crate) fn upload_target(what: &str, staged: &Path, uri: &ObjectUri) -> Result<u64> {
    ldp_storage::upload_file(staged, uri).map_err(|e| storage_error(what, true, e))
}

fn storage_error(what: &str, upload: bool, source: ldp_storage::Error) -> Error {
    Error::Storage {
        what: what.to_string(),
        upload,
        source: Box::new(source),
    }
}
