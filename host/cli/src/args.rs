//! The command line as clap parses it ("low-level" arguments). [`crate::settings`] turns it into
//! validated settings before any work starts.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// What `ldp --version` says: ldp's version, and the version of the Python tool whose configs,
/// catalogs, keys and events it keeps (`ldp_events::payload::COMPATIBLE_VERSION`, checked by a test).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (compatible with local-data-platform 0.1.3)"
);
use std::path::PathBuf;

mod dbt;
mod gold;
mod maintain;

pub use dbt::{DbtCommand, DbtInitArgs, DbtRunArgs};
pub use gold::{GoldBuildArgs, GoldCommand, GoldReleasesArgs, GoldSyncArgs};
pub use maintain::MaintainArgs;

/// ldp: Iceberg tables on a laptop that behave like production.
///
/// Every source, transform, quality check and sink is a WebAssembly plugin that runs in a
/// sandbox; the host owns catalogs, commits and scheduling.
#[derive(Debug, Parser)]
#[command(
    name = "ldp",
    version = VERSION,
    propagate_version = true,
    max_term_width = 100,
    after_help = "Traces: with OTEL_EXPORTER_OTLP_ENDPOINT set, runs, workflows, tasks and plugin calls are exported as OpenTelemetry spans over OTLP/HTTP (docs/traces.md)."
)]
pub struct Cli {
    /// Debug logging on stderr (-vv: trace). LDP_LOG overrides it with a tracing filter, e.g.
    /// LDP_LOG=ldp::plugin=debug.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    /// Where compiled plugins are cached [default: $LDP_CACHE_DIR, else
    /// $XDG_CACHE_HOME/ldp/components, else ~/.cache/ldp/components].
    #[arg(long, global = true, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,

