//! Table metadata as JSON, by metadata file. A metadata file never changes once written, so a
//! table loaded again at the same metadata location is answered without reading the file:
//! only the catalog's pointer is looked up.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Entries kept; past that the cache starts over (tables move on, old entries go stale).
const CAPACITY: usize = 512;

/// Metadata JSON by metadata location.
#[derive(Debug, Default)]
pub(crate) struct MetadataCache {
    entries: Mutex<HashMap<String, Arc<str>>>,
}

impl MetadataCache {
    pub(crate) fn get(&self, metadata_location: &str) -> Option<Arc<str>> {
        self.entries.lock().ok()?.get(metadata_location).cloned()
    }

    pub(crate) fn put(&self, metadata_location: &str, json: Arc<str>) {
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= CAPACITY {
                entries.clear();
            }
            entries.insert(metadata_location.to_string(), json);
        }
    }
}
