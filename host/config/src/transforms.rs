//! `metadata.transforms`, an ldp extension: the transforms the batches go through between the
//! source and the quality checks, in config order.
//!
//! Each item is one of
//!
//! * a **plugin file**: `{"plugin": "transforms/mask.wasm", "sha256"?: HEX, "config"?: {...},
//!   "grants"?: {"read"?: [DIR], "env"?: [NAME]}, "name"?: TEXT}` — a component of the
//!   `transform-plugin` world, its path relative to the config;
//! * **JavaScript** run by the built-in `js` interpreter plugin (no I/O at all):
//!   `{"js": "function transform(rows) { ... }", "name"?: TEXT}` or `{"js_file": "t.js",
//!   "sha256"?: HEX, "name"?: TEXT}`.
//!
//! Any item may set `"limits": {"timeout_s": SECONDS, "memory_mb": MIB}`: the longest one batch
//! may take and the largest memory of its sandbox (defaults: 10 s and 512 MiB for JavaScript,
//! 60 s and 1 GiB for a plugin file).
//!
//! A `sha256` pins the file: a file with another hash refuses the run before anything is read.
//! The Python tool (0.1.3) accepts unknown `metadata` keys and ignores them, so a config with
//! transforms still loads there (without them).

use serde_json::{Map, Value};

use crate::model::Section;
use crate::problems::{Problems, get, unknown_keys};
use crate::repr::{repr, repr_list};

/// The keys of a transform item.
pub const TRANSFORM_KEYS: [&str; 8] = [
    "plugin", "js", "js_file", "sha256", "config", "grants", "limits", "name",
];

/// The keys of a transform's `limits`.
pub const LIMIT_KEYS: [&str; 2] = ["timeout_s", "memory_mb"];

/// The keys of a plugin's `grants`.
pub const GRANT_KEYS: [&str; 3] = ["read", "env", "net"];

/// One transform of `metadata.transforms`.
#[derive(Clone, Debug, PartialEq)]
pub struct TransformSpec {
    /// Its place in the list (0-based), for messages: `metadata.transforms[N]`.
    pub index: usize,
    /// `name`, else the file's name, else `js`.
    pub name: String,
    /// What runs.
    pub code: TransformCode,
    /// The plugin's own configuration (an object; `{}` when absent).
    pub config: Map<String, Value>,
    /// The pinned sha256 of the plugin or JavaScript file, lower-case.
    pub sha256: Option<String>,
    /// What the plugin may reach.
    pub grants: PluginGrants,
    /// Its sandbox's limits, where the config sets them.
    pub limits: PluginLimits,
}

/// `limits` of a transform or a source plugin: what the config overrides of its sandbox's
/// budget.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PluginLimits {
    /// Longest time one call (one batch) may take, in seconds.
    pub timeout_s: Option<f64>,
    /// Largest memory of the sandbox, in MiB.
    pub memory_mb: Option<u64>,
}

/// What a transform runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransformCode {
    /// A component file, relative to the config.
    Plugin(String),
    /// JavaScript source, inline.
    Js(String),
    /// A JavaScript file, relative to the config.
    JsFile(String),
}

/// Capabilities granted to a plugin file (all empty by default).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PluginGrants {
    /// Folders it may read, relative to the config.
    pub read: Vec<String>,
    /// Environment variables it sees (their values are the host's).
    pub env: Vec<String>,
    /// `host:port` pairs it may reach over HTTP.
    pub net: Vec<String>,
}

impl PluginGrants {
    /// No capability at all.
    pub fn is_empty(&self) -> bool {
        self.read.is_empty() && self.env.is_empty() && self.net.is_empty()
    }
}

impl TransformSpec {
    /// `metadata.transforms[N]`.
    pub fn at(&self) -> String {
        format!("metadata.transforms[{}]", self.index)
    }
}

