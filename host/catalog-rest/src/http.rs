//! The HTTP layer: authentication (bearer token, OAuth2 client credentials), sending a request,
//! and turning a failed answer or a network error into an [`Error`].

use std::sync::Mutex;
use std::time::{Duration, Instant};

use reqwest::Method;
use reqwest::blocking::Client;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue, USER_AGENT};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{AuthMethod, Error, Result};
use crate::settings::RestSettings;

/// How long a connection may take to open (at most the request timeout).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A token is fetched again this long before the `expires_in` it came with.
const TOKEN_MARGIN: Duration = Duration::from_secs(30);
/// How much of a body that is not an Iceberg error is quoted in a message.
const QUOTED_BODY: usize = 300;

/// The catalog's URI as messages show it: without user info and trailing `/`.
pub(crate) fn display_uri(uri: &str) -> String {
    let uri = uri.trim_end_matches('/');
    match uri.split_once("://") {
        Some((scheme, rest)) => {
            let end = rest.find('/').unwrap_or(rest.len());
            let authority = &rest[..end];
            let host = authority
                .rsplit_once('@')
                .map_or(authority, |(_, host)| host);
            format!("{scheme}://{host}{}", &rest[end..])
        }
        None => uri.to_string(),
    }
}

/// Percent-encodes one path segment (RFC 3986 unreserved characters stay).
pub(crate) fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Whether a request reads, writes, or commits; decides what a failure after sending means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Repeating it is always safe.
    Read,
    /// A create, drop or rename: the catalog may have applied it when the answer is lost.
    Write,
    /// A table commit: a lost answer or a 5xx leaves its outcome unknown.
    Commit,
}

/// One call to the catalog, as messages describe it.
pub(crate) struct Op {
    /// What the client is doing, e.g. `load Iceberg table nyc.rides`.
    pub action: String,
    /// What the request does.
    pub effect: Effect,
    /// The namespace the call is about, if any.
    pub namespace: Option<String>,
    /// The table (in `namespace`) the call is about, if any.
    pub table: Option<String>,
    /// Whether a 404 can only mean that the namespace is missing (a table create: some catalogs,
    /// rustberg 0.3 among them, answer `NoSuchTableException` then).
    pub creates_table: bool,
}

impl Op {
    /// `ns.name`, or the namespace alone.
    fn qualified(&self) -> String {
        match (&self.namespace, &self.table) {
            (Some(ns), Some(table)) => format!("{ns}.{table}"),
            (Some(ns), None) => ns.clone(),
            (None, _) => String::new(),
        }
    }

    /// What a 404 or 409 is about: the namespace when the server says so (or when the call is
    /// about no table, or a 404 answers a table create), else the table.
    fn subject(&self, status: u16, error_type: &str) -> String {
        let namespace_error = error_type.to_ascii_lowercase().contains("namespace")
            || (status == 404 && self.creates_table);
        match (&self.namespace, &self.table) {
            (Some(_), Some(_)) if !namespace_error => format!("Iceberg table {}", self.qualified()),
            (Some(ns), _) => format!("namespace {ns}"),
            (None, _) => "the requested resource".to_string(),
        }
    }
}

/// An answer: status and body.
pub(crate) struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

enum Auth {
    None,
    Token(String),
    Credential(OAuth),
}

struct OAuth {
    token_uri: String,
    client_id: String,
    client_secret: String,
    scope: String,
    cached: Mutex<Option<(String, Option<Instant>)>>,
}

/// The HTTP client of one catalog.
pub(crate) struct Http {
    client: Client,
    /// `'name' at <uri>`.
    pub catalog: String,
    auth: Auth,
    headers: HeaderMap,
    /// Strings never to show: the token, the client secret, header values.
    secrets: Vec<String>,
    timeout: Duration,
}

