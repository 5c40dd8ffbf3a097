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
    /// Build the gold tables of a folder in the order their inputs give, then cut a release.
    ///
    /// A gold config is a dataset config of DIR (one level deep) whose metadata.docs.layer is
    /// gold. One with a DUCKDB source over inputs is run as ldp run runs it, after the gold
    /// configs it reads; one without inputs is built elsewhere, so its table must exist and its
    /// quality checks run over its current snapshot, writing nothing. A cycle between configs
    /// is refused before anything runs. The build stops at the first table that a gate blocks
    /// (exit 3: a failed check, a contract not kept) or that fails (exit 1), and the tables
    /// after it are not run. When every table was built or checked, release rN is cut: a file
    /// under <warehouse>/.ldp/releases/<namespace>/ naming the snapshot of each table, each
    /// pinned (and so kept by snapshot expiry); no new release when the tables are at the
    /// current release's snapshots. See docs/gold.md.
    ///
    /// Example: ldp gold build examples/gold/config
    Build(GoldBuildArgs),
    /// List the releases of the gold tables of a folder, newest first, or the tables of one.
    ///
    /// Example: ldp gold releases examples/gold/config --show r1
    Releases(GoldReleasesArgs),
}

/// `ldp gold build DIR`.
#[derive(Debug, Args)]
pub struct GoldBuildArgs {
    /// A folder of dataset configs (JSON).
    pub dir: PathBuf,
    /// Build and check the tables, but cut no release (then the tables may be in several
    /// namespaces or warehouses).
    #[arg(long)]
    pub no_release: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `ldp gold releases DIR`.
#[derive(Debug, Args)]
pub struct GoldReleasesArgs {
    /// A folder of dataset configs (JSON) whose gold tables are in one namespace.
    pub dir: PathBuf,
    /// Show the tables of this release (r1, r2, ...).
    #[arg(long, value_name = "RELEASE")]
    pub show: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
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