/// Checks `metadata.transforms` (absent: no transforms).
pub(crate) fn check_transforms(
    problems: &mut Problems,
    value: Option<&Value>,
) -> Option<Vec<TransformSpec>> {
    let items = match value {
        None | Some(Value::Null) => return Some(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            problems.add(
                "metadata.transforms",
                format!(
                    "must be a list of transforms such as [{{'plugin': 'transforms/mask.wasm'}}] or [{{'js': 'function transform(rows) {{ return rows }}'}}], got {}",
                    repr(other)
                ),
            );
            return None;
        }
    };
    let before = problems.len();
    let specs: Vec<TransformSpec> = items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| {
            let at = format!("metadata.transforms[{index}]");
            match parse_transform(index, item) {
                Ok(spec) => Some(spec),
                Err(message) => {
                    problems.add(&at, message);
                    None
                }
            }
        })
        .collect();
    (problems.len() == before).then_some(specs)
}

/// Reads one item; the error is the message for `metadata.transforms[N]`.
pub fn parse_transform(index: usize, item: &Value) -> Result<TransformSpec, String> {
    let Some(map) = item.as_object() else {
        return Err(format!(
            "must be an object with one of 'plugin', 'js' or 'js_file', got {}",
            repr(item)
        ));
    };
    let unknown = unknown_keys(map, &TRANSFORM_KEYS);
    if !unknown.is_empty() {
        return Err(format!(
            "has unknown keys {}; allowed: {}",
            repr_list(&unknown),
            TRANSFORM_KEYS.join(", ")
        ));
    }
    let kinds: Vec<&str> = ["plugin", "js", "js_file"]
        .into_iter()
        .filter(|k| get(map, k).is_some())
        .collect();
    let text = |key: &str| -> Result<String, String> {
        match get(map, key) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            other => Err(format!(
                "{key} must be a non-empty string, got {}",
                other.map_or("None".into(), repr)
            )),
        }
    };
    let code = match kinds.as_slice() {
        ["plugin"] => TransformCode::Plugin(text("plugin")?),
        ["js"] => match get(map, "js") {
            Some(Value::String(code)) if !code.trim().is_empty() => TransformCode::Js(code.clone()),
            other => {
                return Err(format!(
                    "js must be the JavaScript source as a non-empty string, got {}",
                    other.map_or("None".into(), repr)
                ));
            }
        },
        ["js_file"] => TransformCode::JsFile(text("js_file")?),
        [] => {
            return Err(
                "needs one of 'plugin' (a .wasm file), 'js' (JavaScript source) or 'js_file' (a .js file), and has none"
                    .into(),
            );
        }
        many => {
            return Err(format!(
                "needs exactly one of 'plugin', 'js' or 'js_file', and has {}: {}",
                many.len(),
                repr_list(many)
            ));
        }
    };
    let sha256 = match get(map, "sha256") {
        None => None,
        Some(_) if matches!(code, TransformCode::Js(_)) => {
            return Err(
                "sha256 pins a file: it goes with 'plugin' or 'js_file', not with inline 'js'"
                    .into(),
            );
        }
        Some(Value::String(hex))
            if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            Some(hex.to_ascii_lowercase())
        }
        Some(other) => {
            return Err(format!(
                "sha256 must be 64 hexadecimal digits, got {}",
                repr(other)
            ));
        }
    };
    let plugin_only = |key: &str| -> Result<(), String> {
        if get(map, key).is_some() && !matches!(code, TransformCode::Plugin(_)) {
            return Err(format!(
                "'{key}' goes with a plugin file; JavaScript transforms take no {key}: the interpreter has no I/O"
            ));
        }
        Ok(())
    };
    plugin_only("config")?;
    plugin_only("grants")?;
    let config = match get(map, "config") {
        None => Map::new(),
        Some(Value::Object(config)) => config.clone(),
        Some(other) => {
            return Err(format!(
                "config must be an object (the plugin's own configuration), got {}",
                repr(other)
            ));
        }
    };
    let grants = match get(map, "grants") {
        None => PluginGrants::default(),
        Some(value) => parse_grants(value)?,
    };
    let limits = match get(map, "limits") {
        None => PluginLimits::default(),
        Some(value) => parse_limits(value)?,
    };
    let name = match get(map, "name") {
        None => match &code {
            TransformCode::Plugin(path) | TransformCode::JsFile(path) => file_name(path),
            TransformCode::Js(_) => "js".to_string(),
        },
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_string(),
        Some(other) => {
            return Err(format!(
                "name must be a non-empty string, got {}",
                repr(other)
            ));
        }
    };
    Ok(TransformSpec {
        index,
        name,
        code,
        config,
        sha256,
        grants,
        limits,
    })
}