impl Http {
    /// The client for `settings`; `token_uri` is where client credentials are exchanged.
    pub fn new(settings: &RestSettings, token_uri: String) -> Result<Http> {
        let catalog = format!("'{}' at {}", settings.name, display_uri(&settings.uri));
        let invalid = |problem: String| Error::InvalidSettings {
            catalog: catalog.clone(),
            problem,
        };
        let mut headers = HeaderMap::new();
        let mut secrets = Vec::new();
        if let Some((_, rest)) = settings.uri.split_once("://") {
            let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
            if let Some((user_info, _)) = authority.rsplit_once('@') {
                secrets.push(user_info.to_string());
                secrets.extend(user_info.split_once(':').map(|(_, pw)| pw.to_string()));
            }
        }
        headers.insert(
            USER_AGENT,
            HeaderValue::from_static(concat!("ldp-catalog-rest/", env!("CARGO_PKG_VERSION"))),
        );
        for (key, value) in &settings.properties {
            let Some(name) = key.strip_prefix("header.") else {
                continue;
            };
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| invalid(format!("property {key} does not name an HTTP header")))?;
            let value = HeaderValue::from_str(value)
                .map_err(|_| invalid(format!("property {key} is not a valid header value")))?;
            secrets.push(settings.properties[key].clone());
            headers.insert(name, value);
        }
        let auth = match (&settings.token, &settings.credential) {
            (Some(token), _) => {
                secrets.push(token.clone());
                Auth::Token(token.clone())
            }
            (None, Some((client_id, client_secret))) => {
                secrets.push(client_secret.clone());
                Auth::Credential(OAuth {
                    token_uri,
                    client_id: client_id.clone(),
                    client_secret: client_secret.clone(),
                    scope: settings
                        .properties
                        .get("scope")
                        .cloned()
                        .unwrap_or_else(|| "catalog".to_string()),
                    cached: Mutex::new(None),
                })
            }
            (None, None) => Auth::None,
        };
        secrets.retain(|secret| !secret.is_empty());
        let client = Client::builder()
            .timeout(settings.timeout)
            .connect_timeout(settings.timeout.min(CONNECT_TIMEOUT))
            .build()
            .map_err(|error| invalid(format!("the HTTP client cannot be built: {error}")))?;
        Ok(Http {
            client,
            catalog,
            auth,
            headers,
            secrets,
            timeout: settings.timeout,
        })
    }

    /// Replaces every secret in `text` by `***`.
    pub fn scrub(&self, text: &str) -> String {
        let mut text = text.to_string();
        for secret in &self.secrets {
            text = text.replace(secret.as_str(), "***");
        }
        text
    }

    fn auth_method(&self) -> AuthMethod {
        match self.auth {
            Auth::None => AuthMethod::None,
            Auth::Token(_) => AuthMethod::Token,
            Auth::Credential(_) => AuthMethod::Credential,
        }
    }

    /// Sends one request; a 401 with client credentials fetches a new token and sends again once.
    pub fn send(
        &self,
        op: &Op,
        method: Method,
        url: &str,
        query: &[(&str, &str)],
        body: Option<&Value>,
    ) -> Result<Answer> {
        self.send_keyed(op, method, url, query, body, None)
    }

    /// [`send`](Self::send) with an `Idempotency-Key` header when `key` is set.
    pub fn send_keyed(
        &self,
        op: &Op,
        method: Method,
        url: &str,
        query: &[(&str, &str)],
        body: Option<&Value>,
        key: Option<&str>,
    ) -> Result<Answer> {
        let mut retried = false;
        loop {
            let mut request = self
                .client
                .request(method.clone(), url)
                .headers(self.headers.clone());
            if !query.is_empty() {
                request = request.query(query);
            }
            if let Some(body) = body {
                request = request.json(body);
            }
            if let Some(key) = key {
                request = request.header("Idempotency-Key", key);
            }
            let (authorization, fresh) = self.authorization(op)?;
            if let Some(value) = authorization {
                let mut value =
                    HeaderValue::from_str(&format!("Bearer {value}")).map_err(|_| {
                        Error::InvalidSettings {
                            catalog: self.catalog.clone(),
                            problem: "the token holds characters an HTTP header cannot carry; \
                                  check the variable token_env names"
                                .to_string(),
                        }
                    })?;
                value.set_sensitive(true);
                request = request.header(AUTHORIZATION, value);
            }
            let response = request
                .send()
                .map_err(|error| self.network_error(op, &error))?;
            let status = response.status().as_u16();
            if status == 401 && !fresh && !retried && matches!(self.auth, Auth::Credential(_)) {
                // The cached token may have been revoked or expired early: fetch a new one.
                self.forget_token();
                retried = true;
                continue;
            }
            let body = response
                .bytes()
                .map_err(|error| self.network_error(op, &error))?;
            return Ok(Answer {
                status,
                body: body.to_vec(),
            });
        }
    }

    /// Reads a successful answer's JSON body, or turns a failed one into an error.
    pub fn json<T: DeserializeOwned>(&self, op: &Op, answer: Answer) -> Result<T> {
        if !(200..300).contains(&answer.status) {
            return Err(self.failure(op, &answer));
        }
        serde_json::from_slice(&answer.body).map_err(|error| Error::BadResponse {
            catalog: self.catalog.clone(),
            action: op.action.clone(),
            problem: self.scrub(&format!("its JSON does not parse: {error}")),
        })
    }

    /// The bearer token to send, and whether it was fetched just now.
    fn authorization(&self, op: &Op) -> Result<(Option<String>, bool)> {
        match &self.auth {
            Auth::None => Ok((None, false)),
            Auth::Token(token) => Ok((Some(token.clone()), false)),
            Auth::Credential(oauth) => {
                let mut cached = oauth.cached.lock().unwrap_or_else(|e| e.into_inner());
                if let Some((token, expires)) = cached.as_ref()
                    && expires.is_none_or(|at| Instant::now() < at)
                {
                    return Ok((Some(token.clone()), false));
                }
                let (token, expires) = self.fetch_token(oauth, op)?;
                *cached = Some((token.clone(), expires));
                Ok((Some(token), true))
            }
        }
    }

    fn forget_token(&self) {
        if let Auth::Credential(oauth) = &self.auth {
            *oauth.cached.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }

    /// The OAuth2 client-credentials exchange at the token endpoint: a form POST of
    /// `grant_type=client_credentials`, the client secret, the scope and (when set) the client id,
    /// answered with an access token and, optionally, its lifetime in seconds.
    fn fetch_token(&self, oauth: &OAuth, op: &Op) -> Result<(String, Option<Instant>)> {
        let token_op = Op {
            action: format!(
                "get a token from {} (to {})",
                display_uri(&oauth.token_uri),
                op.action
            ),
            effect: Effect::Read,
            namespace: None,
            table: None,
            creates_table: false,
        };
        let mut form = vec![
            ("grant_type", "client_credentials"),
            ("client_secret", oauth.client_secret.as_str()),
            ("scope", oauth.scope.as_str()),
        ];
        if !oauth.client_id.is_empty() {
            form.push(("client_id", oauth.client_id.as_str()));
        }
        let response = self
            .client
            .post(&oauth.token_uri)
            .headers(self.headers.clone())
            .form(&form)
            .send()
            .map_err(|error| self.network_error(&token_op, &error))?;
        let status = response.status().as_u16();
        let body = response
            .bytes()
            .map_err(|error| self.network_error(&token_op, &error))?
            .to_vec();
        let answer = Answer { status, body };
        if matches!(status, 400 | 401 | 403) {
            return Err(Error::Unauthorized {
                catalog: self.catalog.clone(),
                action: token_op.action,
                status,
                auth: AuthMethod::Credential,
                detail: self.detail(&answer.body),
            });
        }
        #[derive(serde::Deserialize)]
        struct TokenResponse {
            access_token: String,
            expires_in: Option<u64>,
        }
        let token: TokenResponse = self.json(&token_op, answer)?;
        let expires = token.expires_in.map(|seconds| {
            Instant::now() + Duration::from_secs(seconds).saturating_sub(TOKEN_MARGIN)
        });
        Ok((token.access_token, expires))
    }

    /// The error a network failure means for `op`.
    fn network_error(&self, op: &Op, error: &reqwest::Error) -> Error {
        let cause = if error.is_timeout() {
            format!("no answer within {:?}", self.timeout)
        } else {
            self.scrub(&error_chain(error))
        };
        let sent = !error.is_connect();
        match (sent, op.effect) {
            (true, Effect::Commit) => Error::CommitStateUnknown {
                catalog: self.catalog.clone(),
                table: op.qualified(),
                cause,
            },
            (_, effect) => Error::Unreachable {
                catalog: self.catalog.clone(),
                action: op.action.clone(),
                cause,
                sent,
                retryable: !sent || effect == Effect::Read,
            },
        }
    }

    /// The server's error, as `Type: message`, scrubbed.
    fn detail(&self, body: &[u8]) -> String {
        self.scrub(&ErrorBody::parse(body).detail())
    }

    /// The error a failed answer means for `op`.
    pub fn failure(&self, op: &Op, answer: &Answer) -> Error {
        let parsed = ErrorBody::parse(&answer.body);
        let detail = self.scrub(&parsed.detail());
        let catalog = self.catalog.clone();
        let action = op.action.clone();
        let status = answer.status;
        match status {
            401 | 419 => Error::Unauthorized {
                catalog,
                action,
                status,
                auth: self.auth_method(),
                detail,
            },
            403 => Error::Forbidden {
                catalog,
                action,
                detail,
            },
            404 => Error::NotFound {
                catalog,
                what: op.subject(status, &parsed.kind),
                detail,
            },
            409 if parsed.kind.contains("AlreadyExists") || op.effect == Effect::Write => {
                if parsed.kind.contains("AlreadyExists") {
                    Error::AlreadyExists {
                        catalog,
                        what: op.subject(status, &parsed.kind),
                        detail,
                    }
                } else {
                    Error::Rejected {
                        catalog,
                        action,
                        status,
                        detail,
                    }
                }
            }
            409 if op.effect == Effect::Commit => Error::Conflict {
                catalog,
                table: op.qualified(),
                detail,
            },
            500..=599 if op.effect == Effect::Commit => Error::CommitStateUnknown {
                catalog,
                table: op.qualified(),
                cause: format!("{status} {detail}"),
            },
            429 | 500..=599 => Error::ServerError {
                catalog,
                action,
                status,
                detail,
                retryable: op.effect == Effect::Read || matches!(status, 429 | 503),
            },
            400..=499 => Error::Rejected {
                catalog,
                action,
                status,
                detail,
            },
            _ => Error::BadResponse {
                catalog,
                action,
                problem: format!("unexpected status {status}: {detail}"),
            },
        }
    }
}

