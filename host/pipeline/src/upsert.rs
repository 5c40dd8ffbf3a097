//! The write of an upsert run: the batch the source gave, held in memory, replaces the table's
//! rows with the same `join_cols` and adds the others, in one snapshot ([`ldp_table::Upsert`]).
//! The keys are checked before the table is created or touched; a table this run creates gets
//! the batch as an append.

use arrow_array::RecordBatch;
use ldp_table::{Table, Upsert};

use crate::error::Result;
use crate::report::{UpsertCounts, WriteResult};
use crate::run::{Pipeline, WriteContext};

impl Pipeline {
    /// Upserts `held` into the target table (`table` when it exists), creating it when missing.
    pub(crate) fn upsert(
        &self,
        ctx: &WriteContext<'_>,
        table: Option<Table>,
        held: &[RecordBatch],
        created: &mut bool,
    ) -> Result<WriteResult> {
        let (catalog, options) = (ctx.catalog, ctx.options);
        let identifier = self.target().identifier();
        let mut upsert = Upsert::new(&identifier, held, &self.config().target().join_cols)?
            .writer_options(options.writer.clone());
        let mut table = match table {
            Some(table) => table,
            None => {
                let (table, c) = self.create_table(catalog, &upsert.batch_schema())?;
                *created = c;
                table
            }
        };
        if !*created && let Some(evolution) = self.evolution(&table, &upsert.batch_schema())? {
            upsert = upsert.schema(evolution.schema);
        }
        let result = upsert.commit(catalog, &mut table)?;
        let attempts = result.commit.as_ref().map_or(1, |c| c.attempts);
        Ok(WriteResult {
            table_identifier: identifier,
            mode: "upsert".into(),
            rows_written: result.rows_written(),
            rows_before: result.rows_before,
            rows_after: result.rows_after,
            snapshot_id: table.current_snapshot_id(),
            branch: None,
            idempotency_key: None,
            attempts,
            skipped_duplicate: false,
            upsert: Some(UpsertCounts {
                rows_updated: result.rows_updated,
                rows_inserted: result.rows_inserted,
                rows_unchanged: result.rows_unchanged,
                snapshot_added: result.commit.is_some(),
                files_before: result.files_before,
                files_read: result.files_read,
                files_rewritten: result.files_rewritten,
                rows_rewritten: result.rows_rewritten,
            }),
        })
    }
}
