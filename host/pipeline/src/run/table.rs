//! The target table as a run finds it, creates it, evolves its schema or drops it again.

use arrow_schema::{Schema, SchemaRef};
use ldp_catalog::Catalog;
use ldp_config::{Config, Transform as ConfigTransform};
use ldp_table::{Evolution, PartitionColumn, Table, Transform};

use super::Pipeline;
use crate::error::Result;

impl Pipeline {
    /// `partition_by` only applies when a run creates the table: say so when an existing table
    /// has another spec (the Python tool's warning).
    pub(super) fn warn_if_spec_differs(&self, table: &Table) {
        let wanted: Vec<(String, String)> = self
            .config
            .target()
            .partition_by
            .iter()
            .map(|f| (f.column.clone(), f.transform.to_string()))
            .collect();
        if wanted.is_empty() {
            return;
        }
        let actual = table.partition_columns();
        if actual != wanted {
            let show = |fields: &[(String, String)]| {
                let items: Vec<String> = fields
                    .iter()
                    .map(|(c, t)| format!("('{c}', '{t}')"))
                    .collect();
                format!("[{}]", items.join(", "))
            };
            tracing::warn!(
                "Iceberg table {} already exists with partition spec {}; partition_by {} only applies at creation",
                table.identifier(),
                show(&actual),
                show(&wanted)
            );
        }
    }

    /// How the table's schema must change for `data` (`schema_evolution`, default true): new
    /// columns added as optional and `int`/`float` widened, in the same commit as the data; with
    /// `schema_evolution: false` new columns fail the run, naming them.
    pub(crate) fn evolution(&self, table: &Table, data: &Schema) -> Result<Option<Evolution>> {
        let identifier = table.identifier();
        if !self.config.target().schema_evolution {
            ldp_table::refuse_new_columns(identifier, table.schema(), data)?;
            return Ok(None);
        }
        let evolution = ldp_table::evolve(
            identifier,
            table.schema(),
            table.metadata().last_column_id(),
            data,
        )?;
        if let Some(e) = &evolution {
            tracing::info!(
                "evolving the schema of {identifier}: new columns [{}], widened [{}]",
                quoted(&e.added),
                quoted(&e.widened)
            );
        }
        Ok(evolution)
    }

    /// Creates the target table from the first batch's schema; another writer creating it first
    /// is fine. Returns the table and whether this run created it.
    pub(crate) fn create_table(
        &self,
        catalog: &Catalog,
        schema: &SchemaRef,
    ) -> Result<(Table, bool)> {
        let t = &self.target;
        let partition = partition_columns(&self.config);
        let created = match &t.object_location {
            Some(location) => Table::create_at_location(
                catalog,
                &t.namespace,
                &t.name,
                schema,
                &partition,
                location,
                &[],
            ),
            None => Table::create_partitioned(
                catalog,
                &t.namespace,
                &t.name,
                schema,
                &partition,
                &t.location,
            ),
        };
        match created {
            Ok(table) => {
                tracing::info!(table = %t.identifier(), "created the table");
                Ok((table, true))
            }
            Err(e) if e.kind() == ldp_table::ErrorKind::AlreadyExists => {
                Ok((Table::load(catalog, &t.namespace, &t.name)?, false))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Drops a table this run created, unless another writer committed to it meanwhile.
    pub(super) fn drop_created(&self, catalog: &Catalog) {
        let t = &self.target;
        let Ok(table) = Table::load(catalog, &t.namespace, &t.name) else {
            return;
        };
        if table.current_snapshot_id().is_some() {
            return;
        }
        match catalog.drop_table(&t.namespace, &t.name) {
            Ok(record) if t.object_location.is_some() => {
                // On object storage the table's first metadata object stays (an orphan).
                tracing::debug!(
                    table = %t.identifier(),
                    metadata = record.metadata_location,
                    "dropped the table this run created"
                );
            }
            Ok(record) => {
                if let Some(path) = record.metadata_location.strip_prefix("file://") {
                    let _ = std::fs::remove_file(path);
                }
                for dir in ["metadata", "data", ""] {
                    let _ = std::fs::remove_dir(t.location.join(dir));
                }
                tracing::debug!(table = %t.identifier(), "dropped the table this run created");
            }
            Err(e) => tracing::warn!("cannot drop the empty table {}: {e}", t.identifier()),
        }
    }
}

/// The target's `partition_by` as the table layer's partition columns.
fn partition_columns(config: &Config) -> Vec<PartitionColumn> {
    config
        .target()
        .partition_by
        .iter()
        .map(|field| PartitionColumn {
            column: field.column.clone(),
            transform: match field.transform {
                ConfigTransform::Identity => Transform::Identity,
                ConfigTransform::Year => Transform::Year,
                ConfigTransform::Month => Transform::Month,
                ConfigTransform::Day => Transform::Day,
                ConfigTransform::Hour => Transform::Hour,
                ConfigTransform::Bucket(n) => Transform::Bucket(n),
                ConfigTransform::Truncate(w) => Transform::Truncate(w),
            },
            name: field.name.clone(),
        })
        .collect()
}

/// `'a', 'b'`.
fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ")
}
