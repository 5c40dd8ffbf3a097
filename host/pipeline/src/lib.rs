//! Runs an `ldp/v1` pipeline: the source plugin streams Arrow batches out of its sandbox, the
//! host writes them into Parquet data files as they arrive, and one Iceberg snapshot commits
//! them (or nothing does).
//!
//! ```text
//! config ─► Pipeline::open ─► route (CSV → ICEBERG) ─► source plugin (WASM, own thread)
//!                                                         │ batches (bounded channel)
//!                                            DataWriter ◄─┴─► checks (WASM, own thread)
//!                          Parquet files under data/ │          │ verdicts at the end
//!                                                    ▼          ▼
//!               quality gate: a failed check deletes the files, commits nothing (exit 3)
//!                                                    │
//!                              Append / Overwrite ─► one snapshot, CAS on the catalog
//! ```
//!
//! * [`Pipeline::open`] reads and checks a config file (every problem at once, each with its
//!   JSON path) and resolves its source and target: [`TargetTable`] says where the table's
//!   catalog and folder are.
//! * [`Pipeline::run`] reads the source and commits: `append` (fast append, retried when another
//!   writer wins the compare-and-swap) or `overwrite` (every row replaced in one snapshot, under
//!   the table's write lock). An empty source is `No data to write …`; any failure deletes the
//!   data files the run wrote, and a table the run created is dropped again.
//! * [`quality`]: the checks of `metadata.quality` run while the data streams in (built-in ones
//!   in one instance of the embedded `checks` plugin, plugin files each in their own), and their
//!   [`QualityReport`] decides whether the run commits.
//! * [`routes`] lists the source → target routes and whether this build runs them.
//! * `s3://` paths of file sources and file targets: the host downloads the object into a
//!   private folder the source plugin reads, or uploads a target's staged file once the run
//!   passed its checks ([`ldp_storage`]); plugins never reach the network.
//! * [`runtime_options`]: the plugin runtime as ldp runs it, with DuckDB queries of DuckDB
//!   sources answered by [`DuckdbFiles`] (the runtime itself does not link DuckDB).

pub mod catalog;
mod check;
pub mod contract;
mod duckdb_engine;
mod duckdb_target;
mod error;
mod events;
mod file_target;
mod job;
pub mod lake;
mod lock;
pub mod maintain;
mod object;
mod plugin_file;
pub mod quality;
mod report;
pub mod routes;
mod run;
mod source;
mod span;
pub mod staged;
mod target;
pub mod transform;
mod upsert;

pub use catalog::ResolvedCatalog;
pub use check::{TableCheck, check_table};
pub use duckdb_engine::{DuckdbFiles, runtime_options};
pub use error::{Error, ErrorKind, Result};
pub use events::iceberg_sink::{append_system_batch, iceberg_sink_factory};
pub use events::{alert_sinks, has_alert_sinks, iceberg_ref};
pub use file_target::FileExport;
pub use job::Job;
pub use lock::TableLock;
pub use quality::QualityReport;
pub use report::{RunReport, UpsertCounts, WriteResult};
pub use run::{EventContext, Pipeline, ProgressFn, ProvidedBatches, RunOptions, SinkFactory};
pub use source::iceberg::SnapshotReader;
pub use source::inputs::{InputTable, input_tables};
pub use staged::{PublishPolicy, Staging};
pub use target::{TargetTable, open_config, open_config_for_run};