    /// Do not cache compiled plugins on disk.
    #[arg(long, global = true)]
    pub no_cache: bool,

    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a dataset config: read its source, write one snapshot to its Iceberg target (or its
    /// CSV, JSON or Parquet file).
    ///
    /// The source (a CSV, JSON, Parquet, XLSX or DuckDB file, local or on s3://, read by its
    /// plugin in the sandbox; a plugin file the config names; or an Iceberg table) streams into Parquet data files, which one commit adds to the table
    /// (created on the first run, namespace included). Nothing is committed when anything
    /// fails, and the files the run wrote are deleted. A file target is written by its sink
    /// plugin into a private staging folder and renamed into place only when the run succeeds;
    /// it is always replaced whole, so a --mode other than overwrite is refused. A DUCKDB
    /// target's table is appended to (by default) or overwritten in a staged copy of the file.
    /// The run's events go to the sinks of metadata.observability (`ldp runs` reads them).
    /// A key ldp does not know, at any depth of the config, is a warning with a "did you mean"
    /// (with --strict, an error before anything is read).
    ///
    /// The checks of metadata.quality see every batch while the files are written, and give
    /// their verdicts before the commit. With on_failure "fail" (the default) a failed check
    /// commits nothing, deletes the files and exits with 3 (a data gate: fix the data, do not
    /// retry); with "warn" the run logs the failures and writes. The report is printed after
    /// the summary, and is the "quality" object of --json.
    ///
    /// Write modes (a lost commit race is retried on the new head for each): append adds the
    /// rows; overwrite replaces every row in one snapshot; upsert replaces the rows whose join_cols
    /// match a row of the data and adds the others, in one snapshot, rewriting only the data
    /// files that hold a changed row (a row whose values did not change is not written, and
    /// nothing changed adds no snapshot). On a local catalog, overwrite and upsert hold the
    /// table's lock file <warehouse>/.ldp/locks/<namespace>.<table>.lock, so writers on one
    /// machine take turns.
    ///
    /// Staged runs (--window, --idempotency-key): at most one publish per key reaches main.
    /// The key is looked for in main's history before the source is read (found: the run is
    /// skipped, status skipped_duplicate, exit 0); otherwise the write goes to a branch of its
    /// own (ldp_r<run>_a<attempt>_<n>) and main moves to it in one compare-and-swap that
    /// asserts main and the branch. Every snapshot carries ldp.idempotency-key, ldp.run-id,
    /// ldp.attempt, ldp.spec-hash and ldp.logical-window. `ldp commits CONFIG` lists them.
    ///
    /// Exit codes: 0 written (or skipped), 1 error, 3 held back by a quality check, 130
    /// interrupted.
    ///
    /// Example: ldp run examples/rides.json --mode overwrite
    ///
    /// Example: ldp run daily.json --window 2026-08-01/2026-08-02 --json
    Run(RunCmdArgs),
    /// Validate a config (or a folder of them) without running it, and say what a run would do.
    ///
    /// Prints the spec hash, route, pipeline, target, write mode, catalog, checks, sinks,
    /// schedule and window of CONFIG. With --window, also the window's idempotency key (the key
    /// `ldp run --window W --idempotency-key auto` uses) and the source path of that window. A
    /// folder plans every *.json file in it, one line each. A workflow file (kind Workflow) is
    /// planned as `ldp workflow plan` plans it, in a folder too, where an invalid one fails the
    /// folder. Nothing is read, written or created. The spec hash is the sha256 of the config's canonical JSON (kind, who, what,
    /// where, sinks, schedule and retries left out); the idempotency key comes from the
    /// identifier, the target and the window only, so a window keeps its key when the config
    /// changes.
    ///
    /// A key ldp does not know, at any depth of the config, is a warning with a "did you mean"
    /// (an error under --strict): the Python tool accepts unknown keys, so ldp does too.
    ///
    /// Exit codes: 0 valid, 1 any file invalid (its problems on stderr, each with its JSON path).
    ///
    /// Example: ldp plan examples/rides.json --window 2026-08-01/2026-08-02 --json
    Plan(PlanArgs),
    /// Print the JSON Schema of an ldp/v1 file (for editors and CI validation).
    ///
    /// With no --kind it is the schema of a dataset config, which is the kind Pipeline.
    Schema {
        /// The kind of file: Pipeline, Workflow.
        #[arg(long, value_name = "KIND", default_value = "Pipeline")]
        kind: String,
    },
    /// List the staged publishes on main of the config's Iceberg target, newest first.
    ///
    /// One row per snapshot of main's history that carries ldp.idempotency-key (written by a
    /// staged run: `ldp run --window` or `--idempotency-key`, or a workflow), with its run id,
    /// attempt and row count. --branches also lists the staging branches still present
    /// (ldp_r<run>_a<attempt>_<n>: a run in flight, or one that crashed). Reads only.
    Commits {
        /// A dataset config (JSON).
        config: PathBuf,
        /// Only the publish carrying this idempotency key.
        #[arg(long, value_name = "KEY")]
        key: Option<String>,
        /// Also list the staging branches still present.
        #[arg(long)]
        branches: bool,
        /// Print JSON instead of tables.
        #[arg(long)]
        json: bool,
    },
    /// Say whether each table of a lake is well: one line per table with its freshness, last
    /// run and gates, and the verdict of each monitor its config sets (metadata.monitors).
    ///
    /// DIR is a folder of dataset configs (read one level deep, *.json); CONFIG a config. Each
    /// config with an Iceberg target gives one line. Monitors are evaluated from the table's
    /// snapshots and its recorded runs (as `ldp runs` reads them), never from its data. Exits 0
    /// when no monitor is breached, 3 when one is (so cron and CI can act on it), 1 when a
    /// config named on the command line cannot be read. Never creates a catalog; only --alert
    /// writes, its state file.
    ///
    /// Example: ldp status examples/ --json
    Status(StatusArgs),
    /// Serve a read-only web page over a lake: the tables with their freshness and gates (the
    /// status of `ldp status`), a page per table (schema and column docs, the snapshot timeline
    /// as a chart with the rows at any snapshot, partitions and files, runs and quality results,
    /// upstream and downstream tables), and a SQL box whose queries pass `ldp mcp`'s guard.
    ///
    /// Everything the page needs is in the binary; it works offline and never writes. It
    /// listens on 127.0.0.1:8765 (loopback: answered only for a loopback Host). Another address
    /// needs a token in LDP_UI_TOKEN (16 characters or more): open the printed address with
    /// ?token=TOKEN once, or send Authorization: Bearer TOKEN. Stops on Ctrl-C.
    ///
    /// Example: ldp ui examples/workflows
    ///
    /// Example: LDP_UI_TOKEN=... ldp ui lake/ --listen 0.0.0.0:8765
    Ui(UiArgs),
    /// Show the runs a pipeline recorded (its run events), newest first.
    ///
    /// With a config: from the `_ldp.runs` table of its Iceberg catalog (the `iceberg` event
    /// sink), else from its JSONL events file (the `jsonl` sink, default .ldp/events.jsonl
    /// next to the config). With a .jsonl file: from that file. One line per run (its last
    /// attempt unless --attempts), or one per event with --events or --run. Reads only.
    ///
    /// Example: ldp runs daily.json --run 01a23725-6f95-73c9-8cfe-c24a42626895
    Runs(RunsArgs),
    /// List the snapshots of the config's Iceberg target, oldest first.
    ///
    /// Reads only: never creates a catalog.
    Snapshots {
        /// A dataset config (JSON).
        config: PathBuf,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Keep a table healthy: expire old snapshots, remove orphan files, compact small files and
    /// merge manifests (a dry run unless --apply).
    ///
    /// Works on the config's Iceberg target, else its source. With none of --expire,
    /// --orphans, --compact and --rewrite-manifests, expiry (7 days) and orphan removal run, as
    /// in the Python tool. Expiry keeps the current snapshot, every branch and tag head, main's
    /// last --retain-last snapshots and every snapshot whose idempotency key is inside the
    /// table's horizon. Orphans are files under the table location that no metadata references
    /// and older than --orphan-age-hours. The operations run in the order compaction, manifest
    /// rewrite, expiry, orphans; a failed one stops the rest, so nothing is deleted after a
    /// failed commit. Exit 1 when a file could not be deleted. See docs/maintenance.md.
    ///
    /// Example: ldp maintain daily.json --compact --expire 7 --orphans --apply
    Maintain(MaintainArgs),
    /// Gold tables: build them in order and release them, or write a config's contract
    /// (metadata.docs) into its table.
    #[command(subcommand)]
    Gold(GoldCommand),
    /// Run a dbt project over the Iceberg tables of a folder of configs, and publish the models
    /// it marks ldp_publish back to Iceberg (needs dbt-core and dbt-duckdb).
    #[command(subcommand)]
    Dbt(DbtCommand),
    /// Run SQL (DataFusion) over the Iceberg tables of one or more configs.
    ///
    /// With one config file, the table is named after target.name. With a folder of configs,
    /// or several configs, every table is registered as namespace.table, and by its bare name
    /// when that is unique, so SQL can join them. --snapshot reads an older version of one
    /// table; --as-of TIME reads every table as it was at TIME (a table that had no snapshot
    /// then is left out, with a warning); --release rN reads the gold tables as release rN of
    /// their namespace names them (ldp gold releases). Only queries run: DDL, DML and SET are
    /// refused.
    ///
    /// --cluster df://HOST:PORT runs the query on a Ballista cluster (ldp cluster): the tables
    /// are resolved here as for a local query, and the scheduler gets a plan that names each
    /// snapshot's data files, which every executor must be able to read at the same path
    /// (docs/scale-out.md). The output is the same.
    ///
    /// Example: ldp query examples/rides.json "SELECT city, count(*) FROM rides GROUP BY city"
    Query(QueryArgs),
    /// List the source -> target routes and whether this build runs them.
    Pipelines {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// List the built-in plugins, inspect a plugin file, run a source plugin, or scaffold a new
    /// plugin project (`ldp plugin new`; `plugin` is an alias of `plugins`).
    ///
    /// Without a subcommand: lists the built-in plugins with their kind, version and
    /// description (`--json` adds each plugin's config schema).
    #[command(visible_alias = "plugin")]
    Plugins(PluginsArgs),
    /// Generate synthetic taxi rides and walk through every feature, step by step.
    ///
    /// Writes the rides (always the same ones for a seed) as data/rides.csv and
    /// data/rides.parquet, and the config rides.json, into WORKDIR; then loads them through the
    /// real pipelines: append and overwrite, upsert on a key, a day-partitioned table, quality
    /// checks that pass and a bad batch they block, SQL (DataFusion), time travel, an export
    /// back to CSV, and a third-party transform plugin next to a hostile one. A seed always
    /// gives the same rides, counts and totals; docs/demo.md explains each step.
    ///
    /// WORKDIR is created when missing. A folder that is not empty is used only when it holds
    /// the marker file .ldp_demo (an earlier demo): then its data, exports, plugins,
    /// warehouse, rides.json and .ldp_demo are deleted and written again, and nothing else is
    /// touched.
    ///
    /// Example: ldp demo --workdir /tmp/ldp-demo
    Demo(DemoArgs),
    /// Try transforms safely.
    #[command(subcommand)]
    Transform(TransformCommand),
    /// Plan and run workflow files (kind Workflow): tasks in dependency order, for a window.
    #[command(subcommand)]
    Workflow(WorkflowCommand),
    /// Fill a workflow's windows in a range, oldest first, each exactly once.
    ///
    /// FILE is a workflow, or a dataset config with a schedule or a metadata.window. The range
    /// starts at --from and ends at --to (a date is local midnight in the workflow's time
    /// zone, a datetime without an offset is read in that zone; without --to, the start of the
    /// window that holds now); each bound must start a window of the workflow's size, and the
    /// window that starts at --to is not in the range. More windows than --max-windows are
    /// refused.
    ///
    /// Each window's state is decided before anything runs: published (every Iceberg pipeline
    /// task's key is already on its table; with a sql or dbt task, a file target or no keyed
    /// task, the ledger's last run of the window must also have succeeded), failed or blocked
    /// (the ledger's last run), partial (some keys are on their tables) or missing. The windows
    /// that are not published then run one after another, each as 'ldp workflow run' runs a
    /// window, and print '[i/n] WINDOW  OUTCOME' (published, blocked, failed). A finished
    /// backfill run again does nothing; one that stopped resumes where it stopped. --replace
    /// writes every window again as a window overwrite under its replace key (each Iceberg
    /// pipeline needs a metadata.window.column). --dry-run prints the windows with their keys
    /// and states and runs nothing.
    ///
    /// Exit 1 when a window failed, 3 when a data gate held one back, else 0.
    ///
    /// Example: ldp backfill examples/workflows/nightly.json --from 2026-08-01 --to 2026-08-04
    Backfill(BackfillArgs),
    /// Serve the lake's tables to agents over MCP (stdio), read-only and audited.
    ///
    /// Serves every Iceberg table the configs name (files, or folders of configs) that exists,
    /// and every table of the catalogs --catalog specs describe, narrowed by --allow, with the
    /// tools list_tables, describe_table, query, sample_rows,
    /// table_history, get_dataset and run_transform (an agent's JavaScript run in the sandbox
    /// on a table's first rows; nothing is written). query takes exactly one SELECT or WITH
    /// (DataFusion SQL, parsed before it plans); its session holds only the served tables, with
    /// no file or URL functions, no DDL or DML, a memory limit and a time limit, and its rows
    /// are capped. Every call is audited (tool, SQL, row count, duration, error; never result
    /// data) to a JSONL file at once and to the _ldp.audit Iceberg table in batches of 20.
    ///
    /// Example: ldp mcp --config examples/workflows --allow 'shop.*'
    ///
    /// Example: ldp mcp --catalog lake-catalog.json
    Mcp(McpArgs),
    /// Run what is scheduled: list, tick, a foreground loop, and the cron/launchd/systemd
    /// recipe that ticks every 5 minutes.
    #[command(subcommand)]
    Schedule(ScheduleCommand),
    /// Pin, list and export reproducible dataset versions.
    ///
    /// A version records an Iceberg table's snapshot, a SQL row filter and a column list under
    /// a name and a number, so a training split, an evaluation set or the data behind a report
    /// reads the same rows, in the same order, whatever is written to the table afterwards.
    /// Manifests live in <warehouse>/.ldp/datasets/<name>/v<NNNNNN>.json, one JSON file per
    /// version; docs/datasets.md explains them.
    #[command(subcommand)]
    Datasets(DatasetsCommand),
    /// Check a catalog (connect, list its namespaces and tables), or serve catalogs as an Iceberg
    /// REST catalog (docs/catalogs.md).
    #[command(subcommand)]
    Catalog(CatalogCommand),
    /// Run a DataFusion Ballista cluster for ldp query --cluster: a scheduler and executors
    /// (docs/scale-out.md).
    #[command(subcommand)]
    Cluster(ClusterCommand),
}

/// `ldp cluster`.
#[derive(Debug, Subcommand)]
pub enum ClusterCommand {
    /// Run a Ballista scheduler until Ctrl-C or SIGTERM.
    ///
    /// Clients (ldp query --cluster df://HOST:PORT) send it their query plans and executors
    /// register with it; it splits each plan into stages and hands their tasks to the
    /// executors. Its gRPC service and its REST API (GET /api/executors, /api/jobs) share the
    /// port. It looks up the size of each data file a query names, so it needs the storage the
    /// executors read. The server speaks plain gRPC and HTTP, without authentication: bind it
    /// to an address only trusted hosts reach.
    ///
    /// Example: ldp cluster scheduler --bind 127.0.0.1:50050
    Scheduler(ClusterSchedulerArgs),
    /// Run a Ballista executor that registers with a scheduler, until Ctrl-C or SIGTERM.
    ///
    /// It runs the tasks the scheduler pushes to it: it reads the data files a query names
    /// (local paths, or s3:// with credentials from its own environment), writes shuffle files
    /// under its work folder and serves them to the other executors and to clients over Arrow
    /// Flight on --bind. The scheduler reaches it on --grpc-port.
    ///
    /// Example: ldp cluster executor --scheduler df://127.0.0.1:50050 --bind 127.0.0.1:50051
    Executor(ClusterExecutorArgs),
    /// List the executors and the jobs a scheduler knows.
    ///
    /// An ldp client names its jobs ldp-query-<pid>-<nanos>.
    ///
    /// Exit codes: 0 the scheduler answered, 1 it did not.
    ///
    /// Example: ldp cluster status df://127.0.0.1:50050
    Status(ClusterStatusArgs),
}

/// `ldp cluster scheduler`.
#[derive(Debug, Args)]
pub struct ClusterSchedulerArgs {
    /// The address to listen on (IP:PORT).
    #[arg(long, default_value = "127.0.0.1:50050", value_name = "IP:PORT")]
    pub bind: std::net::SocketAddr,
}

/// `ldp cluster executor`.
#[derive(Debug, Args)]
pub struct ClusterExecutorArgs {
    /// The scheduler to register with.
    #[arg(long, value_name = "df://HOST:PORT")]
    pub scheduler: String,
    /// The address of its Arrow Flight service (IP:PORT).
    #[arg(long, default_value = "127.0.0.1:50051", value_name = "IP:PORT")]
    pub bind: std::net::SocketAddr,
    /// The port of its gRPC service, on --bind's address [default: --bind's port + 1].
    #[arg(long, value_name = "PORT")]
    pub grpc_port: Option<u16>,
    /// The host name or address the scheduler, the other executors and clients reach it at
    /// [default: --bind's address; with 0.0.0.0, the address it reaches the scheduler from].
    #[arg(long, value_name = "HOST")]
    pub advertise: Option<String>,
    /// The folder for its shuffle files [default: a temporary folder, deleted when it stops].
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Tasks it runs at once [default: one per core].
    #[arg(long, value_name = "N")]
    pub concurrent_tasks: Option<usize>,
}

/// `ldp cluster status`.
#[derive(Debug, Args)]
pub struct ClusterStatusArgs {
    /// The scheduler.
    #[arg(value_name = "df://HOST:PORT")]
    pub scheduler: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `ldp catalog`.
#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Connect to the catalog SPEC describes and list its namespaces and the tables of the
    /// spec's namespace, secrets masked.
    ///
    /// SPEC is a JSON file holding a catalog block ({"identifier": "nyc", "warehouse_path":
    /// "warehouse"}, {"type": "sql", "uri": "postgresql://ldp@db:5432/lake", "password_env":
    /// "LDP_PG_PASSWORD", "namespace": "nyc", "warehouse": "s3://lake/wh"}, ...), or a dataset
    /// config (its target's catalog, else its source's); relative paths resolve against SPEC's
    /// folder. Prints the catalog type, the spec (keys holding secrets and URI passwords shown
    /// as ***), the catalog name, the namespaces, the tables of the spec's namespace, then
    /// "ok". Nothing is created: a SQLite catalog file that does not exist is an error.
    ///
    /// Exit codes: 0 the catalog works, 1 it does not (the message names the catalog and says
    /// what to check).
    ///
    /// Example: ldp catalog test examples/rides.json
    Test(CatalogTestArgs),
    /// Serve the catalogs of the configs as an Iceberg REST catalog, so pyiceberg, DuckDB,
    /// Spark and Trino read and write the tables ldp writes.
    ///
    /// Each distinct catalog of the configs' Iceberg tables (a local or sql catalog: a SQLite
    /// file or a PostgreSQL database) is served under its catalog name as REST prefix, which
    /// clients give as `warehouse`; with one catalog, clients need not name it. Commits check
    /// their requirements against the catalog's compare-and-swap, so a client that lost a race
    /// gets a 409 and nothing changes; every error is the REST spec's error JSON. New tables go
    /// to <warehouse>/<namespace>/<table>. Clients read and write the data files themselves:
    /// the server hands out no storage credentials. Runs until Ctrl-C or SIGTERM, then lets
    /// requests in flight finish. docs/catalogs.md shows the pyiceberg, DuckDB, Spark and Trino
    /// settings.
    ///
    /// Example: LAKE_TOKEN=s3cret ldp catalog serve examples/rides.json --token-env LAKE_TOKEN
    Serve(CatalogServeArgs),
}

/// `ldp catalog serve`.
#[derive(Debug, Args)]
pub struct CatalogServeArgs {
    /// Dataset configs, or folders of them, whose Iceberg catalogs to serve.
    #[arg(required = true, value_name = "CONFIG|DIR")]
    pub configs: Vec<PathBuf>,
    /// The address to listen on; a loopback address unless --allow-remote.
    #[arg(long, default_value = "127.0.0.1:8181", value_name = "ADDR:PORT")]
    pub listen: std::net::SocketAddr,
    /// Require `Authorization: Bearer <token>` on every request, the token read from this
    /// environment variable.
    #[arg(long, value_name = "VAR")]
    pub token_env: Option<String>,
    /// Refuse every write (403) and open the catalogs read-only.
    #[arg(long)]
    pub read_only: bool,
    /// Allow a --listen address beyond this machine (the server speaks plain HTTP: set a token).
    #[arg(long)]
    pub allow_remote: bool,
}

/// `ldp catalog test`.
#[derive(Debug, Args)]
pub struct CatalogTestArgs {
    /// A JSON file holding a catalog block, or a dataset config.
    pub spec: PathBuf,
    /// Print JSON instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// `ldp datasets`.
#[derive(Debug, Subcommand)]
pub enum DatasetsCommand {
    /// Pin the current snapshot of CONFIG's Iceberg target (or source) as a new version of NAME.
    ///
    /// Records the snapshot, the row filter (--filter: one SQL boolean expression, stored as
    /// written), the columns (--fields), the row count and a fingerprint of the columns' ids,
    /// names and types in <warehouse>/.ldp/datasets/NAME/v<N>.json, N one more than the last
    /// version, and tags the snapshot ldp_ds_<NAME>_v<N> so that snapshot expiry keeps it (a
    /// tag that cannot be added is a warning and the manifest says "tag": null). The warehouse
    /// is the table's local warehouse, else $LDP_WAREHOUSE. NAME is 1-128 letters, digits, '_',
    /// '-' or '.', starting with a letter or digit.
    ///
    /// Example: ldp datasets pin shop.json orders_train --filter "amount > 5" --fields order_id,amount
    Pin(DatasetsPinArgs),
    /// List the datasets (the latest version of each), or every version of NAME.
    ///
    /// The manifests are read from --config's warehouse, else --warehouse, else
    /// $LDP_WAREHOUSE. Reads only.
    ///
    /// Example: ldp datasets list orders_train --config shop.json
    List(DatasetsListArgs),
    /// Write the rows of a version to a Parquet or JSONL file.
    ///
    /// Reads the pinned snapshot through the filter and the columns, checks the row count and
    /// the schema fingerprint against the manifest (a mismatch fails and writes nothing), and
    /// replaces DEST atomically; an s3:// DEST is written into a private local folder and
    /// uploaded once whole (the store is configured from the AWS_* environment, as for s3://
    /// sources and targets). Parquet carries the manifest in its schema metadata
    /// (ldp.dataset); exporting a version twice gives the same bytes. JSONL is one JSON object
    /// per row (ISO timestamps, NaN as null). NAME@vN or --version picks the version (default:
    /// the latest).
    ///
    /// Example: ldp datasets export orders_train@v1 exports/train.parquet --config shop.json
    #[command(disable_version_flag = true)]
    Export(DatasetsExportArgs),
}

/// Where `ldp datasets list` and `export` find the manifests.
#[derive(Debug, Args)]
#[group(multiple = false)]
pub struct DatasetsWhere {
    /// A dataset config: its Iceberg catalog's warehouse holds the manifests.
    #[arg(long, value_name = "CONFIG")]
    pub config: Option<PathBuf>,
    /// The warehouse folder [default: $LDP_WAREHOUSE].
    #[arg(long, value_name = "DIR")]
    pub warehouse: Option<PathBuf>,
}

/// `ldp datasets pin`.
#[derive(Debug, Args)]
pub struct DatasetsPinArgs {
    /// A dataset config (JSON) with an Iceberg target or source.
    pub config: PathBuf,
    /// The dataset name.
    pub name: String,
    /// Keep the rows this SQL boolean expression holds for, such as "amount > 5 AND region =
    /// 'EU'" (default: every row).
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Comma-separated columns to keep (default: all), read in the table's column order.
    #[arg(long, value_name = "a,b")]
    pub fields: Option<String>,
    /// Pin this snapshot id instead of the current one (ldp snapshots lists them).
    #[arg(long, value_name = "ID")]
    pub snapshot: Option<i64>,
    /// A label stored in the manifest; repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    pub property: Vec<String>,
    /// Do not tag the snapshot.
    #[arg(long)]
    pub no_tag: bool,
    /// Print the manifest as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `ldp datasets list`.
#[derive(Debug, Args)]
pub struct DatasetsListArgs {
    /// The dataset name; omit it to list every dataset.
    pub name: Option<String>,
    #[command(flatten)]
    pub place: DatasetsWhere,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `ldp datasets export`.
#[derive(Debug, Args)]
pub struct DatasetsExportArgs {
    /// The dataset name, or NAME@vN.
    pub name: String,
    /// The output file, an s3://BUCKET/KEY object, or - for stdout (jsonl and arrow only).
    pub dest: PathBuf,
    /// The version number [default: the latest].
    #[arg(long, value_name = "N")]
    pub version: Option<u32>,
    /// The file format: Parquet, JSON Lines, or an Arrow IPC stream (the manifest in the
    /// schema metadata of Parquet and Arrow, as ldp.dataset).
    #[arg(long, value_name = "FORMAT", default_value = "parquet", value_parser = ["parquet", "jsonl", "arrow"])]
    pub format: String,
    #[command(flatten)]
    pub place: DatasetsWhere,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `ldp schedule`.
#[derive(Debug, Subcommand)]
pub enum ScheduleCommand {
    /// Show every scheduled workflow, its next fire and what it missed.
    ///
    /// Lists every workflow file and dataset config under DIR that has a schedule, told apart
    /// by kind (*.json, recursively; folders starting with a dot, node_modules, __pycache__,
    /// site-packages, venv and env, *.metadata.json and files over 1 MB are skipped). For each
    /// it shows the cron expression, the time zone, the next fire in UTC and in local time,
    /// the last window and how it ended, the windows that are due, and the windows that were
    /// missed with the exact 'ldp backfill' command that fills them. A file that has a schedule
    /// and cannot be used is listed as a problem and the exit code is 1. It writes nothing.
    ///
    /// Example: ldp schedule list examples/workflows --now 2026-08-05T00:10:00Z
    List(ScheduleListArgs),
    /// Run every window that is due and not done, for every scheduled workflow under DIR.
    ///
    /// Finds the workflows and configs as 'list' does, and for each runs the windows its
    /// schedule has due at --now (the window of the latest fire, or with catchup every window
    /// since start) that are not published, at most --max-windows per workflow. A window that
    /// failed, was blocked or was cut short on an earlier tick is carried on as the next
    /// attempt of the same run, so its commits fence the older attempt and a window is loaded
    /// exactly once. A tick that starts while another holds DIR/.ldp/locks/schedule.lock does
    /// nothing and exits 0. Prints 'WORKFLOW  WINDOW  OUTCOME' per window that ran, then a
    /// summary; exit 1 when a window failed, 3 when a data gate held one back, else 0.
    ///
    /// Example: ldp schedule tick examples/workflows --now 2026-08-05T00:10:00Z
    Tick(ScheduleTickArgs),
    /// Tick DIR on time, in the foreground, until interrupted (for a container or a terminal).
    ///
    /// Ticks at start, then at the top of every --every-minutes (default 5), as 'ldp schedule
    /// tick' does; Ctrl-C (or SIGTERM) stops it after the window in progress. Other ticks of
    /// the same folder (cron) are kept out by the tick lock.
    ///
    /// Example: ldp schedule run examples/workflows
    Run(ScheduleRunArgs),
    /// Print the recipe that calls 'ldp schedule tick DIR' every 5 minutes.
    ///
    /// cron: a crontab line (install with '(crontab -l; ldp schedule install --print cron DIR)
    /// | crontab -'); launchd: a macOS LaunchAgent plist; systemd: a user service and timer
    /// (each file headed by where to save it). The absolute paths of DIR and of this ldp (or
    /// --ldp) are written in. Nothing is installed.
    ///
    /// Example: ldp schedule install --print systemd examples/workflows
    Install(ScheduleInstallArgs),
}

/// `ldp schedule tick`.
#[derive(Debug, Args)]
pub struct ScheduleTickArgs {
    /// The folder to tick.
    #[arg(value_name = "DIR")]
    pub directory: PathBuf,
    /// The time of the tick, such as 2026-08-05T02:05:00Z. UTC unless it has an offset. The
    /// current time by default.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// The most windows that are not done one workflow runs in one tick (the rest wait for the
    /// next tick).
    #[arg(long, value_name = "N", default_value_t = ldp_orchestrate::scheduling::DEFAULT_MAX_WINDOWS)]
    pub max_windows: usize,
    /// Tasks of a workflow that may run at once [default: the number of cores].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Print the tick as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `ldp schedule run`.
#[derive(Debug, Args)]
pub struct ScheduleRunArgs {
    /// The folder to tick.
    #[arg(value_name = "DIR")]
    pub directory: PathBuf,
    /// Minutes between ticks (from 1).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
    pub every_minutes: u64,
    /// The most windows that are not done one workflow runs in one tick.
    #[arg(long, value_name = "N", default_value_t = ldp_orchestrate::scheduling::DEFAULT_MAX_WINDOWS)]
    pub max_windows: usize,
    /// Tasks of a workflow that may run at once [default: the number of cores].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Stop after this many ticks (for tests and scripts) [default: never].
    #[arg(long, value_name = "N")]
    pub ticks: Option<u64>,
}

/// `ldp schedule install`.
#[derive(Debug, Args)]
pub struct ScheduleInstallArgs {
    /// The recipe to print.
    #[arg(long = "print", value_name = "cron|launchd|systemd", value_parser = ["cron", "launchd", "systemd"])]
    pub recipe: String,
    /// The folder the recipe ticks.
    #[arg(value_name = "DIR")]
    pub directory: PathBuf,
    /// The ldp executable the recipe calls [default: this one].
    #[arg(long, value_name = "PATH")]
    pub ldp: Option<PathBuf>,
}

/// `ldp schedule list`.
#[derive(Debug, Args)]
pub struct ScheduleListArgs {
    /// The folder to search for workflows and configs.
    #[arg(value_name = "DIR")]
    pub directory: PathBuf,
    /// The time to act at, such as 2026-08-05T02:05:00Z. UTC unless it has an offset. The
    /// current time by default.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// The most missed windows a workflow lists.
    #[arg(long, value_name = "N", default_value_t = ldp_orchestrate::scheduling::DEFAULT_MAX_WINDOWS)]
    pub max_windows: usize,
    /// Print the listing as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `ldp backfill`.
#[derive(Debug, Args)]
pub struct BackfillArgs {
    /// A workflow file, or a dataset config with a schedule or a metadata.window.
    pub file: PathBuf,
    /// The start of the range: a date (local midnight) or a datetime, in the workflow's time
    /// zone unless it has an offset.
    #[arg(long, value_name = "START")]
    pub from: String,
    /// The end of the range (the window that starts there is not in it) [default: the start of
    /// the window that holds now].
    #[arg(long, value_name = "END")]
    pub to: Option<String>,
    /// The most windows the range may hold.
    #[arg(long, value_name = "N", default_value_t = ldp_orchestrate::scheduling::DEFAULT_MAX_WINDOWS)]
    pub max_windows: usize,
    /// Run the windows newest first.
    #[arg(long)]
    pub run_backwards: bool,
    /// Write every window again, as a window overwrite under its replace key (a window
    /// replaced under the same spec is skipped).
    #[arg(long)]
    pub replace: bool,
    /// Say what each window's state is, and run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Stop at the first window that failed (a blocked window does not stop it).
    #[arg(long)]
    pub stop_on_failure: bool,
    /// Tasks of a workflow that may run at once [default: the number of cores].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Print the backfill as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `ldp workflow`.
#[derive(Debug, Subcommand)]
pub enum WorkflowCommand {
    /// Validate a workflow file and say what a run of a window would do, task by task.
    ///
    /// FILE is a workflow (kind Workflow: tasks with id, depends_on, retries and one kind of
    /// pipeline, maintain, dbt or sql) or a dataset config with a schedule (a workflow of one
    /// task). Prints the tasks in the order they run (dependencies first, ties by file
    /// position), each pipeline task with its route, target, write mode and, with --window, its
    /// idempotency key. Problems are listed with their JSON paths and the exit code is 1; a
    /// cycle is named (a -> b -> a). --json prints one document: the workflow, its errors and
    /// warnings, schedule, time zone and window, and the tasks in run order.
    ///
    /// Example: ldp workflow plan examples/workflows/nightly.json --window yesterday
    Plan(WorkflowPlanArgs),
    /// Run a workflow's tasks for one window, dependencies first, independent tasks side by side.
    ///
    /// The whole workflow is planned first; a problem anywhere and no task runs (exit 1). Then
    /// each task runs with the window: a pipeline task as a staged run under its idempotency
    /// key (a second run of the window skips what published, without reading its source), a
    /// sql task by DataFusion into its Iceberg table, a maintain task as ldp maintain (a dry
    /// run unless apply). Up to --jobs tasks that do not depend on each other run at once;
    /// two tasks that write one table never do. A failed or blocked task marks the tasks that
    /// depend on it upstream_failed, and the others still run. A task that fails with an error
    /// another attempt may fix (I/O, a lost commit race) runs again as the retries of the
    /// workflow and the task say, as the next attempt of the same run. Every event goes to
    /// .ldp/events.jsonl next to the workflow file ('ldp runs' reads it).
    ///
    /// Exit 0 when every task succeeded, 3 when a data gate held one back, else 1.
    ///
    /// Example: ldp workflow run examples/workflows/nightly.json --window 2026-08-01T22:00:00Z/2026-08-02T22:00:00Z
    Run(WorkflowRunArgs),
}

/// `ldp workflow run`.
#[derive(Debug, Args)]
pub struct WorkflowRunArgs {
    /// A workflow file, or a dataset config with a schedule.
    pub file: PathBuf,
    /// The window: START/END (a bound without an offset is UTC), or yesterday, last-week or
    /// last-month in the workflow's time zone.
    #[arg(long, value_name = "WINDOW")]
    pub window: String,
    /// Tasks that may run at once [default: the number of cores].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `ldp workflow plan`.
#[derive(Debug, Args)]
pub struct WorkflowPlanArgs {
    /// A workflow file, or a dataset config with a schedule.
    pub file: PathBuf,
    /// A logical window: START/END (a bound without an offset is UTC), or yesterday,
    /// last-week or last-month in the workflow's time zone.
    #[arg(long, value_name = "WINDOW")]
    pub window: Option<String>,
    /// Print the plan as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `ldp transform`.
#[derive(Debug, Subcommand)]
pub enum TransformCommand {
    /// Run a transform on the first rows of a config's source and print what it gives back
    /// (its output schema and rows); nothing is written anywhere.
    ///
    /// The transform is JavaScript (--code FILE.js, or --js SOURCE) run in the built-in
    /// sandboxed interpreter, or a transform plugin file (--code FILE.wasm, with
    /// --plugin-config). This is how an author, or an AI agent, iterates on a transform before
    /// adding it to the config's metadata.transforms.
    ///
    /// Example: ldp transform test examples/rides.json --js 'function transform(rows) { return rows.filter(r => r.fare > 20) }'
    Test(TransformTestArgs),
}

/// `ldp transform test`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("code_source").required(true).args(["code", "js"])))]
pub struct TransformTestArgs {
    /// A dataset config: its source gives the sample.
    pub config: PathBuf,
    /// The transform: a .js file (JavaScript) or a .wasm transform plugin.
    #[arg(long, value_name = "FILE")]
    pub code: Option<PathBuf>,
    /// The transform as JavaScript source text.
    #[arg(long, value_name = "SOURCE")]
    pub js: Option<String>,
    /// The config of a .wasm transform plugin, a JSON object.
    #[arg(long, value_name = "JSON")]
    pub plugin_config: Option<String>,
    /// How many rows of the source to try it on.
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub rows: u32,
    /// Give it what the config's own transforms make of the sample, as it will get in a run.
    #[arg(long)]
    pub after_config: bool,
    /// Longest time one batch may take, in seconds (default: 10 for JavaScript, 60 for a
    /// plugin file; as `limits.timeout_s` of a transform in a config).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Largest memory of the transform's sandbox, in MiB (default: 512 for JavaScript, 1024 for
    /// a plugin file; as `limits.memory_mb`).
    #[arg(long, value_name = "MB")]
    pub max_memory_mb: Option<u64>,
    /// Print JSON (schemas and rows) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `ldp demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Folder for the demo's data, catalog and warehouse.
    #[arg(long, value_name = "DIR", default_value = "ldp_demo")]
    pub workdir: PathBuf,
    /// Number of synthetic rides (at least 20).
    #[arg(long, value_name = "N", default_value_t = 1000,
          value_parser = clap::value_parser!(u32).range(20..))]
    pub rows: u32,
    /// Random seed for the synthetic rides.
    #[arg(
        long,
        value_name = "S",
        default_value_t = 42,
        allow_negative_numbers = true
    )]
    pub seed: i64,
}

/// `ldp run`.
#[derive(Debug, Args)]
pub struct RunCmdArgs {
    /// A dataset config (JSON).
    pub config: PathBuf,
    /// Override the target's write_mode for this run (a file target takes only overwrite, a
    /// DUCKDB target append or overwrite).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Run one logical window: an ISO-8601 interval START/END (naive = UTC), or yesterday,
    /// last-week or last-month in the config's time zone. The source path's
    /// {window_start:FMT}/{window_end:FMT} placeholders are filled in for it, and the run is
    /// staged under the window's idempotency key (the one `ldp plan --window` prints).
    #[arg(long, value_name = "WINDOW")]
    pub window: Option<String>,
    /// Stage the run under KEY, or 'auto' for the key of --window: a key already on main makes
    /// the run a skipped duplicate that reads nothing.
    #[arg(long, value_name = "KEY|auto")]
    pub idempotency_key: Option<String>,
    /// The run's id (default: a new UUIDv7). A retry passes the same id with the next
    /// --attempt.
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// The attempt number (needs --run-id): attempt N fences attempts 1..N-1 of the run, which
    /// can then no longer publish.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub attempt: Option<u32>,
    /// Stop before reading anything when the config holds a key ldp does not know (a
    /// misspelling such as "writemode"); without it each such key is a warning.
    #[arg(long)]
    pub strict: bool,
    /// Print the result as JSON on stdout, for scripts.
    #[arg(long)]
    pub json: bool,
    /// Pass every batch, after the config's transforms and before the quality checks, through
    /// a transform outside the sandbox at the other end of two pipes: ldp writes an Arrow IPC
    /// stream to the file TO and reads one batch back from FROM for each it wrote (such as
    /// /dev/fd/5,/dev/fd/6 for pipes it inherited). ldp's Python package runs
    /// ldp.run(config, transform=fn) this way; the code at the other end is trusted.
    #[arg(long, value_name = "TO,FROM")]
    pub pipe_transform: Option<String>,
}

/// `ldp plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// A JSON dataset config or workflow file, or a folder of *.json files.
    pub config: PathBuf,
    /// A logical window: an ISO-8601 interval START/END, or yesterday, last-week or last-month
    /// in the time zone of the config. Prints its idempotency key, and the source path of the
    /// window.
    #[arg(long, value_name = "WINDOW")]
    pub window: Option<String>,
    /// Print the plan as JSON (a list for a folder).
    #[arg(long)]
    pub json: bool,
    /// Treat a key ldp does not know (a misspelling such as "writemode") as an error rather
    /// than a warning.
    #[arg(long)]
    pub strict: bool,
}

/// `ldp status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Folders of dataset configs, or configs.
    #[arg(value_name = "DIR|CONFIG", required = true)]
    pub paths: Vec<PathBuf>,
    /// Send each new breach, and each recovery, once: posted to the webhook whose URL is in the
    /// variable a config names (metadata.monitors.alert.webhook_env), and as a monitor.breached
    /// or monitor.recovered event to its jsonl and openlineage sinks (metadata.observability);
    /// what was sent is kept in .ldp/monitors/<identifier>.json next to the config.
    #[arg(long)]
    pub alert: bool,
    /// Print JSON instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// `ldp ui`.
#[derive(Debug, Args)]
pub struct UiArgs {
    /// Folders of dataset configs (and workflow files), or configs.
    #[arg(value_name = "DIR|CONFIG", required = true)]
    pub paths: Vec<PathBuf>,
    /// The address to listen on (port 0: any free port); beyond loopback it needs LDP_UI_TOKEN.
    #[arg(long, value_name = "ADDR", default_value = ldp_ui::DEFAULT_LISTEN)]
    pub listen: std::net::SocketAddr,
    /// The most rows a query result holds.
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_rows: u64,
    /// The longest a query may run, in seconds.
    #[arg(long, value_name = "S", default_value_t = 30.0)]
    pub timeout: f64,
    /// The most memory one query may hold, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 2048, value_parser = clap::value_parser!(u64).range(16..))]
    pub max_memory_mb: u64,
}

/// `ldp runs`.
#[derive(Debug, Args)]
pub struct RunsArgs {
    /// A dataset config, or a .jsonl events file.
    #[arg(value_name = "CONFIG|FILE.jsonl")]
    pub target: PathBuf,
    /// Read this JSONL events file instead of what the config names.
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Only this run's events, one line each.
    #[arg(long, value_name = "RUN_ID")]
    pub run: Option<String>,
    /// One line per event instead of one per run.
    #[arg(long)]
    pub events: bool,
    /// Every attempt of a retried run, not only the last.
    #[arg(long)]
    pub attempts: bool,
    /// At most this many runs (or the last N events).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// A write mode on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Add the rows.
    Append,
    /// Replace every row, in one snapshot.
    Overwrite,
    /// Replace rows by key (the target's join_cols) and add new ones, in one snapshot.
    Upsert,
}

/// `ldp query`.
#[derive(Debug, Args)]
#[command(
    after_help = "Put the options before the first CONFIG or after SQL.\n\nThe SQL is DataFusion's, and DuckDB's spellings read too (GROUP BY ALL, ORDER BY ALL, strftime, epoch, year, count_if, arg_max, date_diff, struct_pack, ...): docs/tables.md lists them."
)]
pub struct QueryArgs {
    /// CONFIG… SQL: dataset configs or folders of them, then the SQL to run. SQL that starts
    /// with '-' (a '-- comment') goes after a lone '--': ldp query CONFIG -- "$(cat q.sql)".
    #[arg(num_args = 2.., required = true, value_name = "CONFIG… SQL")]
    pub args: Vec<String>,
    /// Print at most this many rows.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_rows: usize,
    /// Read this snapshot instead of the current one (ldp snapshots lists them).
    #[arg(long, value_name = "SNAPSHOT_ID", conflicts_with = "as_of")]
    pub snapshot: Option<i64>,
    /// Read each table's newest snapshot committed at or before TIME, such as '2026-07-31
    /// 23:59:59' (UTC unless it has an offset; a date alone is midnight).
    #[arg(long, value_name = "TIME")]
    pub as_of: Option<String>,
    /// Read each table at its snapshot in release RELEASE (r1, r2, ...) of its namespace, which
    /// ldp gold build cut; a table the release does not hold, or in a namespace without
    /// releases, is read as it is now.
    #[arg(long, value_name = "RELEASE", conflicts_with_all = ["snapshot", "as_of"])]
    pub release: Option<String>,
    /// Print JSON (columns, rows, row count) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write every row (--max-rows does not apply) to stdout as an Arrow IPC stream, batch by
    /// batch as the query produces them, for pyarrow, polars and other Arrow readers (ldp's
    /// Python package reads it). Refused when stdout is a terminal.
    #[arg(long, conflicts_with = "json")]
    pub arrow: bool,
    /// Run the query on the Ballista cluster whose scheduler is at this URL (ldp cluster
    /// scheduler) instead of in this process; 'local' runs it here whatever LDP_CLUSTER says.
    #[arg(long, value_name = "df://HOST:PORT", env = "LDP_CLUSTER")]
    pub cluster: Option<String>,
    /// Stop the query after this many seconds (exit 1, a timeout error); on a cluster its jobs
    /// are cancelled on the scheduler. No limit by default.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
}

/// `ldp plugins`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct PluginsArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Option<PluginsCommand>,
}

/// `ldp plugin new`.
#[derive(Debug, Args)]
pub struct NewPluginArgs {
    /// The plugin's name: lower-case letters, digits and _ (it names the folder, the crate or
    /// package, and the .wasm file).
    pub name: String,
    /// What kind of plugin.
    #[arg(long, value_enum)]
    pub kind: PluginKindArg,
    /// Its language.
    #[arg(long, value_enum, default_value_t = PluginLang::Rust)]
    pub lang: PluginLang,
    /// Where to write the project (default: ./NAME). Must not exist, or be empty.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// A plugin kind, on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PluginKindArg {
    /// Produces batches.
    Source,
    /// Turns batches into batches.
    Transform,
    /// Gives verdicts on batches.
    Check,
    /// Writes batches or run events.
    Sink,
}

/// A plugin language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PluginLang {
    /// Rust with the ldp SDK.
    Rust,
    /// Python with componentize-py.
    Python,
    /// JavaScript with jco / componentize-js.
    Js,
}

/// `ldp plugins …` subcommands.
#[derive(Debug, Subcommand)]
pub enum PluginsCommand {
    /// Scaffold a plugin project that builds as it is and passes its own test.
    ///
    /// Writes NAME/ (or --dir) with the plugin's code, a build script that makes NAME.wasm, a
    /// test script and a README. The project needs no ldp source tree: it gets the WIT package
    /// (wit/plugin.wit) and, in Rust, the ldp SDK vendored in vendor/; in Python, the ldp_arrow
    /// codec in ldp_arrow/. Python projects build with componentize-py, JavaScript projects with
    /// componentize-js and apache-arrow (from PyPI and npm).
    ///
    /// Example: ldp plugin new --kind transform --lang rust row_numbers
    New(NewPluginArgs),
    /// Write the WIT package this ldp implements (the plugin contract) into DIR/plugin.wit.
    ///
    /// For plugins built with other tools (wit-bindgen, jco, componentize-py, cargo-component),
    /// or to bring a project made by an older ldp up to this one.
    ///
    /// Example: ldp plugin wit wit
    Wit {
        /// The folder to write plugin.wit into (created when missing).
        dir: PathBuf,
    },
    /// Say what a file is: a WebAssembly component, what it imports and exports, whether it is
    /// an ldp plugin (and why not), its sha256 (the value a config pins), name, kind, version
    /// and config schema. Exits 1 when the file is not an ldp plugin.
    Inspect {
        /// The .wasm file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Run a source plugin in its sandbox and print what it reads as CSV on stdout.
    ///
    /// PLUGIN is a built-in name (see `ldp plugins`) or a path to a .wasm file. When the config
    /// has a "path", it is made absolute and its folder is granted read-only.
    ///
    /// `--transform FILE.wasm` (repeatable) passes the batches through transform plugins, in
    /// order, before they are printed; `--transform-config JSON` gives the transform at the same
    /// position its config (`{}` by default). Transforms get no grants.
    ///
    /// Example: ldp plugins run csv --config '{"path": "examples/data/rides.csv"}' --head 5
    ///
    /// To see where a plugin spends its time, any command run with LDP_PLUGIN_PROFILER=perfmap
    /// names the plugins' compiled functions to Linux perf (docs/plugins.md, "Profiling a
    /// plugin"): LDP_PLUGIN_PROFILER=perfmap perf record ldp plugins run csv --config …
    Run(RunArgs),
}

/// `ldp plugins run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// A built-in plugin name, or a path to a .wasm file.
    pub plugin: String,

    /// The plugin's config, a JSON object.
    #[arg(long, value_name = "JSON", conflicts_with = "config_file")]
    pub config: Option<String>,

    /// Read the plugin's config from a JSON file.
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,

    /// Grant the plugin read access to this folder (repeatable).
    #[arg(long, value_name = "DIR")]
    pub grant: Vec<PathBuf>,

    /// A transform plugin (a built-in name or a .wasm file) the batches go through, in the
    /// order given (repeatable).
    #[arg(long, value_name = "PLUGIN")]
    pub transform: Vec<String>,

    /// The config of the transform at the same position, a JSON object (repeatable; `{}` when
    /// absent).
    #[arg(long, value_name = "JSON")]
    pub transform_config: Vec<String>,

    /// Print at most N rows (all rows are still read and counted).
    #[arg(long, value_name = "N")]
    pub head: Option<u64>,

    /// Memory limit of the plugin, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    pub max_memory_mb: u64,

    /// Time limit of one call into the plugin, in seconds.
    #[arg(long, value_name = "S", default_value_t = 60.0)]
    pub timeout_s: f64,

    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = RunOutput::Csv)]
    pub output: RunOutput,
}

/// What `ldp plugins run` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunOutput {
    /// The rows, as CSV with a header.
    Csv,
    /// A JSON summary: schema, rows, batches, seconds.
    Json,
    /// Nothing but the summary line on stderr.
    None,
}

