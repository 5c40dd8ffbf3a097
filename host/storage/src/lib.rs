//! Object storage for ldp's host: `s3://` and `gs://` sources, file targets and warehouses.
//!
//! Plugins never get network access. When a config names an object, the host moves the bytes:
//! it downloads the object into a private local folder that the source plugin may read, or
//! uploads the file a sink plugin wrote into its staging folder once the run passed its checks.
//!
//! * [`ObjectUri`] parses `s3://bucket/key` (also `s3a://`, `s3n://`) and `gs://bucket/key`, and
//!   refuses a URI with a user name or password in it: credentials come from the environment
//!   only.
//! * [`ObjectStorage::from_env`] builds the store of a URI's bucket from the environment, as
//!   `object_store`'s [`AmazonS3Builder::from_env`] reads it (`AWS_ACCESS_KEY_ID`,
//!   `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` over `AWS_DEFAULT_REGION`,
//!   `AWS_ENDPOINT_URL_S3` over `AWS_ENDPOINT_URL`, web identity and container credentials,
//!   else the instance metadata service), blank values ignored; an `http://` endpoint (a
//!   local moto or MinIO) is allowed plain HTTP. The AWS profile's shared `credentials` and
//!   `config` files fill in what the variables leave unset, as boto3 reads them ([`profile`]).
//!   A `gs://` bucket's store speaks GCS's JSON API, configured as Google's client libraries
//!   are (`STORAGE_EMULATOR_HOST`, `GOOGLE_APPLICATION_CREDENTIALS`, …; see [`gcs`]).
//! * [`ObjectStorage::download`] streams an object into a local file;
//!   [`ObjectStorage::upload`] puts a local file as one object: one `PUT` for a small file,
//!   a multipart upload in [`PART_SIZE`] parts otherwise, aborted if any part fails. Either
//!   way the object appears only when the upload completes (S3's semantics for `PUT` and
//!   `CompleteMultipartUpload`), so a reader sees the old object or the new one.
//!   [`upload_file`] does both steps for the file a caller staged (a file target, a dataset
//!   export).
//! * [`ObjectStorage::read`], [`ObjectStorage::read_range`], [`ObjectStorage::write`],
//!   [`ObjectStorage::size`] and [`ObjectStorage::delete`] serve Iceberg tables whose warehouse
//!   is on `s3://` (`ldp-table`'s iceberg storage); [`bucket_store`] gives a bucket's store to
//!   DataFusion for `ldp query`; [`ObjectStorage::list`] lists the objects under a folder
//!   ([`ListedObject`]: URI, size, last modification) for orphan file detection.
//!
//! The host is synchronous: each [`ObjectStorage`] owns a current-thread tokio runtime that
//! drives its requests, and runs them on a helper thread when the caller is itself inside a
//! tokio runtime (an async task or a `spawn_blocking` thread), where blocking on another
//! runtime is not allowed.
//!
//! ```
//! use ldp_storage::{ObjectUri, is_object_uri};
//!
//! assert!(is_object_uri("s3://lake/drops/rides.csv"));
//! assert!(!is_object_uri("drops/rides.csv"));
//! let uri = ObjectUri::parse("s3a://lake/drops/rides.csv").unwrap();
//! assert_eq!((uri.bucket(), uri.file_name()), ("lake", "rides.csv"));
//! let refused = ObjectUri::parse("s3://me:secret@lake/rides.csv").unwrap_err();
//! assert!(refused.to_string().contains("AWS_ACCESS_KEY_ID"));
//! ```
//!
//! [`AmazonS3Builder::from_env`]: object_store::aws::AmazonS3Builder::from_env

#![warn(missing_docs)]

mod error;
pub mod gcs;
mod list;
mod profile;
mod uri;

use std::future::Future;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use futures_util::StreamExt;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

pub use error::{Error, ErrorKind, Result};
pub use list::ListedObject;
pub use uri::{ObjectUri, Provider, is_object_uri, scheme_of};

/// The size of each part of a multipart upload, and the size above which a file is uploaded
/// in parts. S3 wants parts of at least 5 MiB (but the last).
pub const PART_SIZE: usize = 8 * 1024 * 1024;

/// Parts of one upload in flight at once: memory stays under `(PARTS_IN_FLIGHT + 1) ×
/// PART_SIZE` whatever the file's size.
const PARTS_IN_FLIGHT: usize = 2;

