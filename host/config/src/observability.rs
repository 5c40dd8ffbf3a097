//! `metadata.observability`: the event sinks of a run.
//!
//! `sinks` lists sink types (`jsonl`, `openlineage`, `iceberg`, `null`; `none` means `null`) or
//! objects with a `type` and options. Options can also sit in a block named after the type
//! (`"jsonl": {"path": "logs/events.jsonl"}`); options in the list item win. The `iceberg`
//! sink's catalog defaults to the target's, else the source's, Iceberg catalog.

use serde_json::{Map, Value};

use crate::names::NameKind;
use crate::repr::{repr, repr_list, type_name};

/// The sink types, in the Python tool's order.
pub const SINK_TYPES: [&str; 4] = ["null", "jsonl", "openlineage", "iceberg"];

/// Where the `jsonl` sink writes without a `path` (relative to the config's folder).
pub const DEFAULT_JSONL_PATH: &str = ".ldp/events.jsonl";

/// Where the `openlineage` sink writes without a `path` or `url`.
pub const DEFAULT_OPENLINEAGE_PATH: &str = ".ldp/openlineage.jsonl";

/// A sink type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SinkKind {
    /// `null` (or `none`): drops everything.
    Null,
    /// `jsonl`: one JSON object per line to a local file.
    Jsonl,
    /// `openlineage`: OpenLineage events to a file or an HTTP endpoint.
    OpenLineage,
    /// `iceberg`: the `_ldp` tables in a catalog.
    Iceberg,
}

impl SinkKind {
    /// The type name.
    pub fn as_str(self) -> &'static str {
        match self {
            SinkKind::Null => "null",
            SinkKind::Jsonl => "jsonl",
            SinkKind::OpenLineage => "openlineage",
            SinkKind::Iceberg => "iceberg",
        }
    }

    fn options(self) -> &'static [&'static str] {
        match self {
            SinkKind::Null => &[],
            SinkKind::Jsonl => &["path"],
            SinkKind::OpenLineage => &["api_key_env", "namespace", "path", "timeout", "url"],
            SinkKind::Iceberg => &["batch_size", "catalog", "namespace"],
        }
    }

    fn parse(name: &str) -> Option<SinkKind> {
        match name {
            "null" | "none" => Some(SinkKind::Null),
            "jsonl" => Some(SinkKind::Jsonl),
            "openlineage" => Some(SinkKind::OpenLineage),
            "iceberg" => Some(SinkKind::Iceberg),
            _ => None,
        }
    }
}

/// One configured sink: its type and its merged options (for `iceberg`, `catalog` is always
/// set).
#[derive(Clone, Debug, PartialEq)]
pub struct SinkSpec {
    /// The type.
    pub kind: SinkKind,
    /// The options (`path`, `url`, `namespace`, `api_key_env`, `timeout`, `catalog`,
    /// `batch_size`).
    pub options: Map<String, Value>,
}

fn iceberg_catalog_block(metadata: &Map<String, Value>) -> Option<&Value> {
    ["target", "source"].into_iter().find_map(|section| {
        let block = metadata.get(section)?.as_object()?;
        let format = block
            .get("format")
            .map(crate::repr::py_str)
            .unwrap_or_default();
        if format.trim().to_uppercase() != "ICEBERG" {
            return None;
        }
        block.get("catalog").filter(|catalog| catalog.is_object())
    })
}

/// Checks the `iceberg` sink's `namespace` (reported at `namespace_at`) and gives it the
/// target's, else the source's, catalog when it names none.
fn iceberg_options(
    metadata: &Map<String, Value>,
    label: &str,
    namespace_at: &str,
    merged: &mut Map<String, Value>,
) -> Result<(), String> {
    // The `_ldp` tables go to `<warehouse>/<namespace>/`: a namespace by the rules of `names`.
    if let Some(namespace) = merged.get("namespace").and_then(Value::as_str)
        && let Some(problem) = NameKind::Namespace.problem(namespace)
    {
        return Err(format!("{namespace_at}: {problem}"));
    }
    if merged.get("catalog").is_none_or(Value::is_null) {
        let Some(catalog) = iceberg_catalog_block(metadata) else {
            return Err(format!(
                "{label} (iceberg) needs a 'catalog': neither the source nor the target is an Iceberg table"
            ));
        };
        merged.insert("catalog".to_owned(), catalog.clone());
    }
    Ok(())
}

