//! Requests to GCS's JSON API: URLs, authentication, retries, errors, and the object resource.

use std::time::Duration;

use chrono::{DateTime, Utc};
use object_store::ObjectMeta;
use object_store::gcp::GcpCredentialProvider;
use object_store::path::Path;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::{RequestBuilder, Response, StatusCode};
use serde::Deserialize;

/// The store's name in `object_store` errors.
pub(super) const STORE: &str = "GCS";

/// Attempts of one request: a timeout, a connection failure, 408, 429 and 5xx are retried.
const ATTEMPTS: u32 = 4;

/// The wait before the second attempt, doubled for each attempt after it.
const FIRST_BACKOFF: Duration = Duration::from_millis(200);

/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a response may stay silent before the request fails (and is retried).
const READ_TIMEOUT: Duration = Duration::from_secs(120);

/// What an object name keeps unescaped in a URL path segment (RFC 3986's unreserved
/// characters): `/` is escaped, as the JSON API wants the name as one segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// An HTTP client for one bucket.
#[derive(Debug)]
pub(super) struct Client {
    http: reqwest::Client,
    endpoint: String,
    bucket: String,
    credentials: Option<GcpCredentialProvider>,
}

impl Client {
    pub(super) fn new(
        bucket: &str,
        endpoint: String,
        credentials: Option<GcpCredentialProvider>,
    ) -> object_store::Result<Client> {
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(READ_TIMEOUT)
            // A resumable upload's 308 is "go on", not a redirect.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(generic)?;
        Ok(Client {
            http,
            endpoint,
            bucket: bucket.to_string(),
            credentials,
        })
    }

    pub(super) fn bucket(&self) -> &str {
        &self.bucket
    }

    pub(super) fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// `…/storage/v1/b/BUCKET/o`: the bucket's objects.
    pub(super) fn objects_url(&self) -> String {
        format!(
            "{}/storage/v1/b/{}/o",
            self.endpoint,
            utf8_percent_encode(&self.bucket, SEGMENT)
        )
    }

    /// `…/storage/v1/b/BUCKET/o/NAME`: one object's resource.
    pub(super) fn object_url(&self, path: &Path) -> String {
        format!(
            "{}/{}",
            self.objects_url(),
            utf8_percent_encode(path.as_ref(), SEGMENT)
        )
    }

    /// `…/o/FROM/rewriteTo/b/BUCKET/o/TO`: a copy within the bucket.
    pub(super) fn rewrite_url(&self, from: &Path, to: &Path) -> String {
        format!(
            "{}/rewriteTo/b/{}/o/{}",
            self.object_url(from),
            utf8_percent_encode(&self.bucket, SEGMENT),
            utf8_percent_encode(to.as_ref(), SEGMENT)
        )
    }

    /// `…/upload/storage/v1/b/BUCKET/o`: where objects are uploaded.
    pub(super) fn upload_url(&self) -> String {
        format!(
            "{}/upload/storage/v1/b/{}/o",
            self.endpoint,
            utf8_percent_encode(&self.bucket, SEGMENT)
        )
    }

    /// Sends the request `build` makes (again on each attempt) with the bearer token, retrying
    /// what may pass on retry; returns the last response whatever its status.
    pub(super) async fn send(
        &self,
        build: impl Fn(&reqwest::Client) -> RequestBuilder,
    ) -> object_store::Result<Response> {
        let mut backoff = FIRST_BACKOFF;
        let mut attempt = 1;
        loop {
            let mut request = build(&self.http);
            if let Some(credentials) = &self.credentials {
                let credential = credentials.get_credential().await?;
                if !credential.bearer.is_empty() {
                    request = request.bearer_auth(&credential.bearer);
                }
            }
            let retry = match request.send().await {
                Ok(response) if !retryable_status(response.status()) => return Ok(response),
                Ok(response) if attempt >= ATTEMPTS => return Ok(response),
                Ok(response) => format!("status {}", response.status()),
                Err(e) if attempt < ATTEMPTS && (e.is_connect() || e.is_timeout()) => e.to_string(),
                Err(e) => return Err(generic(e)),
            };
            tracing::debug!(attempt, %retry, "retrying a GCS request");
            tokio::time::sleep(backoff).await;
            backoff *= 2;
            attempt += 1;
        }
    }

    /// [`Client::send`], then a status that is not a success made an error for `path`.
    pub(super) async fn send_ok(
        &self,
        path: &str,
        build: impl Fn(&reqwest::Client) -> RequestBuilder,
    ) -> object_store::Result<Response> {
        let response = self.send(build).await?;
        if response.status().is_success() {
            return Ok(response);
        }
        Err(status_error(path, response).await)
    }
}

fn retryable_status(status: StatusCode) -> bool {
    status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
        || status.is_server_error()
}

