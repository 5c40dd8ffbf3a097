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

    /// Plans the target table from the first batch's schema: on a SQL catalog it is created by
    /// the run's commit, with its first snapshot ([`Table::plan_at_location`]), so a run that
    /// fails or is killed leaves no empty table; a REST or Glue catalog's table is created now
    /// (and dropped again by [`Pipeline::drop_created`] when the run fails). A table that exists
    /// (another writer created it first) is loaded. Returns the table and whether this run
    /// creates it.
    pub(crate) fn create_table(
        &self,
        catalog: &Catalog,
        schema: &SchemaRef,
    ) -> Result<(Table, bool)> {
        let t = &self.target;
        let partition = partition_columns(&self.config);
        let location = match &t.object_location {
            Some(location) => location.clone(),
            None => ldp_table::location::file_uri(&t.location),
        };
        let new = if catalog.is_remote() {
            // A REST or Glue catalog places and writes the table itself: it is created now.
            Table::create_at_location(
                catalog,
                &t.namespace,
                &t.name,
                schema,
                &partition,
                &location,
                &[],
            )
        } else {
            Table::plan_at_location(
                catalog,
                &t.namespace,
                &t.name,
                schema,
                &partition,
                &location,
                &[],
            )
        };
        match new {
            Ok(table) => Ok((table, true)),
            Err(e) if e.kind() == ldp_table::ErrorKind::AlreadyExists => {
                Ok((Table::load(catalog, &t.namespace, &t.name)?, false))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// After a failed run that planned the table: removes the folders its data files were
    /// written to (empty now: the files were deleted), and drops the table if its commit
    /// registered it without a snapshot, unless another writer committed to it meanwhile.
    pub(super) fn drop_created(&self, catalog: &Catalog) {
        let t = &self.target;
        let Ok(table) = Table::load(catalog, &t.namespace, &t.name) else {
            if t.object_location.is_none() {
                for dir in ["data", "metadata", ""] {
                    let _ = std::fs::remove_dir(t.location.join(dir));
                }
            }
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