/// `ldp mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// A dataset config, or a folder of configs (read one level deep); repeat for more.
    #[arg(
        long = "config",
        value_name = "DIR_OR_FILE",
        required_unless_present = "catalogs"
    )]
    pub configs: Vec<PathBuf>,
    /// A catalog spec: a JSON file holding a catalog block ({"identifier": "nyc",
    /// "warehouse_path": "warehouse"}, {"type": "rest", "uri": ...}) or a dataset config (its
    /// catalog). Every table of every namespace of that catalog is served; repeat for more.
    #[arg(long = "catalog", value_name = "SPEC.json")]
    pub catalogs: Vec<PathBuf>,
    /// Serve only these tables: comma-separated glob patterns on ns.table, or on the bare name
    /// for a pattern without a dot. _ldp tables are served only when a pattern starts with _ldp.
    #[arg(long, value_name = "PATTERNS", value_delimiter = ',')]
    pub allow: Vec<String>,
    /// The most rows a result holds.
    #[arg(long, value_name = "N", default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_rows: u64,
    /// The longest a query may run, in seconds.
    #[arg(long, value_name = "S", default_value_t = 30.0)]
    pub timeout: f64,
    /// The most memory one query may hold, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(16..))]
    pub max_memory_mb: u64,
    /// The JSONL audit file [default: <first warehouse>/.ldp/audit/mcp_audit.jsonl].
    #[arg(long, value_name = "PATH")]
    pub audit: Option<PathBuf>,
    /// Do not append the audit records to the _ldp.audit Iceberg table.
    #[arg(long)]
    pub no_iceberg_audit: bool,
    /// Run the agents' queries on the Ballista cluster whose scheduler is at this URL ('local':
    /// in this process). A cluster query has the time limit but not --max-memory-mb.
    #[arg(long, value_name = "df://HOST:PORT", env = "LDP_CLUSTER")]
    pub cluster: Option<String>,
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_version_names_the_python_tool_version_the_events_report() {
        let compat = format!(
            "local-data-platform {}",
            ldp_events::payload::COMPATIBLE_VERSION
        );
        assert!(super::VERSION.ends_with(&format!("(compatible with {compat})")));
        assert!(super::VERSION.starts_with(env!("CARGO_PKG_VERSION")));
    }
}
