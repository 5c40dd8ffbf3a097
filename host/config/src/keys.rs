//! Idempotency keys: what makes a run happen exactly once (`docs/exactly-once.md`).
//!
//! * `K = sha256_hex(canonical_json(["ldp/v1", "idempotency", identifier, target, start,
//!   end]))`: `target` is the [`crate::target_identity`] (or a table UUID, which the CLI never
//!   uses), `start`/`end` the bounds of the window as [`crate::format_instant`] writes them, or
//!   `""` and `""` for a run without a window. The spec hash is **not** an input, so redeploying
//!   a changed spec and re-running a window finds the earlier commit instead of writing twice.
//! * `R = sha256_hex(canonical_json(["ldp/v1", "replace", K, spec_hash]))`: the key of the run
//!   that replaces a window already published. It is the same for the same window under the
//!   same spec (a window is not replaced twice) and new when the spec changes.

use serde_json::Value;

use crate::canonical::canonical_sha256;
use crate::error::ConfigError;
use crate::model::API_VERSION;
use crate::python::py_strip;
use crate::repr::repr_str;
use crate::run_window::{Window, format_instant};

/// The idempotency key `K` of a run of pipeline `identifier` writing to `target_identity`
/// over `window` (`None`: a run that owns the whole table).
///
/// # Errors
///
/// [`ConfigError::Spec`] when `identifier` is empty (`the spec needs an 'identifier' to derive
/// an idempotency key`).
pub fn idempotency_key(
    identifier: &str,
    target_identity: &str,
    window: Option<&Window>,
) -> Result<String, ConfigError> {
    if identifier.is_empty() {
        return Err(ConfigError::Spec {
            message: "the spec needs an 'identifier' to derive an idempotency key".to_owned(),
        });
    }
    let (start, end) = match window {
        Some(window) => (format_instant(window.start), format_instant(window.end)),
        None => (String::new(), String::new()),
    };
    canonical_sha256(&Value::from(vec![
        API_VERSION,
        "idempotency",
        identifier,
        target_identity,
        start.as_str(),
        end.as_str(),
    ]))
}

/// The replace key `R` of the run that replaces the window whose key is `key`, under the spec
/// whose hash is `spec_hash`.
///
/// # Errors
///
/// [`ConfigError::Spec`] when either is blank (`key must be a non-empty string, got ''`).
pub fn replace_key(key: &str, spec_hash: &str) -> Result<String, ConfigError> {
    for (name, value) in [("key", key), ("spec_hash", spec_hash)] {
        if py_strip(value).is_empty() {
            return Err(ConfigError::Spec {
                message: format!("{name} must be a non-empty string, got {}", repr_str(value)),
            });
        }
    }
    canonical_sha256(&Value::from(vec![API_VERSION, "replace", key, spec_hash]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1_HASH: &str = "741fb6df6f2b264c5ece46ffb6af73983009a454619a4737485c46ed26298c5e";
    const K: &str = "62831bc16852034866a7b4b9869fcdabe016ba9bfdac1f07d73a9d265f3315c6";

    fn window(start: &str, end: &str) -> Window {
        Window::new(start.parse().expect("start"), end.parse().expect("end")).expect("window")
    }

    #[test]
    fn the_reference_keys() {
        let day = window("2026-08-01T00:00:00Z", "2026-08-02T00:00:00Z");
        assert_eq!(
            idempotency_key("rides", "iceberg:nyc.rides", Some(&day)).expect("key"),
            K
        );
        assert_eq!(
            idempotency_key("rides", "iceberg:nyc.rides", None).expect("key"),
            "5075fb1a17a8b2757a5dede7099de18571570aba85ee9e8111cb51e561ce68ad"
        );
        assert_eq!(
            replace_key(K, V1_HASH).expect("key"),
            "afae7830d31d7b671edf85d795f5ab4109718170897fd2566ccc7a23b570b683"
        );
        assert_eq!(
            idempotency_key("daily_orders", "iceberg:shop.orders", Some(&day)).expect("key"),
            "982f0362e7228db87697908408506e5b1f0c59e30aa798921bbd379af38b3e1f"
        );
        let paris_day = window("2026-07-31T22:00:00Z", "2026-08-01T22:00:00Z");
        assert_eq!(
            idempotency_key("daily_orders", "iceberg:shop.orders", Some(&paris_day)).expect("key"),
            "f63702ff77becf5ba0f844118617982aacb704eb9e044fdd1e896e62d22921be"
        );
    }

    #[test]
    fn the_key_is_the_digest_of_its_documented_preimage() {
        let preimage = r#"["ldp/v1","idempotency","rides","iceberg:nyc.rides","2026-08-01T00:00:00Z","2026-08-02T00:00:00Z"]"#;
        assert_eq!(crate::canonical::sha256_hex(preimage.as_bytes()), K);
        let preimage = format!(r#"["ldp/v1","replace","{K}","{V1_HASH}"]"#);
        assert_eq!(
            crate::canonical::sha256_hex(preimage.as_bytes()),
            replace_key(K, V1_HASH).expect("key")
        );
    }

    #[test]
    fn blank_inputs_are_refused() {
        assert_eq!(
            idempotency_key("", "iceberg:a.b", None)
                .unwrap_err()
                .to_string(),
            "the spec needs an 'identifier' to derive an idempotency key"
        );
        assert_eq!(
            replace_key(" ", V1_HASH).unwrap_err().to_string(),
            "key must be a non-empty string, got ' '"
        );
        assert_eq!(
            replace_key(K, "").unwrap_err().to_string(),
            "spec_hash must be a non-empty string, got ''"
        );
    }
}
