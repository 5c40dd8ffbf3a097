//! The spec hash: the sha256 of the canonical JSON of the parts of a config that change
//! what a run does.
//!
//! [`canonical_spec`] builds that document from the config as written (the raw JSON, not the
//! typed [`crate::Config`], so that unknown `metadata` keys such as `lineage` are hashed too):
//!
//! 1. `apiVersion` (the spec's value when truthy, else `ldp/v1`), `identifier` (`null` when
//!    absent), `when` and `how` only when truthy, and `metadata`. `kind`, `who`, `what` and
//!    `where` are left out.
//! 2. `metadata` loses `observability`, `schedule`, `retries` and `docs`.
//! 3. `quality`: a list becomes `{on_failure: "fail", checks: <list>}`, an object gets the
//!    defaults `on_failure: "fail"` and `checks: []`, `null` is removed.
//! 4. Every string below `metadata` is normalised by the name of its key (list items take their
//!    list's key): `format`, `engine` → trimmed and upper-cased; `write_mode`, `on_failure`,
//!    `transform`, `type` → trimmed, lower-cased, spaces removed; `path`, `warehouse_path`,
//!    `warehouse` → [`normalise_spec_path`]. Nothing else changes: `1` and `1.0` hash apart, list
//!    order matters, and catalog type aliases are not folded.
//!
//! A `metadata` that is not an object is kept as it is.

use std::path::Path;

use serde_json::{Map, Value};

use crate::canonical::canonical_sha256;
use crate::error::ConfigError;
use crate::model::API_VERSION;
use crate::python::{py_strip, truthy};
use crate::spec_path::normalise_spec_path;

/// The `metadata` keys that do not change what a run does, so the hash ignores them.
/// `docs` (the table's contract) and `monitors` are ldp's: the Python tool 0.1.3 hashes them as
/// unknown keys, so a config with either has another spec hash there; one without has the same.
pub const HASH_EXCLUDED_METADATA: [&str; 5] =
    ["observability", "schedule", "retries", "docs", "monitors"];

const UPPER_KEYS: [&str; 2] = ["format", "engine"];
const LOWER_KEYS: [&str; 4] = ["write_mode", "on_failure", "transform", "type"];
const PATH_KEYS: [&str; 3] = ["path", "warehouse_path", "warehouse"];

/// The document the spec hash is the digest of (see the module docs). `config_dir` is the
/// config file's folder: absolute paths inside it are made relative to it. Object keys come out
/// sorted.
pub fn canonical_spec(document: &Value, config_dir: Option<&Path>) -> Value {
    let field = |key: &str| document.get(key).cloned().unwrap_or(Value::Null);
    let mut out = Map::new();
    let api_version = document
        .get("apiVersion")
        .filter(|value| truthy(value))
        .cloned()
        .unwrap_or_else(|| Value::from(API_VERSION));
    out.insert("apiVersion".to_owned(), api_version);
    out.insert("identifier".to_owned(), field("identifier"));
    for key in ["when", "how"] {
        if let Some(value) = document.get(key).filter(|value| truthy(value)) {
            out.insert(key.to_owned(), value.clone());
        }
    }
    let metadata = match document.get("metadata") {
        Some(Value::Object(metadata)) => {
            let mut kept: Map<String, Value> = metadata
                .iter()
                .filter(|(key, _)| !HASH_EXCLUDED_METADATA.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            if let Some(quality) = kept.get("quality") {
                match normalise_quality(quality) {
                    Some(quality) => {
                        kept.insert("quality".to_owned(), quality);
                    }
                    None => {
                        kept.remove("quality");
                    }
                }
            }
            normalise(&Value::Object(kept), config_dir, None)
        }
        _ => field("metadata"),
    };
    out.insert("metadata".to_owned(), metadata);
    sorted(Value::Object(out))
}

/// The spec hash: 64 lower-case hex characters.
///
/// # Errors
///
/// [`ConfigError::Spec`] only if the document holds a number canonical JSON refuses.
pub fn spec_hash(document: &Value, config_dir: Option<&Path>) -> Result<String, ConfigError> {
    canonical_sha256(&canonical_spec(document, config_dir))
}

/// The quality block as the hash sees it; `None` removes it.
pub(crate) fn normalise_quality(quality: &Value) -> Option<Value> {
    match quality {
        Value::Null => None,
        Value::Array(checks) => {
            let mut block = Map::new();
            block.insert("on_failure".to_owned(), Value::from("fail"));
            block.insert("checks".to_owned(), Value::Array(checks.clone()));
            Some(Value::Object(block))
        }
        Value::Object(block) => {
            let mut block = block.clone();
            block
                .entry("on_failure")
                .or_insert_with(|| Value::from("fail"));
            block
                .entry("checks")
                .or_insert_with(|| Value::Array(Vec::new()));
            Some(Value::Object(block))
        }
        other => Some(other.clone()),
    }
}

fn normalise(value: &Value, config_dir: Option<&Path>, key: Option<&str>) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(child_key, child)| {
                    (
                        child_key.clone(),
                        normalise(child, config_dir, Some(child_key)),
                    )
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| normalise(item, config_dir, key))
                .collect(),
        ),
        Value::String(text) => Value::String(normalise_string(text, config_dir, key)),
        other => other.clone(),
    }
}

fn normalise_string(text: &str, config_dir: Option<&Path>, key: Option<&str>) -> String {
    match key {
        Some(key) if UPPER_KEYS.contains(&key) => py_strip(text).to_uppercase(),
        Some(key) if LOWER_KEYS.contains(&key) => py_strip(text).to_lowercase().replace(' ', ""),
        Some(key) if PATH_KEYS.contains(&key) => normalise_spec_path(text, config_dir),
        _ => text.to_owned(),
    }
}

