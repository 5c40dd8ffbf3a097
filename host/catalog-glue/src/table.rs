//! Iceberg tables in Glue: create, load, commit (compare-and-swap), drop, rename.
//!
//! A Glue table only points at the Iceberg table's current metadata file
//! (`Parameters.metadata_location`); the metadata lives in the warehouse and is written by the
//! table layer before it commits here.

use serde_json::{Map, Value, json};

use crate::catalog::{GlueCatalog, string_map};
use crate::describe::TableDescriptor;
use crate::error::{Error, ErrorKind, Result};
use crate::http::{Call, Effect};

/// `Parameters.table_type` of an Iceberg table (compared without case, written upper case).
pub const ICEBERG_TABLE_TYPE: &str = "ICEBERG";
/// The Glue `TableType` of an Iceberg table.
pub const EXTERNAL_TABLE: &str = "EXTERNAL_TABLE";
/// The parameter holding the current metadata file.
pub const METADATA_LOCATION: &str = "metadata_location";
/// The parameter holding the metadata file before the last commit.
pub const PREVIOUS_METADATA_LOCATION: &str = "previous_metadata_location";
const TABLE_TYPE: &str = "table_type";

/// The Glue side of an Iceberg table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlueTable {
    /// The current metadata file (`s3://…/metadata/00001-<uuid>.metadata.json`).
    pub metadata_location: String,
    /// The metadata file before the last commit; `None` for a table never committed to.
    pub previous_metadata_location: Option<String>,
    /// Glue's version of the table (`VersionId`), which a commit's `UpdateTable` names as its
    /// optimistic lock; `None` if Glue did not send one.
    pub version_id: Option<String>,
    /// The table's location (`StorageDescriptor.Location`), if set.
    pub location: Option<String>,
}

/// Whether a Glue table (GetTable's `Table`) is an Iceberg table, as pyiceberg decides.
pub(crate) fn is_iceberg(table: &Value) -> bool {
    table
        .pointer("/Parameters/table_type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.eq_ignore_ascii_case(ICEBERG_TABLE_TYPE))
}

fn table_call<'a>(
    operation: &'static str,
    action: &str,
    table: &'a str,
    effect: Effect,
) -> Call<'a> {
    Call {
        operation,
        action: format!("{action} table {table}"),
        what: format!("table {table}"),
        table,
        effect,
    }
}

/// The fields of GetTable's `Table` that UpdateTable's and CreateTable's `TableInput` take
/// back (the rest are Glue's own: `DatabaseName`, `CreateTime`, `VersionId`, ...).
const TABLE_INPUT_FIELDS: [&str; 10] = [
    "Name",
    "Description",
    "Owner",
    "Retention",
    "StorageDescriptor",
    "PartitionKeys",
    "ViewOriginalText",
    "ViewExpandedText",
    "TableType",
    "Parameters",
];

impl GlueCatalog {
    fn qualified(&self, namespace: &str, name: &str) -> Result<String> {
        self.check_name("namespace", namespace)?;
        self.check_name("table name", name)?;
        Ok(format!("{namespace}.{name}"))
    }

