//! The write of a staged run: what the run streamed (data files, or the rows of an upsert)
//! handed to the publish loop.

use ldp_config::WriteMode;
use ldp_table::{Upsert, WindowFilter};

use super::{StagedData, Staging, publish};
use crate::error::{Error, Result};
use crate::report::WriteResult;
use crate::run::{Pipeline, Streamed, WriteContext};

impl Pipeline {
    /// Publishes what the run streamed through the staged protocol: the target as the run
    /// found or created it (none when the source gave no rows), the data files written (appends
    /// and overwrites), or the rows of an upsert.
    pub(crate) fn publish_staged(
        &self,
        ctx: &WriteContext<'_>,
        streamed: Streamed,
        only_window: Option<&WindowFilter>,
        staging: &Staging,
        created: &mut bool,
    ) -> Result<WriteResult> {
        let (catalog, mode, options) = (ctx.catalog, ctx.mode, ctx.options);
        let Streamed {
            table,
            files,
            evolution,
            held,
            ..
        } = streamed;
        let held = &held[..];
        let evolution = evolution.as_ref();
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
