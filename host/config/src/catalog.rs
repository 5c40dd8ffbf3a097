//! Catalog blocks: `type` `local` (default), `sql`, `rest` or `glue`, their keys, their
//! normalisation, and the catalog name and namespace rules.

use serde_json::{Map, Value};

use crate::error::ConfigError;
use crate::names::{NameKind, check_name};
use crate::problems::{Mode, Problems, check_string, get, join, truthy};
use crate::repr::{py_str, repr, repr_list, type_name};

/// The registered catalog types, sorted (as the Python tool prints them).
pub const CATALOG_TYPES: [&str; 4] = ["glue", "local", "rest", "sql"];

/// A catalog type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CatalogType {
    /// `local`: a SQLite file `<warehouse_path>/<identifier>_catalog.db`.
    Local,
    /// `sql`: a SQLAlchemy URI (`sqlite:///x.db`, Postgres...).
    Sql,
    /// `rest`: an Iceberg REST catalog.
    Rest,
    /// `glue`: AWS Glue.
    Glue,
}

impl CatalogType {
    /// The lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            CatalogType::Local => "local",
            CatalogType::Sql => "sql",
            CatalogType::Rest => "rest",
            CatalogType::Glue => "glue",
        }
    }

    fn from_name(name: &str) -> Option<CatalogType> {
        match name {
            "local" => Some(CatalogType::Local),
            "sql" => Some(CatalogType::Sql),
            "rest" => Some(CatalogType::Rest),
            "glue" => Some(CatalogType::Glue),
            _ => None,
        }
    }

    /// The runtime's reading of a `type` value (the catalog provider's rules): absent or empty
    /// means `local`; trimmed and lower-cased; with `_` and `-` removed, `localiceberg` means
    /// `local` and `sqlite` means `sql`. `None` for an unregistered type.
    pub fn from_spec(raw: Option<&Value>) -> Option<CatalogType> {
        Self::from_name(&runtime_type_name(raw))
    }
}

impl std::fmt::Display for CatalogType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The normalised type name the runtime looks up.
fn runtime_type_name(raw: Option<&Value>) -> String {
    let raw = raw.filter(|value| truthy(Some(value)));
    let text = raw
        .map_or_else(|| "local".to_owned(), py_str)
        .trim()
        .to_lowercase();
    match text.replace(['_', '-'], "").as_str() {
        "localiceberg" => "local".to_owned(),
        "sqlite" => "sql".to_owned(),
        _ => text,
    }
}

/// The validator's reading of `type` (stricter than the runtime: only `LocalIceberg` is an
/// alias, so `sqlite` and `local_iceberg` are rejected by `ldp plan` though `ldp run` accepts
/// them, as in the Python tool: `docs/compatibility.md#ldp-plan-is-stricter-than-ldp-run`).
fn plan_type_name(catalog: &Map<String, Value>) -> (String, Value) {
    let raw = catalog
        .get("type")
        .cloned()
        .unwrap_or_else(|| Value::from("local"));
    let lowered = py_str(&raw).to_lowercase();
    let name = if lowered == "localiceberg" {
        "local".to_owned()
    } else {
        lowered
    };
    (name, raw)
}

/// A catalog block.
#[derive(Clone, Debug, PartialEq)]
pub struct CatalogSpec {
    /// The type, as the runtime reads it.
    pub catalog_type: CatalogType,
    /// `type` as written (`None` when absent); plan reports it, defaulting to `local`.
    pub type_as_written: Option<Value>,
    /// `identifier` (local: the catalog name, the SQLite file's name and the namespace).
    pub identifier: Option<String>,
    /// `namespace` (non-local types: the namespace, before `identifier`).
    pub namespace: Option<String>,
    /// `warehouse_path` (local).
    pub warehouse_path: Option<String>,
    /// `warehouse` (sql, rest, glue; passed verbatim for rest).
    pub warehouse: Option<String>,
    /// `uri` (sql, rest).
    pub uri: Option<String>,
    /// `name`: the catalog name for non-local types.
    pub name: Option<String>,
    /// `password_env` (sql).
    pub password_env: Option<String>,
    /// `token_env` (rest).
    pub token_env: Option<String>,
    /// `credential_env` (rest).
    pub credential_env: Option<String>,
    /// `properties`, passed through.
    pub properties: Map<String, Value>,
    /// `properties_env`: property → name of the environment variable read at catalog build.
    pub properties_env: Vec<(String, String)>,
    /// The block as written (for redacted display and secret checks at catalog build).
    pub raw: Map<String, Value>,
}

