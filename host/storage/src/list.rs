//! Listing the objects under a prefix (orphan file detection walks a table's location).

use futures_util::StreamExt;
use object_store::ObjectStore;

use crate::error::{Error, Result};
use crate::{ObjectStorage, ObjectUri};

/// One object found by [`ObjectStorage::list`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedObject {
    /// `s3://bucket/key`.
    pub uri: String,
    /// Its size in bytes.
    pub size: u64,
    /// When it was last modified, in milliseconds since the epoch, when the store says.
    pub last_modified_ms: Option<i64>,
}

impl ObjectStorage {
    /// Every object under the folder `prefix` names, recursively, sorted by URI. The prefix
    /// matches whole path segments: `s3://b/t` lists `s3://b/t/x`, not `s3://b/tx`. A prefix
    /// with nothing under it gives an empty list.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when a request fails.
    pub fn list(&self, prefix: &ObjectUri) -> Result<Vec<ListedObject>> {
        let mut listed = self.executor.run(|| async {
            let mut stream = self.store.list(Some(prefix.key()));
            let mut listed = Vec::new();
            while let Some(meta) = stream.next().await {
                let meta = meta.map_err(|e| Error::store("list", prefix.as_str(), e))?;
                listed.push(ListedObject {
                    uri: format!("s3://{}/{}", prefix.bucket(), meta.location),
                    size: meta.size,
                    last_modified_ms: Some(meta.last_modified.timestamp_millis()),
                });
            }
            Ok::<_, Error>(listed)
        })?;
        listed.sort_by(|a, b| a.uri.cmp(&b.uri));
        tracing::debug!("listed {} objects under {prefix}", listed.len());
        Ok(listed)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use object_store::memory::InMemory;
    use object_store::path::Path;
    use object_store::{ObjectStoreExt, PutPayload};

    use super::*;

    #[test]
    fn lists_every_object_under_the_folder_only() {
        let store = Arc::new(InMemory::new());
        let storage = ObjectStorage::with_store(store.clone()).unwrap();
        storage.executor.run(|| async {
            for (key, bytes) in [
                ("wh/t/data/b.parquet", "bb"),
                ("wh/t/data/a.parquet", "a"),
                ("wh/t/metadata/v1.metadata.json", "{}"),
                ("wh/tx/data/c.parquet", "ccc"),
            ] {
                store
                    .put(&Path::from(key), PutPayload::from(bytes))
                    .await
                    .unwrap();
            }
        });
        let listed = storage
            .list(&ObjectUri::parse("s3://lake/wh/t").unwrap())
            .unwrap();
        let uris: Vec<&str> = listed.iter().map(|o| o.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "s3://lake/wh/t/data/a.parquet",
                "s3://lake/wh/t/data/b.parquet",
                "s3://lake/wh/t/metadata/v1.metadata.json",
            ]
        );
        assert_eq!(listed[1].size, 2);
        assert!(listed.iter().all(|o| o.last_modified_ms.is_some()));
        let none = storage
            .list(&ObjectUri::parse("s3://lake/nothing/here").unwrap())
            .unwrap();
        assert!(none.is_empty());
    }
}
