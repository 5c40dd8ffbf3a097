//! `ldp gold`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

/// `ldp gold SUBCOMMAND`.
#[derive(Debug, Subcommand)]
pub enum GoldCommand {
    /// Write the contract of a config (its metadata.docs) into its existing Iceberg table, with
    /// no new data.
    ///
    /// One metadata-only commit sets the table properties comment, ldp.owner, ldp.layer,
    /// ldp.grain, ldp.primary-key, ldp.tags and ldp.refresh and the doc of each column named
    /// in docs.columns; a table that already holds the contract gets no commit. A gold table
    /// must have a description, a grain, an owner and a description of every column, and none
    /// of a column it does not have: otherwise nothing is written and the exit status is 3.
    /// ldp run writes the contract after each publish by itself. With --dbt-manifest the
    /// contract comes from the dbt model that builds the table. See docs/gold.md.
    ///
    /// Example: ldp gold sync gold/daily_revenue.json --dry-run
    Sync(GoldSyncArgs),
}

/// `ldp gold sync CONFIG`.
#[derive(Debug, Args)]
pub struct GoldSyncArgs {
    /// A dataset config (JSON) with metadata.docs and an Iceberg target or source.
    pub config: PathBuf,
    /// Read the contract from a dbt manifest (target/manifest.json): the model that builds the
    /// table, its description, columns' descriptions, tags, and owner, grain, layer and
    /// primary_key from its meta. A model published to the gold namespace is a gold table.
    #[arg(long, value_name = "FILE")]
    pub dbt_manifest: Option<PathBuf>,
    /// Only say what would change.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}
