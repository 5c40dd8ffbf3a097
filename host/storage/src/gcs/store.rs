//! [`GcsJsonStore`]: `object_store`'s [`ObjectStore`] over GCS's JSON API.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::stream::{self, BoxStream, StreamExt, TryStreamExt};
use object_store::gcp::GcpCredentialProvider;
use object_store::path::Path;
use object_store::{
    Attributes, CopyMode, CopyOptions, GetOptions, GetResult, GetResultPayload, ListResult,
    MultipartUpload, ObjectMeta, ObjectStore, PutMode, PutMultipartOptions, PutOptions, PutPayload,
    PutResult,
};
use reqwest::StatusCode;
use serde::Deserialize;

use super::client::{Client, ObjectPage, ObjectResource, generic, invalid_answer, status_error};
use super::upload::ResumableUpload;

/// Deletes in flight at once.
const DELETES_IN_FLIGHT: usize = 8;

/// One bucket on GCS, through the JSON API (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct GcsJsonStore {
    client: Arc<Client>,
}

impl GcsJsonStore {
    pub(crate) fn new(
        bucket: &str,
        endpoint: String,
        credentials: Option<GcpCredentialProvider>,
    ) -> object_store::Result<GcsJsonStore> {
        Ok(GcsJsonStore {
            client: Arc::new(Client::new(bucket, endpoint, credentials)?),
        })
    }

    /// The object resource of `location` (its generation pinned to `version` when given).
    async fn resource(
        &self,
        location: &Path,
        version: Option<&str>,
    ) -> object_store::Result<ObjectResource> {
        let url = self.client.object_url(location);
        let response = self
            .client
            .send_ok(location.as_ref(), |http| {
                let request = http.get(&url);
                match version {
                    Some(generation) => request.query(&[("generation", generation)]),
                    None => request,
                }
            })
            .await?;
        response.json().await.map_err(generic)
    }

    /// One page of the objects under `prefix` (a folder: `prefix/…`), with `delimiter` the
    /// folders below it as prefixes.
    async fn page(
        &self,
        prefix: Option<&Path>,
        delimiter: bool,
        token: Option<String>,
    ) -> object_store::Result<ObjectPage> {
        let url = self.client.objects_url();
        let mut query = vec![("prefix", folder(prefix))];
        if delimiter {
            query.push(("delimiter", "/".into()));
        }
        if let Some(token) = token {
            query.push(("pageToken", token));
        }
        let path = prefix.map_or("", |p| p.as_ref());
        let response = self
            .client
            .send_ok(path, |http| http.get(&url).query(&query))
            .await?;
        response.json().await.map_err(generic)
    }

    async fn delete_one(client: &Client, location: &Path) -> object_store::Result<()> {
        let url = client.object_url(location);
        client
            .send_ok(location.as_ref(), |http| http.delete(&url))
            .await
            .map(|_| ())
    }
}

/// `prefix` as a listing's prefix: the folder's name with a trailing `/`, empty for the
/// bucket.
fn folder(prefix: Option<&Path>) -> String {
    match prefix.map(|p| p.as_ref()).filter(|p| !p.is_empty()) {
        Some(prefix) => format!("{prefix}/"),
        None => String::new(),
    }
}

/// The generation precondition of a write: `0` for "must not exist", the version (else the
/// ETag, which GCS does not take) for an update.
fn generation_match(mode: &PutMode, path: &Path) -> object_store::Result<Option<String>> {
    match mode {
        PutMode::Overwrite => Ok(None),
        PutMode::Create => Ok(Some("0".into())),
        PutMode::Update(version) => match &version.version {
            Some(generation) => Ok(Some(generation.clone())),
            None => Err(object_store::Error::Precondition {
                path: path.to_string(),
                source: "a GCS update needs the object's generation (its version), not an ETag"
                    .into(),
            }),
        },
    }
}

/// A `multipart/related` upload body: the object's metadata (its name), then its bytes; and its
/// content type. The boundary is a fresh UUID, which the bytes do not hold.
fn multipart_body(name: &str, payload: PutPayload) -> (String, Bytes) {
    let boundary = format!("ldp-{}", uuid::Uuid::new_v4().simple());
    let metadata = serde_json::json!({ "name": name }).to_string();
    let mut body = Vec::with_capacity(payload.content_length() + metadata.len() + 200);
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n{metadata}\r\n\
             --{boundary}\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    for part in &payload {
        body.extend_from_slice(part);
    }
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (
        format!("multipart/related; boundary={boundary}"),
        Bytes::from(body),
    )
}

impl fmt::Display for GcsJsonStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GoogleCloudStorage({} at {})",
            self.client.bucket(),
            self.client.endpoint()
        )
    }
}

