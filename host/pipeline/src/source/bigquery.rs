//! A BigQuery source (`"format": "JSON", "engine": "BIGQUERY"`, as the Python tool names it):
//! one query's result, read by the `bigquery` plugin from BigQuery's REST API.
//!
//! The split keeps the credentials on the host's side: the host reads the service-account key
//! (`credentials.path`), signs the OAuth JWT (RS256) and trades it for an access token at the
//! key's `token_uri`; the plugin gets the token, the query and the API's address, and a sandbox
//! whose only grant is the network address of that API: no files, no other host, never the
//! private key.
//!
//! The block: `path`, a JSON file holding `{"query": "SELECT …"}` (the Python tool's); the
//! key file's `project_id` runs the query; `endpoint` (ldp's own, default
//! `https://bigquery.googleapis.com`) names another address of the same API (a regional or
//! private endpoint, a local server in tests).

use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ldp_config::Config;
use ldp_config::paths::resolve_path;
use serde_json::Value;

use super::plugin::{PluginSource, Reader, SOURCE_BATCH_ROWS};
use crate::error::{Error, Result};

/// The API's address when the block names none.
const DEFAULT_ENDPOINT: &str = "https://bigquery.googleapis.com";
/// The OAuth scope asked for: reading BigQuery, nothing else.
const SCOPE: &str = "https://www.googleapis.com/auth/bigquery.readonly";

/// Resolves the BigQuery source of `config`: the query, the project, a token, the grant.
pub(crate) fn resolve(config: &Config) -> Result<PluginSource> {
    let block = config.source();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let resolve = |path: &str| resolve_path(path, config.base_dir.as_deref(), &cwd).path;
    let query_file = resolve(block.path.as_deref().unwrap_or_default());
    let query = read_query(&query_file)?;
    let Some(key_path) = block.credentials.as_ref().and_then(|c| c.path.as_deref()) else {
        return Err(config_error(format!(
            "BigQuery source '{}' needs metadata.source.credentials.path: the service-account key file (JSON) to run the query with",
            block.name
        )));
    };
    let key = ServiceAccountKey::read(&resolve(key_path))?;
    let endpoint = match block.extra.get("endpoint") {
        None | Some(Value::Null) => DEFAULT_ENDPOINT.to_string(),
        Some(Value::String(url)) => url.trim_end_matches('/').to_string(),
        Some(other) => {
            return Err(config_error(format!(
                "metadata.source.endpoint: expected the API's address (https://host[:port]), got {other}"
            )));
        }
    };
    let authority = authority(&endpoint).ok_or_else(|| {
        config_error(format!(
            "metadata.source.endpoint: expected http:// or https:// and a host, got {endpoint:?}"
        ))
    })?;
    let token = key.access_token()?;
    let plugin_config = serde_json::json!({
        "endpoint": endpoint,
        "project": key.project_id,
        "query": query,
        "token": token,
        "batch_size": SOURCE_BATCH_ROWS,
    });
    Ok(PluginSource {
        plugin: Reader::Builtin("bigquery"),
        config: plugin_config.to_string(),
        what: format!(
            "source {} (BIGQUERY project {})",
            block.name, key.project_id
        ),
        path: query_file,
        download: None,
        net: vec![authority],
    })
}

/// `host:port` of an `http(s)://host[:port][/…]` address (the port of its scheme when none).
fn authority(url: &str) -> Option<String> {
    let (rest, port) = if let Some(rest) = url.strip_prefix("https://") {
        (rest, 443)
    } else {
        (url.strip_prefix("http://")?, 80)
    };
    let host_port = rest.split('/').next().unwrap_or_default();
    if host_port.is_empty() || host_port.contains('@') {
        return None;
    }
    Some(match host_port.rsplit_once(':') {
        Some((_, p)) if p.parse::<u16>().is_ok() => host_port.to_ascii_lowercase(),
        _ => format!("{}:{port}", host_port.to_ascii_lowercase()),
    })
}

fn config_error(message: String) -> Error {
    Error::BigQuery {
        message,
        transient: false,
    }
}

/// The query of a query file, `{"query": "SELECT …"}`.
fn read_query(file: &Path) -> Result<String> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        config_error(format!(
            "cannot read the BigQuery query file {} (metadata.source.path): {e}",
            file.display()
        ))
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        config_error(format!(
            "the BigQuery query file {} is not JSON: {e} (line {}, column {})",
            file.display(),
            e.line(),
            e.column()
        ))
    })?;
    match value.get("query").and_then(Value::as_str) {
        Some(query) if !query.trim().is_empty() => Ok(query.to_string()),
        _ => Err(config_error(format!(
            "the BigQuery query file {} needs a \"query\" string: {{\"query\": \"SELECT …\"}}",
            file.display()
        ))),
    }
}

/// The fields of a service-account key file that the token needs.
struct ServiceAccountKey {
    file: PathBuf,
    client_email: String,
    private_key: String,
    token_uri: String,
    project_id: String,
}