/// The parts of an Iceberg `ErrorModel` (`{"error": {"message", "type", "code"}}`) or an OAuth2
/// error (`{"error", "error_description"}`) a message uses.
struct ErrorBody {
    kind: String,
    message: String,
}

impl ErrorBody {
    fn parse(body: &[u8]) -> ErrorBody {
        let quoted = || {
            let text = String::from_utf8_lossy(body);
            let text = text.trim();
            if text.is_empty() {
                "no details".to_string()
            } else if text.chars().count() > QUOTED_BODY {
                format!("{}...", text.chars().take(QUOTED_BODY).collect::<String>())
            } else {
                text.to_string()
            }
        };
        let text = |value: &Value| value.as_str().unwrap_or_default().to_string();
        match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(map)) => match map.get("error") {
                Some(error @ Value::Object(_)) => ErrorBody {
                    kind: text(&error["type"]),
                    message: text(&error["message"]),
                },
                Some(Value::String(kind)) => ErrorBody {
                    kind: kind.clone(),
                    message: map.get("error_description").map(text).unwrap_or_default(),
                },
                _ => ErrorBody {
                    kind: String::new(),
                    message: quoted(),
                },
            },
            _ => ErrorBody {
                kind: String::new(),
                message: quoted(),
            },
        }
    }

    fn detail(&self) -> String {
        match (self.kind.is_empty(), self.message.is_empty()) {
            (true, true) => "no details".to_string(),
            (false, true) => self.kind.clone(),
            (true, false) => self.message.clone(),
            (false, false) => format!("{}: {}", self.kind, self.message),
        }
    }
}

