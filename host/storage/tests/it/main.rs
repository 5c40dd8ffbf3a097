//! Downloads and uploads against an in-memory store (the moto server tests of `ldp run` live
//! in the CLI's tests): small and multipart uploads, a failed part aborting its upload, a
//! missing object, and calls from inside a tokio runtime. `gcs`: the same and the rest of the
//! store's operations on `gs://` against fake-gcs-server.

mod gcs;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::stream::BoxStream;
use ldp_storage::{ErrorKind, ObjectStorage, ObjectUri};
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, UploadPart,
};

fn uri(text: &str) -> ObjectUri {
    ObjectUri::parse(text).unwrap()
}

fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 % 251) as u8).collect()
}

#[test]
fn a_small_file_goes_up_and_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let storage = ObjectStorage::with_store(Arc::new(InMemory::new())).unwrap();
    let object = uri("s3://lake/drops/rides.csv");
    assert!(!storage.exists(&object).unwrap());
    let local = dir.path().join("rides.csv");
    std::fs::write(&local, b"id,fare\n1,2.5\n").unwrap();
    assert_eq!(storage.upload(&local, &object).unwrap(), 14);
    assert!(storage.exists(&object).unwrap());
    let back = dir.path().join("back.csv");
    assert_eq!(storage.download(&object, &back).unwrap(), 14);
    assert_eq!(std::fs::read(&back).unwrap(), b"id,fare\n1,2.5\n");
}

#[test]
fn a_big_file_goes_up_in_parts() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Counting::new(None));
    let storage = ObjectStorage::with_store(store.clone())
        .unwrap()
        .with_part_size(1000);
    let object = uri("s3://lake/big.bin");
    let local = dir.path().join("big.bin");
    let data = bytes(4_500);
    std::fs::write(&local, &data).unwrap();
    assert_eq!(storage.upload(&local, &object).unwrap(), 4_500);
    assert_eq!(store.parts.load(Ordering::SeqCst), 5);
    assert_eq!(store.aborts.load(Ordering::SeqCst), 0);
    let back = dir.path().join("back.bin");
    storage.download(&object, &back).unwrap();
    assert_eq!(std::fs::read(&back).unwrap(), data);
}

#[test]
fn a_failed_part_aborts_the_upload_and_leaves_no_object() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Counting::new(Some(2)));
    let storage = ObjectStorage::with_store(store.clone())
        .unwrap()
        .with_part_size(1000);
    let object = uri("s3://lake/big.bin");
    let local = dir.path().join("big.bin");
    std::fs::write(&local, bytes(4_500)).unwrap();
    let e = storage.upload(&local, &object).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Store, "{e}");
    assert!(
        e.to_string().contains("cannot upload s3://lake/big.bin"),
        "{e}"
    );
    assert_eq!(store.aborts.load(Ordering::SeqCst), 1);
    assert!(!storage.exists(&object).unwrap());
}

#[test]
fn a_missing_object_is_not_found_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let storage = ObjectStorage::with_store(Arc::new(InMemory::new())).unwrap();
    let local = dir.path().join("rides.csv");
    let e = storage
        .download(&uri("s3://lake/missing.csv"), &local)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.is_retryable());
    assert_eq!(e.to_string(), "s3://lake/missing.csv does not exist");
    assert!(!local.exists());
}

#[test]
fn it_works_from_inside_a_tokio_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("rides.csv");
    std::fs::write(&local, b"x\n1\n").unwrap();
    let storage = Arc::new(ObjectStorage::with_store(Arc::new(InMemory::new())).unwrap());
    let object = uri("s3://lake/rides.csv");
    let outer = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    // In an async task, and on a spawn_blocking thread (as `ldp mcp` runs its tools).
    outer.block_on(async {
        storage.upload(&local, &object).unwrap();
        let (storage, object) = (storage.clone(), object.clone());
        tokio::task::spawn_blocking(move || storage.exists(&object).unwrap())
            .await
            .unwrap()
    });
    assert!(storage.exists(&object).unwrap());
    // Dropped inside an async context without a panic.
    outer.block_on(async move { drop(storage) });
}

/// An in-memory store that counts parts and aborts, and fails the part numbered `fail_part`
/// (from 1).
#[derive(Debug)]
struct Counting {
    inner: InMemory,
    fail_part: Option<usize>,
    parts: Arc<AtomicUsize>,
    aborts: Arc<AtomicUsize>,
}

impl Counting {
    fn new(fail_part: Option<usize>) -> Counting {
        Counting {
            inner: InMemory::new(),
            fail_part,
            parts: Arc::default(),
            aborts: Arc::default(),
        }
    }
}

impl std::fmt::Display for Counting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Counting({})", self.inner)
    }
}

#[derive(Debug)]
struct CountingUpload {
    inner: Box<dyn MultipartUpload>,
    fail_part: Option<usize>,
    parts: Arc<AtomicUsize>,
    aborts: Arc<AtomicUsize>,
}

#[async_trait::async_trait]
impl MultipartUpload for CountingUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        let number = self.parts.fetch_add(1, Ordering::SeqCst) + 1;
        if Some(number) == self.fail_part {
            return Box::pin(async move {
                Err(object_store::Error::Generic {
                    store: "test",
                    source: format!("part {number} failed").into(),
                })
            });
        }
        self.inner.put_part(data)
    }

    async fn complete(&mut self) -> object_store::Result<PutResult> {
        self.inner.complete().await
    }

    async fn abort(&mut self) -> object_store::Result<()> {
        self.aborts.fetch_add(1, Ordering::SeqCst);
        self.inner.abort().await
    }
}

#[async_trait::async_trait]
impl ObjectStore for Counting {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        Ok(Box::new(CountingUpload {
            inner: self.inner.put_multipart_opts(location, opts).await?,
            fail_part: self.fail_part,
            parts: self.parts.clone(),
            aborts: self.aborts.clone(),
        }))
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        self.inner.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}
