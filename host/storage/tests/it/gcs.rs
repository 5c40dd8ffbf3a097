//! `gs://` against a real GCS emulator (fake-gcs-server, [`ldp_test_servers::gcs`]), through
//! the JSON API client ldp uses: uploads in one request and as resumable uploads in chunks that
//! do not fall on GCS's 256 KiB boundaries, downloads, ranges, listings, copies, deletes, an
//! aborted upload, a missing object and names that need escaping.

use futures_util::TryStreamExt;
use ldp_storage::gcs::EMULATOR_VAR;
use ldp_storage::{ErrorKind, ObjectStorage, ObjectUri};
use ldp_test_servers::gcs::FakeGcs;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutPayload, UpdateVersion};

fn storage(gcs: &FakeGcs, uri: &ObjectUri) -> ObjectStorage {
    ObjectStorage::from_vars(uri, [(EMULATOR_VAR.to_string(), gcs.endpoint.clone())]).unwrap()
}

fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 % 251) as u8).collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn objects_go_up_whole_and_in_chunks_and_come_back() {
    let gcs = FakeGcs::start(&["lake"]);
    let dir = tempfile::tempdir().unwrap();
    let small = ObjectUri::parse("gs://lake/drops/2026 12/a+b.csv").unwrap();
    let storage = storage(&gcs, &small).with_part_size(300_000);
    assert!(!storage.exists(&small).unwrap());
    std::fs::write(dir.path().join("small.csv"), b"id,fare\n1,2.5\n").unwrap();
    assert_eq!(
        storage
            .upload(&dir.path().join("small.csv"), &small)
            .unwrap(),
        14
    );
    assert_eq!(
        gcs.get("lake", "drops/2026 12/a+b.csv").unwrap(),
        b"id,fare\n1,2.5\n"
    );

    // 1,000,123 bytes in parts of 300,000: chunks of 262,144 and a carried remainder.
    let big = ObjectUri::parse("gs://lake/big.bin").unwrap();
    let data = bytes(1_000_123);
    std::fs::write(dir.path().join("big.bin"), &data).unwrap();
    assert_eq!(
        storage.upload(&dir.path().join("big.bin"), &big).unwrap(),
        1_000_123
    );
    assert!(
        gcs.get("lake", "big.bin").unwrap() == data,
        "the object is not the file"
    );
    assert_eq!(storage.size(&big).unwrap(), Some(1_000_123));
    let back = dir.path().join("back.bin");
    assert_eq!(storage.download(&big, &back).unwrap(), 1_000_123);
    assert!(std::fs::read(&back).unwrap() == data);
    assert_eq!(
        storage.read_range(&big, 262_140..262_150).unwrap().as_ref(),
        &data[262_140..262_150]
    );
    assert!(storage.read(&small).unwrap().as_ref() == b"id,fare\n1,2.5\n");

    storage.delete(&big).unwrap();
    storage.delete(&big).unwrap();
    assert_eq!(storage.size(&big).unwrap(), None);
    assert_eq!(gcs.names("lake"), ["drops/2026 12/a+b.csv"]);
}

#[test]
fn listings_copies_and_an_aborted_upload() {
    let gcs = FakeGcs::start(&["lake"]);
    for name in [
        "wh/t/data/a.parquet",
        "wh/t/data/b.parquet",
        "wh/t/metadata/v1.json",
        "wh/u/x",
    ] {
        gcs.put("lake", name, name.as_bytes());
    }
    let uri = ObjectUri::parse("gs://lake/wh/t/data/a.parquet").unwrap();
    let storage = storage(&gcs, &uri);
    let store = storage.store().clone();
    runtime().block_on(async {
        let mut listed: Vec<String> = store
            .list(Some(&Path::from("wh/t")))
            .map_ok(|meta| format!("{} {}", meta.location, meta.size))
            .try_collect()
            .await
            .unwrap();
        listed.sort();
        assert_eq!(
            listed,
            [
                "wh/t/data/a.parquet 19",
                "wh/t/data/b.parquet 19",
                "wh/t/metadata/v1.json 21"
            ]
        );
        let folders = store
            .list_with_delimiter(Some(&Path::from("wh")))
            .await
            .unwrap();
        let prefixes: Vec<&str> = folders.common_prefixes.iter().map(|p| p.as_ref()).collect();
        assert_eq!(prefixes, ["wh/t", "wh/u"]);
        assert!(folders.objects.is_empty());

        let from = Path::from("wh/u/x");
        store.copy(&from, &Path::from("wh/u/y")).await.unwrap();
        let head = store.head(&Path::from("wh/u/y")).await.unwrap();
        assert_eq!(head.size, 6);
        assert!(head.version.is_some(), "the generation is the version");
        // A write that must not replace an object, and one that must replace a version.
        let created = store
            .put_opts(
                &Path::from("wh/u/z"),
                PutPayload::from_static(b"first"),
                PutMode::Create.into(),
            )
            .await
            .unwrap();
        let e = store
            .put_opts(
                &Path::from("wh/u/z"),
                PutPayload::from_static(b"second"),
                PutMode::Create.into(),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(e, object_store::Error::AlreadyExists { .. }),
            "{e}"
        );
        let stale = UpdateVersion {
            e_tag: None,
            version: Some("1".into()),
        };
        let e = store
            .put_opts(
                &Path::from("wh/u/z"),
                PutPayload::from_static(b"third"),
                PutMode::Update(stale).into(),
            )
            .await
            .unwrap_err();
        assert!(matches!(e, object_store::Error::Precondition { .. }), "{e}");
        store
            .put_opts(
                &Path::from("wh/u/z"),
                PutPayload::from_static(b"fourth"),
                PutMode::Update(created.into()).into(),
            )
            .await
            .unwrap();

        let mut upload = store.put_multipart(&Path::from("wh/half")).await.unwrap();
        upload
            .put_part(PutPayload::from(bytes(300_000)))
            .await
            .unwrap();
        upload.abort().await.unwrap();
    });
    assert!(!gcs.names("lake").contains(&"wh/half".to_string()));
    assert!(gcs.get("lake", "wh/half").is_none());
    assert_eq!(gcs.get("lake", "wh/u/z").unwrap(), b"fourth");
}

#[test]
fn a_missing_object_or_bucket_is_not_found_and_leaves_no_file() {
    let gcs = FakeGcs::start(&["lake"]);
    let dir = tempfile::tempdir().unwrap();
    for text in ["gs://lake/nope.csv", "gs://nobucket/nope.csv"] {
        let uri = ObjectUri::parse(text).unwrap();
        let to = dir.path().join("nope.csv");
        let e = storage(&gcs, &uri).download(&uri, &to).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
        assert_eq!(e.to_string(), format!("{text} does not exist"));
        assert!(!to.exists());
    }
}

#[test]
fn a_store_that_does_not_answer_fails_with_a_store_error() {
    let port = ldp_test_servers::rustberg::free_port();
    let uri = ObjectUri::parse("gs://lake/a.csv").unwrap();
    let storage = ObjectStorage::from_vars(
        &uri,
        [(EMULATOR_VAR.to_string(), format!("127.0.0.1:{port}"))],
    )
    .unwrap();
    let e = storage.size(&uri).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Store, "{e}");
    assert!(
        e.to_string().starts_with("cannot check gs://lake/a.csv: "),
        "{e}"
    );
}
