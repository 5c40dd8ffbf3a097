//! The ldp table layer: Iceberg tables on the local SQLite catalog ([`ldp_catalog`]).
//!
//! Everything here is synchronous; iceberg-rust's async writers are driven internally.
//!
//! * [`Table`]: load a table ([`Table::load`]) or create it from an Arrow schema
//!   ([`Table::create`]: all fields optional, timestamps in µs, format version 2, location
//!   `<warehouse>/<namespace>/<table>`, metadata files named as pyiceberg names them).
//! * [`DataWriter`]: stream record batches into Parquet data files under `data/`, with Iceberg
//!   field ids and column statistics, rolling over at a target size; [`DataWriter::finish`]
//!   gives the [`DataFiles`] to commit.
//! * [`Append`] (fast append), [`Overwrite`] (all rows replaced in one `overwrite` snapshot,
//!   or only the rows of a window: [`Overwrite::only_window`] with a [`WindowFilter`]) and
//!   [`Upsert`] (rows replaced by key, copy-on-write, in one snapshot): our own snapshot
//!   producer (the private `snapshot` module) writes the manifests, the manifest list and the
//!   next metadata file, then the catalog's compare-and-swap commits it. A lost race is
//!   retried for appends and upserts (the Python tool retries appends only: [`RetryPolicy`]);
//!   a failed or abandoned write deletes every file it wrote.
//! * [`expire_snapshots`]: snapshot expiry (`ldp maintain --expire`) that keeps every
//!   branch and tag head, `main`'s last snapshots and the idempotency floor ([`expire`]).
//! * [`remove_orphans`]: orphan file detection and removal (`ldp maintain --orphans`): files
//!   under the table location that no metadata version within reach names, older than the age
//!   cut, failing closed when the current metadata's files cannot be enumerated.
//! * [`compact`]: small data files rewritten near a target size, optionally sorted, in one
//!   `replace` snapshot that also merges the manifests (`ldp maintain --compact`);
//!   [`rewrite_manifests`] merges the manifests alone.
//! * [`apply_contract`]: a table's contract (properties, column docs) in one metadata-only
//!   commit.
//! * [`apply_commit`]: the pointer-swap commit of Iceberg requirements and updates (what an
//!   Iceberg REST catalog's commit does), and [`create_table`] from an Iceberg table creation.
//! * Reading back: [`Table::snapshots`], [`Table::data_files`], [`Table::read_all`].
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Int64Array, RecordBatch};
//! use ldp_catalog::{Catalog, Mode};
//! use ldp_table::{Append, DataWriter, Overwrite, Table, WriterOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let warehouse = dir.path().join("warehouse");
//! let catalog = Catalog::open(ldp_catalog::catalog_file(&warehouse, "nyc"), "nyc", Mode::Create)?;
//! let batch = RecordBatch::try_from_iter([("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as _)])?;
//! let location = warehouse.join("nyc").join("rides");
//! let mut table = Table::load_or_create(&catalog, "nyc", "rides", &batch.schema(), &location)?;
//!
//! let mut writer = DataWriter::new(&table, &WriterOptions::default())?;
//! writer.write(&batch)?;
//! let appended = Append::new(writer.finish()?).commit(&catalog, &mut table)?;
//! assert_eq!((appended.rows_after, appended.attempts), (3, 1));
//!
//! let mut writer = DataWriter::new(&table, &WriterOptions::default())?;
//! writer.write(&batch.slice(0, 1))?;
//! let replaced = Overwrite::new(writer.finish()?).commit(&catalog, &mut table)?;
//! assert_eq!((replaced.operation.as_str(), replaced.rows_after), ("overwrite", 1));
//!
//! // Time travel to the first snapshot.
//! let first: usize = table.read_all(Some(appended.snapshot_id))?.iter().map(|b| b.num_rows()).sum();
//! assert_eq!(first, 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Tables written here are read by pyiceberg 0.12 (the crate's interop test checks it).

mod append;
mod apply;
mod bounds;
mod catalog_commit;
mod commit;
mod compact;
mod contract;
mod create;
mod deferred;
mod error;
pub mod evolve;
pub mod expire;
mod files;
mod io;
mod listing;
pub mod location;
mod manifests;
mod orphans;
mod overwrite;
mod partition;
mod read;
pub mod refs;
mod rewrite;
pub mod schema;
mod snapshot;
mod table;
mod table_commit;
mod upsert;
mod window;
mod writer;

pub use append::Append;
pub use apply::apply_commit;
pub use commit::{CommitResult, RetryPolicy};
pub use compact::{CompactOptions, CompactReport, SMALL_FILE_FRACTION, compact};
pub use contract::{ContractOutcome, ContractUpdate, apply_contract};
pub use create::{FORMAT_VERSION_PROPERTY, create_from_updates, create_table, stage_table};
pub use error::{Error, ErrorKind, Result};
pub use evolve::{Evolution, evolve, new_columns, refuse_new_columns};
pub use expire::{ExpireOptions, ExpireReport, expire_snapshots};
pub use iceberg::spec::Transform;
/// Iceberg's table creation, requirements and updates, as [`create_table`] and [`apply_commit`]
/// take them (with serde in the REST catalog's JSON shape).
pub use iceberg::{TableCreation, TableRequirement, TableUpdate};
pub use io::is_object_location;
pub use listing::FileInfo;
pub use manifests::{ManifestRewriteReport, rewrite_manifests};
pub use orphans::{
    DEFAULT_KEEP_METADATA_VERSIONS, DEFAULT_ORPHAN_AGE_HOURS, MAX_RECHECKS, MIN_APPLY_AGE_HOURS,
    OrphanFailure, OrphanOptions, OrphanReport, OrphanStats, normalize_location, referenced_files,
    remove_orphans,
};
pub use overwrite::Overwrite;
pub use partition::PartitionColumn;
pub use read::{SnapshotInfo, civil_from_days, utc_millis_text};
pub use refs::{
    KeySearch, Publish, SearchOutcome, create_branch, drop_branch, fence, find_keyed,
    publish_branch,
};
pub use table::metadata_to_json;
pub use table::{TOTAL_RECORDS, Table, TableRef};
pub use table_commit::TableCommit;
pub use upsert::{Upsert, UpsertResult};
pub use window::{WindowBounds, WindowFilter, WindowRows};
pub use writer::{
    DEFAULT_ROW_GROUP_BYTES, DEFAULT_TARGET_FILE_SIZE, DataFiles, DataWriter, WriterOptions,
};

/// Iceberg's data-file type, as [`DataFiles::files`] and [`Table::data_files`] return it.
pub use iceberg::spec::DataFile;