#[async_trait]
impl ObjectStore for GcsJsonStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        let precondition = generation_match(&opts.mode, location)?;
        let url = self.client.upload_url();
        let name = location.as_ref();
        // A simple upload, or with a precondition a multipart one (metadata and bytes), which
        // GCS and its emulators both hold to the precondition.
        let (upload_type, content_type, body) = match &precondition {
            None => (
                "media",
                "application/octet-stream".to_string(),
                Bytes::from(payload),
            ),
            Some(_) => {
                let (content_type, body) = multipart_body(name, payload);
                ("multipart", content_type, body)
            }
        };
        let response = self
            .client
            .send(|http| {
                let mut query = vec![("uploadType", upload_type), ("name", name)];
                if let Some(generation) = &precondition {
                    query.push(("ifGenerationMatch", generation.as_str()));
                }
                http.post(&url)
                    .query(&query)
                    .header("content-type", &content_type)
                    .body(body.clone())
            })
            .await?;
        if response.status() == StatusCode::PRECONDITION_FAILED && opts.mode == PutMode::Create {
            return Err(object_store::Error::AlreadyExists {
                path: location.to_string(),
                source: "the object exists".into(),
            });
        }
        if !response.status().is_success() {
            return Err(status_error(name, response).await);
        }
        let resource: ObjectResource = response.json().await.map_err(generic)?;
        let meta = resource.meta()?;
        Ok(PutResult {
            e_tag: meta.e_tag,
            version: meta.version,
        })
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        _opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        let upload = ResumableUpload::start(Arc::clone(&self.client), location).await?;
        Ok(Box::new(upload))
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        let resource = self.resource(location, options.version.as_deref()).await?;
        let meta = resource.meta()?;
        options.check_preconditions(&meta)?;
        let range = match &options.range {
            Some(range) => range.as_range(meta.size).map_err(generic)?,
            None => 0..meta.size,
        };
        if options.head || range.is_empty() {
            return Ok(GetResult {
                payload: GetResultPayload::Stream(stream::empty().boxed()),
                meta,
                range,
                attributes: Attributes::new(),
            });
        }
        let url = self.client.object_url(location);
        let generation = resource.generation.clone();
        let whole = range.start == 0 && range.end == meta.size;
        let bytes = format!("bytes={}-{}", range.start, range.end - 1);
        let response = self
            .client
            .send_ok(location.as_ref(), |http| {
                let mut request = http.get(&url).query(&[("alt", "media")]);
                if let Some(generation) = &generation {
                    request = request.query(&[("generation", generation)]);
                }
                if !whole {
                    request = request.header("range", &bytes);
                }
                request
            })
            .await?;
        let stream = response.bytes_stream().map_err(generic).boxed();
        Ok(GetResult {
            payload: GetResultPayload::Stream(stream),
            meta,
            range,
            attributes: Attributes::new(),
        })
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        let client = Arc::clone(&self.client);
        locations
            .map(move |location| {
                let client = Arc::clone(&client);
                async move {
                    let location = location?;
                    match Self::delete_one(&client, &location).await {
                        Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(location),
                        Err(e) => Err(e),
                    }
                }
            })
            .buffered(DELETES_IN_FLIGHT)
            .boxed()
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        let store = self.clone();
        let prefix = prefix.cloned();
        // The state: the next page's token, `None` once the last page was read.
        stream::try_unfold(Some(None), move |token: Option<Option<String>>| {
            let store = store.clone();
            let prefix = prefix.clone();
            async move {
                let Some(token) = token else {
                    return Ok::<_, object_store::Error>(None);
                };
                let page = store.page(prefix.as_ref(), false, token).await?;
                let metas = page
                    .items
                    .iter()
                    .filter(|item| !item.name.ends_with('/'))
                    .map(ObjectResource::meta)
                    .collect::<Vec<_>>();
                let next = page.next_page_token.map(Some);
                Ok(Some((stream::iter(metas), next)))
            }
        })
        .try_flatten()
        .boxed()
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        let mut result = ListResult {
            common_prefixes: Vec::new(),
            objects: Vec::new(),
        };
        let mut token = None;
        loop {
            let page = self.page(prefix, true, token).await?;
            for item in page.items.iter().filter(|item| !item.name.ends_with('/')) {
                result.objects.push(item.meta()?);
            }
            for folder in &page.prefixes {
                result
                    .common_prefixes
                    .push(Path::parse(folder.trim_end_matches('/'))?);
            }
            match page.next_page_token {
                Some(next) => token = Some(next),
                None => return Ok(result),
            }
        }
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        let url = self.client.rewrite_url(from, to);
        let create = options.mode == CopyMode::Create;
        let mut token: Option<String> = None;
        loop {
            let response = self
                .client
                .send(|http| {
                    let mut request = http.post(&url).header("content-length", "0");
                    if create {
                        request = request.query(&[("ifGenerationMatch", "0")]);
                    }
                    if let Some(token) = &token {
                        request = request.query(&[("rewriteToken", token)]);
                    }
                    request
                })
                .await?;
            if create && response.status() == StatusCode::PRECONDITION_FAILED {
                return Err(object_store::Error::AlreadyExists {
                    path: to.to_string(),
                    source: "the object exists".into(),
                });
            }
            if !response.status().is_success() {
                return Err(status_error(from.as_ref(), response).await);
            }
            let rewrite: Rewrite = response.json().await.map_err(generic)?;
            match (rewrite.done, rewrite.rewrite_token) {
                (true, _) => return Ok(()),
                (false, Some(next)) => token = Some(next),
                (false, None) => {
                    return Err(invalid_answer(format!(
                        "the copy of {from} to {to} is not done and has no token to go on"
                    )));
                }
            }
        }
    }
}

/// The answer to `rewriteTo`: done, or a token to call again with.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Rewrite {
    #[serde(default = "done")]
    done: bool,
    #[serde(default)]
    rewrite_token: Option<String>,
}

fn done() -> bool {
    true
}