/// The environment variables that name the S3 endpoint, the first set one wins (as in
/// `object_store`, where the S3-specific one takes precedence).
const ENDPOINT_VARS: [&str; 3] = ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT"];

/// A bucket's store and the runtime that drives its requests.
#[derive(Debug)]
pub struct ObjectStorage {
    store: Arc<dyn ObjectStore>,
    executor: Executor,
    part_size: usize,
}

impl ObjectStorage {
    /// The store of `uri`'s bucket, configured from the process environment (see the crate
    /// docs for what it reads).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when the environment does not make a store (an access key without its
    /// secret, an endpoint that is not a URL).
    pub fn from_env(uri: &ObjectUri) -> Result<ObjectStorage> {
        Self::from_vars(
            uri,
            std::env::vars_os().filter_map(|(key, value)| {
                Some((key.into_string().ok()?, value.into_string().ok()?))
            }),
        )
    }

    /// As [`ObjectStorage::from_env`], with the variables given (`AWS_*` ones for `s3://`,
    /// `GOOGLE_*` ones and `STORAGE_EMULATOR_HOST` for `gs://`).
    ///
    /// # Errors
    ///
    /// As [`ObjectStorage::from_env`].
    pub fn from_vars(
        uri: &ObjectUri,
        vars: impl IntoIterator<Item = (String, String)>,
    ) -> Result<ObjectStorage> {
        Self::with_store(store_from_vars(
            uri.provider(),
            uri.bucket(),
            uri.as_str(),
            vars,
        )?)
    }

    /// Object storage on a store the caller built (one bucket: a URI's key is used, its
    /// bucket is not).
    ///
    /// # Errors
    ///
    /// The runtime cannot start.
    pub fn with_store(store: Arc<dyn ObjectStore>) -> Result<ObjectStorage> {
        Ok(ObjectStorage {
            store,
            executor: Executor::new()?,
            part_size: PART_SIZE,
        })
    }

