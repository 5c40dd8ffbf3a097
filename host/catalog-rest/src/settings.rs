//! What a `rest` catalog block resolves to: the catalog's address and the client's secrets.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

/// How long one HTTP request (connect, send, read the answer) may take by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How to reach one REST catalog. `Debug` prints `***` for the token and the client secret.
#[derive(Clone)]
pub struct RestSettings {
    /// The catalog's base URI, e.g. `https://catalog.example.com` (paths start with `/v1/`
    /// below it). A trailing `/` is ignored.
    pub uri: String,
    /// The warehouse, sent as `GET /v1/config?warehouse=...` when set.
    pub warehouse: Option<String>,
    /// The catalog's name in ldp (messages use it beside the URI).
    pub name: String,
    /// A bearer token (read by the caller from the variable `token_env` names).
    pub token: Option<String>,
    /// OAuth2 client credentials `(client_id, client_secret)`, exchanged for a token when
    /// [`token`](Self::token) is `None` (read from the variable `credential_env` names, see
    /// [`parse_credential`]). An empty `client_id` is left out of the token request.
    pub credential: Option<(String, String)>,
    /// Client properties, merged between the catalog's `defaults` and `overrides`. Read here:
    /// `oauth2-server-uri`, `scope` (default `catalog`), `header.<Name>` (extra headers).
    pub properties: BTreeMap<String, String>,
    /// How long one HTTP request may take ([`DEFAULT_TIMEOUT`] from [`RestSettings::new`]).
    pub timeout: Duration,
}

impl RestSettings {
    /// Settings for the catalog at `uri` named `name`: no warehouse, no authentication, no
    /// properties, [`DEFAULT_TIMEOUT`].
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        RestSettings {
            uri: uri.into(),
            warehouse: None,
            name: name.into(),
            token: None,
            credential: None,
            properties: BTreeMap::new(),
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl fmt::Debug for RestSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let properties: BTreeMap<&str, &str> = self
            .properties
            .iter()
            .map(|(key, value)| {
                let shown = if key.starts_with("header.") || is_secret_property(key) {
                    "***"
                } else {
                    value.as_str()
                };
                (key.as_str(), shown)
            })
            .collect();
        f.debug_struct("RestSettings")
            .field("uri", &crate::http::display_uri(&self.uri))
            .field("warehouse", &self.warehouse)
            .field("name", &self.name)
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field(
                "credential",
                &self.credential.as_ref().map(|(id, _)| (id.as_str(), "***")),
            )
            .field("properties", &properties)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Whether a property's value is a secret (never printed): `token`, `credential`, and any key
/// naming a secret, password or key.
pub(crate) fn is_secret_property(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    ["token", "credential", "secret", "password", "key"]
        .iter()
        .any(|word| key.contains(word))
}

/// Splits the value of the variable `credential_env` names, `client_id:client_secret`, at its
/// first `:` (a secret may hold more). A value without `:` is a secret without client id, as
/// pyiceberg reads it.
pub fn parse_credential(value: &str) -> (String, String) {
    match value.split_once(':') {
        Some((id, secret)) => (id.to_string(), secret.to_string()),
        None => (String::new(), value.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_secrets() {
        let mut settings = RestSettings::new("https://user:pw@cat.example/api", "lake");
        settings.token = Some("tok-SECRET-1".into());
        settings.credential = Some(("etl".into(), "cs-SECRET-2".into()));
        settings
            .properties
            .insert("header.X-Api-Key".into(), "hdr-SECRET-3".into());
        settings
            .properties
            .insert("s3.secret-access-key".into(), "s3-SECRET-4".into());
        settings.properties.insert("scope".into(), "catalog".into());
        let shown = format!("{settings:?}");
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(!shown.contains("pw"), "{shown}");
        assert!(
            shown.contains("etl") && shown.contains("catalog"),
            "{shown}"
        );
    }

    #[test]
    fn credential_splits_at_first_colon() {
        assert_eq!(
            parse_credential("id:se:cret"),
            ("id".into(), "se:cret".into())
        );
        assert_eq!(parse_credential("secret"), (String::new(), "secret".into()));
    }
}