impl ServiceAccountKey {
    fn read(file: &Path) -> Result<ServiceAccountKey> {
        let shown = file.display();
        let text = std::fs::read_to_string(file).map_err(|e| {
            config_error(format!(
                "cannot read the BigQuery key file {shown} (metadata.source.credentials.path): {e}"
            ))
        })?;
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            config_error(format!(
                "the BigQuery key file {shown} is not JSON (line {}, column {}); use the service-account key downloaded from Google Cloud",
                e.line(),
                e.column()
            ))
        })?;
        // Never the value of a field in a message: the key file holds a private key.
        let field = |name: &str| -> Result<String> {
            value
                .get(name)
                .and_then(Value::as_str)
                .filter(|v| !v.is_empty())
                .map(str::to_string)
                .ok_or_else(|| {
                    config_error(format!(
                        "the BigQuery key file {shown} has no \"{name}\"; use a service-account key (\"type\": \"service_account\")"
                    ))
                })
        };
        Ok(ServiceAccountKey {
            file: file.to_path_buf(),
            client_email: field("client_email")?,
            private_key: field("private_key")?,
            token_uri: field("token_uri")?,
            project_id: field("project_id")?,
        })
    }

    /// The JWT, signed with the key (RS256), traded for an access token at `token_uri`.
    fn access_token(&self) -> Result<String> {
        let assertion = self.assertion()?;
        let transient = |message: String| Error::BigQuery {
            message,
            transient: true,
        };
        let client = reqwest::blocking::Client::builder()
            .timeout(std::time::Duration::from_secs(60))
            .build()
            .map_err(|e| transient(format!("cannot start an HTTP client: {e}")))?;
        let response = client
            .post(&self.token_uri)
            .form(&[
                ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                ("assertion", assertion.as_str()),
            ])
            .send()
            .map_err(|e| {
                transient(format!(
                    "cannot reach the token endpoint {} of the BigQuery key file {}: {e}",
                    self.token_uri,
                    self.file.display()
                ))
            })?;
        let status = response.status();
        let body: Value = response.json().unwrap_or(Value::Null);
        if !status.is_success() {
            let why = body
                .get("error_description")
                .or_else(|| body.get("error"))
                .and_then(Value::as_str)
                .unwrap_or("no reason given");
            let message = format!(
                "the token endpoint {} refused the BigQuery key file {} ({status}: {why}); check that the key is current and its service account may run queries",
                self.token_uri,
                self.file.display()
            );
            return Err(if status.is_server_error() {
                transient(message)
            } else {
                config_error(message)
            });
        }
        body.get("access_token")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| {
                transient(format!(
                    "the token endpoint {} answered without an access_token",
                    self.token_uri
                ))
            })
    }

    /// `header.claims.signature`, base64url, for one hour from now.
    fn assertion(&self) -> Result<String> {
        let now = jiff::Timestamp::now().as_second();
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"RS256","typ":"JWT"}"#);
        let claims = serde_json::json!({
            "iss": self.client_email,
            "scope": SCOPE,
            "aud": self.token_uri,
            "iat": now,
            "exp": now + 3600,
        });
        let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
        let signed = format!("{header}.{claims}");
        let bad_key = |why: &str| {
            config_error(format!(
                "the private_key of the BigQuery key file {} {why}; use the service-account key downloaded from Google Cloud",
                self.file.display()
            ))
        };
        let der = pem_der(&self.private_key).ok_or_else(|| bad_key("is not a PEM private key"))?;
        let pair = ring::signature::RsaKeyPair::from_pkcs8(&der)
            .map_err(|_| bad_key("is not an RSA key in PKCS#8"))?;
        let mut signature = vec![0; pair.public().modulus_len()];
        pair.sign(
            &ring::signature::RSA_PKCS1_SHA256,
            &ring::rand::SystemRandom::new(),
            signed.as_bytes(),
            &mut signature,
        )
        .map_err(|_| bad_key("cannot sign"))?;
        Ok(format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature)))
    }
}

/// The bytes of a `-----BEGIN PRIVATE KEY-----` block.
fn pem_der(pem: &str) -> Option<Vec<u8>> {
    let body = pem
        .split("-----BEGIN PRIVATE KEY-----")
        .nth(1)?
        .split("-----END PRIVATE KEY-----")
        .next()?;
    let base64: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(base64)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::authority;

    #[test]
    fn the_grant_is_the_endpoints_host_and_port() {
        assert_eq!(
            authority("https://bigquery.googleapis.com").as_deref(),
            Some("bigquery.googleapis.com:443")
        );
        assert_eq!(
            authority("http://127.0.0.1:9050/").as_deref(),
            Some("127.0.0.1:9050")
        );
        assert_eq!(authority("ftp://x"), None);
        assert_eq!(authority("https://user@x"), None);
    }
}