/// The error of a response that failed: GCS's message with the status, of the `object_store`
/// kind the status means.
pub(super) async fn status_error(path: &str, response: Response) -> object_store::Error {
    let status = response.status();
    let body = response.text().await.unwrap_or_default();
    let message = serde_json::from_str::<ErrorBody>(&body)
        .map(|body| body.error.message)
        .unwrap_or_else(|_| body.chars().take(300).collect());
    let source: Box<dyn std::error::Error + Send + Sync> =
        format!("GCS answered {status}: {message}").into();
    let path = path.to_string();
    match status {
        StatusCode::NOT_FOUND => object_store::Error::NotFound { path, source },
        StatusCode::PRECONDITION_FAILED => object_store::Error::Precondition { path, source },
        StatusCode::NOT_MODIFIED => object_store::Error::NotModified { path, source },
        StatusCode::UNAUTHORIZED => object_store::Error::Unauthenticated { path, source },
        StatusCode::FORBIDDEN => object_store::Error::PermissionDenied { path, source },
        _ => object_store::Error::Generic {
            store: STORE,
            source,
        },
    }
}

pub(super) fn generic(e: impl std::error::Error + Send + Sync + 'static) -> object_store::Error {
    object_store::Error::Generic {
        store: STORE,
        source: Box::new(e),
    }
}

/// A malformed answer from the store.
pub(super) fn invalid_answer(what: String) -> object_store::Error {
    object_store::Error::Generic {
        store: STORE,
        source: what.into(),
    }
}

#[derive(Deserialize)]
struct ErrorBody {
    error: ErrorMessage,
}

#[derive(Deserialize)]
struct ErrorMessage {
    message: String,
}

/// The JSON API's object resource: the fields ldp reads.
#[derive(Debug, Deserialize)]
pub(super) struct ObjectResource {
    pub(super) name: String,
    /// A decimal string, as the JSON API writes 64-bit numbers.
    #[serde(default)]
    size: Option<String>,
    #[serde(default)]
    updated: Option<String>,
    #[serde(default)]
    pub(super) generation: Option<String>,
    #[serde(default)]
    etag: Option<String>,
}

impl ObjectResource {
    /// The object's metadata. The version is the generation; the ETag is GCS's.
    pub(super) fn meta(&self) -> object_store::Result<ObjectMeta> {
        let location = Path::parse(&self.name)?;
        let size = match &self.size {
            Some(size) => size.parse().map_err(|_| {
                invalid_answer(format!(
                    "the size {size:?} of {} is not a number",
                    self.name
                ))
            })?,
            None => 0,
        };
        let last_modified = match &self.updated {
            Some(updated) => DateTime::parse_from_rfc3339(updated)
                .map_err(|e| {
                    invalid_answer(format!(
                        "the update time {updated:?} of {} is not a time: {e}",
                        self.name
                    ))
                })?
                .with_timezone(&Utc),
            None => DateTime::<Utc>::UNIX_EPOCH,
        };
        Ok(ObjectMeta {
            location,
            last_modified,
            size,
            e_tag: self.etag.clone(),
            version: self.generation.clone(),
        })
    }
}

/// One page of a listing.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ObjectPage {
    #[serde(default)]
    pub(super) items: Vec<ObjectResource>,
    #[serde(default)]
    pub(super) prefixes: Vec<String>,
    #[serde(default)]
    pub(super) next_page_token: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_names_are_one_escaped_segment() {
        let client = Client::new("lake", "http://127.0.0.1:1".into(), None).unwrap();
        let path = Path::parse("drops/2026 12/a+b.csv").unwrap();
        assert_eq!(
            client.object_url(&path),
            "http://127.0.0.1:1/storage/v1/b/lake/o/drops%2F2026%2012%2Fa%2Bb.csv"
        );
        assert_eq!(
            client.upload_url(),
            "http://127.0.0.1:1/upload/storage/v1/b/lake/o"
        );
    }

    #[test]
    fn the_resource_gives_size_time_generation_and_etag() {
        let resource: ObjectResource = serde_json::from_str(
            r#"{"name":"a/b.csv","size":"11","updated":"2026-12-07T20:30:16.346381Z",
                "generation":"1796675416346413","etag":"PLlc"}"#,
        )
        .unwrap();
        let meta = resource.meta().unwrap();
        assert_eq!(meta.location.as_ref(), "a/b.csv");
        assert_eq!(meta.size, 11);
        assert_eq!(meta.version.as_deref(), Some("1796675416346413"));
        assert_eq!(meta.e_tag.as_deref(), Some("PLlc"));
        assert_eq!(
            meta.last_modified.to_rfc3339(),
            "2026-12-07T20:30:16.346381+00:00"
        );
        let bad: ObjectResource = serde_json::from_str(r#"{"name":"x","size":"many"}"#).unwrap();
        assert!(bad.meta().unwrap_err().to_string().contains("\"many\""));
    }
}