impl CatalogSpec {
    /// The type a run uses: a `sql` block in the local shape (`warehouse_path` and no `uri`)
    /// runs as `local`.
    pub fn effective_type(&self) -> CatalogType {
        if self.catalog_type == CatalogType::Sql
            && self.uri.is_none()
            && self.warehouse_path.is_some()
        {
            CatalogType::Local
        } else {
            self.catalog_type
        }
    }

    /// The namespace tables live in: for `local`, `identifier` then `namespace`; for the other
    /// types `namespace` then `identifier`.
    pub fn table_namespace(&self) -> Option<&str> {
        if self.effective_type() == CatalogType::Local {
            self.identifier.as_deref().or(self.namespace.as_deref())
        } else {
            self.namespace.as_deref().or(self.identifier.as_deref())
        }
    }

    /// The namespace `target_identity`, plan's `target` and workflow identities use:
    /// `namespace` then `identifier`, whatever the type (differs from
    /// [`CatalogSpec::table_namespace`] for a local block with both, as in the Python tool:
    /// `docs/compatibility.md#the-namespace-of-a-target`).
    pub fn identity_namespace(&self) -> Option<&str> {
        self.namespace.as_deref().or(self.identifier.as_deref())
    }

    /// The name the built catalog gets: local → `identifier`; sql → `name`, else the namespace,
    /// else `sql`; rest and glue → `name`, else the type.
    pub fn catalog_name(&self) -> String {
        match self.effective_type() {
            CatalogType::Local => self
                .identifier
                .clone()
                .or_else(|| self.namespace.clone())
                .unwrap_or_default(),
            kind => {
                if let Some(name) = &self.name {
                    return name.clone();
                }
                if kind == CatalogType::Sql
                    && let Some(namespace) = self.identity_namespace()
                {
                    return namespace.to_owned();
                }
                kind.as_str().to_owned()
            }
        }
    }
}

impl CatalogSpec {
    /// Reads a catalog block on its own (the file `ldp catalog test` is given) as a run reads
    /// one, naming `file` in the error.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Validation`] with every problem of the block.
    pub fn read(value: &Value, file: Option<&std::path::Path>) -> Result<CatalogSpec, ConfigError> {
        let mut problems = Problems::default();
        match check_catalog(&mut problems, value, "", Mode::Run) {
            Some(spec) if problems.is_empty() => Ok(spec),
            _ => Err(ConfigError::Validation {
                file: file.map(std::path::Path::to_path_buf),
                problems: problems.into_vec(),
            }),
        }
    }
}

fn opt_string(catalog: &Map<String, Value>, key: &str) -> Option<String> {
    get(catalog, key)
        .filter(|value| truthy(Some(value)))
        .map(py_str)
}

/// `identifier` and `namespace` both name the namespace, a folder in the warehouse (and
/// `identifier` a local catalog's file): the rules of `names`, whatever the type. An
/// `identifier` already reported (not a non-empty string) is not reported again.
fn check_namespaces(
    problems: &mut Problems,
    catalog: &Map<String, Value>,
    at: &str,
    identifier_reported: bool,
) {
    for key in ["identifier", "namespace"] {
        if let Some(value) = opt_string(catalog, key)
            && !(key == "identifier" && identifier_reported)
        {
            check_name(problems, &join(at, key), NameKind::Namespace, &value);
        }
    }
}

