//! A multipart upload as a GCS resumable upload.
//!
//! GCS takes a resumable upload's bytes in order, in chunks of a multiple of 256 KiB but the
//! last. Parts may be handed over and run concurrently, so each part waits for the one before
//! it, which hands on the upload's [`State`]: the bytes sent so far and those left over from
//! the chunking. [`ResumableUpload::complete`] sends what is left with the total size, and the
//! object appears then; [`ResumableUpload::abort`] cancels the session, and nothing appears.

use std::sync::Arc;

use bytes::Bytes;
use object_store::path::Path;
use object_store::{MultipartUpload, PutPayload, PutResult, UploadPart};
use reqwest::StatusCode;
use tokio::sync::oneshot;

use super::client::{Client, ObjectResource, generic, invalid_answer, status_error};

/// GCS's chunk granularity: every chunk but the last is a multiple of it.
const CHUNK: usize = 256 * 1024;

/// Where an upload stands, handed from each part to the next.
#[derive(Debug, Default)]
struct State {
    /// Bytes stored by GCS.
    offset: u64,
    /// Bytes handed over but not yet sent (less than [`CHUNK`] after each part).
    carry: Vec<u8>,
}

/// The state of the part before, or `Err` when it failed (or was dropped).
type Handover = oneshot::Receiver<Result<State, ()>>;

/// One resumable upload session.
#[derive(Debug)]
pub(super) struct ResumableUpload {
    client: Arc<Client>,
    name: Arc<str>,
    session: Arc<str>,
    last: Option<Handover>,
}

impl ResumableUpload {
    /// Opens a session for the object `location`.
    pub(super) async fn start(
        client: Arc<Client>,
        location: &Path,
    ) -> object_store::Result<ResumableUpload> {
        let url = client.upload_url();
        let name = location.as_ref();
        let response = client
            .send_ok(name, |http| {
                http.post(&url)
                    .query(&[("uploadType", "resumable"), ("name", name)])
                    .header("content-type", "application/json; charset=UTF-8")
                    .body("{}")
            })
            .await?;
        let session = response
            .headers()
            .get("location")
            .and_then(|value| value.to_str().ok())
            .ok_or_else(|| {
                invalid_answer(format!(
                    "GCS opened no resumable upload for {name} (no Location header)"
                ))
            })?;
        Ok(ResumableUpload {
            name: name.into(),
            session: session.into(),
            client,
            last: None,
        })
    }
}

/// Sends `chunk` at `offset`; `total` is the object's size for the last chunk. Returns the
/// response: 308 for a chunk in the middle, the object's resource for the last.
async fn send_chunk(
    client: &Client,
    session: &str,
    name: &str,
    offset: u64,
    chunk: Bytes,
    total: Option<u64>,
) -> object_store::Result<reqwest::Response> {
    let total_text = total.map_or_else(|| "*".to_string(), |t| t.to_string());
    let range = if chunk.is_empty() {
        format!("bytes */{total_text}")
    } else {
        let end = offset + chunk.len() as u64 - 1;
        format!("bytes {offset}-{end}/{total_text}")
    };
    let response = client
        .send(|http| {
            http.put(session)
                .header("content-range", &range)
                .body(chunk.clone())
        })
        .await?;
    let status = response.status();
    let expected = match total {
        None => status == StatusCode::PERMANENT_REDIRECT,
        Some(_) => status.is_success(),
    };
    if expected {
        Ok(response)
    } else if status.is_success() || status == StatusCode::PERMANENT_REDIRECT {
        Err(invalid_answer(format!(
            "GCS answered {status} to the chunk {range} of {name}"
        )))
    } else {
        Err(status_error(name, response).await)
    }
}

fn earlier_part_failed(name: &str) -> object_store::Error {
    invalid_answer(format!(
        "an earlier part of the upload of {name} failed; the upload cannot go on"
    ))
}

#[async_trait::async_trait]
impl MultipartUpload for ResumableUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        let (handover, next) = oneshot::channel();
        let before = self.last.replace(next);
        let client = Arc::clone(&self.client);
        let session = Arc::clone(&self.session);
        let name = Arc::clone(&self.name);
        Box::pin(async move {
            let state = match before {
                None => Ok(State::default()),
                Some(before) => before.await.unwrap_or(Err(())),
            };
            let Ok(mut state) = state else {
                let _ = handover.send(Err(()));
                return Err(earlier_part_failed(&name));
            };
            for bytes in &data {
                state.carry.extend_from_slice(bytes);
            }
            let ready = state.carry.len() / CHUNK * CHUNK;
            if ready > 0 {
                let chunk = Bytes::from(state.carry.drain(..ready).collect::<Vec<u8>>());
                if let Err(e) =
                    send_chunk(&client, &session, &name, state.offset, chunk, None).await
                {
                    let _ = handover.send(Err(()));
                    return Err(e);
                }
                state.offset += ready as u64;
            }
            let _ = handover.send(Ok(state));
            Ok(())
        })
    }

    async fn complete(&mut self) -> object_store::Result<PutResult> {
        let state = match self.last.take() {
            None => State::default(),
            Some(before) => before
                .await
                .unwrap_or(Err(()))
                .map_err(|()| earlier_part_failed(&self.name))?,
        };
        let total = state.offset + state.carry.len() as u64;
        let response = send_chunk(
            &self.client,
            &self.session,
            &self.name,
            state.offset,
            Bytes::from(state.carry),
            Some(total),
        )
        .await?;
        let resource: ObjectResource = response.json().await.map_err(generic)?;
        let meta = resource.meta()?;
        Ok(PutResult {
            e_tag: meta.e_tag,
            version: meta.version,
        })
    }

    async fn abort(&mut self) -> object_store::Result<()> {
        let session = Arc::clone(&self.session);
        let response = self.client.send(|http| http.delete(&*session)).await?;
        // GCS answers a cancelled session with 499; one already gone with 404 or 410.
        match response.status().as_u16() {
            200..=299 | 404 | 410 | 499 => Ok(()),
            _ => Err(status_error(&self.name, response).await),
        }
    }
}
