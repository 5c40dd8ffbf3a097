//! The target identity: the name of where a pipeline writes, one input of its
//! idempotency keys.
//!
//! * An Iceberg target is `iceberg:<namespace>.<name>`, the namespace being the catalog's
//!   `namespace`, else its `identifier`. (A `local` catalog puts its tables in the namespace
//!   `identifier`, else `namespace`: the two rules differ, as in the Python tool, and keys
//!   follow this one: `docs/compatibility.md#the-namespace-of-a-target`.)
//! * Any other target is `<format lower-case>:<path, else name>`, the path normalised as for the
//!   spec hash ([`crate::normalise_spec_path`]), so `csv:out/rides.csv`.
//!
//! Read from the config as written, like the spec hash.

use std::path::Path;

use serde_json::Value;

use crate::error::ConfigError;
use crate::python::{get_truthy, py_strip};
use crate::repr::py_str;
use crate::spec_path::normalise_spec_path;

/// The target identity of a config document; `config_dir` is the config file's folder.
///
/// # Errors
///
/// [`ConfigError::Spec`] with the Python tool's messages: `spec metadata is missing the 'target'
/// object`, `an Iceberg target needs 'name' and a catalog 'identifier' or 'namespace'`, `the
/// target needs a 'path' or a 'name'`.
pub fn target_identity(document: &Value, config_dir: Option<&Path>) -> Result<String, ConfigError> {
    let spec_error = |message: &str| ConfigError::Spec {
        message: message.to_owned(),
    };
    let Some(target) = document
        .get("metadata")
        .and_then(|metadata| metadata.get("target"))
        .filter(|target| target.is_object())
    else {
        return Err(spec_error("spec metadata is missing the 'target' object"));
    };
    let format = target.get("format").map(py_str).unwrap_or_default();
    let format = py_strip(&format).to_uppercase();
    if format == "ICEBERG" {
        let catalog = target.get("catalog").filter(|catalog| catalog.is_object());
        let namespace = catalog.and_then(|catalog| {
            get_truthy(catalog, "namespace").or_else(|| get_truthy(catalog, "identifier"))
        });
        let (Some(namespace), Some(name)) = (namespace, get_truthy(target, "name")) else {
            return Err(spec_error(
                "an Iceberg target needs 'name' and a catalog 'identifier' or 'namespace'",
            ));
        };
        return Ok(format!("iceberg:{}.{}", py_str(namespace), py_str(name)));
    }
    let Some(location) = get_truthy(target, "path").or_else(|| get_truthy(target, "name")) else {
        return Err(spec_error("the target needs a 'path' or a 'name'"));
    };
    Ok(format!(
        "{}:{}",
        format.to_lowercase(),
        normalise_spec_path(&py_str(location), config_dir)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn identity(target: Value) -> Result<String, String> {
        target_identity(
            &json!({"metadata": {"target": target}}),
            Some(Path::new("/p")),
        )
        .map_err(|error| error.to_string())
    }

    #[test]
    fn iceberg_targets_prefer_the_namespace() {
        assert_eq!(
            identity(
                json!({"name": "rides", "format": "iceberg", "catalog": {"identifier": "nyc"}})
            ),
            Ok("iceberg:nyc.rides".to_owned())
        );
        assert_eq!(
            identity(
                json!({"name": "rides", "format": " ICEBERG", "catalog": {"identifier": "nyc", "namespace": "raw"}})
            ),
            Ok("iceberg:raw.rides".to_owned())
        );
        assert_eq!(
            identity(
                json!({"name": "rides", "format": "ICEBERG", "catalog": {"identifier": "nyc", "namespace": ""}})
            ),
            Ok("iceberg:nyc.rides".to_owned())
        );
        let missing = Err(
            "an Iceberg target needs 'name' and a catalog 'identifier' or 'namespace'".to_owned(),
        );
        assert_eq!(
            identity(json!({"name": "rides", "format": "ICEBERG"})),
            missing
        );
        assert_eq!(
            identity(json!({"format": "ICEBERG", "catalog": {"identifier": "nyc"}})),
            missing
        );
    }

    #[test]
    fn file_targets_use_their_normalised_path() {
        assert_eq!(
            identity(json!({"name": "out", "format": "Csv", "path": "/p/./out/rides.csv"})),
            Ok("csv:out/rides.csv".to_owned())
        );
        assert_eq!(
            identity(json!({"name": "out", "format": "PARQUET"})),
            Ok("parquet:out".to_owned())
        );
        assert_eq!(
            identity(json!({"format": "CSV", "path": ""})),
            Err("the target needs a 'path' or a 'name'".to_owned())
        );
        assert_eq!(identity(json!({"path": "x"})), Ok(":x".to_owned()));
        assert_eq!(
            target_identity(&json!({"metadata": {}}), None).map_err(|e| e.to_string()),
            Err("spec metadata is missing the 'target' object".to_owned())
        );
    }
}
