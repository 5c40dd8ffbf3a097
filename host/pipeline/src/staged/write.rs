//! The write of a staged run: what the run streamed (data files, or the rows of an upsert)
//! handed to the publish loop.

use arrow_array::RecordBatch;
use ldp_catalog::Catalog;
use ldp_config::WriteMode;
use ldp_table::{DataFiles, Evolution, Table, Upsert, WindowFilter};

use super::{StagedData, Staging, publish};
use crate::error::{Error, Result};
use crate::report::WriteResult;
use crate::run::{Pipeline, RunOptions};

impl Pipeline {
    /// Publishes the run's write through the staged protocol. `table` is the target as the
    /// run found or created it (none when the source gave no rows), `files` the data files
    /// written (appends and overwrites), `held` the rows of an upsert.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn publish_staged(
        &self,
        catalog: &Catalog,
        table: Option<Table>,
        files: Option<DataFiles>,
        evolution: Option<&Evolution>,
        only_window: Option<&WindowFilter>,
        held: &[RecordBatch],
        mode: WriteMode,
        staging: &Staging,
        options: &RunOptions,
        created: &mut bool,
    ) -> Result<WriteResult> {
        if mode == WriteMode::Upsert {
            let identifier = self.target().identifier();
            // The keys are checked before the table is created or touched.
            let upsert = Upsert::new(&identifier, held, &self.config().target().join_cols)?;
            let mut table = match table {
                Some(table) => table,
                None => {
                    let (table, c) = self.create_table(catalog, &upsert.batch_schema())?;
                    *created = c;
                    table
                }
            };
            let evolution = if *created {
                None
            } else {
                self.evolution(&table, &upsert.batch_schema())?
            };
            let data = StagedData::Upsert {
                batches: held,
                join_cols: &self.config().target().join_cols,
                evolution: evolution.as_ref(),
                writer: &options.writer,
            };
            return publish(catalog, &mut table, staging, &data, &options.publish);
        }
        let (Some(mut table), Some(files)) = (table, files) else {
            return Err(Error::Table(ldp_table::Error::EmptyInput));
        };
        let data = StagedData::Files {
            files: &files,
            overwrite: mode == WriteMode::Overwrite,
            evolution,
            only_window,
        };
        let write = publish(catalog, &mut table, staging, &data, &options.publish);
        if write.as_ref().is_ok_and(|w| !w.skipped_duplicate) {
            files.published();
        }
        // Otherwise `files` drops here and deletes the data files nobody published.
        write
    }
}
