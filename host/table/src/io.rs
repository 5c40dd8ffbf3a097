//! File I/O by location: iceberg's local [`FileIO`] for `file://` tables, and for tables on
//! `s3://` a [`FileIO`] whose storage is `ldp-storage`'s object store, configured from the
//! environment only (see `ldp_storage`: `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL`,
//! `AWS_REGION`, the AWS credential chain).
//!
//! iceberg-rust 0.10.1 ships no S3 storage of its own (its storages are pluggable through
//! [`Storage`] and [`StorageFactory`]), so this module plugs one in. The table layer is
//! synchronous and drives iceberg's futures with a plain executor; every call below blocks on
//! `ldp-storage`'s own runtime, which needs no reactor from the caller.
//!
//! First version, kept simple on purpose:
//! * a data file being written is buffered in memory and put as one object when it closes
//!   (the object appears whole, or not at all); data files are bounded by the writer's target
//!   file size;
//! * reads of metadata and manifests fetch the whole object; a data file read by the table
//!   layer (an Iceberg source, upserts, rewrites) is fetched whole too; ranged reads serve
//!   iceberg's own readers;
//! * a new metadata file is put without a "must not exist" condition: its name carries a fresh
//!   UUID, and the catalog's compare-and-swap is what orders commits.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use iceberg::io::{
    FileIO, FileIOBuilder, FileMetadata, FileRead, FileWrite, InputFile, OutputFile, Storage,
    StorageConfig, StorageFactory,
};
use iceberg::{Error as IcebergError, ErrorKind as IcebergErrorKind};
use ldp_storage::{ObjectStorage, ObjectUri};
use serde::{Deserialize, Serialize};

/// Whether `location` (a table location, a metadata or data file URI) is on object storage
/// (any scheme but `file`; `ldp-storage` accepts `s3://`, `s3a://`, `s3n://` and `gs://` and
/// refuses others with a message).
pub fn is_object_location(location: &str) -> bool {
    ldp_storage::is_object_uri(location)
}

/// The [`FileIO`] for files under `location`: the local file system for `file://` URIs and
/// absolute paths, object storage for `s3://` and `gs://` ones.
pub(crate) fn file_io_for(location: &str) -> FileIO {
    if is_object_location(location) {
        FileIOBuilder::new(Arc::new(S3StorageFactory)).build()
    } else {
        FileIO::new_with_fs()
    }
}

/// Builds [`S3Storage`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct S3StorageFactory;

#[typetag::serde(name = "LdpS3StorageFactory")]
impl StorageFactory for S3StorageFactory {
    fn build(&self, _config: &StorageConfig) -> iceberg::Result<Arc<dyn Storage>> {
        Ok(Arc::new(S3Storage::default()))
    }
}

/// iceberg [`Storage`] on object storage (S3, GCS) through `ldp-storage`: one store per
/// bucket (`scheme://bucket`), built from the environment on first use.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct S3Storage {
    #[serde(skip)]
    buckets: Arc<Mutex<HashMap<String, Arc<ObjectStorage>>>>,
}

fn storage_error(action: &str, path: &str, source: ldp_storage::Error) -> IcebergError {
    let kind = if source.kind() == ldp_storage::ErrorKind::NotFound {
        IcebergErrorKind::DataInvalid
    } else {
        IcebergErrorKind::Unexpected
    };
    IcebergError::new(kind, format!("cannot {action} {path}")).with_source(source)
}

impl S3Storage {
    /// The store of `path`'s bucket and the parsed URI.
    fn object(&self, path: &str) -> iceberg::Result<(Arc<ObjectStorage>, ObjectUri)> {
        let uri = ObjectUri::parse(path).map_err(|e| storage_error("open", path, e))?;
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(storage) = buckets.get(&uri.bucket_url()) {
            return Ok((Arc::clone(storage), uri));
        }
        let storage =
            Arc::new(ObjectStorage::from_env(&uri).map_err(|e| storage_error("open", path, e))?);
        buckets.insert(uri.bucket_url(), Arc::clone(&storage));
        Ok((storage, uri))
    }
}

#[async_trait]
#[typetag::serde(name = "LdpS3Storage")]
impl Storage for S3Storage {
    async fn exists(&self, path: &str) -> iceberg::Result<bool> {
        let (storage, uri) = self.object(path)?;
        storage
            .exists(&uri)
            .map_err(|e| storage_error("check", path, e))
    }

