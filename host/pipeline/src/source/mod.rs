//! A config's source, read on its own thread and handed to the writer as Arrow batches: a file
//! read by a plugin in the sandbox ([`plugin`]), a BigQuery query's result read by a plugin
//! granted the API only ([`bigquery`]), an Iceberg table read by the host at its
//! current snapshot ([`iceberg`]), or a DuckDB query the host runs over the tables of other
//! configs ([`inputs`]).

mod bigquery;
pub(crate) mod iceberg;
pub mod inputs;
mod plugin;
mod zstd_parquet;

use std::collections::HashMap;
use std::sync::mpsc::SyncSender;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use ldp_config::{Config, Format, Window};
use ldp_plugin_runtime::{Plugin, Runtime};

pub(crate) use iceberg::IcebergSource;
pub(crate) use inputs::InputsSource;
pub(crate) use plugin::PluginSource;

use crate::error::Result;

/// What the source thread sends.
pub(crate) enum Message {
    /// The schema, first.
    Schema(SchemaRef),
    /// A batch.
    Batch(RecordBatch),
}

/// The first name `schema` gives to two columns, with their 1-based positions.
///
/// The rule for every schema a source announces: column names are unique, compared exactly
/// (case-sensitively, as Iceberg and the table layer match columns: `Fare` and `fare` are two
/// columns). Arrow allows duplicates, but the writer matches columns by name, so one of the two
/// would be dropped (or a new table refused with Iceberg's own message).
pub(crate) fn duplicate_column(schema: &Schema) -> Option<(String, usize, usize)> {
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(schema.fields().len());
    for (i, field) in schema.fields().iter().enumerate() {
        if let Some(first) = seen.insert(field.name(), i) {
            return Some((field.name().clone(), first + 1, i + 1));
        }
    }
    None
}

/// A source resolved for reading.
#[derive(Debug, Clone)]
pub(crate) enum SourceSpec {
    /// A file, through its plugin.
    Plugin(PluginSource),
    /// An Iceberg table, read by the host.
    Iceberg(IcebergSource),
    /// A DuckDB query over the tables of other configs, run by the host.
    Inputs(InputsSource),
    /// Batches the caller already has (a sql task's query result).
    Provided(crate::run::ProvidedBatches),
}

/// A source ready to stream (its plugin compiled).
pub(crate) enum Loaded {
    /// The plugin.
    Plugin(Box<Plugin>),
    /// Nothing to load (an Iceberg table, a query over inputs, provided batches).
    Iceberg,
}

impl SourceSpec {
    /// Resolves the source block of `config` for a run over `window`.
    pub fn resolve(config: &Config, window: Option<&Window>) -> Result<SourceSpec> {
        if config.source().format == Format::Iceberg {
            return Ok(SourceSpec::Iceberg(IcebergSource::resolve(config)?));
        }
        if !config.source().inputs.is_empty() {
            return Ok(SourceSpec::Inputs(InputsSource::resolve(config)?));
        }
        Ok(SourceSpec::Plugin(PluginSource::resolve(config, window)?))
    }

    /// The source of a run: the batches `options` provides, else the config's source block
    /// over the run's window.
    pub fn for_run(config: &Config, options: &crate::run::RunOptions) -> Result<SourceSpec> {
        match &options.batches {
            Some(batches) => Ok(SourceSpec::Provided(batches.clone())),
            None => SourceSpec::resolve(config, options.window()),
        }
    }

    /// Loads what the source needs (compiles or takes the plugin from the cache).
    pub fn load(&self, runtime: &Runtime) -> Result<Loaded> {
        match self {
            SourceSpec::Plugin(source) => Ok(Loaded::Plugin(Box::new(source.load(runtime)?))),
            SourceSpec::Iceberg(_) | SourceSpec::Inputs(_) | SourceSpec::Provided(_) => {
                Ok(Loaded::Iceberg)
            }
        }
    }

    /// Sends the schema and the batches until the end, an error, or the consumer hanging up.
    pub fn produce(&self, loaded: &Loaded, sender: &SyncSender<Result<Message>>) {
        match (self, loaded) {
            (SourceSpec::Plugin(source), Loaded::Plugin(plugin)) => source.produce(plugin, sender),
            (SourceSpec::Iceberg(source), _) => source.produce(sender),
            (SourceSpec::Inputs(source), _) => source.produce(sender),
            (SourceSpec::Provided(provided), _) => {
                if sender
                    .send(Ok(Message::Schema(provided.schema.clone())))
                    .is_err()
                {
                    return;
                }
                for batch in provided.batches.iter() {
                    if sender.send(Ok(Message::Batch(batch.clone()))).is_err() {
                        return;
                    }
                }
            }
            (SourceSpec::Plugin(_), Loaded::Iceberg) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::duplicate_column;
    use arrow_schema::{DataType, Field, Schema};

    fn schema(names: &[&str]) -> Schema {
        Schema::new(
            names
                .iter()
                .map(|n| Field::new(*n, DataType::Utf8, true))
                .collect::<Vec<_>>(),
        )
    }

    /// Bug: a CSV header `…,fare,fare` lost the second `fare` silently on append. The first
    /// name given twice is found, with both 1-based positions; names differing in case are two
    /// columns.
    #[test]
    fn duplicate_column_names_are_found_with_their_positions() {
        let found = duplicate_column(&schema(&["id", "fare", "city", "fare", "fare"]));
        assert_eq!(found, Some(("fare".to_string(), 2, 4)));
        assert_eq!(duplicate_column(&schema(&["Fare", "fare", "FARE"])), None);
        assert_eq!(duplicate_column(&schema(&[])), None);
    }
}
