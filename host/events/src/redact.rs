//! The Python tool's secret redaction of free text (error messages, check details, catalog URIs).
//!
//! Masks, in this order: PEM blocks (`[REDACTED PEM]`), passwords in URLs
//! (`scheme://user:***@host`), `key=value` or `key: value` pairs whose key mentions a token,
//! secret, password, passwd, credential or API key (`password=***`), bearer and basic
//! authorization values, and AWS access key ids (`AKIA****************`).

use std::sync::OnceLock;

use regex::{Captures, Regex};

/// The longest error message an event carries (`run.failed`'s `message`).
pub const MAX_MESSAGE: usize = 2000;

/// The longest check `details` an event carries.
pub const MAX_DETAILS: usize = 500;

struct Patterns {
    pem_begin: Regex,
    pem_end: Regex,
    url_password: Regex,
    key_value: Regex,
    authorization: Regex,
    aws_key: Regex,
}

fn patterns() -> &'static Patterns {
    static PATTERNS: OnceLock<Patterns> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        // The patterns are constants: they compile.
        let compile = |pattern: &str| Regex::new(pattern).unwrap_or_else(|e| panic!("{e}"));
        Patterns {
            pem_begin: compile(r"-----BEGIN [A-Z ]+-----"),
            pem_end: compile(r"-----END [A-Z ]+-----"),
            url_password: compile(r"(://[^:/@\s]+:)[^@\s]+@"),
            key_value: compile(
                r#"(?i)\b([\w.-]*(?:token|secret|password|passwd|credential|api[_-]?key)[\w.-]*)(\s*["']?\s*[:=]\s*["']?)[^\s"',;&}]+"#,
            ),
            authorization: compile(r"(?i)(authorization:?\s*(?:bearer|basic)\s+)\S+"),
            aws_key: compile(r"\bAKIA[0-9A-Z]{16}\b"),
        }
    })
}

/// Masks what looks like a secret in `text`, then cuts the result to `limit` characters (the
/// last three being `...`) when it is longer; `None` keeps it whole.
pub fn redact_text(text: &str, limit: Option<usize>) -> String {
    let p = patterns();
    let mut result = redact_pem(text, p);
    result = p
        .url_password
        .replace_all(&result, |c: &Captures| format!("{}***@", &c[1]))
        .into_owned();
    result = p
        .key_value
        .replace_all(&result, |c: &Captures| format!("{}{}***", &c[1], &c[2]))
        .into_owned();
    result = p
        .authorization
        .replace_all(&result, |c: &Captures| format!("{}***", &c[1]))
        .into_owned();
    result = p
        .aws_key
        .replace_all(&result, "AKIA****************")
        .into_owned();
    match limit {
        Some(limit) if result.chars().count() > limit => {
            let kept: String = result.chars().take(limit.saturating_sub(3)).collect();
            format!("{kept}...")
        }
        _ => result,
    }
}

/// `-----BEGIN X-----.*?(-----END X-----|$)` with Python's semantics: the block ends at the
/// first END line, else at the end of the text (before a final newline, which `$` leaves).
fn redact_pem(text: &str, p: &Patterns) -> String {
    let mut out = String::with_capacity(text.len());
    let mut position = 0;
    while let Some(begin) = p.pem_begin.find_at(text, position) {
        out.push_str(&text[position..begin.start()]);
        let body = begin.end();
        let dollar = if text.ends_with('\n') && text.len() > body {
            text.len() - 1
        } else {
            text.len()
        };
        let end = match p.pem_end.find_at(text, body) {
            Some(found) if found.start() <= dollar => found.end(),
            _ => dollar,
        };
        out.push_str("[REDACTED PEM]");
        position = end;
    }
    out.push_str(&text[position..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redact(text: &str) -> String {
        redact_text(text, None)
    }

    #[test]
    fn url_passwords() {
        assert_eq!(
            redact("could not connect to postgresql://ldp:s3cret@db:5432/cat"),
            "could not connect to postgresql://ldp:***@db:5432/cat"
        );
    }

    #[test]
    fn key_values() {
        assert_eq!(redact("password=hunter2 user=x"), "password=*** user=x");
        assert_eq!(redact("{'api_key': 'abc123'}"), "{'api_key': '***'}");
        assert_eq!(
            redact("AWS_SECRET_ACCESS_KEY=abc&x=1"),
            "AWS_SECRET_ACCESS_KEY=***&x=1"
        );
        assert_eq!(redact("Token: abc, next"), "Token: ***, next");
        assert_eq!(redact("no secrets here"), "no secrets here");
    }

    #[test]
    fn authorization_and_aws_keys() {
        assert_eq!(
            redact("Authorization: Bearer abc.def"),
            "Authorization: Bearer ***"
        );
        assert_eq!(
            redact("key AKIAABCDEFGHIJKLMNOP used"),
            "key AKIA**************** used"
        );
    }

    #[test]
    fn pem_blocks() {
        assert_eq!(
            redact("a -----BEGIN RSA PRIVATE KEY-----\nxyz\n-----END RSA PRIVATE KEY----- b"),
            "a [REDACTED PEM] b"
        );
        assert_eq!(redact("a -----BEGIN KEY-----\nxyz\n"), "a [REDACTED PEM]\n");
        assert_eq!(redact("a -----BEGIN KEY-----\nxyz"), "a [REDACTED PEM]");
        assert_eq!(redact("-----BEGIN KEY-----\n"), "[REDACTED PEM]\n");
    }

    #[test]
    fn long_text_is_cut() {
        let text = "é".repeat(600);
        let cut = redact_text(&text, Some(500));
        assert_eq!(cut.chars().count(), 500);
        assert!(cut.ends_with("é..."));
        assert_eq!(redact_text("short", Some(500)), "short");
    }
}