    /// GetTable's `Table`, or `None` when the table (or its database) does not exist.
    fn get_glue_table(&self, namespace: &str, name: &str, table: &str) -> Result<Option<Value>> {
        let call = table_call("GetTable", "load", table, Effect::Read);
        match self.call(&call, json!({ "DatabaseName": namespace, "Name": name })) {
            Ok(mut answer) => match answer.get_mut("Table").map(Value::take) {
                Some(t @ Value::Object(_)) => Ok(Some(t)),
                _ => Err(self.bad(&call.action, "no Table in the answer")),
            },
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn to_record(&self, table: &str, glue: &Value) -> Result<GlueTable> {
        let not_iceberg = |problem: String| Error::NotIceberg {
            catalog: self.describe().to_string(),
            table: table.to_string(),
            problem,
        };
        if !is_iceberg(glue) {
            let found = glue
                .pointer("/Parameters/table_type")
                .and_then(Value::as_str)
                .unwrap_or("not set");
            return Err(not_iceberg(format!("its table_type parameter is {found}")));
        }
        let parameters = string_map(glue.get("Parameters"));
        let metadata_location = parameters
            .get(METADATA_LOCATION)
            .cloned()
            .ok_or_else(|| not_iceberg("it has no metadata_location parameter".into()))?;
        let version_id = match glue.get("VersionId") {
            Some(Value::String(v)) => Some(v.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        Ok(GlueTable {
            metadata_location,
            previous_metadata_location: parameters.get(PREVIOUS_METADATA_LOCATION).cloned(),
            version_id,
            location: glue
                .pointer("/StorageDescriptor/Location")
                .and_then(Value::as_str)
                .map(str::to_string),
        })
    }

    /// The Iceberg table's Glue record, or `None` when there is no such table (or namespace).
    /// A Glue table of that name that is not an Iceberg table is an
    /// [`ErrorKind::NotIceberg`] error.
    pub fn load_table(&self, namespace: &str, name: &str) -> Result<Option<GlueTable>> {
        let table = self.qualified(namespace, name)?;
        match self.get_glue_table(namespace, name, &table)? {
            Some(glue) => self.to_record(&table, &glue).map(Some),
            None => Ok(None),
        }
    }

    /// Whether the Iceberg table exists.
    pub fn table_exists(&self, namespace: &str, name: &str) -> Result<bool> {
        Ok(self.load_table(namespace, name)?.is_some())
    }

    /// Registers a new Iceberg table whose metadata file is `metadata_location`, writing only
    /// the pointer (no columns, no location): see [`GlueCatalog::create_table_with`]. The
    /// namespace must exist ([`ErrorKind::NotFound`]); a table of that name must not
    /// ([`ErrorKind::AlreadyExists`]).
    pub fn create_table(&self, namespace: &str, name: &str, metadata_location: &str) -> Result<()> {
        self.create_table_with(
            namespace,
            name,
            metadata_location,
            &TableDescriptor::default(),
        )
    }

    /// [`GlueCatalog::create_table`], also writing the table's location, columns and
    /// properties as pyiceberg does (make `descriptor` with
    /// [`TableDescriptor::from_metadata`]), so that Athena and the Glue console see the
    /// columns.
    pub fn create_table_with(
        &self,
        namespace: &str,
        name: &str,
        metadata_location: &str,
        descriptor: &TableDescriptor,
    ) -> Result<()> {
        let table = self.qualified(namespace, name)?;
        let mut input = Map::new();
        input.insert("Name".into(), json!(name));
        input.insert("TableType".into(), json!(EXTERNAL_TABLE));
        input.insert("Parameters".into(), json!({}));
        apply(&mut input, metadata_location, None, Some(descriptor));
        let mut call = table_call("CreateTable", "create", &table, Effect::Write);
        let body = json!({ "DatabaseName": namespace, "TableInput": input });
        match self.call(&call, body) {
            // Glue names the missing database the same way as a missing table.
            Err(Error::NotFound { .. }) => {
                call.what = format!("namespace (Glue database) {namespace}");
                Err(Error::NotFound {
                    catalog: self.describe().to_string(),
                    what: call.what,
                    detail: format!("creating table {table}"),
                })
            }
            other => other.map(drop),
        }
    }

    /// Moves the table from metadata `expected` to `new` in one compare-and-swap; see
    /// [`GlueCatalog::commit_with`]. Keeps the table's columns and location as they are.
    pub fn commit(&self, namespace: &str, name: &str, expected: &str, new: &str) -> Result<()> {
        self.commit_with(namespace, name, expected, new, None)
    }

    /// Moves the table from metadata `expected` to `new`:
    ///
    /// 1. `GetTable`: the table's parameters and Glue's `VersionId`;
    /// 2. when `metadata_location` is not `expected`, another writer committed first: a
    ///    retryable [`ErrorKind::Conflict`] (reload the table, re-apply, commit again);
    /// 3. `UpdateTable` with `VersionId` = the version read (Glue's optimistic lock: Glue
    ///    refuses it with `ConcurrentModificationException` when the table changed since, which
    ///    is a [`ErrorKind::Conflict`] too), `metadata_location` = `new`,
    ///    `previous_metadata_location` = `expected`, and the other fields as read (with
    ///    `descriptor`'s columns, location and properties when given).
    ///
    /// A table that is gone is [`ErrorKind::NotFound`]; a broken connection or a 5xx on the
    /// `UpdateTable` is [`ErrorKind::CommitStateUnknown`].
    pub fn commit_with(
        &self,
        namespace: &str,
        name: &str,
        expected: &str,
        new: &str,
        descriptor: Option<&TableDescriptor>,
    ) -> Result<()> {
        let table = self.qualified(namespace, name)?;
        let glue = self
            .get_glue_table(namespace, name, &table)?
            .ok_or_else(|| self.table_not_found(&table, "committing"))?;
        let current = self.to_record(&table, &glue)?;
        if current.metadata_location != expected {
            return Err(Error::Conflict {
                catalog: self.describe().to_string(),
                table,
                detail: format!(
                    "the commit expected metadata {expected}, the catalog has {}",
                    current.metadata_location
                ),
            });
        }
        let Some(version_id) = current.version_id else {
            return Err(self.bad(
                &format!("commit to table {table}"),
                "GetTable sent no VersionId, which the commit's optimistic lock needs",
            ));
        };
        let mut input = table_input(&glue);
        apply(&mut input, new, Some(expected), descriptor);
        let call = table_call("UpdateTable", "commit to", &table, Effect::Commit);
        let body = json!({
            "DatabaseName": namespace,
            "TableInput": input,
            "VersionId": version_id,
            "SkipArchive": self.settings().skip_archive,
        });
        self.call(&call, body).map(drop)
    }

    fn table_not_found(&self, table: &str, doing: &str) -> Error {
        Error::NotFound {
            catalog: self.describe().to_string(),
            what: format!("table {table}"),
            detail: format!("{doing}: GetTable found no such table"),
        }
    }

    /// Removes the Iceberg table's Glue record (not its files) and returns it. Fails with
    /// [`ErrorKind::NotFound`] when there is no such table, with [`ErrorKind::NotIceberg`]
    /// when it is not an Iceberg table.
    pub fn drop_table(&self, namespace: &str, name: &str) -> Result<GlueTable> {
        let table = self.qualified(namespace, name)?;
        let record = self
            .load_table(namespace, name)?
            .ok_or_else(|| self.table_not_found(&table, "dropping"))?;
        let call = table_call("DeleteTable", "drop", &table, Effect::Write);
        self.call(&call, json!({ "DatabaseName": namespace, "Name": name }))?;
        Ok(record)
    }

    /// Renames an Iceberg table as pyiceberg does, since Glue cannot rename: creates the new
    /// Glue table with the old one's fields, then deletes the old one (and deletes the new
    /// one again if that fails). Not atomic: a commit to the old name between the two steps is
    /// lost, so rename tables nobody writes to.
    pub fn rename_table(
        &self,
        from_namespace: &str,
        from_name: &str,
        to_namespace: &str,
        to_name: &str,
    ) -> Result<()> {
        let from = self.qualified(from_namespace, from_name)?;
        let to = self.qualified(to_namespace, to_name)?;
        let glue = self
            .get_glue_table(from_namespace, from_name, &from)?
            .ok_or_else(|| self.table_not_found(&from, "renaming"))?;
        self.to_record(&from, &glue)?;
        let mut input = table_input(&glue);
        input.insert("Name".into(), json!(to_name));
        let create = table_call("CreateTable", "create", &to, Effect::Write);
        self.call(
            &create,
            json!({ "DatabaseName": to_namespace, "TableInput": input }),
        )?;
        let delete = table_call("DeleteTable", "drop", &from, Effect::Write);
        if let Err(e) = self.call(
            &delete,
            json!({ "DatabaseName": from_namespace, "Name": from_name }),
        ) {
            let undo = table_call("DeleteTable", "drop", &to, Effect::Write);
            let _ = self.call(
                &undo,
                json!({ "DatabaseName": to_namespace, "Name": to_name }),
            );
            return Err(e);
        }
        Ok(())
    }
}

/// GetTable's `Table` as a `TableInput`.
fn table_input(glue: &Value) -> Map<String, Value> {
    TABLE_INPUT_FIELDS
        .iter()
        .filter_map(|field| Some((field.to_string(), glue.get(*field)?.clone())))
        .collect()
}

/// Points `input` at `metadata_location` (and `previous`), pyiceberg's parameters: the
/// descriptor's properties, then `table_type`, `metadata_location`,
/// `previous_metadata_location`; and the descriptor's columns and location.
fn apply(
    input: &mut Map<String, Value>,
    metadata_location: &str,
    previous: Option<&str>,
    descriptor: Option<&TableDescriptor>,
) {
    if !input.get("Parameters").is_some_and(Value::is_object) {
        input.insert("Parameters".into(), json!({}));
    }
    if let Some(parameters) = input.get_mut("Parameters").and_then(Value::as_object_mut) {
        if let Some(d) = descriptor {
            for (key, value) in &d.properties {
                parameters.insert(key.clone(), json!(value));
            }
        }
        parameters.insert(TABLE_TYPE.into(), json!(ICEBERG_TABLE_TYPE));
        parameters.insert(METADATA_LOCATION.into(), json!(metadata_location));
        if let Some(previous) = previous {
            parameters.insert(PREVIOUS_METADATA_LOCATION.into(), json!(previous));
        }
    }
    let Some(d) = descriptor else { return };
    if d.location.is_none() && d.columns.is_empty() {
        return;
    }
    let storage = input
        .entry("StorageDescriptor")
        .or_insert_with(|| json!({}));
    if !storage.is_object() {
        *storage = json!({});
    }
    if let Some(storage) = storage.as_object_mut() {
        storage.insert("Columns".into(), Value::Array(d.columns.clone()));
        if let Some(location) = &d.location {
            storage.insert("Location".into(), json!(location));
        }
    }
}