/// The block's `type` as `mode` reads it ([`plan_type_name`] or [`CatalogType::from_spec`]);
/// an unregistered one is a problem at `<at>.type`.
fn catalog_type(
    problems: &mut Problems,
    catalog: &Map<String, Value>,
    at: &str,
    mode: Mode,
) -> Option<CatalogType> {
    let kind = match mode {
        Mode::Plan => {
            let (name, raw) = plan_type_name(catalog);
            match CatalogType::from_name(&name) {
                Some(kind) => kind,
                None => {
                    problems.add(
                        &join(at, "type"),
                        format!(
                            "unknown catalog type {}; registered types: {}",
                            repr(&raw),
                            repr_list(&CATALOG_TYPES)
                        ),
                    );
                    return None;
                }
            }
        }
        Mode::Run => match CatalogType::from_spec(catalog.get("type")) {
            Some(kind) => kind,
            None => {
                let name = runtime_type_name(catalog.get("type"));
                problems.add(
                    &join(at, "type"),
                    format!(
                        "unknown catalog type {}; registered types: {}",
                        repr(&Value::from(name)),
                        repr_list(&CATALOG_TYPES)
                    ),
                );
                return None;
            }
        },
    };
    Some(kind)
}

/// Checks a catalog block at `at` (e.g. `metadata.target.catalog`) and returns it when valid.
pub(crate) fn check_catalog(
    problems: &mut Problems,
    value: &Value,
    at: &str,
    mode: Mode,
) -> Option<CatalogSpec> {
    let Some(catalog) = value.as_object() else {
        problems.add(at, format!("must be an object, got {}", type_name(value)));
        return None;
    };
    let before = problems.len();
    let kind = catalog_type(problems, catalog, at, mode)?;
    let local_shape = kind == CatalogType::Sql
        && mode == Mode::Run
        && get(catalog, "uri").is_none()
        && get(catalog, "warehouse_path").is_some();
    // A local block's `identifier` that is not a non-empty string is reported here, once.
    let mut identifier_reported = false;
    if kind == CatalogType::Local || local_shape {
        identifier_reported = check_string(problems, catalog, "identifier", at, true).is_none();
        check_string(problems, catalog, "warehouse_path", at, true);
    } else {
        if !(truthy(catalog.get("namespace")) || truthy(catalog.get("identifier"))) {
            problems.add(
                at,
                format!(
                    "a {} catalog needs a 'namespace' (or 'identifier')",
                    repr(&Value::from(kind.as_str()))
                ),
            );
        }
        if matches!(kind, CatalogType::Sql | CatalogType::Rest) {
            check_string(problems, catalog, "uri", at, true);
        }
        if let Some(properties) = get(catalog, "properties")
            && !properties.is_object()
        {
            problems.add(
                &join(at, "properties"),
                "must be an object of string properties",
            );
        }
    }
    check_namespaces(problems, catalog, at, identifier_reported);
    if let Some(from_env) = get(catalog, "properties_env")
        && !from_env.is_object()
    {
        problems.add(
            &join(at, "properties_env"),
            "must be an object that maps a property to the name of an environment variable",
        );
    }
    if problems.len() > before {
        return None;
    }
    Some(CatalogSpec {
        catalog_type: kind,
        type_as_written: catalog.get("type").cloned(),
        identifier: opt_string(catalog, "identifier"),
        namespace: opt_string(catalog, "namespace"),
        warehouse_path: opt_string(catalog, "warehouse_path"),
        warehouse: opt_string(catalog, "warehouse"),
        uri: opt_string(catalog, "uri"),
        name: opt_string(catalog, "name"),
        password_env: opt_string(catalog, "password_env"),
        token_env: opt_string(catalog, "token_env"),
        credential_env: opt_string(catalog, "credential_env"),
        properties: get(catalog, "properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        properties_env: get(catalog, "properties_env")
            .and_then(Value::as_object)
            .map(|map| {
                map.iter()
                    .map(|(key, value)| (key.clone(), py_str(value)))
                    .collect()
            })
            .unwrap_or_default(),
        raw: catalog.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(value: Value, mode: Mode) -> Result<CatalogSpec, Vec<String>> {
        let mut problems = Problems::default();
        check_catalog(&mut problems, &value, "c", mode).ok_or_else(|| problems.into_vec())
    }

    #[test]
    fn runtime_aliases_and_plan_quirks() {
        assert_eq!(
            CatalogType::from_spec(Some(&json!("Local_Iceberg"))),
            Some(CatalogType::Local)
        );
        assert_eq!(
            CatalogType::from_spec(Some(&json!("SQLite"))),
            Some(CatalogType::Sql)
        );
        assert_eq!(CatalogType::from_spec(None), Some(CatalogType::Local));
        let sqlite = json!({"type": "sqlite", "uri": "sqlite:///c.db", "namespace": "n"});
        assert!(spec(sqlite.clone(), Mode::Run).is_ok());
        assert_eq!(
            spec(sqlite, Mode::Plan).unwrap_err(),
            [
                "c.type: unknown catalog type 'sqlite'; registered types: ['glue', 'local', 'rest', 'sql']"
            ]
        );
        let local_shape = json!({"type": "sql", "identifier": "a", "warehouse_path": "w"});
        assert_eq!(
            spec(local_shape.clone(), Mode::Run)
                .unwrap()
                .effective_type(),
            CatalogType::Local
        );
        assert_eq!(
            spec(local_shape, Mode::Plan).unwrap_err(),
            ["c.uri: is required"]
        );
        assert_eq!(
            spec(json!({"type": null}), Mode::Plan).unwrap_err(),
            [
                "c.type: unknown catalog type None; registered types: ['glue', 'local', 'rest', 'sql']"
            ]
        );
    }

    #[test]
    fn names_and_namespaces() {
        let local = spec(
            json!({"identifier": "a", "namespace": "b", "warehouse_path": "w"}),
            Mode::Plan,
        )
        .unwrap();
        assert_eq!(local.table_namespace(), Some("a"));
        assert_eq!(local.identity_namespace(), Some("b"));
        assert_eq!(local.catalog_name(), "a");
        let sql = spec(
            json!({"type": "sql", "uri": "sqlite:///x.db", "namespace": "n"}),
            Mode::Plan,
        )
        .unwrap();
        assert_eq!(sql.catalog_name(), "n");
        let rest = spec(
            json!({"type": "rest", "uri": "http://x", "identifier": "n"}),
            Mode::Plan,
        )
        .unwrap();
        assert_eq!(rest.catalog_name(), "rest");
        assert_eq!(rest.table_namespace(), Some("n"));
        assert_eq!(
            spec(json!({"type": "glue"}), Mode::Plan).unwrap_err(),
            ["c: a 'glue' catalog needs a 'namespace' (or 'identifier')"]
        );
    }

    /// The bug "catalog identifiers escape the warehouse": an `identifier` or a `namespace`
    /// that is a path is refused, by both readers and for every type, before any file exists.
    #[test]
    fn an_identifier_or_namespace_that_is_a_path_is_refused() {
        for mode in [Mode::Plan, Mode::Run] {
            let problems = spec(
                json!({"identifier": "/tmp/nyc", "warehouse_path": "w"}),
                mode,
            )
            .unwrap_err();
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert!(
                problems[0].starts_with("c.identifier: '/tmp/nyc' is an absolute path;"),
                "{problems:?}"
            );
            let problems = spec(
                json!({"type": "rest", "uri": "http://x", "namespace": "a/b"}),
                mode,
            )
            .unwrap_err();
            assert!(
                problems[0].starts_with("c.namespace: 'a/b' holds the path separator '/';"),
                "{problems:?}"
            );
        }
        let blank = spec(
            json!({"identifier": " ", "warehouse_path": "w"}),
            Mode::Plan,
        );
        assert_eq!(
            blank.unwrap_err(),
            ["c.identifier: must be a non-empty string, got ' '"]
        );
        for good in ["nyc", "nyc_2024", "nyc-raw", "a.b"] {
            let block = json!({"identifier": good, "warehouse_path": "w"});
            assert!(spec(block, Mode::Run).is_ok(), "{good}");
        }
    }
}
