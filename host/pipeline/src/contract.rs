//! `ldp gold sync CONFIG`: the contract of a config (`metadata.docs`) written into its existing
//! Iceberg table, with no new data. A gold table that does not keep the contract is refused
//! (exit 3), as a run would refuse it; a table that already holds it gets no commit.

use std::path::Path;

use ldp_catalog::Mode;
use ldp_table::{ContractUpdate, Table, apply_contract};
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::target::TargetTable;

/// What a sync did (or, on a dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncReport {
    /// `ns.t`.
    pub table: String,
    /// Planned only.
    pub dry_run: bool,
    /// A commit was made.
    pub committed: bool,
    /// The properties set or changed.
    pub properties: Vec<String>,
    /// The columns whose doc was set or changed.
    pub columns: Vec<String>,
}

impl SyncReport {
    /// The report as JSON (the field names above).
    pub fn to_json(&self) -> Value {
        json!({
            "table": self.table,
            "dry_run": self.dry_run,
            "committed": self.committed,
            "properties": self.properties,
            "columns": self.columns,
        })
    }
}

/// Writes the contract of the config at `path` into its table (see the module docs).
///
/// # Errors
///
/// A config without `metadata.docs` ([`Error::Unsupported`]), a table that does not exist, a
/// gold contract the table does not keep ([`Error::Contract`], exit 3), commit errors.
pub fn sync_contract(path: &Path, dry_run: bool) -> Result<SyncReport> {
    let config = crate::open_config(path)?;
    let target = TargetTable::of_config(&config, path)?;
    let Some(contract) = &config.metadata.docs else {
        return Err(Error::Unsupported {
            message: format!(
                "config {} ({}) has no metadata.docs: add the table's contract there first",
                config.identifier,
                path.display()
            ),
        });
    };
    let mode = if dry_run {
        Mode::ReadOnly
    } else {
        Mode::ReadWrite
    };
    let catalog = target.open_catalog(mode)?;
    let mut table = Table::load(&catalog, &target.namespace, &target.name)?;
    let columns: Vec<String> = table
        .schema()
        .as_struct()
        .fields()
        .iter()
        .map(|field| field.name.clone())
        .collect();
    let names: Vec<&str> = columns.iter().map(String::as_str).collect();
    let reasons = contract.gate(&names);
    if !reasons.is_empty() {
        return Err(Error::Contract {
            table: target.identifier(),
            reasons,
        });
    }
    let update = ContractUpdate {
        properties: contract.properties(),
        column_docs: contract.columns.clone(),
    };
    let outcome = apply_contract(&catalog, &mut table, &update, !dry_run)?;
    Ok(SyncReport {
        table: target.identifier(),
        dry_run,
        committed: outcome.committed,
        properties: outcome.properties,
        columns: outcome.columns,
    })
}