    async fn metadata(&self, path: &str) -> iceberg::Result<FileMetadata> {
        let (storage, uri) = self.object(path)?;
        match storage.size(&uri) {
            Ok(Some(size)) => Ok(FileMetadata { size }),
            Ok(None) => Err(IcebergError::new(
                IcebergErrorKind::DataInvalid,
                format!("{path} does not exist"),
            )),
            Err(e) => Err(storage_error("check", path, e)),
        }
    }

    async fn read(&self, path: &str) -> iceberg::Result<Bytes> {
        let (storage, uri) = self.object(path)?;
        storage
            .read(&uri)
            .map_err(|e| storage_error("read", path, e))
    }

    async fn reader(&self, path: &str) -> iceberg::Result<Box<dyn FileRead>> {
        let (storage, uri) = self.object(path)?;
        Ok(Box::new(S3FileRead { storage, uri }))
    }

    async fn write(&self, path: &str, bs: Bytes) -> iceberg::Result<()> {
        let (storage, uri) = self.object(path)?;
        storage
            .write(&uri, bs)
            .map_err(|e| storage_error("write", path, e))
    }

    async fn writer(&self, path: &str) -> iceberg::Result<Box<dyn FileWrite>> {
        let (storage, uri) = self.object(path)?;
        Ok(Box::new(S3FileWrite {
            storage,
            uri,
            buffer: Some(Vec::new()),
        }))
    }

    async fn delete(&self, path: &str) -> iceberg::Result<()> {
        let (storage, uri) = self.object(path)?;
        storage
            .delete(&uri)
            .map_err(|e| storage_error("delete", path, e))
    }

    async fn delete_prefix(&self, path: &str) -> iceberg::Result<()> {
        Err(IcebergError::new(
            IcebergErrorKind::FeatureUnsupported,
            format!("deleting everything under {path} is not supported on object storage"),
        ))
    }

    async fn delete_stream(&self, mut paths: BoxStream<'static, String>) -> iceberg::Result<()> {
        while let Some(path) = paths.next().await {
            self.delete(&path).await?;
        }
        Ok(())
    }

    fn new_input(&self, path: &str) -> iceberg::Result<InputFile> {
        Ok(InputFile::new(Arc::new(self.clone()), path.to_string()))
    }

    fn new_output(&self, path: &str) -> iceberg::Result<OutputFile> {
        Ok(OutputFile::new(Arc::new(self.clone()), path.to_string()))
    }
}

/// Ranged reads of one object.
struct S3FileRead {
    storage: Arc<ObjectStorage>,
    uri: ObjectUri,
}

#[async_trait]
impl FileRead for S3FileRead {
    async fn read(&self, range: Range<u64>) -> iceberg::Result<Bytes> {
        self.storage
            .read_range(&self.uri, range)
            .map_err(|e| storage_error("read", self.uri.as_str(), e))
    }
}

/// A file being written: buffered, put as one object on close.
struct S3FileWrite {
    storage: Arc<ObjectStorage>,
    uri: ObjectUri,
    /// `None` once closed.
    buffer: Option<Vec<u8>>,
}

#[async_trait]
impl FileWrite for S3FileWrite {
    async fn write(&mut self, bs: Bytes) -> iceberg::Result<()> {
        let buffer = self.buffer.as_mut().ok_or_else(|| {
            IcebergError::new(
                IcebergErrorKind::DataInvalid,
                format!("{} is already closed", self.uri),
            )
        })?;
        buffer.extend_from_slice(&bs);
        Ok(())
    }

    async fn close(&mut self) -> iceberg::Result<()> {
        let buffer = self.buffer.take().ok_or_else(|| {
            IcebergError::new(
                IcebergErrorKind::DataInvalid,
                format!("{} is already closed", self.uri),
            )
        })?;
        self.storage
            .write(&self.uri, Bytes::from(buffer))
            .map_err(|e| storage_error("write", self.uri.as_str(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_choose_their_storage() {
        assert!(is_object_location("s3://lake/wh/ns/t"));
        assert!(!is_object_location("file:///w/ns/t"));
        assert!(!is_object_location("/w/ns/t"));
        assert_eq!(
            format!("{:?}", file_io_for("file:///w").config()),
            format!("{:?}", FileIO::new_with_fs().config())
        );
    }

    #[test]
    fn a_bad_object_uri_is_an_iceberg_error() {
        let storage = S3Storage::default();
        let error = storage.object("s3://lake/").unwrap_err();
        assert!(error.to_string().contains("s3://lake/"), "{error}");
    }
}
