//! The Glue client behind ldp's catalog interface ([`ldp_catalog::RemoteCatalog`]), so a `glue`
//! catalog block runs every command a SQL catalog runs. Each create and commit also writes the
//! table's columns, location and properties as pyiceberg's `GlueCatalog` does.

use std::collections::BTreeMap;

use ldp_catalog::{
    Failure, NewTable, RemoteCatalog, RemoteConnector, Subject, TableChange, TableRecord,
};

use crate::error::{Error, ErrorKind};
use crate::{GlueCatalog, GlueSettings, GlueTable, TableDescriptor};

/// Reaches a Glue catalog with `settings` when a catalog is opened on it.
#[derive(Clone, Debug)]
pub struct GlueConnector {
    settings: GlueSettings,
}

impl GlueConnector {
    /// A connector for the catalog `settings` name.
    pub fn new(settings: GlueSettings) -> Self {
        GlueConnector { settings }
    }
}

impl RemoteConnector for GlueConnector {
    fn describe(&self) -> String {
        self.settings.describe()
    }

    fn connect(&self) -> ldp_catalog::Result<Box<dyn RemoteCatalog>> {
        let name = self.describe();
        let catalog = GlueCatalog::connect(self.settings.clone())
            .map_err(|e| to_catalog_error(&name, e, Subject::Catalog))?;
        Ok(Box::new(Connected { catalog, name }))
    }
}

/// A connected Glue catalog.
struct Connected {
    catalog: GlueCatalog,
    name: String,
}

impl std::fmt::Debug for Connected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

impl Connected {
    fn err(&self, error: Error, subject: Subject<'_>) -> ldp_catalog::Error {
        to_catalog_error(&self.name, error, subject)
    }
}

fn record(table: GlueTable) -> TableRecord {
    TableRecord {
        metadata_location: table.metadata_location,
        previous_metadata_location: table.previous_metadata_location,
    }
}

/// The descriptor of a table from its metadata JSON; none when the caller gave no JSON.
fn descriptor(metadata: &str) -> Option<TableDescriptor> {
    let value: serde_json::Value = serde_json::from_str(metadata).ok()?;
    Some(TableDescriptor::from_metadata(&value))
}

impl RemoteCatalog for Connected {
    fn list_namespaces(&self) -> ldp_catalog::Result<Vec<String>> {
        self.catalog
            .list_namespaces()
            .map_err(|e| to_catalog_error(&self.name, e, Subject::Catalog))
    }

    fn namespace_exists(&self, namespace: &str) -> ldp_catalog::Result<bool> {
        self.catalog
            .namespace_exists(namespace)
            .map_err(|e| self.err(e, Subject::Namespace(namespace)))
    }

    fn create_namespace(
        &self,
        namespace: &str,
        properties: &BTreeMap<String, String>,
    ) -> ldp_catalog::Result<()> {
        self.catalog
            .create_namespace(namespace, properties)
            .map_err(|e| self.err(e, Subject::Namespace(namespace)))
    }

    fn namespace_properties(
        &self,
        namespace: &str,
    ) -> ldp_catalog::Result<BTreeMap<String, String>> {
        self.catalog
            .namespace_properties(namespace)
            .map_err(|e| self.err(e, Subject::Namespace(namespace)))
    }

    fn drop_namespace(&self, namespace: &str) -> ldp_catalog::Result<()> {
        self.catalog
            .drop_namespace(namespace)
            .map_err(|e| self.err(e, Subject::Namespace(namespace)))
    }

    fn list_tables(&self, namespace: &str) -> ldp_catalog::Result<Vec<String>> {
        let mut names = self
            .catalog
            .list_tables(namespace)
            .map_err(|e| self.err(e, Subject::Namespace(namespace)))?;
        names.sort();
        Ok(names)
    }

    fn load_table(&self, namespace: &str, name: &str) -> ldp_catalog::Result<Option<TableRecord>> {
        self.catalog
            .load_table(namespace, name)
            .map(|found| found.map(record))
            .map_err(|e| self.err(e, Subject::Table(namespace, name)))
    }

    fn create_table(
        &self,
        namespace: &str,
        name: &str,
        new: NewTable<'_>,
    ) -> ldp_catalog::Result<String> {
        let described = descriptor(new.metadata).unwrap_or_default();
        self.catalog
            .create_table_with(namespace, name, new.metadata_location, &described)
            .map_err(|e| self.err(e, Subject::Table(namespace, name)))?;
        Ok(new.metadata_location.to_string())
    }

    fn commit(
        &self,
        namespace: &str,
        name: &str,
        change: TableChange<'_>,
    ) -> ldp_catalog::Result<String> {
        let described = descriptor(change.metadata);
        self.catalog
            .commit_with(
                namespace,
                name,
                change.expected,
                change.new,
                described.as_ref(),
            )
            .map_err(|e| {
                let subject = Subject::Commit {
                    namespace,
                    table: name,
                    expected: change.expected,
                };
                to_catalog_error(&self.name, e, subject)
            })?;
        Ok(change.new.to_string())
    }

    fn drop_table(&self, namespace: &str, name: &str) -> ldp_catalog::Result<TableRecord> {
        self.catalog
            .drop_table(namespace, name)
            .map(record)
            .map_err(|e| self.err(e, Subject::Table(namespace, name)))
    }

    fn rename_table(&self, from: (&str, &str), to: (&str, &str)) -> ldp_catalog::Result<()> {
        self.catalog
            .rename_table(from.0, from.1, to.0, to.1)
            .map_err(|e| self.err(e, Subject::Table(to.0, to.1)))
    }
}

/// The client's error as the catalog interface's ([`ldp_catalog::Error::remote`]).
fn to_catalog_error(name: &str, error: Error, subject: Subject<'_>) -> ldp_catalog::Error {
    let failure = match error.kind() {
        ErrorKind::NotFound => Failure::NotFound,
        ErrorKind::AlreadyExists => Failure::AlreadyExists,
        ErrorKind::Conflict => Failure::Conflict,
        ErrorKind::Unreachable | ErrorKind::ServerError => Failure::Unavailable,
        ErrorKind::CommitStateUnknown => Failure::CommitStateUnknown,
        ErrorKind::Unauthorized | ErrorKind::Forbidden => Failure::Unauthorized,
        ErrorKind::InvalidSettings
        | ErrorKind::NotIceberg
        | ErrorKind::Rejected
        | ErrorKind::BadResponse => Failure::Other,
    };
    ldp_catalog::Error::remote(name, failure, subject, error.to_string())
}
