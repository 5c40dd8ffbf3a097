//! One Glue call: a signed JSON POST (`X-Amz-Target: AWSGlue.<Operation>`), and the mapping of
//! Glue's error types onto [`Error`]s.

use reqwest::blocking::Client;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::settings::GlueSettings;
use crate::sigv4;

const CONTENT_TYPE: &str = "application/x-amz-json-1.1";

/// Whether a call changes the catalog, which decides what a failure after sending means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// A read: repeating it is always safe.
    Read,
    /// A write other than a commit: a broken connection or a 5xx may have applied it.
    Write,
    /// The `UpdateTable` of a commit: an unknown outcome is [`Error::CommitStateUnknown`].
    Commit,
}

/// What the client is doing, for messages.
pub(crate) struct Call<'a> {
    /// The Glue operation, e.g. `GetTable`.
    pub operation: &'static str,
    /// `load table nyc.rides`.
    pub action: String,
    /// `table nyc.rides`: what a `EntityNotFoundException` or `AlreadyExistsException` names.
    pub what: String,
    /// `nyc.rides` for a commit.
    pub table: &'a str,
    /// Whether the call changes the catalog.
    pub effect: Effect,
}

/// The HTTP side of a [`GlueCatalog`](crate::GlueCatalog).
pub(crate) struct Transport {
    pub settings: GlueSettings,
    client: Client,
    url: String,
    host: String,
    pub catalog: String,
}

impl Transport {
    pub fn new(settings: GlueSettings) -> Result<Self> {
        let catalog = settings.describe();
        let url = settings.endpoint_url();
        let invalid = |problem: String| Error::InvalidSettings {
            catalog: catalog.clone(),
            problem,
        };
        let parsed = reqwest::Url::parse(&url)
            .map_err(|e| invalid(format!("the endpoint {url} is not a URL ({e})")))?;
        if !matches!(parsed.scheme(), "http" | "https") || !parsed.username().is_empty() {
            return Err(invalid(format!(
                "the endpoint {url} must be http(s)://host[:port] without user info"
            )));
        }
        let host = match (parsed.host_str(), parsed.port()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_string(),
            (None, _) => return Err(invalid(format!("the endpoint {url} has no host"))),
        };
        let client = Client::builder()
            .timeout(settings.timeout)
            .connect_timeout(settings.timeout)
            .build()
            .map_err(|e| invalid(format!("cannot build the HTTP client: {e}")))?;
        Ok(Transport {
            settings,
            client,
            url,
            host,
            catalog,
        })
    }

