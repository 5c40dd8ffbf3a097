//! Catalogs that live behind a network API (an Iceberg REST server, AWS Glue): the interface
//! their clients implement so that a [`Catalog`](crate::Catalog) opened on them behaves as one on
//! a SQLite file or PostgreSQL database, and the table layer writes to every catalog type the
//! same way.
//!
//! The clients live in crates of their own (`ldp-catalog-rest`, `ldp-catalog-glue`); this crate
//! only names what it needs from them. A pointer store (Glue) moves a table's pointer with a
//! compare-and-swap, as the SQL catalogs do. A REST catalog is sent the write as the REST spec's
//! updates and requirements and writes the new metadata file itself: its commit answers with the
//! metadata file it wrote, which the table layer reads in place of the one it prepared.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::table::TableRecord;

/// One write of a table, as every catalog type needs it.
#[derive(Debug, Clone, Copy)]
pub struct TableChange<'a> {
    /// The metadata file the write was built on (the compare-and-swap's expected value).
    pub expected: &'a str,
    /// The metadata file the table layer wrote for it.
    pub new: &'a str,
    /// The new metadata itself (JSON), for catalogs that describe a table from it (Glue's
    /// columns).
    pub metadata: &'a str,
    /// The write as an Iceberg REST `CommitTableRequest` body (`{"identifier": …,
    /// "requirements": […], "updates": […]}`), for catalogs that apply it themselves.
    pub commit: &'a str,
}

/// A new table, as every catalog type needs it.
#[derive(Debug, Clone, Copy)]
pub struct NewTable<'a> {
    /// The first metadata file, written by the table layer.
    pub metadata_location: &'a str,
    /// Its content (JSON).
    pub metadata: &'a str,
}

