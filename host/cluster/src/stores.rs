//! The object stores of a cluster's processes: a data file on `s3://bucket/…` is read through
//! the store of its bucket, built on first use from the process's own environment (as
//! `ldp-storage` builds it for `ldp run` and `ldp query`), so credentials never travel in a
//! plan. Local paths use the local file system.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use ::url::Url;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::object_store::ObjectStoreRegistry;
use object_store::ObjectStore;
use object_store::local::LocalFileSystem;

/// A registry that builds the store of each bucket from the environment the first time a plan
/// names it.
#[derive(Debug)]
pub struct EnvObjectStores {
    local: Arc<LocalFileSystem>,
    /// Stores by `scheme://bucket`.
    stores: RwLock<HashMap<String, Arc<dyn ObjectStore>>>,
}

impl EnvObjectStores {
    /// An empty registry.
    pub fn new() -> EnvObjectStores {
        EnvObjectStores {
            local: Arc::new(LocalFileSystem::new()),
            stores: RwLock::new(HashMap::new()),
        }
    }
}

impl Default for EnvObjectStores {
    fn default() -> Self {
        EnvObjectStores::new()
    }
}

/// `scheme://host`, the key of a store.
fn key(url: &Url) -> String {
    format!("{}://{}", url.scheme(), url.host_str().unwrap_or_default())
}

impl ObjectStoreRegistry for EnvObjectStores {
    fn register_store(
        &self,
        url: &Url,
        store: Arc<dyn ObjectStore>,
    ) -> Option<Arc<dyn ObjectStore>> {
        self.stores
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key(url), store)
    }

    fn deregister_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        self.stores
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&key(url))
            .ok_or_else(|| DataFusionError::Execution(format!("no object store for {url}")))
    }

    fn get_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        match url.scheme() {
            "file" | "" => return Ok(Arc::clone(&self.local) as Arc<dyn ObjectStore>),
            "s3" | "s3a" | "gs" => {}
            other => {
                return Err(DataFusionError::Execution(format!(
                    "this cluster reads local paths, s3:// and gs:// buckets, not {other}:// ({url})"
                )));
            }
        }
        let key = key(url);
        let known = self
            .stores
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(store) = known {
            return Ok(store);
        }
        let bucket = url.host_str().unwrap_or_default();
        let provider =
            ldp_storage::Provider::of_scheme(url.scheme()).unwrap_or(ldp_storage::Provider::S3);
        let store = ldp_storage::bucket_store(provider, bucket).map_err(|e| {
            DataFusionError::Execution(format!(
                "cannot open the bucket {bucket} from this process's environment: {e}"
            ))
        })?;
        tracing::debug!(bucket, "opened the object store of a bucket");
        let mut stores = self
            .stores
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(Arc::clone(stores.entry(key).or_insert(store)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_paths_use_the_local_file_system_and_other_schemes_are_refused() {
        let stores = EnvObjectStores::new();
        assert!(
            stores
                .get_store(&Url::parse("file:///tmp/x.parquet").unwrap())
                .is_ok()
        );
        let err = stores
            .get_store(&Url::parse("hdfs://h/x").unwrap())
            .unwrap_err();
        assert!(err.to_string().contains("not hdfs://"), "{err}");
    }
}
