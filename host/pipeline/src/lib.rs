//! Runs an `ldp/v1` pipeline: the source plugin streams Arrow batches out of its sandbox, the
//! host writes them into Parquet data files as they arrive, and one Iceberg snapshot commits
//! them (or nothing does).
//!
//! ```text
//! config ─► Pipeline::open ─► route (CSV → ICEBERG) ─► source plugin (WASM, own thread)
//!                                                         │ batches (bounded channel)
//!                                            DataWriter ◄─┘ Parquet files under data/
//!                                                │
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
//! * [`routes`] lists the source → target routes and whether this build runs them.

mod error;
mod lock;
mod report;
pub mod routes;
mod run;
mod source;
mod target;

pub use error::{Error, ErrorKind, Result};
pub use lock::TableLock;
pub use report::{RunReport, WriteResult};
pub use run::{Pipeline, ProgressFn, RunOptions};
pub use target::{TargetTable, open_config};
