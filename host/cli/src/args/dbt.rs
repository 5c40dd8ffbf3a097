//! `ldp dbt`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

/// `ldp dbt SUBCOMMAND`.
#[derive(Debug, Subcommand)]
pub enum DbtCommand {
    /// Write a dbt project that builds as soon as its sources exist.
    ///
    /// Writes dbt_project.yml, profiles.yml (dbt-duckdb on the project's ldp.duckdb), ldp.json
    /// (the sources folder, the warehouse and the namespace published models go to) and one
    /// staging view per source table (models/stg_<table>.sql); files that exist are kept.
    ///
    /// Example: ldp dbt init my_project --sources config --warehouse warehouse
    Init(DbtInitArgs),
    /// Register the sources, run dbt build, then publish the models marked ldp_publish.
    ///
    /// Every Iceberg table the configs of the sources folder name is copied into schema raw of
    /// the project's ldp.duckdb ({{ source('raw', 'orders') }} in a model). After a build in
    /// which every model and data test passed, each model with meta ldp_publish: true is
    /// written to Iceberg through ldp's write path (its checks from meta ldp_checks, its
    /// contract from the manifest, one snapshot): a table or view model overwrites its table,
    /// an incremental model with a unique_key upserts on it. Nothing is published when dbt
    /// fails; failing data tests exit 3. Everything after PROJECT goes to dbt unchanged. See
    /// docs/dbt.md.
    ///
    /// Example: ldp dbt build my_project --select +daily_revenue
    Build(DbtRunArgs),
    /// Register the sources and run the data tests (dbt test); publish nothing. Failing tests
    /// exit 3.
    Test(DbtRunArgs),
    /// Register the sources and generate the dbt docs (dbt docs generate); --serve serves them
    /// (dbt docs serve, on http://127.0.0.1:8080).
    Docs(DbtDocsArgs),
    /// Register the sources and run any other dbt command.
    ///
    /// Example: ldp dbt exec my_project compile
    Exec(DbtRunArgs),
}

/// `ldp dbt init PROJECT`.
#[derive(Debug, Args)]
pub struct DbtInitArgs {
    /// The project folder (created when missing).
    pub project: PathBuf,
    /// The folder of dataset configs whose Iceberg tables the models read.
    #[arg(long, value_name = "DIR")]
    pub sources: PathBuf,
    /// The warehouse published models are written to.
    #[arg(long, value_name = "DIR")]
    pub warehouse: PathBuf,
    /// The namespace published models go to (a model's meta ldp_namespace overrides it).
    #[arg(long, value_name = "NAME", default_value = "gold")]
    pub namespace: String,
}

/// `ldp dbt build|test|exec PROJECT [DBT_ARGS]`.
#[derive(Debug, Args)]
pub struct DbtRunArgs {
    /// The folder of dataset configs whose tables are the sources (default: ldp.json's).
    #[arg(long, value_name = "DIR")]
    pub sources: Option<PathBuf>,
    /// The warehouse published models go to (default: ldp.json's).
    #[arg(long, value_name = "DIR")]
    pub warehouse: Option<PathBuf>,
    /// The namespace published models go to (default: ldp.json's, else gold).
    #[arg(long, value_name = "NAME")]
    pub namespace: Option<String>,
    /// Print the report as JSON on stdout (dbt's output goes to stderr).
    #[arg(long)]
    pub json: bool,
    /// The dbt project folder.
    pub project: PathBuf,
    /// Arguments for dbt, passed unchanged.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "DBT_ARGS"
    )]
    pub dbt_args: Vec<String>,
}

/// `ldp dbt docs PROJECT [--serve]`.
#[derive(Debug, Args)]
pub struct DbtDocsArgs {
    /// Serve the docs after generating them.
    #[arg(long)]
    pub serve: bool,
    /// The project and the options of every ldp dbt command.
    #[command(flatten)]
    pub run: DbtRunArgs,
}
