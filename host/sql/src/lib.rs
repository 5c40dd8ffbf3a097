//! The ldp SQL layer: DataFusion sessions over Iceberg tables, read-only.
//!
//! The host resolves what to read: a [`Session`] registers each table at one snapshot (its
//! current one, or one asked for with `--snapshot`/`--as-of`) as a DataFusion table over the
//! live data files of that snapshot, with the schema that snapshot was written with. DataFusion
//! then scans those Parquet files in parallel, one partition per core, pruning row groups with
//! their statistics. Nothing is written and nothing is downloaded: DDL, DML and `SET`-style
//! statements are refused before they plan. The SQL is DuckDB's, as the Python tool's users
//! wrote it: the spellings DataFusion lacks are rewritten into its own before planning
//! (`duckdb/`).
//!
//! Every query runs under three limits: its statement nests at most [`MAX_NESTING`] levels
//! (refused before it plans, as deeper ones overflow the planner's stack; `nesting.rs`); its
//! time limit, when it has one, is checked by every node of its plan (`deadline.rs`); and the
//! functions that build big values from small inputs refuse a result past the session's memory
//! limit, at most [`MAX_VALUE_BYTES`] (`value_cap.rs`).
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Int64Array, RecordBatch};
//! use ldp_catalog::{Catalog, Mode};
//! use ldp_table::{Append, DataWriter, Table, WriterOptions};
//! use ldp_sql::{Session, TableName};
//!
//! let dir = tempfile::tempdir()?;
//! let warehouse = dir.path().join("warehouse");
//! let catalog = Catalog::open(ldp_catalog::catalog_file(&warehouse, "nyc"), "nyc", Mode::Create)?;
//! let batch = RecordBatch::try_from_iter([("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as _)])?;
//! let mut table =
//!     Table::load_or_create(&catalog, "nyc", "rides", &batch.schema(), &warehouse.join("nyc/rides"))?;
//! let mut writer = DataWriter::new(&table, &WriterOptions::default())?;
//! writer.write(&batch)?;
//! Append::new(writer.finish()?).commit(&catalog, &mut table)?;
//!
//! let session = Session::new()?;
//! session.register(&table, None, &[TableName::bare("rides"), TableName::qualified("nyc", "rides")])?;
//! let out = session.query("SELECT sum(id) AS total FROM nyc.rides", 100)?;
//! assert_eq!(out.total_rows, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod deadline;
mod deep_drop;
mod duckdb;
mod engine;
mod error;
mod guard;
mod nesting;
mod provider;
mod pruning;
mod session;
mod statistics;
mod stream;
mod value_cap;

pub use engine::{Engine, EngineFactory};
pub use error::{Error, Result};
pub use guard::{MAX_SQL_CHARS, check_read_only};
pub use nesting::{MAX_NESTING, MAX_SET_OPERATIONS, check_nesting};
pub use provider::{shipped_listing, snapshot_provider};
pub use session::{QUERY_STACK_BYTES, QueryOutput, Session, SessionOptions, TableName};
pub use stream::BatchSink;
pub use value_cap::MAX_VALUE_BYTES;
