//! Checking a table that is built elsewhere: its config's quality checks run over the rows of
//! its current snapshot, and nothing is written (a gold config with no inputs, in
//! `ldp gold build`).

use ldp_config::{Config, OnFailure};
use ldp_plugin_runtime::{CheckContext, Runtime};

use crate::error::{Error, Result};
use crate::quality::{Gate, QualityReport};
use crate::source::iceberg::SnapshotReader;
use crate::target::TargetTable;

/// What a check of a table found.
#[derive(Debug, Clone)]
pub struct TableCheck {
    /// `ns.t`.
    pub table: String,
    /// The snapshot checked.
    pub snapshot_id: i64,
    /// Its rows.
    pub rows: u64,
    /// The verdicts (none when the config has no checks).
    pub quality: QualityReport,
}

/// Runs the checks of `config` over the current snapshot of the Iceberg table it writes.
///
/// # Errors
///
/// The table does not exist or has no snapshot ([`crate::ErrorKind::NotFound`]); a check
/// plugin failed; [`Error::Quality`] when a check failed and the config says `on_failure`
/// `fail` (`warn` gives the report with the failure in it).
pub fn check_table(config: &Config, runtime: &Runtime) -> Result<TableCheck> {
    let target = TargetTable::resolve(config, config.target())?;
    let table = target.load()?;
    let identifier = target.identifier();
    let Some(snapshot_id) = table.current_snapshot_id() else {
        return Err(Error::Table(ldp_table::Error::NoSnapshots {
            table: identifier,
        }));
    };
    let gate = Gate::load(config, runtime)?;
    let mut reader = SnapshotReader::open(table, Some(snapshot_id))?;
    let mut rows = 0u64;
    let quality = match &gate {
        None => {
            while let Some(batch) = reader.next_batch()? {
                rows += batch.num_rows() as u64;
            }
            QualityReport::default()
        }
        Some(gate) => std::thread::scope(|scope| -> Result<QualityReport> {
            let mut run = gate.start(scope);
            run.schema(reader.schema().clone())?;
            while let Some(batch) = reader.next_batch()? {
                rows += batch.num_rows() as u64;
                run.batch(batch)?;
            }
            run.finish(CheckContext {
                source_rows: Some(rows),
                now_micros: None,
            })
        })?,
    };
    let on_failure = gate.as_ref().map_or(OnFailure::Fail, |g| g.on_failure);
    if !quality.passed() && on_failure == OnFailure::Fail {
        return Err(Error::Quality { report: quality });
    }
    Ok(TableCheck {
        table: identifier,
        snapshot_id,
        rows,
        quality,
    })
}
