//! Secrets, kept out of configs in two layers.
//!
//! 1. Spec validation ([`find_inline_secrets`], run by `ldp plan`): every string of the spec
//!    whose key names a secret and is not a reference (`*_env`, `*_path`, `*_file`, `*_ref`), and
//!    every string holding a PEM private key header or an AWS access key id.
//! 2. Catalog build ([`check_catalog_secrets`], every run): a catalog key naming a secret must end
//!    in `_env`; no password inside a `uri`; no secret-looking key in `properties`.
//!
//! [`redact`] and [`redact_uri`] mask secrets for logs and `ldp catalog test`.

use serde_json::{Map, Value};

use crate::repr::repr_str;

/// Words that make a key a secret for spec validation (layer 1).
pub const SECRET_WORDS: [&str; 8] = [
    "password",
    "passwd",
    "secret",
    "token",
    "credential",
    "api_key",
    "apikey",
    "private_key",
];

/// Suffixes that make such a key a reference to a secret, not a secret.
pub const REFERENCE_SUFFIXES: [&str; 4] = ["_env", "_path", "_file", "_ref"];

/// Words that make a catalog key a secret at catalog build (layer 2).
pub const CATALOG_SECRET_MARKERS: [&str; 4] = ["token", "secret", "password", "credential"];

/// What [`redact`] puts in place of a secret.
pub const REDACTED: &str = "***";

const INLINE_SECRET_MESSAGE: &str = "looks like an inline secret; keep secrets out of specs and reference an \
     environment variable instead (e.g. 'token_env': 'MY_TOKEN')";

/// Layer 1: every inline secret of a spec, as `<json path>: looks like an inline secret; ...`,
/// in document order.
pub fn find_inline_secrets(spec: &Value) -> Vec<String> {
    let mut found = Vec::new();
    walk(spec, "", "", &mut found);
    found
}

fn walk(value: &Value, at: &str, key: &str, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (child_key, child) in map {
                let here = if at.is_empty() {
                    child_key.clone()
                } else {
                    format!("{at}.{child_key}")
                };
                walk(child, &here, child_key, found);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                walk(item, &format!("{at}[{index}]"), key, found);
            }
        }
        Value::String(text) => {
            let lowered = key.to_lowercase();
            let named = SECRET_WORDS.iter().any(|word| lowered.contains(word))
                && !REFERENCE_SUFFIXES
                    .iter()
                    .any(|suffix| lowered.ends_with(suffix));
            if (named && !text.trim().is_empty()) || holds_inline_secret(text) {
                found.push(if at.is_empty() {
                    INLINE_SECRET_MESSAGE.to_owned()
                } else {
                    format!("{at}: {INLINE_SECRET_MESSAGE}")
                });
            }
        }
        _ => {}
    }
}

/// Whether a text holds a PEM private key header (`-----BEGIN … PRIVATE KEY-----`) or an AWS
/// access key id (`AKIA` and 16 upper-case letters or digits, as a whole word).
pub fn holds_inline_secret(text: &str) -> bool {
    holds_pem_private_key(text) || holds_aws_key_id(text)
}

