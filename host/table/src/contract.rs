//! A table's contract written into the table (`metadata.docs` of its config): table properties
//! and the docs of its columns, in **one metadata-only commit** that adds no snapshot.
//!
//! Only what differs is written: a property whose value the table already has, or a column whose
//! doc is already the one given, is left alone, and when nothing differs there is no commit at
//! all. The contract only adds and changes text: a property the contract does not name stays,
//! and so does a column's doc the contract does not give. The commit asserts the table's UUID
//! and current schema, so a schema change racing it makes it fail rather than undo the change;
//! the caller writes the contract again.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use iceberg::spec::Schema;
use ldp_catalog::Catalog;

use crate::error::{Error, Result};
use crate::refs::{Requirements, commit_edit};
use crate::table::Table;

/// What a contract writes: table properties, and docs of top-level columns by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContractUpdate {
    /// Table properties (`comment`, `ldp.owner`, ...).
    pub properties: BTreeMap<String, String>,
    /// Column name → doc.
    pub column_docs: BTreeMap<String, String>,
}

/// What [`apply_contract`] changed (or, on a dry run, would change).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContractOutcome {
    /// A commit was made.
    pub committed: bool,
    /// The properties set or changed, sorted.
    pub properties: Vec<String>,
    /// The columns whose doc was set or changed, in schema order.
    pub columns: Vec<String>,
}

impl ContractOutcome {
    /// Whether the table already held the contract.
    pub fn unchanged(&self) -> bool {
        self.properties.is_empty() && self.columns.is_empty()
    }
}

/// Writes `update` into `table` (see the module docs); with `apply` false only says what would
/// change. `table` is moved to the new metadata when there was a commit.
///
/// # Errors
///
/// [`Error::Schema`] when a column doc names a column the table does not have; commit errors
/// (a concurrent schema change is a retryable ref conflict).
pub fn apply_contract(
    catalog: &Catalog,
    table: &mut Table,
    update: &ContractUpdate,
    apply: bool,
) -> Result<ContractOutcome> {
    let identifier = table.identifier().to_string();
    let current = table.metadata().properties().clone();
    let properties: HashMap<String, String> = update
        .properties
        .iter()
        .filter(|(key, value)| current.get(*key) != Some(*value))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let schema = table.schema().clone();
    let fields = schema.as_struct().fields();
    for column in update.column_docs.keys() {
        if !fields.iter().any(|field| &field.name == column) {
            let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
            return Err(Error::schema(
                &identifier,
                format!(
                    "the contract documents column '{column}', which the table does not have; its columns are {}",
                    names.join(", ")
                ),
            ));
        }
    }
    let mut changed_columns = Vec::new();
    let documented: Vec<_> = fields
        .iter()
        .map(|field| match update.column_docs.get(&field.name) {
            Some(doc) if field.doc.as_deref() != Some(doc.as_str()) => {
                changed_columns.push(field.name.clone());
                Arc::new(field.as_ref().clone().with_doc(doc))
            }
            _ => field.clone(),
        })
        .collect();
    let mut outcome = ContractOutcome {
        committed: false,
        properties: {
            let mut keys: Vec<String> = properties.keys().cloned().collect();
            keys.sort();
            keys
        },
        columns: changed_columns,
    };
    if !apply || outcome.unchanged() {
        return Ok(outcome);
    }
    let new_schema = if outcome.columns.is_empty() {
        None
    } else {
        let next_id = table
            .metadata()
            .schemas_iter()
            .map(|s| s.schema_id())
            .max()
            .unwrap_or(schema.schema_id())
            + 1;
        Some(
            Schema::builder()
                .with_schema_id(next_id)
                .with_fields(documented)
                .with_identifier_field_ids(schema.identifier_field_ids())
                .build()
                .map_err(|source| {
                    Error::iceberg(&identifier, "cannot document the columns", source)
                })?,
        )
    };
    let requirements = Requirements {
        table_uuid: Some(table.metadata().uuid()),
        schema_id: Some(schema.schema_id()),
        ..Requirements::default()
    };
    commit_edit(
        catalog,
        table,
        "write the table's contract",
        &requirements,
        |builder| {
            let mut builder = builder;
            if !properties.is_empty() {
                builder = builder.set_properties(properties)?;
            }
            if let Some(schema) = new_schema {
                builder = builder.add_current_schema(schema)?;
            }
            Ok(builder)
        },
    )?;
    outcome.committed = true;
    Ok(outcome)
}