/// The value with every object's keys in code-point order (Python's `json.dumps(sort_keys=True)`).
pub fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(key, child)| (key, sorted(child)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::canonical_json;
    use serde_json::json;

    fn v1() -> Value {
        json!({
            "apiVersion": "ldp/v1", "kind": "Pipeline", "identifier": "rides",
            "who": "analyst", "what": "taxi rides", "how": "batch",
            "metadata": {
                "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
                "target": {"name": "rides", "format": "ICEBERG",
                           "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"},
                           "write_mode": "upsert", "join_cols": ["ride_id"],
                           "partition_by": [{"column": "pickup_ts", "transform": "day"}]},
                "quality": {"on_failure": "fail", "checks": [
                    {"check": "not_null", "columns": ["ride_id", "pickup_ts"]},
                    {"check": "unique", "columns": ["ride_id"]},
                    {"check": "range", "column": "fare", "min": 0}]},
                "observability": {"sinks": ["jsonl"]}
            }
        })
    }

    const V1_HASH: &str = "741fb6df6f2b264c5ece46ffb6af73983009a454619a4737485c46ed26298c5e";

    #[test]
    fn the_reference_document_and_hash() {
        let dir = Path::new("/vectors");
        assert_eq!(
            canonical_json(&canonical_spec(&v1(), Some(dir))).expect("json"),
            r#"{"apiVersion":"ldp/v1","how":"batch","identifier":"rides","metadata":{"quality":{"checks":[{"check":"not_null","columns":["ride_id","pickup_ts"]},{"check":"unique","columns":["ride_id"]},{"check":"range","column":"fare","min":0}],"on_failure":"fail"},"source":{"format":"CSV","name":"rides","path":"data/rides.csv"},"target":{"catalog":{"identifier":"nyc","warehouse_path":"warehouse"},"format":"ICEBERG","join_cols":["ride_id"],"name":"rides","partition_by":[{"column":"pickup_ts","transform":"day"}],"write_mode":"upsert"}}}"#
        );
        assert_eq!(spec_hash(&v1(), Some(dir)).expect("hash"), V1_HASH);
    }

    #[test]
    fn invariances_of_the_reference() {
        let dir = Some(Path::new("/vectors"));
        let same = |change: &dyn Fn(&mut Value)| {
            let mut document = v1();
            change(&mut document);
            spec_hash(&document, dir).expect("hash")
        };
        let drop = |key: &'static str| {
            move |d: &mut Value| {
                d.as_object_mut().map(|m| m.remove(key));
            }
        };
        assert_eq!(same(&drop("kind")), V1_HASH);
        assert_eq!(same(&drop("who")), V1_HASH);
        assert_eq!(
            same(&|d| d["metadata"]["source"]["format"] = json!(" csv ")),
            V1_HASH
        );
        assert_eq!(
            same(&|d| d["metadata"]["target"]["write_mode"] = json!("UPSERT")),
            V1_HASH
        );
        assert_eq!(
            same(&|d| d["metadata"]["source"]["path"] = json!("/vectors/data/rides.csv")),
            V1_HASH
        );
        assert_eq!(
            same(&|d| d["metadata"]["source"]["path"] = json!("./data/../data/rides.csv")),
            V1_HASH
        );
        assert_eq!(
            same(&|d| {
                let checks = d["metadata"]["quality"]["checks"].clone();
                d["metadata"]["quality"] = checks;
            }),
            V1_HASH
        );
        assert_eq!(
            same(&|d| {
                d["metadata"]["observability"] = json!(null);
                d["metadata"]["schedule"] = json!("@daily");
                d["metadata"]["retries"] = json!({"max_attempts": 3});
            }),
            V1_HASH
        );
        assert_eq!(
            same(&drop("how")),
            "7cb885ffae1b4a48d6fe643e9a1cbd2306635cb5d3c87605c3c98d87d2a090f6"
        );
        assert_ne!(
            same(&|d| d["metadata"]["quality"]["checks"][2]["min"] = json!(0.0)),
            V1_HASH
        );
        assert_ne!(
            same(&|d| d["metadata"]["target"]["catalog"]["type"] = json!("local")),
            V1_HASH
        );
    }

    #[test]
    fn shapes_the_reference_keeps() {
        let spec = canonical_spec(&json!({"apiVersion": "", "how": "", "metadata": [1]}), None);
        assert_eq!(
            canonical_json(&spec).expect("json"),
            r#"{"apiVersion":"ldp/v1","identifier":null,"metadata":[1]}"#
        );
        let spec = canonical_spec(
            &json!({"identifier": "x", "when": 5, "metadata": {"quality": null, "x": {"type": " Local Iceberg ", "format": ["a"], "n": 1.0}}}),
            None,
        );
        assert_eq!(
            canonical_json(&spec).expect("json"),
            r#"{"apiVersion":"ldp/v1","identifier":"x","metadata":{"x":{"format":["A"],"n":1.0,"type":"localiceberg"}},"when":5}"#
        );
        let spec = canonical_spec(
            &json!({"metadata": {"quality": {"on_failure": null}}}),
            None,
        );
        assert_eq!(
            spec["metadata"]["quality"],
            json!({"checks": [], "on_failure": null})
        );
        assert_eq!(
            canonical_spec(&json!({"metadata": {"quality": "x"}}), None)["metadata"]["quality"],
            json!("x")
        );
    }
}