    /// The same storage uploading in parts of `bytes` (at least 1) above `bytes`.
    pub fn with_part_size(mut self, bytes: usize) -> ObjectStorage {
        self.part_size = bytes.max(1);
        self
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// Streams the object `uri` into the local file `to` (created or replaced), chunk by
    /// chunk; returns its size in bytes. A failed download removes what it wrote.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`] when there is no such object, [`Error::Store`] when a request
    /// fails, [`Error::Io`] when the local file cannot be written.
    pub fn download(&self, uri: &ObjectUri, to: &Path) -> Result<u64> {
        let result = self.executor.run(|| async {
            let object = self
                .store
                .get(uri.key())
                .await
                .map_err(|e| Error::store("download", uri.as_str(), e))?;
            let io = |action, source| Error::Io {
                action,
                path: to.to_path_buf(),
                uri: uri.to_string(),
                source,
            };
            let mut file = std::fs::File::create(to).map_err(|e| io("create", e))?;
            let mut stream = object.into_stream();
            let mut size = 0u64;
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| Error::store("download", uri.as_str(), e))?;
                file.write_all(&chunk).map_err(|e| io("write", e))?;
                size += chunk.len() as u64;
            }
            file.flush().map_err(|e| io("write", e))?;
            Ok(size)
        });
        if result.is_err() {
            let _ = std::fs::remove_file(to);
        }
        let size = result?;
        tracing::debug!("downloaded {uri} ({size} bytes) to {}", to.display());
        Ok(size)
    }

    /// Uploads the local file `from` as the object `uri`, replacing any object there; returns
    /// its size in bytes. The object appears whole when the upload completes; a failed
    /// multipart upload is aborted, so no object and no parts are left by it.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be read, [`Error::Store`] when a request fails.
    pub fn upload(&self, from: &Path, uri: &ObjectUri) -> Result<u64> {
        let io = |action, source| Error::Io {
            action,
            path: from.to_path_buf(),
            uri: uri.to_string(),
            source,
        };
        let mut file = std::fs::File::open(from).map_err(|e| io("open", e))?;
        let size = file.metadata().map_err(|e| io("read", e))?.len();
        let part_size = self.part_size;
        if size <= part_size as u64 {
            let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
            file.read_to_end(&mut bytes).map_err(|e| io("read", e))?;
            let written = bytes.len() as u64;
            self.executor.run(|| async {
                self.store
                    .put(uri.key(), PutPayload::from(bytes))
                    .await
                    .map_err(|e| Error::store("upload", uri.as_str(), e))
            })?;
            tracing::debug!("uploaded {} ({written} bytes) to {uri}", from.display());
            return Ok(written);
        }
        let written = self.executor.run(|| async {
            let mut upload = self
                .store
                .put_multipart(uri.key())
                .await
                .map_err(|e| Error::store("upload", uri.as_str(), e))?;
            let sent = send_parts(upload.as_mut(), &mut file, part_size, uri, from).await;
            let done = match sent {
                Ok(written) => upload
                    .complete()
                    .await
                    .map(|_| written)
                    .map_err(|e| Error::store("upload", uri.as_str(), e)),
                Err(e) => Err(e),
            };
            if done.is_err()
                && let Err(abort) = upload.abort().await
            {
                tracing::warn!(
                    "cannot abort the failed multipart upload of {uri}: {abort}; \
                     a bucket lifecycle rule (AbortIncompleteMultipartUpload) removes its parts"
                );
            }
            done
        })?;
        tracing::debug!(
            "uploaded {} ({written} bytes, multipart) to {uri}",
            from.display()
        );
        Ok(written)
    }

    /// The whole object `uri` in memory (a table's metadata, manifests and data files).
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`] when there is no such object, [`Error::Store`] when a request fails.
    pub fn read(&self, uri: &ObjectUri) -> Result<bytes::Bytes> {
        self.executor.run(|| async {
            let object = self
                .store
                .get(uri.key())
                .await
                .map_err(|e| Error::store("read", uri.as_str(), e))?;
            object
                .bytes()
                .await
                .map_err(|e| Error::store("read", uri.as_str(), e))
        })
    }

    /// The bytes `range` of the object `uri`.
    ///
    /// # Errors
    ///
    /// As [`ObjectStorage::read`].
    pub fn read_range(&self, uri: &ObjectUri, range: std::ops::Range<u64>) -> Result<bytes::Bytes> {
        self.executor.run(|| async {
            self.store
                .get_range(uri.key(), range)
                .await
                .map_err(|e| Error::store("read", uri.as_str(), e))
        })
    }

    /// The size in bytes of the object `uri`, `None` when there is no such object.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the request fails.
    pub fn size(&self, uri: &ObjectUri) -> Result<Option<u64>> {
        self.executor.run(|| async {
            match self.store.head(uri.key()).await {
                Ok(meta) => Ok(Some(meta.size)),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(Error::store("check", uri.as_str(), e)),
            }
        })
    }

    /// Puts `bytes` as the object `uri` in one request, replacing any object there; the object
    /// appears whole when the request completes.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the request fails.
    pub fn write(&self, uri: &ObjectUri, bytes: bytes::Bytes) -> Result<()> {
        self.executor.run(|| async {
            self.store
                .put(uri.key(), PutPayload::from(bytes))
                .await
                .map(|_| ())
                .map_err(|e| Error::store("upload", uri.as_str(), e))
        })
    }

    /// Deletes the object `uri`; a missing object is not an error.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the request fails.
    pub fn delete(&self, uri: &ObjectUri) -> Result<()> {
        self.executor.run(|| async {
            match self.store.delete(uri.key()).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(Error::store("delete", uri.as_str(), e)),
            }
        })
    }

    /// Whether the object `uri` exists.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the request fails.
    pub fn exists(&self, uri: &ObjectUri) -> Result<bool> {
        self.executor.run(|| async {
            match self.store.head(uri.key()).await {
                Ok(_) => Ok(true),
                Err(object_store::Error::NotFound { .. }) => Ok(false),
                Err(e) => Err(Error::store("check", uri.as_str(), e)),
            }
        })
    }
}

/// Uploads the local file `from` as the object `uri`, through the store of `uri`'s bucket
/// configured from the process environment: [`ObjectStorage::from_env`], then
/// [`ObjectStorage::upload`] (the object appears whole when the upload completes). Returns the
/// bytes uploaded.
///
/// # Errors
///
/// As [`ObjectStorage::from_env`] and [`ObjectStorage::upload`].
pub fn upload_file(from: &Path, uri: &ObjectUri) -> Result<u64> {
    ObjectStorage::from_env(uri)?.upload(from, uri)
}

/// The store of `bucket` on `provider`, configured from the process environment as
/// [`ObjectStorage::from_env`] configures it, for callers that drive it from their own tokio
/// runtime (DataFusion's object store registry for `ldp query` over tables on object storage).
///
/// # Errors
///
/// [`Error::Config`] when the environment does not make a store.
pub fn bucket_store(provider: Provider, bucket: &str) -> Result<Arc<dyn ObjectStore>> {
    let vars = std::env::vars_os()
        .filter_map(|(key, value)| Some((key.into_string().ok()?, value.into_string().ok()?)));
    store_from_vars(
        provider,
        bucket,
        &format!("{}://{bucket}", provider.scheme()),
        vars,
    )
}

/// The store of `bucket` on `provider` from `vars` (see the crate docs); errors name `shown`
/// (the URI the store is for).
fn store_from_vars(
    provider: Provider,
    bucket: &str,
    shown: &str,
    vars: impl IntoIterator<Item = (String, String)>,
) -> Result<Arc<dyn ObjectStore>> {
    match provider {
        Provider::S3 => {
            let vars = with_profile(shown, vars)?;
            let store = s3_builder(bucket, vars)
                .build()
                .map_err(|source| Error::Config {
                    uri: shown.to_string(),
                    hint: Provider::S3.config_hint(),
                    source,
                })?;
            Ok(Arc::new(store))
        }
        Provider::Gcs => gcs::store(bucket, shown, &vars.into_iter().collect()),
    }
}

/// Reads `file` in parts of `part_size` and hands them to `upload`, at most
/// [`PARTS_IN_FLIGHT`] at once; returns the bytes sent once every part is stored.
async fn send_parts(
    upload: &mut dyn object_store::MultipartUpload,
    file: &mut std::fs::File,
    part_size: usize,
    uri: &ObjectUri,
    from: &Path,
) -> Result<u64> {
    let mut in_flight = tokio::task::JoinSet::new();
    let mut written = 0u64;
    loop {
        let mut part = Vec::with_capacity(part_size);
        (&mut *file)
            .take(part_size as u64)
            .read_to_end(&mut part)
            .map_err(|source| Error::Io {
                action: "read",
                path: from.to_path_buf(),
                uri: uri.to_string(),
                source,
            })?;
        if part.is_empty() {
            break;
        }
        written += part.len() as u64;
        let last = part.len() < part_size;
        while in_flight.len() >= PARTS_IN_FLIGHT {
            join_part(&mut in_flight, uri).await?;
        }
        in_flight.spawn(upload.put_part(PutPayload::from(part)));
        if last {
            break;
        }
    }
    while !in_flight.is_empty() {
        join_part(&mut in_flight, uri).await?;
    }
    Ok(written)
}

/// Waits for one part of an upload.
async fn join_part(
    in_flight: &mut tokio::task::JoinSet<object_store::Result<()>>,
    uri: &ObjectUri,
) -> Result<()> {
    match in_flight.join_next().await {
        Some(Ok(Ok(()))) | None => Ok(()),
        Some(Ok(Err(e))) => Err(Error::store("upload", uri.as_str(), e)),
        Some(Err(e)) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Some(Err(e)) => Err(Error::Store {
            action: "upload",
            uri: uri.to_string(),
            source: object_store::Error::JoinError { source: e },
        }),
    }
}

/// `vars` with the settings the AWS profile adds where they leave them unset ([`profile`]).
fn with_profile(
    uri: &str,
    vars: impl IntoIterator<Item = (String, String)>,
) -> Result<std::collections::HashMap<String, String>> {
    let mut vars: std::collections::HashMap<String, String> = vars.into_iter().collect();
    let from_profile = profile::profile_vars(&vars).map_err(|message| Error::Profile {
        uri: uri.to_owned(),
        message,
    })?;
    vars.extend(from_profile);
    Ok(vars)
}

/// The S3 builder for `bucket` from `vars`: every `AWS_*` variable `object_store` knows, as
/// [`AmazonS3Builder::from_env`] reads them, but blank values skipped; plain HTTP allowed
/// when the endpoint is `http://`.
fn s3_builder(bucket: &str, vars: impl IntoIterator<Item = (String, String)>) -> AmazonS3Builder {
    let mut builder = AmazonS3Builder::new();
    let mut endpoints: [Option<String>; 3] = Default::default();
    for (key, value) in vars {
        if !key.starts_with("AWS_") || value.trim().is_empty() {
            continue;
        }
        if let Some(i) = ENDPOINT_VARS.iter().position(|name| *name == key) {
            endpoints[i] = Some(value.clone());
        }
        if let Ok(config_key) = key.to_ascii_lowercase().parse::<AmazonS3ConfigKey>() {
            builder = builder.with_config(config_key, value);
        }
    }
    let endpoint = endpoints.into_iter().flatten().next();
    if endpoint.as_deref().is_some_and(|e| {
        e.get(..7)
            .is_some_and(|s| s.eq_ignore_ascii_case("http://"))
    }) {
        builder = builder.with_allow_http(true);
    }
    builder.with_bucket_name(bucket)
}

