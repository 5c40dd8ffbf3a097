//! Google Cloud Storage (`gs://`) through its JSON API.
//!
//! `object_store`'s own GCS client speaks the XML API, which the GCS emulators installable from a
//! package registry do not serve well enough to test against (fake-gcs-server answers its
//! unsigned `PUT` with 400; gcp-storage-emulator has no `HEAD` and no ETag). This client speaks
//! the JSON API, which Google documents as the primary one and both emulators serve, and
//! implements [`ObjectStore`] so that everything built on a store (downloads, uploads, Iceberg
//! tables, DataFusion's scans) works on `gs://` as on `s3://`.
//!
//! Configuration, from the environment as Google's client libraries read it:
//!
//! * `STORAGE_EMULATOR_HOST` (`host:port` or a URL): requests go there, unauthenticated, over
//!   plain HTTP unless the URL says `https://`.
//! * Otherwise requests go to `https://storage.googleapis.com` with an OAuth bearer token from
//!   `object_store`'s GCP credential providers: `GOOGLE_SERVICE_ACCOUNT` (or
//!   `GOOGLE_SERVICE_ACCOUNT_PATH`) naming a key file, `GOOGLE_SERVICE_ACCOUNT_KEY` holding one,
//!   `GOOGLE_APPLICATION_CREDENTIALS`, gcloud's application default credentials, else the
//!   instance metadata server.
//!
//! Reads fetch the object's metadata and then its bytes pinned to that generation, so a read
//! never mixes two versions of an object. A multipart upload is a resumable upload: parts are
//! sent in order (each waits for the one before), in chunks of a multiple of 256 KiB as GCS
//! requires, and the object appears when the last chunk is sent.

mod client;
mod store;
mod upload;

use std::collections::HashMap;
use std::sync::Arc;

use object_store::ObjectStore;
use object_store::gcp::{GcpCredentialProvider, GoogleCloudStorageBuilder, GoogleConfigKey};

use crate::error::{Error, Result};
use crate::uri::Provider;

pub(crate) use store::GcsJsonStore;

/// The JSON API's public endpoint.
const PUBLIC_ENDPOINT: &str = "https://storage.googleapis.com";

/// The variable Google's client libraries read for an emulator's address.
pub const EMULATOR_VAR: &str = "STORAGE_EMULATOR_HOST";

/// The store of `bucket` from `vars` (see the module docs); errors name `shown`.
///
/// # Errors
///
/// [`Error::Config`] when the credentials named in the environment cannot be read.
pub(crate) fn store(
    bucket: &str,
    shown: &str,
    vars: &HashMap<String, String>,
) -> Result<Arc<dyn ObjectStore>> {
    let config_error = |source| Error::Config {
        uri: shown.to_string(),
        hint: Provider::Gcs.config_hint(),
        source,
    };
    let emulator = vars
        .get(EMULATOR_VAR)
        .map(|host| host.trim())
        .filter(|host| !host.is_empty());
    let (endpoint, credentials) = match emulator {
        Some(host) if host.contains("://") => (host.trim_end_matches('/').to_string(), None),
        Some(host) => (format!("http://{}", host.trim_end_matches('/')), None),
        None => {
            let credentials = credentials(bucket, vars).map_err(config_error)?;
            (PUBLIC_ENDPOINT.to_string(), Some(credentials))
        }
    };
    let store = GcsJsonStore::new(bucket, endpoint, credentials).map_err(config_error)?;
    Ok(Arc::new(store))
}

/// `object_store`'s credential provider for the `GOOGLE_*` variables in `vars` (blank values
/// skipped), falling back as its builder does.
fn credentials(
    bucket: &str,
    vars: &HashMap<String, String>,
) -> object_store::Result<GcpCredentialProvider> {
    let mut builder = GoogleCloudStorageBuilder::new().with_bucket_name(bucket);
    for (key, value) in vars {
        if !key.starts_with("GOOGLE_") || value.trim().is_empty() {
            continue;
        }
        if let Ok(config_key) = key.to_ascii_lowercase().parse::<GoogleConfigKey>()
            && !matches!(config_key, GoogleConfigKey::Bucket)
        {
            builder = builder.with_config(config_key, value);
        }
    }
    Ok(Arc::clone(builder.build()?.credentials()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_emulator_host_becomes_an_http_endpoint_without_credentials() {
        for (host, endpoint) in [
            ("127.0.0.1:4443", "http://127.0.0.1:4443"),
            ("http://127.0.0.1:4443/", "http://127.0.0.1:4443"),
            ("https://gcs.test", "https://gcs.test"),
        ] {
            let store = GcsJsonStore::new("lake", endpoint.into(), None).unwrap();
            let built = store_for(host);
            assert_eq!(built, store.to_string(), "{host}");
        }
    }

    fn store_for(host: &str) -> String {
        store("lake", "gs://lake", &vars(&[(EMULATOR_VAR, host)]))
            .unwrap()
            .to_string()
    }

    #[test]
    fn a_key_file_that_does_not_exist_is_a_config_error_naming_the_variables() {
        let e = store(
            "lake",
            "gs://lake",
            &vars(&[("GOOGLE_SERVICE_ACCOUNT", "/nonexistent/key.json")]),
        )
        .unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Config, "{e}");
        let message = e.to_string();
        assert!(message.starts_with("gs://lake: "), "{message}");
        assert!(
            message.contains("GOOGLE_APPLICATION_CREDENTIALS"),
            "{message}"
        );
    }
}
