//! Namespaces and table names as the REST API carries them, and the one-level rule of ldp's
//! catalogs.
//!
//! In a URL a namespace is one path segment whose levels are joined by the unit separator
//! `0x1F` (`%1F`), each level percent-encoded. ldp's catalogs (pyiceberg's `SqlCatalog` tables)
//! store a namespace as one string and read a `.` in it as a level separator, so ldp serves
//! one-level namespaces only: a nested namespace, or a level holding `.`, is refused with 400.
//! A table name or a namespace that is a path (`a/b`, `..`, `/tmp/x`) is refused with 400 too:
//! each is one folder under the warehouse (`ldp_config::names`).

use ldp_config::names::{NameError, NameKind};
use percent_encoding::percent_decode_str;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The separator of namespace levels in a URL path or a `parent` query parameter.
pub(crate) const SEPARATOR: char = '\u{1f}';

/// A table identifier in a request or response body.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TableIdentifier {
    /// The namespace levels.
    pub(crate) namespace: Vec<String>,
    /// The table's name.
    pub(crate) name: String,
}

impl TableIdentifier {
    pub(crate) fn new(namespace: &str, name: &str) -> TableIdentifier {
        TableIdentifier {
            namespace: vec![namespace.to_string()],
            name: name.to_string(),
        }
    }
}

/// Percent-decodes one URL path segment or query value.
pub(crate) fn decode(raw: &str) -> Result<String> {
    percent_decode_str(raw)
        .decode_utf8()
        .map(|s| s.into_owned())
        .map_err(|_| Error::bad_request(format!("{raw:?} is not percent-encoded UTF-8")))
}

/// The namespace of an (already decoded) path segment or `parent` value: its levels split at
/// `0x1F`, which must be exactly one.
pub(crate) fn namespace_of_segment(segment: &str) -> Result<String> {
    let levels: Vec<String> = segment.split(SEPARATOR).map(str::to_string).collect();
    one_level(&levels)
}

/// The one level of a namespace given as its list of levels.
pub(crate) fn one_level(levels: &[String]) -> Result<String> {
    match levels {
        [] => Err(Error::bad_request("the namespace is empty")),
        [level] if level.is_empty() => Err(Error::bad_request("the namespace is empty")),
        [level] if level.contains('.') => Err(Error::bad_request(format!(
            "namespace {level:?} holds '.', which ldp's catalogs read as a level separator; \
             ldp serves one-level namespaces only"
        ))),
        [level] => match NameKind::Namespace.check(level) {
            Ok(()) => Ok(level.clone()),
            Err(error) => Err(Error::bad_request(format!(
                "namespace {level:?} {error}; {}",
                NameKind::Namespace.rule()
            ))),
        },
        levels => Err(Error::bad_request(format!(
            "nested namespace {} is not supported: ldp's catalogs hold one-level namespaces",
            levels.join(".")
        ))),
    }
}

/// A table name from a path segment or a body: by the rules of `ldp_config::names`, one folder
/// under its namespace, never a path (`a/b`, `..`). A `.` is left to the catalog, which refuses
/// it when a table is created and reads an existing one.
pub(crate) fn table_name(name: &str) -> Result<String> {
    if name.is_empty() {
        return Err(Error::bad_request("the table name is empty"));
    }
    match NameKind::Table.check(name) {
        Ok(()) | Err(NameError::Dot) => Ok(name.to_string()),
        Err(error) => Err(Error::bad_request(format!(
            "table name {name:?} {error}; {}",
            NameKind::Table.rule()
        ))),
    }
}

/// The value of query parameter `key` (decoded, `+` read as a space), if present.
pub(crate) fn query_param(query: Option<&str>, key: &str) -> Result<Option<String>> {
    for pair in query.unwrap_or_default().split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if decode(&k.replace('+', " "))? == key {
            return decode(&v.replace('+', " ")).map(Some);
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_level_namespaces_only() {
        assert_eq!(namespace_of_segment("nyc").unwrap(), "nyc");
        let nested = namespace_of_segment("a\u{1f}b").unwrap_err();
        assert!(
            nested.to_string().contains("nested namespace a.b"),
            "{nested}"
        );
        assert!(namespace_of_segment("a.b").is_err());
        assert!(namespace_of_segment("").is_err());
        assert!(one_level(&[]).is_err());
    }

    /// The bug "table names escape the warehouse": a REST client cannot create a table, or a
    /// namespace, whose folder would leave the warehouse or sit inside another table's.
    #[test]
    fn names_that_are_paths_are_refused() {
        for bad in ["a/b", "..", "/tmp/x", "a\\b", "a\0b"] {
            let error = table_name(bad).unwrap_err().to_string();
            assert!(
                error.contains("a table name is one folder"),
                "{bad:?}: {error}"
            );
            assert!(namespace_of_segment(bad).is_err(), "{bad:?}");
        }
        let error = namespace_of_segment("a/b").unwrap_err().to_string();
        assert!(error.contains("holds the path separator '/'"), "{error}");
        assert_eq!(table_name("rides-2024_v2").unwrap(), "rides-2024_v2");
        assert_eq!(table_name("a.b").unwrap(), "a.b");
    }

    #[test]
    fn query_params() {
        let q = Some("warehouse=my+lake&parent=a%1Fb&x");
        assert_eq!(
            query_param(q, "warehouse").unwrap().as_deref(),
            Some("my lake")
        );
        assert_eq!(
            query_param(q, "parent").unwrap().as_deref(),
            Some("a\u{1f}b")
        );
        assert_eq!(query_param(q, "x").unwrap().as_deref(), Some(""));
        assert_eq!(query_param(q, "y").unwrap(), None);
        assert_eq!(query_param(None, "y").unwrap(), None);
    }
}