/// A network error and its causes, without reqwest's leading `error sending request for url
/// (...)` (the catalog is named elsewhere), e.g. `Connection refused (os error 111)`.
fn error_chain(error: &reqwest::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|part| part.contains(&text)) {
            parts.retain(|part| !text.contains(part.as_str()));
            parts.push(text);
        }
        source = cause.source();
    }
    if parts.is_empty() {
        // Only reqwest's own text: show its URL without user info.
        let text = error.to_string();
        match error.url() {
            Some(url) => text.replace(url.as_str(), &display_uri(url.as_str())),
            None => text,
        }
    } else {
        parts.join(": ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_without_user_info() {
        assert_eq!(
            display_uri("https://u:p@cat.example:8443/api/"),
            "https://cat.example:8443/api"
        );
        assert_eq!(display_uri("http://127.0.0.1:1"), "http://127.0.0.1:1");
    }

    #[test]
    fn segments_are_encoded() {
        assert_eq!(encode_segment("a b/c.d"), "a%20b%2Fc.d");
        assert_eq!(encode_segment("déjà"), "d%C3%A9j%C3%A0");
    }

    #[test]
    fn error_bodies() {
        let iceberg =
            br#"{"error":{"message":"Table does not exist: a.b","type":"NoSuchTableException","code":404}}"#;
        assert_eq!(
            ErrorBody::parse(iceberg).detail(),
            "NoSuchTableException: Table does not exist: a.b"
        );
        let oauth = br#"{"error":"invalid_client","error_description":"bad secret"}"#;
        assert_eq!(
            ErrorBody::parse(oauth).detail(),
            "invalid_client: bad secret"
        );
        assert_eq!(ErrorBody::parse(b"").detail(), "no details");
        assert_eq!(ErrorBody::parse(b"<html>oops").detail(), "<html>oops");
    }
}