fn holds_pem_private_key(text: &str) -> bool {
    const BEGIN: &str = "-----BEGIN ";
    let mut rest = text;
    while let Some(start) = rest.find(BEGIN) {
        let after = &rest[start + BEGIN.len()..];
        // `[A-Z ]*PRIVATE KEY-----`: the run of capitals and blanks after BEGIN.
        let run_len = after
            .find(|c: char| !(c.is_ascii_uppercase() || c == ' '))
            .unwrap_or(after.len());
        let run = &after[..run_len];
        let tail = &after[run_len..];
        // `PRIVATE KEY` is made of the run's characters, so it must end the run.
        if run.ends_with("PRIVATE KEY") && tail.starts_with("-----") {
            return true;
        }
        rest = &rest[start + 1..];
    }
    false
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn holds_aws_key_id(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    (0..chars.len()).any(|start| {
        let end = start + 20;
        end <= chars.len()
            && chars[start..start + 4] == ['A', 'K', 'I', 'A']
            && chars[start + 4..end]
                .iter()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            && (start == 0 || !is_word_char(chars[start - 1]))
            && (end == chars.len() || !is_word_char(chars[end]))
    })
}

/// Whether a catalog key names a secret (layer 2): it contains `token`, `secret`, `password`
/// or `credential`, in any case.
pub fn is_secret_key(key: &str) -> bool {
    let lowered = key.to_lowercase();
    CATALOG_SECRET_MARKERS
        .iter()
        .any(|marker| lowered.contains(marker))
}

/// Layer 2, run when a catalog is built: rejects literal secrets in a catalog block.
///
/// # Errors
///
/// The Python tool's messages: `catalog spec key 'token_file' holds a secret; put the value in an
/// environment variable and reference it by name with 'token_file_env'`, a `uri` that embeds a
/// password, or a secret-looking key in `properties`.
pub fn check_catalog_secrets(catalog: &Map<String, Value>) -> Result<(), String> {
    for key in catalog.keys() {
        if is_secret_key(key) && !key.ends_with("_env") {
            return Err(format!(
                "catalog spec key {} holds a secret; put the value in an environment variable and reference it by name with '{key}_env'",
                repr_str(key)
            ));
        }
    }
    if let Some(uri) = catalog.get("uri").and_then(Value::as_str)
        && !uri_passwords(uri).is_empty()
    {
        return Err(format!(
            "catalog uri {} embeds a password; put it in an environment variable and reference it with 'password_env'",
            repr_str(&redact_uri(uri))
        ));
    }
    if let Some(properties) = catalog.get("properties").and_then(Value::as_object) {
        for key in properties.keys() {
            if is_secret_key(key) {
                let quoted = serde_json::to_string(key).unwrap_or_else(|_| format!("\"{key}\""));
                return Err(format!(
                    "catalog property {} holds a secret; name the environment variable that holds it in 'properties_env' instead, e.g. {{{quoted}: \"MY_ENV_VAR\"}}",
                    repr_str(key)
                ));
            }
        }
    }
    Ok(())
}

/// Byte ranges of the passwords of `scheme://user:password@` URIs inside a text.
fn uri_passwords(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut search_from = 0;
    while let Some(offset) = text[search_from..].find("://") {
        let sep = search_from + offset;
        search_from = sep + 3;
        // A scheme: a letter, then letters, digits, `+`, `.` or `-`, ending at `://`.
        let mut start = sep;
        while start > 0
            && matches!(bytes[start - 1], b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'+' | b'.' | b'-')
        {
            start -= 1;
        }
        let has_scheme = bytes[start..sep].iter().any(u8::is_ascii_alphabetic);
        if !has_scheme {
            continue;
        }
        let after = &text[sep + 3..];
        let user_len = after
            .find(|c: char| ":/?#@".contains(c) || c.is_whitespace())
            .unwrap_or(after.len());
        if !after[user_len..].starts_with(':') {
            continue;
        }
        let password_start = sep + 3 + user_len + 1;
        let rest = &text[password_start..];
        let password_len = rest
            .find(|c: char| "@/?#".contains(c) || c.is_whitespace())
            .unwrap_or(rest.len());
        if rest[password_len..].starts_with('@') {
            found.push((password_start, password_start + password_len));
            search_from = password_start + password_len + 1;
        }
    }
    found
}

/// Masks every URI password in a text: `scheme://user:***@host`.
pub fn redact_uri(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in uri_passwords(text) {
        out.push_str(&text[last..start]);
        out.push_str(REDACTED);
        last = end;
    }
    out.push_str(&text[last..]);
    out
}

/// A copy of a value safe to log: values under secret-looking keys become `***` (recursively)
/// and URI passwords in strings are masked.
pub fn redact(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| {
                    let shown = if is_secret_key(key) {
                        Value::from(REDACTED)
                    } else {
                        redact(item)
                    };
                    (key.clone(), shown)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact).collect()),
        Value::String(text) => Value::String(redact_uri(text)),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inline_secrets() {
        let spec = json!({
            "metadata": {"target": {"catalog": {"token": "abc", "token_env": "T", "password": " ", "api_key_ref": "x"}},
                          "list": [{"note": "AKIAABCDEFGHIJKLMNOP"}, {"note": "xAKIAABCDEFGHIJKLMNOP"}],
                          "secrets": ["s1", ""],
                          "pem": "-----BEGIN RSA PRIVATE KEY-----\nMII"}
        });
        let found = find_inline_secrets(&spec);
        let paths: Vec<&str> = found
            .iter()
            .map(|m| m.split(':').next().unwrap_or(""))
            .collect();
        assert_eq!(
            paths,
            [
                "metadata.target.catalog.token",
                "metadata.list[0].note",
                "metadata.secrets[0]",
                "metadata.pem"
            ]
        );
        assert!(
            found[0].ends_with(
                "reference an environment variable instead (e.g. 'token_env': 'MY_TOKEN')"
            )
        );
        assert!(holds_inline_secret("-----BEGIN PRIVATE KEY-----"));
        assert!(!holds_inline_secret("-----BEGIN PUBLIC KEY-----"));
    }

    #[test]
    fn catalog_layer() {
        let message = |value: Value| check_catalog_secrets(value.as_object().unwrap()).unwrap_err();
        assert_eq!(
            message(json!({"token_file": "/x"})),
            "catalog spec key 'token_file' holds a secret; put the value in an environment variable and reference it by name with 'token_file_env'"
        );
        assert_eq!(
            message(json!({"uri": "postgresql://me:pw@db/x"})),
            "catalog uri 'postgresql://me:***@db/x' embeds a password; put it in an environment variable and reference it with 'password_env'"
        );
        assert_eq!(
            message(json!({"properties": {"s3.secret-access-key": "x"}})),
            "catalog property 's3.secret-access-key' holds a secret; name the environment variable that holds it in 'properties_env' instead, e.g. {\"s3.secret-access-key\": \"MY_ENV_VAR\"}"
        );
        assert!(
            check_catalog_secrets(
                json!({"token_env": "T", "uri": "sqlite:///x.db"})
                    .as_object()
                    .unwrap()
            )
            .is_ok()
        );
        assert_eq!(
            redact(&json!({"uri": "https://u:p@h", "token_env": "T", "n": 1})),
            json!({"uri": "https://u:***@h", "token_env": "***", "n": 1})
        );
    }
}