/// A current-thread tokio runtime that runs futures to completion for synchronous callers.
#[derive(Debug)]
struct Executor {
    runtime: Option<tokio::runtime::Runtime>,
}

impl Executor {
    fn new() -> Result<Executor> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .thread_name("ldp-storage")
            .build()
            .map_err(Error::Runtime)?;
        Ok(Executor {
            runtime: Some(runtime),
        })
    }

    /// Runs the future `make` gives to completion. Inside another runtime (where `block_on`
    /// would panic) it runs on a helper thread while the caller's thread waits.
    fn run<T, F>(&self, make: impl FnOnce() -> F + Send) -> T
    where
        F: Future<Output = T>,
        T: Send,
    {
        let runtime = self
            .runtime
            .as_ref()
            .expect("the runtime lives as long as the executor");
        if tokio::runtime::Handle::try_current().is_err() {
            return runtime.block_on(make());
        }
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("ldp-storage".into())
                .spawn_scoped(scope, || runtime.block_on(make()))
                .expect("cannot start the object storage thread")
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        // Dropping a runtime blocks, which panics inside an async context; nothing of ours
        // is left running between calls, so let it go in the background.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn value(builder: &AmazonS3Builder, key: AmazonS3ConfigKey) -> Option<String> {
        builder.get_config_value(&key)
    }

    #[test]
    fn the_s3_endpoint_wins_over_the_generic_one() {
        let builder = s3_builder(
            "lake",
            vars(&[
                ("AWS_ENDPOINT_URL", "https://generic.example"),
                ("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:5000"),
            ]),
        );
        assert_eq!(
            value(&builder, AmazonS3ConfigKey::S3Endpoint).as_deref(),
            Some("http://127.0.0.1:5000")
        );
        assert_eq!(
            value(
                &builder,
                AmazonS3ConfigKey::Client(object_store::ClientConfigKey::AllowHttp)
            )
            .as_deref(),
            Some("true")
        );
        assert_eq!(
            value(&builder, AmazonS3ConfigKey::Bucket).as_deref(),
            Some("lake")
        );
    }

    #[test]
    fn https_endpoints_stay_https_only() {
        let builder = s3_builder(
            "lake",
            vars(&[
                ("AWS_ENDPOINT_URL_S3", "https://s3.example"),
                ("AWS_ENDPOINT_URL", "http://ignored:5000"),
            ]),
        );
        assert_eq!(
            value(
                &builder,
                AmazonS3ConfigKey::Client(object_store::ClientConfigKey::AllowHttp)
            )
            .as_deref(),
            Some("false")
        );
    }

    #[test]
    fn region_wins_over_default_region_in_any_order_and_blanks_are_skipped() {
        for pairs in [
            [
                ("AWS_DEFAULT_REGION", "eu-west-1"),
                ("AWS_REGION", "eu-central-1"),
            ],
            [
                ("AWS_REGION", "eu-central-1"),
                ("AWS_DEFAULT_REGION", "eu-west-1"),
            ],
        ] {
            let builder = s3_builder("lake", vars(&pairs));
            assert_eq!(
                value(&builder, AmazonS3ConfigKey::Region).as_deref(),
                Some("eu-central-1")
            );
        }
        let builder = s3_builder(
            "lake",
            vars(&[("AWS_REGION", " "), ("AWS_DEFAULT_REGION", "eu-west-1")]),
        );
        assert_eq!(
            value(&builder, AmazonS3ConfigKey::Region).as_deref(),
            Some("eu-west-1")
        );
    }

    #[test]
    fn a_key_without_its_secret_is_a_config_error() {
        let uri = ObjectUri::parse("s3://lake/rides.csv").unwrap();
        let e = ObjectStorage::from_vars(&uri, vars(&[("AWS_ACCESS_KEY_ID", "id")])).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Config, "{e}");
        assert!(e.to_string().starts_with("s3://lake/rides.csv: "), "{e}");
    }
}