/// `{"timeout_s": SECONDS, "memory_mb": MIB}`, both optional.
pub fn parse_limits(value: &Value) -> Result<PluginLimits, String> {
    let Some(map) = value.as_object() else {
        return Err(format!(
            "limits must be an object such as {{'timeout_s': 5, 'memory_mb': 256}}, got {}",
            repr(value)
        ));
    };
    let unknown = unknown_keys(map, &LIMIT_KEYS);
    if !unknown.is_empty() {
        return Err(format!(
            "limits has unknown keys {}; allowed: {}",
            repr_list(&unknown),
            LIMIT_KEYS.join(", ")
        ));
    }
    let timeout_s = match get(map, "timeout_s") {
        None => None,
        Some(Value::Number(n)) if n.as_f64().is_some_and(|s| s > 0.0 && s <= 86_400.0) => {
            n.as_f64()
        }
        Some(other) => {
            return Err(format!(
                "limits.timeout_s must be a number of seconds above 0 and at most 86400, got {}",
                repr(other)
            ));
        }
    };
    let memory_mb = match get(map, "memory_mb") {
        None => None,
        Some(Value::Number(n)) if n.as_u64().is_some_and(|m| (16..=65_536).contains(&m)) => {
            n.as_u64()
        }
        Some(other) => {
            return Err(format!(
                "limits.memory_mb must be a whole number of MiB from 16 to 65536, got {}",
                repr(other)
            ));
        }
    };
    Ok(PluginLimits {
        timeout_s,
        memory_mb,
    })
}

/// `{"read": [DIR], "env": [NAME], "net": ["host:port"]}`.
pub fn parse_grants(value: &Value) -> Result<PluginGrants, String> {
    let Some(map) = value.as_object() else {
        return Err(format!(
            "grants must be an object such as {{'read': ['data'], 'env': ['API_TOKEN'], 'net': ['api.example.com:443']}}, got {}",
            repr(value)
        ));
    };
    let unknown = unknown_keys(map, &GRANT_KEYS);
    if !unknown.is_empty() {
        return Err(format!(
            "grants has unknown keys {}; allowed: {}",
            repr_list(&unknown),
            GRANT_KEYS.join(", ")
        ));
    }
    let list = |key: &str| -> Result<Vec<String>, String> {
        match get(map, key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
                    other => Err(format!(
                        "grants.{key} must be a list of non-empty strings, got {}",
                        repr(other)
                    )),
                })
                .collect(),
            Some(other) => Err(format!(
                "grants.{key} must be a list of strings, got {}",
                repr(other)
            )),
        }
    };
    let grants = PluginGrants {
        read: list("read")?,
        env: list("env")?,
        net: list("net")?,
    };
    for name in &grants.env {
        let valid = name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !name.as_bytes()[0].is_ascii_digit();
        if !valid {
            return Err(format!(
                "grants.env: {} is not an environment variable name (letters, digits and _)",
                repr(&Value::from(name.as_str()))
            ));
        }
    }
    for host in &grants.net {
        let valid = host
            .rsplit_once(':')
            .is_some_and(|(h, port)| !h.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0));
        if !valid || host.contains('/') || host.contains('@') {
            return Err(format!(
                "grants.net: {} is not host:port (e.g. 'api.example.com:443'); a URL, a path or credentials are not allowed",
                repr(&Value::from(host.as_str()))
            ));
        }
    }
    Ok(grants)
}

