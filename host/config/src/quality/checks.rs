//! One quality check item: a built-in check (its parameters read by `ldp_check_params`) or a
//! check plugin file.

use ldp_check_params::CheckParams;
use serde_json::{Map, Value};

use crate::repr::repr;

/// A check and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// One of the built-in checks ([`crate::CHECK_NAMES`]), run by the built-in checks plugin.
    Builtin(CheckParams),
    /// A check plugin file (`"check": "checks/late_rows.wasm"`), an ldp extension: the
    /// component runs in the sandbox on the same batches and its verdicts join the report.
    Plugin {
        /// The file, as written (relative to the config's folder).
        path: String,
        /// The sha256 the file must have (lower-case hex), when the config pins it.
        sha256: Option<String>,
        /// The plugin's own configuration (`{}` when absent).
        config: Value,
    },
}

impl Check {
    /// The config name of the check (`row_count`, `not_null`...), `plugin` for a file.
    pub fn check_type(&self) -> &'static str {
        match self {
            Check::Builtin(params) => params.kind(),
            Check::Plugin { .. } => "plugin",
        }
    }

    /// The default display name: `row_count`, `not_null(a, b)`, `monotonic(c by g)`..., a
    /// plugin's path.
    pub fn default_name(&self) -> String {
        match self {
            Check::Builtin(params) => params.default_name(),
            Check::Plugin { path, .. } => path.clone(),
        }
    }
}

/// A configured check: the check and its optional display name.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckSpec {
    /// The check.
    pub check: Check,
    /// The item as the config wrote it (what the built-in checks plugin is given).
    pub item: Value,
    /// `name`, replacing the default name in results.
    pub name: Option<String>,
}

impl CheckSpec {
    /// The name used in results: `name`, else [`Check::default_name`].
    pub fn display_name(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| self.check.default_name())
    }
}

/// Parses one `quality.checks` item.
///
/// # Errors
///
/// The message after its subject, which the caller prepends (`check` in `ldp plan`, `quality
/// check #N` at run time): ` (range) is invalid: range needs at least one of min or max`,
/// ` has unknown check 'nope'; expected one of: ...`, ` (range) has unknown parameter(s) ['x'];
/// allowed: column, min, max, name`, ` (range) is missing required parameter(s) ['column']`.
pub fn parse_check(item: &Value) -> Result<CheckSpec, String> {
    if let (Some(map), Some(path)) = (
        item.as_object(),
        item.get("check")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|kind| kind.ends_with(".wasm")),
    ) {
        let mut params = map.clone();
        params.remove("check");
        return plugin(path, &params, item);
    }
    let parsed = ldp_check_params::parse_check(item).map_err(|error| error.message(""))?;
    Ok(CheckSpec {
        check: Check::Builtin(parsed.params),
        name: parsed.name,
        item: item.clone(),
    })
}

/// A check plugin item: `{"check": "PATH.wasm", "sha256"?: HEX, "config"?: {...}, "name"?: ...}`.
/// `params` is the item without `check`. Errors are the tail of the message, as
/// [`parse_check`] returns them.
fn plugin(path: &str, params: &Map<String, Value>, item: &Value) -> Result<CheckSpec, String> {
    const ALLOWED: [&str; 3] = ["sha256", "config", "name"];
    let unknown = crate::problems::unknown_keys(params, &ALLOWED);
    if !unknown.is_empty() {
        return Err(format!(
            " (plugin {path}) has unknown parameter(s) {}; allowed: check, {}",
            crate::repr::repr_list(&unknown),
            ALLOWED.join(", ")
        ));
    }
    let invalid = |reason: String| format!(" (plugin {path}) is invalid: {reason}");
    let param = |key: &str| params.get(key).filter(|value| !value.is_null());
    let sha256 = match param("sha256") {
        None => None,
        Some(Value::String(hex))
            if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            Some(hex.to_ascii_lowercase())
        }
        Some(other) => {
            return Err(invalid(format!(
                "sha256 must be 64 hexadecimal digits, got {}",
                repr(other)
            )));
        }
    };
    let config = match param("config") {
        None => Value::Object(Map::new()),
        Some(value @ Value::Object(_)) => value.clone(),
        Some(other) => {
            return Err(invalid(format!(
                "config must be an object, got {}",
                repr(other)
            )));
        }
    };
    Ok(CheckSpec {
        check: Check::Plugin {
            path: path.to_owned(),
            sha256,
            config,
        },
        name: ldp_check_params::parse_name(params).map_err(|e| invalid(e.message))?,
        item: item.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(item: Value) -> String {
        format!("check{}", parse_check(&item).unwrap_err())
    }

    #[test]
    fn parameter_messages() {
        assert_eq!(
            error(json!({"check": "range", "column": "fare", "x": 1, "a": 2})),
            "check (range) has unknown parameter(s) ['a', 'x']; allowed: column, min, max, name"
        );
        assert_eq!(
            error(json!({"check": "range", "min": 0})),
            "check (range) is missing required parameter(s) ['column']"
        );
        assert_eq!(
            error(json!({"check": 5})).split(';').next(),
            Some("check has unknown check 5")
        );
        assert_eq!(
            error(json!("x")),
            "check must be an object with a 'check' key, got 'x'"
        );
        assert_eq!(
            error(json!({"check": "row_count", "min": 5, "max": 3})),
            "check (row_count) is invalid: min (5) is greater than max (3)"
        );
        assert_eq!(
            error(json!({"check": "schema", "columns": {"a": "int65"}})),
            "check (schema) is invalid: unknown pyarrow type 'int65'; use a name such as 'int64', 'double', 'string', 'bool', 'date32', 'timestamp[us]', 'timestamp[us, tz=UTC]' or 'decimal128(10, 2)'"
        );
        assert_eq!(
            error(json!({"check": "unique", "columns": "id", "name": " "})),
            "check (unique) is invalid: name must be a non-empty string, got ' '"
        );
    }

    #[test]
    fn typed_checks_and_names() {
        let parse = |item: Value| parse_check(&item).unwrap();
        assert_eq!(
            parse(json!({"check": " NOT_NULL ", "columns": ["a", "b", "a"]})).display_name(),
            "not_null(a, b)"
        );
        let monotonic =
            parse(json!({"check": "monotonic", "column": "ts", "group_by": "g", "strict": true}));
        assert_eq!(monotonic.display_name(), "monotonic(ts by g)");
        assert_eq!(monotonic.check.check_type(), "monotonic");
        assert_eq!(
            parse(json!({"check": "range", "column": "f", "min": 0, "name": "fare ok"}))
                .display_name(),
            "fare ok"
        );
    }

    #[test]
    fn plugin_items() {
        let spec =
            parse_check(&json!({"check": " checks/late.wasm ", "config": {"x": 1}})).unwrap();
        assert_eq!(
            spec.check,
            Check::Plugin {
                path: "checks/late.wasm".into(),
                sha256: None,
                config: json!({"x": 1})
            }
        );
        assert_eq!(spec.display_name(), "checks/late.wasm");
        assert_eq!(
            error(json!({"check": "a.wasm", "column": "x"})),
            "check (plugin a.wasm) has unknown parameter(s) ['column']; allowed: check, sha256, config, name"
        );
        assert_eq!(
            error(json!({"check": "a.wasm", "sha256": "abc"})),
            "check (plugin a.wasm) is invalid: sha256 must be 64 hexadecimal digits, got 'abc'"
        );
        assert_eq!(
            error(json!({"check": "a.wasm", "name": ""})),
            "check (plugin a.wasm) is invalid: name must be a non-empty string, got ''"
        );
    }
}
