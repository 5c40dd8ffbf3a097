//! Namespace and table names, with the conventions of pyiceberg's `SqlCatalog` and Iceberg's
//! `JdbcCatalog`: a namespace is one or more levels joined by `.` (`a.b`) and stored as that
//! string; a table is `(namespace, name)`, written `ns.name` in messages.

use std::path::Path;

use crate::error::{Error, Result};

/// `ns.name`, as messages and the Python tool name a table.
pub fn qualified(namespace: &str, name: &str) -> String {
    format!("{namespace}.{name}")
}

/// The levels of a dotted namespace (`a.b` → `["a", "b"]`).
pub(crate) fn levels(namespace: &str) -> Vec<&str> {
    namespace.split('.').collect()
}

/// A namespace must be non-empty and have no empty level (`a..b`, `.a`, `a.` are rejected).
pub(crate) fn check_namespace(file: &Path, namespace: &str) -> Result<()> {
    let reason = if namespace.is_empty() {
        Some("it is empty")
    } else if levels(namespace).iter().any(|l| l.is_empty()) {
        Some("it has an empty level (a leading, trailing or doubled '.')")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(Error::InvalidName {
            file: file.to_path_buf(),
            what: "namespace",
            name: namespace.to_string(),
            reason,
        }),
        None => Ok(()),
    }
}

/// A table name must be non-empty. When `creating`, it must also hold no `.`: pyiceberg splits
/// `ns.t` at the last dot, so it could never address such a table.
pub(crate) fn check_table_name(file: &Path, name: &str, creating: bool) -> Result<()> {
    let reason = if name.is_empty() {
        Some("it is empty")
    } else if creating && name.contains('.') {
        Some("it must not contain '.'; set the namespace instead")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(Error::InvalidName {
            file: file.to_path_buf(),
            what: "table name",
            name: name.to_string(),
            reason,
        }),
        None => Ok(()),
    }
}

/// Both parts of a table identifier.
pub(crate) fn check_table(file: &Path, namespace: &str, name: &str, creating: bool) -> Result<()> {
    check_namespace(file, namespace)?;
    check_table_name(file, name, creating)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces() {
        let f = Path::new("c.db");
        assert!(check_namespace(f, "nyc").is_ok());
        assert!(check_namespace(f, "a.b.c").is_ok());
        for bad in ["", ".", "a.", ".a", "a..b"] {
            let e = check_namespace(f, bad).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidName, "{bad:?}");
        }
    }

    #[test]
    fn table_names() {
        let f = Path::new("c.db");
        assert!(check_table_name(f, "rides", true).is_ok());
        assert!(check_table_name(f, "a.b", false).is_ok());
        assert!(check_table_name(f, "a.b", true).is_err());
        assert!(check_table_name(f, "", false).is_err());
        assert_eq!(qualified("a.b", "t"), "a.b.t");
    }
}