/// Parses `metadata.observability` into sink specs (empty when absent).
///
/// # Errors
///
/// The Python tool's message (it stops at the first problem), e.g. `metadata.observability
/// has unknown keys ['x']; allowed: ['iceberg', 'jsonl', 'null', 'openlineage', 'sinks']`.
pub fn sink_specs(metadata: &Map<String, Value>) -> Result<Vec<SinkSpec>, String> {
    let raw = match metadata.get("observability") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(raw) => raw,
    };
    let at = "metadata.observability";
    let Some(block) = raw.as_object() else {
        return Err(format!(
            "{at} must be an object such as {{'sinks': ['jsonl']}}"
        ));
    };
    let mut allowed: Vec<&str> = SINK_TYPES.to_vec();
    allowed.push("sinks");
    allowed.sort_unstable();
    let unknown = crate::problems::unknown_keys(block, &allowed);
    if !unknown.is_empty() {
        return Err(format!(
            "{at} has unknown keys {}; allowed: {}",
            repr_list(&unknown),
            repr_list(&allowed)
        ));
    }
    let items: Vec<Value> = match block.get("sinks") {
        None | Some(Value::Null) => Vec::new(),
        Some(item @ (Value::String(_) | Value::Object(_))) => vec![item.clone()],
        Some(Value::Array(items)) => items.clone(),
        Some(other) => {
            return Err(format!(
                "{at}.sinks must be a list of sink types, got {}",
                type_name(other)
            ));
        }
    };
    let mut specs = Vec::with_capacity(items.len());
    for (position, item) in items.iter().enumerate() {
        let label = format!("{at}.sinks[{position}]");
        let mut options = match item {
            Value::Object(map) => map.clone(),
            other => {
                let mut map = Map::new();
                map.insert("type".to_owned(), other.clone());
                map
            }
        };
        let raw_kind = options.remove("type").unwrap_or(Value::Null);
        let kind_name = match &raw_kind {
            Value::String(text) => Value::from(text.trim().to_lowercase()),
            other => other.clone(),
        };
        let Some(kind) = kind_name.as_str().and_then(SinkKind::parse) else {
            return Err(format!(
                "{label} has unknown sink type {}; expected one of {}",
                repr(&kind_name),
                repr_list(&SINK_TYPES)
            ));
        };
        let shared = match block.get(kind.as_str()) {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => map.clone(),
            Some(other) if !crate::problems::truthy(Some(other)) => Map::new(),
            Some(_) => {
                return Err(format!(
                    "{at}.{} must be an object of sink options",
                    kind.as_str()
                ));
            }
        };
        let namespace_in_item = options.contains_key("namespace");
        let mut merged = shared;
        for (key, value) in options {
            merged.insert(key, value);
        }
        let bad = crate::problems::unknown_keys(&merged, kind.options());
        if !bad.is_empty() {
            return Err(format!(
                "{label} ({}) has unknown options {}; allowed: {}",
                kind.as_str(),
                repr_list(&bad),
                repr_list(kind.options())
            ));
        }
        let truthy = |key: &str| crate::problems::truthy(merged.get(key));
        if kind == SinkKind::OpenLineage && truthy("path") && truthy("url") {
            return Err(format!(
                "{label} (openlineage) takes a 'path' or a 'url', not both"
            ));
        }
        if kind == SinkKind::Iceberg {
            let namespace_at = if namespace_in_item {
                format!("{label}.namespace")
            } else {
                format!("{at}.iceberg.namespace")
            };
            iceberg_options(metadata, &label, &namespace_at, &mut merged)?;
        }
        specs.push(SinkSpec {
            kind,
            options: merged,
        });
    }
    Ok(specs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sinks(metadata: Value) -> Result<Vec<SinkSpec>, String> {
        sink_specs(metadata.as_object().unwrap())
    }

    #[test]
    fn sink_lists() {
        let target = json!({"name": "t", "format": "iceberg", "catalog": {"identifier": "n", "warehouse_path": "w"}});
        let specs = sinks(json!({"target": target, "observability": {
            "sinks": ["jsonl", {"type": "Iceberg", "namespace": "x"}, "none"], "jsonl": {"path": "e.jsonl"}}}))
        .unwrap();
        assert_eq!(specs.len(), 3);
        assert_eq!(
            specs[0].options,
            *json!({"path": "e.jsonl"}).as_object().unwrap()
        );
        assert_eq!(specs[1].options["catalog"]["identifier"], "n");
        assert_eq!(specs[2].kind, SinkKind::Null);
        assert_eq!(
            sinks(json!({"observability": {"sink": []}})).unwrap_err(),
            "metadata.observability has unknown keys ['sink']; allowed: ['iceberg', 'jsonl', 'null', 'openlineage', 'sinks']"
        );
        assert_eq!(
            sinks(json!({"observability": {"sinks": ["kafka"]}})).unwrap_err(),
            "metadata.observability.sinks[0] has unknown sink type 'kafka'; expected one of ['null', 'jsonl', 'openlineage', 'iceberg']"
        );
        assert_eq!(
            sinks(json!({"observability": {"sinks": ["iceberg"]}})).unwrap_err(),
            "metadata.observability.sinks[0] (iceberg) needs a 'catalog': neither the source nor the target is an Iceberg table"
        );
        assert_eq!(
            sinks(json!({"observability": {"sinks": [{"type": "jsonl", "url": "x"}]}}))
                .unwrap_err(),
            "metadata.observability.sinks[0] (jsonl) has unknown options ['url']; allowed: ['path']"
        );
    }

    /// The bug "table names escape the warehouse": the `_ldp` tables' namespace is a namespace.
    #[test]
    fn an_iceberg_sink_namespace_that_is_a_path_is_refused_with_its_key() {
        let target = json!({"name": "t", "format": "iceberg", "catalog": {"identifier": "n", "warehouse_path": "w"}});
        let error = sinks(json!({"target": target, "observability": {
            "sinks": [{"type": "iceberg", "namespace": "../x"}]}}))
        .unwrap_err();
        assert!(
            error.starts_with(
                "metadata.observability.sinks[0].namespace: '../x' holds the path separator '/'"
            ),
            "{error}"
        );
        let error = sinks(json!({"target": target, "observability": {
            "sinks": ["iceberg"], "iceberg": {"namespace": "/tmp/x"}}}))
        .unwrap_err();
        assert!(
            error.starts_with(
                "metadata.observability.iceberg.namespace: '/tmp/x' is an absolute path"
            ),
            "{error}"
        );
    }
}