/// A catalog client behind a network API. Each method is one operation of the catalog; errors
/// are this crate's (`TableNotFound`, `TableExists`, `CommitConflict`, …, or
/// [`Error::Remote`](crate::Error::Remote) with the client's message).
pub trait RemoteCatalog: Send + fmt::Debug {
    /// The namespaces (top level).
    fn list_namespaces(&self) -> Result<Vec<String>>;
    /// Whether the namespace exists.
    fn namespace_exists(&self, namespace: &str) -> Result<bool>;
    /// Creates the namespace with `properties`; `TableExists`-like
    /// [`Error::NamespaceExists`](crate::Error::NamespaceExists) when it exists.
    fn create_namespace(
        &self,
        namespace: &str,
        properties: &BTreeMap<String, String>,
    ) -> Result<()>;
    /// The namespace's properties.
    fn namespace_properties(&self, namespace: &str) -> Result<BTreeMap<String, String>>;
    /// Drops the (empty) namespace.
    fn drop_namespace(&self, namespace: &str) -> Result<()>;
    /// The tables of the namespace.
    fn list_tables(&self, namespace: &str) -> Result<Vec<String>>;
    /// The table's pointer, `None` when there is no such table.
    fn load_table(&self, namespace: &str, name: &str) -> Result<Option<TableRecord>>;
    /// Creates the table. Returns the metadata file the catalog holds for it: `new`'s own, or
    /// one the catalog wrote (a REST catalog creates the table from the metadata's schema, spec
    /// and properties, and may place it elsewhere).
    fn create_table(&self, namespace: &str, name: &str, new: NewTable<'_>) -> Result<String>;
    /// Commits `change`. Returns the table's metadata file after the commit: `change.new`, or
    /// the one the catalog wrote. A lost race is a retryable
    /// [`Error::CommitConflict`](crate::Error::CommitConflict).
    fn commit(&self, namespace: &str, name: &str, change: TableChange<'_>) -> Result<String>;
    /// Removes the table from the catalog (its files stay) and returns its last pointer.
    fn drop_table(&self, namespace: &str, name: &str) -> Result<TableRecord>;
    /// Renames a table.
    fn rename_table(&self, from: (&str, &str), to: (&str, &str)) -> Result<()>;
}

/// How to reach a remote catalog: what a [`CatalogAddress::Remote`](crate::CatalogAddress)
/// holds. Settings only; [`RemoteConnector::connect`] makes the client.
pub trait RemoteConnector: Send + Sync + fmt::Debug {
    /// The catalog as messages name it (`REST catalog 'lake' at http://…`), without secrets.
    /// Two addresses with the same description are the same catalog.
    fn describe(&self) -> String;
    /// Connects. Errors name the catalog and say what to check.
    fn connect(&self) -> Result<Box<dyn RemoteCatalog>>;
}

/// A shared [`RemoteConnector`]: cloned with the address, compared by its description.
#[derive(Clone, Debug)]
pub struct RemoteAddress(pub Arc<dyn RemoteConnector>);

impl RemoteAddress {
    /// Wraps a connector.
    pub fn new(connector: impl RemoteConnector + 'static) -> Self {
        RemoteAddress(Arc::new(connector))
    }
}

impl PartialEq for RemoteAddress {
    fn eq(&self, other: &Self) -> bool {
        self.0.describe() == other.0.describe()
    }
}

impl Eq for RemoteAddress {}

/// What a remote catalog's operation was about, so a failure names the missing or existing
/// namespace or table as the SQL catalogs do.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    /// The catalog itself (connecting, listing namespaces).
    Catalog,
    /// A namespace.
    Namespace(&'a str),
    /// A table: `(namespace, table)`.
    Table(&'a str, &'a str),
    /// A commit to a table built on the metadata file `expected`.
    Commit {
        /// The table's namespace.
        namespace: &'a str,
        /// The table.
        table: &'a str,
        /// The metadata file the write was built on.
        expected: &'a str,
    },
}

/// How a remote catalog's client classifies a failure; [`Error::remote`] makes it this crate's
/// error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The namespace or table does not exist.
    NotFound,
    /// The namespace or table exists.
    AlreadyExists,
    /// Another writer committed first: reload, re-apply, commit again.
    Conflict,
    /// The catalog cannot be reached, is failing or throttles: retry later.
    Unavailable,
    /// A commit may or may not have been applied.
    CommitStateUnknown,
    /// The credentials or the permissions were refused.
    Unauthorized,
    /// Anything else.
    Other,
}

impl Error {
    /// A remote catalog's failure, the catalog named `catalog`, the client's `message`:
    /// missing and existing namespaces and tables and lost commits as the SQL catalogs report
    /// them, the rest as [`Error::Remote`] with the matching kind.
    pub fn remote(catalog: &str, failure: Failure, subject: Subject<'_>, message: String) -> Error {
        let file = PathBuf::from(catalog);
        let table = match subject {
            Subject::Table(namespace, table)
            | Subject::Commit {
                namespace, table, ..
            } => Some(crate::ident::qualified(namespace, table)),
            Subject::Catalog | Subject::Namespace(_) => None,
        };
        match (failure, subject, table) {
            (Failure::NotFound, _, Some(table)) => Error::TableNotFound { file, table },
            (Failure::NotFound, Subject::Namespace(namespace), _) => Error::NamespaceNotFound {
                file,
                namespace: namespace.to_string(),
            },
            (Failure::AlreadyExists, _, Some(table)) => Error::TableExists { file, table },
            (Failure::AlreadyExists, Subject::Namespace(namespace), _) => Error::NamespaceExists {
                file,
                namespace: namespace.to_string(),
            },
            (Failure::Conflict, Subject::Commit { expected, .. }, Some(table)) => {
                Error::CommitConflict {
                    file,
                    table,
                    expected: expected.to_string(),
                    actual: message,
                }
            }
            (failure, _, _) => Error::Remote {
                file,
                kind: match failure {
                    Failure::Unavailable => ErrorKind::Unavailable,
                    Failure::CommitStateUnknown => ErrorKind::CommitStateUnknown,
                    Failure::Unauthorized => ErrorKind::Unauthorized,
                    Failure::Conflict => ErrorKind::CommitConflict,
                    Failure::NotFound | Failure::AlreadyExists | Failure::Other => {
                        ErrorKind::Remote
                    }
                },
                message,
            },
        }
    }
}
