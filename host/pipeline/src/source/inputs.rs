//! A DuckDB query over the Iceberg tables of other configs (`"format": "DUCKDB"` with `inputs`
//! in place of `path`), run by the host: the table each input config writes is handed to an
//! in-memory DuckDB under its name, at its current snapshot, and the query reads those tables
//! and nothing else (docs/gold.md). The inputs are the run's lineage.

use std::path::{Path, PathBuf};
use std::sync::mpsc::SyncSender;

use ldp_config::Config;
use ldp_config::paths::PathContext;
use ldp_duckdb::{Input, Query, QueryOptions};

use super::Message;
use super::iceberg::SnapshotReader;
use crate::error::{Error, Result};
use crate::target::TargetTable;

/// One input: the config that writes the table, and the table.
#[derive(Debug, Clone)]
pub struct InputTable {
    /// The input config, resolved against the folder of the config that names it.
    pub config: PathBuf,
    /// The Iceberg table it writes.
    pub table: TargetTable,
}

/// The query and its inputs.
#[derive(Debug, Clone)]
pub(crate) struct InputsSource {
    what: String,
    sql: String,
    inputs: Vec<InputTable>,
}

impl InputsSource {
    /// Reads the query (`sql`, or the file `query_file` names) and the table of each input.
    pub fn resolve(config: &Config) -> Result<InputsSource> {
        let block = config.source();
        Ok(InputsSource {
            what: format!(
                "source {} (DUCKDB over {})",
                block.name,
                block.inputs.join(", ")
            ),
            sql: super::plugin::duckdb_query_text(config)?.unwrap_or_default(),
            inputs: input_tables(config)?,
        })
    }

    /// Runs the query and sends its schema, then its batches.
    pub fn produce(&self, sender: &SyncSender<Result<Message>>) {
        if let Err(e) = self.stream(sender) {
            let _ = sender.send(Err(e));
        }
    }

    fn stream(&self, sender: &SyncSender<Result<Message>>) -> Result<()> {
        let mut inputs = Vec::with_capacity(self.inputs.len());
        for input in &self.inputs {
            let table = input.table.load().map_err(|e| match e.kind() {
                crate::ErrorKind::NotFound => Error::SourceMissing {
                    message: format!(
                        "{}: the input {} writes the Iceberg table {}, which does not exist yet; run that config first",
                        self.what,
                        input.config.display(),
                        input.table.identifier()
                    ),
                },
                _ => e,
            })?;
            inputs.push(Input {
                name: input.table.name.clone(),
                reader: Box::new(SnapshotReader::open(table, None)?),
            });
        }
        // What does not fit in DuckDB's memory spills here, and is gone with the run.
        let spill = tempfile::Builder::new()
            .prefix("ldp-duckdb-")
            .tempdir()
            .map_err(|e| Error::Unsupported {
                message: format!(
                    "{}: cannot make a folder for DuckDB to spill to: {e}",
                    self.what
                ),
            })?;
        let options = QueryOptions {
            temp_directory: Some(spill.path().to_path_buf()),
            ..QueryOptions::default()
        };
        let duckdb = |source| Error::Duckdb {
            what: self.what.clone(),
            source,
        };
        let mut query = Query::over_inputs(inputs, &self.sql, options).map_err(duckdb)?;
        if sender
            .send(Ok(Message::Schema(query.schema().clone())))
            .is_err()
        {
            return Ok(());
        }
        while let Some(batch) = query.next_batch().map_err(duckdb)? {
            if sender.send(Ok(Message::Batch(batch))).is_err() {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// The tables of the `inputs` of `config`'s source (none for another source): each input
/// config is read and must write an Iceberg table; two inputs may not write tables of one name,
/// since the query names a table by its name alone.
///
/// # Errors
///
/// An input config that is missing or invalid, or that writes no Iceberg table.
pub fn input_tables(config: &Config) -> Result<Vec<InputTable>> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let context = PathContext::new(config.base_dir.as_deref(), &cwd);
    let mut tables: Vec<InputTable> = Vec::new();
    for (i, input) in config.source().inputs.iter().enumerate() {
        let at = format!("metadata.source.inputs[{i}]");
        let path = context.resolve(input).path;
        if !path.is_file() {
            return Err(Error::SourceMissing {
                message: format!(
                    "{at}: the dataset config {} does not exist; the path is relative to the config's folder",
                    path.display()
                ),
            });
        }
        let input_config = crate::target::open_config(&path)?;
        let table = writes_table(&input_config, &path, &at)?;
        if let Some(other) = tables
            .iter()
            .find(|t| t.table.name.eq_ignore_ascii_case(&table.name))
        {
            return Err(Error::Unsupported {
                message: format!(
                    "{at}: {} and {} both write a table named {}, and the query names a table by its name alone; give one of them another name",
                    other.config.display(),
                    path.display(),
                    table.name
                ),
            });
        }
        tables.push(InputTable {
            config: path,
            table,
        });
    }
    Ok(tables)
}

/// The Iceberg table `config` writes.
fn writes_table(config: &Config, path: &Path, at: &str) -> Result<TargetTable> {
    let target = config.target();
    if !target.is_iceberg() {
        return Err(Error::Unsupported {
            message: format!(
                "{at}: {} writes a {} file, not an Iceberg table; an input is a config whose target is an Iceberg table",
                path.display(),
                target.format.as_str()
            ),
        });
    }
    TargetTable::resolve(config, target)
}