    /// Replaces the secret access key and the session token in `text` with `***`.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        let secrets = [
            Some(self.settings.secret_access_key.as_str()),
            self.settings.session_token.as_deref(),
        ];
        for secret in secrets.into_iter().flatten().filter(|s| s.len() >= 4) {
            out = out.replace(secret, "***");
        }
        out
    }

    /// Sends `body` (with `CatalogId` added when the settings have one) and returns Glue's
    /// answer.
    pub fn call(&self, call: &Call<'_>, mut body: Value) -> Result<Value> {
        if let (Some(id), Some(map)) = (&self.settings.catalog_id, body.as_object_mut()) {
            map.insert("CatalogId".into(), Value::String(id.clone()));
        }
        let body = serde_json::to_vec(&body).map_err(|e| self.bad(call, e.to_string()))?;
        let target = format!("AWSGlue.{}", call.operation);
        let request = sigv4::Request {
            host: &self.host,
            target: &target,
            content_type: CONTENT_TYPE,
            body: &body,
        };
        let credentials = sigv4::Credentials {
            access_key_id: &self.settings.access_key_id,
            secret_access_key: &self.settings.secret_access_key,
            session_token: self.settings.session_token.as_deref(),
        };
        let headers = sigv4::sign(
            &request,
            &credentials,
            &self.settings.region,
            &sigv4::amz_date_now(),
        );
        let mut builder = self
            .client
            .post(format!("{}/", self.url))
            .header("content-type", CONTENT_TYPE);
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        let response = builder
            .body(body)
            .send()
            .map_err(|e| self.network_error(call, &e))?;
        let status = response.status().as_u16();
        let text = response.text().map_err(|e| self.network_error(call, &e))?;
        if (200..300).contains(&status) {
            if text.trim().is_empty() {
                return Ok(Value::Object(Default::default()));
            }
            return serde_json::from_str(&text).map_err(|e| {
                self.bad(
                    call,
                    format!("status {status} with a body that is not JSON ({e})"),
                )
            });
        }
        Err(self.glue_error(call, status, &text))
    }

    fn bad(&self, call: &Call<'_>, problem: String) -> Error {
        Error::BadResponse {
            catalog: self.catalog.clone(),
            action: call.action.clone(),
            problem: self.scrub(&problem),
        }
    }

    fn network_error(&self, call: &Call<'_>, error: &reqwest::Error) -> Error {
        let mut cause = error.to_string();
        let mut source = std::error::Error::source(error);
        while let Some(inner) = source {
            cause.push_str(": ");
            cause.push_str(&inner.to_string());
            source = inner.source();
        }
        let cause = self.scrub(&cause);
        let sent = !error.is_connect();
        match call.effect {
            Effect::Commit if sent => Error::CommitStateUnknown {
                catalog: self.catalog.clone(),
                table: call.table.to_string(),
                cause,
            },
            effect => Error::Unreachable {
                catalog: self.catalog.clone(),
                action: call.action.clone(),
                cause,
                sent,
                retryable: !sent || effect == Effect::Read,
            },
        }
    }

    /// Maps Glue's `{"__type": ..., "message": ...}` answer onto an [`Error`].
    fn glue_error(&self, call: &Call<'_>, status: u16, text: &str) -> Error {
        let (kind, message, readable) = parse_error_body(text);
        let detail = self.scrub(&format!("{status} {kind}: {message}"));
        let catalog = self.catalog.clone();
        let action = call.action.clone();
        match kind.as_str() {
            "EntityNotFoundException" => Error::NotFound {
                catalog,
                what: call.what.clone(),
                detail,
            },
            "AlreadyExistsException" => Error::AlreadyExists {
                catalog,
                what: call.what.clone(),
                detail,
            },
            "ConcurrentModificationException" if call.effect == Effect::Commit => Error::Conflict {
                catalog,
                table: call.table.to_string(),
                detail: format!("Glue's optimistic lock on the table version failed ({detail})"),
            },
            "AccessDeniedException" | "AccessDenied" => Error::Forbidden {
                catalog,
                action,
                detail,
            },
            "UnrecognizedClientException"
            | "InvalidSignatureException"
            | "SignatureDoesNotMatch"
            | "IncompleteSignature"
            | "InvalidClientTokenId"
            | "ExpiredTokenException"
            | "ExpiredToken"
            | "MissingAuthenticationToken"
            | "MissingAuthenticationTokenException" => Error::Unauthorized {
                catalog,
                action,
                detail,
            },
            "ThrottlingException" | "ConcurrentModificationException" => Error::ServerError {
                catalog,
                action,
                status,
                detail,
                retryable: true,
            },
            _ if status == 401 => Error::Unauthorized {
                catalog,
                action,
                detail,
            },
            _ if status == 403 => Error::Forbidden {
                catalog,
                action,
                detail,
            },
            _ if status >= 500 || kind == "InternalServiceException" => {
                if call.effect == Effect::Commit {
                    return Error::CommitStateUnknown {
                        catalog,
                        table: call.table.to_string(),
                        cause: detail,
                    };
                }
                Error::ServerError {
                    catalog,
                    action,
                    status,
                    detail,
                    retryable: call.effect == Effect::Read || status == 503,
                }
            }
            "" if !readable => Error::BadResponse {
                catalog,
                action,
                problem: detail,
            },
            _ => Error::Rejected {
                catalog,
                action,
                detail,
            },
        }
    }
}

/// The text of the first `<name>…</name>` in `text`.
fn xml_element(text: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&format!("</{name}>"))? + start;
    Some(text[start..end].trim().to_string())
}

/// Glue's error type and message from an error answer, and whether the answer was readable
/// (JSON, or the auth layer's XML). The type is bare: `com.amazonaws.glue#EntityNotFoundException`
/// and `EntityNotFoundException:http://...` are `EntityNotFoundException`.
fn parse_error_body(text: &str) -> (String, String, bool) {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    let field = |names: &[&str]| -> Option<String> {
        let object = parsed.as_ref()?.as_object()?;
        names
            .iter()
            .find_map(|name| object.get(*name)?.as_str().map(str::to_string))
    };
    let code = field(&["__type", "code", "Code"]).or_else(|| xml_element(text, "Code"));
    let readable = parsed.is_some() || code.is_some();
    let kind = code
        .map(|t| {
            let t = t.rsplit('#').next().unwrap_or(&t).to_string();
            t.split(':').next().unwrap_or(&t).to_string()
        })
        .unwrap_or_default();
    let message = field(&["message", "Message"])
        .or_else(|| xml_element(text, "Message"))
        .unwrap_or_else(|| {
            let short: String = text.chars().take(300).collect();
            if short.is_empty() {
                "no body".into()
            } else {
                short
            }
        });
    (kind, message, readable)
}