/// A plugin file a source or target block names (an ldp extension): `plugin` names the
/// component, with `sha256`, `config`, `grants` and `limits` beside it in the block. A source
/// plugin reads what its `config` says; a sink plugin writes the target's `path`, staged.
#[derive(Clone, Debug, PartialEq)]
pub struct PluginFileSpec {
    /// The component file, relative to the config.
    pub path: String,
    /// The pinned sha256, lower-case.
    pub sha256: Option<String>,
    /// The plugin's own configuration.
    pub config: Map<String, Value>,
    /// What it may reach.
    pub grants: PluginGrants,
    /// Its sandbox's limits, where the config sets them.
    pub limits: PluginLimits,
}

/// The keys that go with a block's `plugin`.
pub const PLUGIN_FILE_KEYS: [&str; 5] = ["plugin", "sha256", "config", "grants", "limits"];

/// Reads `plugin`, `sha256`, `config`, `grants` and `limits` of a source block's extra keys;
/// `None` when the block names no plugin. The error is the message for `metadata.source`.
pub fn source_plugin(extra: &Map<String, Value>) -> Result<Option<PluginFileSpec>, String> {
    block_plugin(Section::Source, extra)
}

/// [`source_plugin`] for a file target's sink plugin (`metadata.target.plugin`). The host
/// gives the plugin the staged file's `path` in its config, so the config must not set one.
pub fn target_plugin(extra: &Map<String, Value>) -> Result<Option<PluginFileSpec>, String> {
    let spec = block_plugin(Section::Target, extra)?;
    if let Some(spec) = &spec {
        if spec.config.contains_key("path") {
            return Err(
                "metadata.target.config.path is set by ldp (the staged file the sink \
                        plugin writes, moved to the target's path once the checks passed); \
                        give the file as metadata.target.path"
                    .into(),
            );
        }
        if !spec.grants.net.is_empty() {
            return Err(
                "metadata.target.grants.net: a sink plugin writes its staged file \
                        only, which the host moves into place once the checks passed; a \
                        network grant would let rows out before the checks decide. Write the \
                        file, and send it on in a later step"
                    .into(),
            );
        }
    }
    Ok(spec)
}

fn block_plugin(
    section: Section,
    extra: &Map<String, Value>,
) -> Result<Option<PluginFileSpec>, String> {
    let (at, kind) = match section {
        Section::Source => ("metadata.source", "source"),
        Section::Target => ("metadata.target", "sink"),
    };
    let Some(plugin) = extra.get("plugin") else {
        for key in &PLUGIN_FILE_KEYS[1..] {
            if extra.contains_key(*key) {
                return Err(format!(
                    "{at}.{key} goes with {at}.plugin (a {kind} plugin file), and there is none"
                ));
            }
        }
        return Ok(None);
    };
    let path = match plugin {
        Value::String(path) if !path.trim().is_empty() => path.trim().to_string(),
        other => {
            return Err(format!(
                "{at}.plugin must be the path of a .wasm {kind} plugin, got {}",
                repr(other)
            ));
        }
    };
    let sha256 = match extra.get("sha256") {
        None => None,
        Some(Value::String(hex))
            if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            Some(hex.to_ascii_lowercase())
        }
        Some(other) => {
            return Err(format!(
                "{at}.sha256 must be 64 hexadecimal digits, got {}",
                repr(other)
            ));
        }
    };
    let config = match extra.get("config") {
        None => Map::new(),
        Some(Value::Object(config)) => config.clone(),
        Some(other) => {
            return Err(format!(
                "{at}.config must be an object (the plugin's own configuration), got {}",
                repr(other)
            ));
        }
    };
    let grants = match extra.get("grants") {
        None => PluginGrants::default(),
        Some(value) => parse_grants(value).map_err(|e| format!("{at}.{e}"))?,
    };
    let limits = match extra.get("limits") {
        None => PluginLimits::default(),
        Some(value) => parse_limits(value).map_err(|e| format!("{at}.{e}"))?,
    };
    Ok(Some(PluginFileSpec {
        path,
        sha256,
        config,
        grants,
        limits,
    }))
}

