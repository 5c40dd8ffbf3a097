//! What `ldp run` runs: a [`Pipeline`] into an Iceberg table, or a [`FileExport`] into a file.

use ldp_config::{Config, Format};
use ldp_plugin_runtime::Runtime;

use crate::error::Result;
use crate::file_target::FileExport;
use crate::report::RunReport;
use crate::run::{Pipeline, RunOptions};

/// A config ready to run, by the kind of its target.
#[derive(Debug, Clone)]
pub enum Job {
    /// Into an Iceberg table.
    Table(Pipeline),
    /// Into a CSV or Parquet file.
    File(FileExport),
}

impl Job {
    /// Checks the config's route and resolves its target. Nothing is read or created.
    ///
    /// # Errors
    ///
    /// No route matches, this build does not run it, or the target cannot be resolved.
    pub fn open(config: Config) -> Result<Job> {
        crate::routes::check(&config)?;
        if config.target().format == Format::Iceberg {
            Ok(Job::Table(Pipeline::open(config)?))
        } else {
            Ok(Job::File(FileExport::open(config)?))
        }
    }

    /// The config.
    pub fn config(&self) -> &Config {
        match self {
            Job::Table(p) => p.config(),
            Job::File(f) => f.config(),
        }
    }

    /// Runs it.
    ///
    /// # Errors
    ///
    /// As [`Pipeline::run`] and [`FileExport::run`].
    pub fn run(&self, runtime: &Runtime, options: &RunOptions) -> Result<RunReport> {
        match self {
            Job::Table(p) => p.run(runtime, options),
            Job::File(f) => f.run(runtime, options),
        }
    }
}