fn file_name(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(item: Value) -> String {
        parse_transform(0, &item).unwrap_err()
    }

    /// A sink plugin file gets the staged file as its `path` and writes nothing but it: a
    /// `path` of its own, or a network grant that would let rows out before the checks
    /// decide, is refused.
    #[test]
    fn a_target_plugin_writes_its_staged_file_only() {
        let block = |value: Value| value.as_object().cloned().expect("object");
        let spec = target_plugin(&block(
            json!({"plugin": "md.wasm", "config": {"title": "T"},
            "grants": {"env": ["TZ"]}, "limits": {"timeout_s": 5}}),
        ))
        .expect("valid")
        .expect("named");
        assert_eq!((spec.path.as_str(), spec.grants.env.len()), ("md.wasm", 1));
        assert_eq!(target_plugin(&block(json!({"path": "x"}))), Ok(None));
        let error = |value| target_plugin(&block(value)).expect_err("refused");
        assert!(
            error(json!({"plugin": "md.wasm", "config": {"path": "/tmp/x"}}))
                .starts_with("metadata.target.config.path is set by ldp")
        );
        assert!(
            error(json!({"plugin": "md.wasm", "grants": {"net": ["example.com:443"]}}))
                .starts_with(
                    "metadata.target.grants.net: a sink plugin writes its staged file only"
                )
        );
        assert_eq!(
            error(json!({"sha256": "00"})),
            "metadata.target.sha256 goes with metadata.target.plugin (a sink plugin file), and there is none"
        );
        assert_eq!(
            error(json!({"plugin": 3})),
            "metadata.target.plugin must be the path of a .wasm sink plugin, got 3"
        );
    }

    #[test]
    fn items() {
        let spec = parse_transform(
            2,
            &json!({"plugin": " t/mask.wasm ", "config": {"column": "email"},
                    "grants": {"env": ["SALT"]}}),
        )
        .unwrap();
        assert_eq!(spec.code, TransformCode::Plugin("t/mask.wasm".into()));
        assert_eq!(spec.name, "mask.wasm");
        assert_eq!(spec.at(), "metadata.transforms[2]");
        assert_eq!(spec.grants.env, ["SALT"]);
        let js = parse_transform(0, &json!({"js": "function transform(r) { return r }"})).unwrap();
        assert_eq!(js.name, "js");
        assert!(matches!(js.code, TransformCode::Js(_)));
    }

    #[test]
    fn messages() {
        assert_eq!(
            error(json!({"plugin": "a.wasm", "js": "x"})),
            "needs exactly one of 'plugin', 'js' or 'js_file', and has 2: ['plugin', 'js']"
        );
        assert_eq!(
            error(json!({"name": "x"})),
            "needs one of 'plugin' (a .wasm file), 'js' (JavaScript source) or 'js_file' (a .js file), and has none"
        );
        assert_eq!(
            error(json!({"plugin": "a.wasm", "path": "x"})),
            "has unknown keys ['path']; allowed: plugin, js, js_file, sha256, config, grants, limits, name"
        );
        assert_eq!(
            error(json!({"js": "x", "limits": {"timeout_s": 0}})),
            "limits.timeout_s must be a number of seconds above 0 and at most 86400, got 0"
        );
        assert_eq!(
            error(json!({"js": "x", "limits": {"memory_mb": 8, "cpu": 1}})),
            "limits has unknown keys ['cpu']; allowed: timeout_s, memory_mb"
        );
        assert_eq!(
            error(json!({"js": "x", "limits": {"memory_mb": 8}})),
            "limits.memory_mb must be a whole number of MiB from 16 to 65536, got 8"
        );
        assert_eq!(
            error(json!({"js": "x", "sha256": "ab"})),
            "sha256 pins a file: it goes with 'plugin' or 'js_file', not with inline 'js'"
        );
        assert_eq!(
            error(json!({"plugin": "a.wasm", "grants": {"net": ["http://x"]}})),
            "grants.net: 'http://x' is not host:port (e.g. 'api.example.com:443'); a URL, a path or credentials are not allowed"
        );
        assert_eq!(
            error(json!({"js_file": "a.js", "config": {}})),
            "'config' goes with a plugin file; JavaScript transforms take no config: the interpreter has no I/O"
        );
    }
}
