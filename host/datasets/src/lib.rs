//! Pinned dataset versions: a training split, an evaluation set or the data behind a report,
//! read with the same rows every time while the table keeps changing.
//!
//! [`pin`] records exactly what to read — the table, its snapshot id, a row filter (one SQL
//! boolean expression, `amount > 5`) and a column list — with the row count and a schema
//! fingerprint to check against, as version N + 1 of a named dataset. The record is a
//! [`DatasetVersion`], written as a small JSON manifest,
//! `<warehouse>/.ldp/datasets/<name>/v<NNNNNN>.json`, the same file the Python tool
//! (`local_data_platform.datasets`) writes and reads:
//!
//! * [`name`]: dataset names and the Iceberg tag of a version (`ldp_ds_<name>_v<N>`);
//! * [`filter`]: the row filter, one expression that cannot leave its `WHERE` clause;
//! * [`fingerprint`]: `sha256:` over the pinned columns' ids, names, types and nullability;
//! * [`manifest`]: the manifest file, written exclusively under the next free number;
//! * [`pin`](mod@pin): the snapshot, counted, recorded and tagged (snapshot expiry keeps tagged
//!   snapshots);
//! * [`load`](mod@load): the rows of a version, checked against the fingerprint and row count;
//! * [`export`](mod@export): the rows to Parquet (the manifest in its metadata) or JSONL, a
//!   local file or an `s3://` object;
//! * [`list`]: the datasets of a warehouse and their versions.
//!
//! How it stays reproducible: an Iceberg snapshot's files never change, and time travel reads
//! the snapshot's own schema; the tag keeps expiry away from the snapshot; the read is
//! deterministic (one partition, files in a fixed order), so the rows come in the same order
//! too and an export is byte-identical every time.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Float64Array, Int64Array, RecordBatch};
//! use ldp_catalog::{Catalog, Mode};
//! use ldp_table::{Append, DataWriter, Table, WriterOptions};
//! use ldp_datasets::{CatalogSpec, PinRequest, load, pin};
//!
//! let dir = tempfile::tempdir()?;
//! let warehouse = dir.path().join("warehouse");
//! let catalog = Catalog::open(ldp_catalog::catalog_file(&warehouse, "shop"), "shop", Mode::Create)?;
//! let batch = RecordBatch::try_from_iter([
//!     ("order_id", Arc::new(Int64Array::from(vec![1, 2, 3])) as _),
//!     ("amount", Arc::new(Float64Array::from(vec![4.0, 10.0, 20.0])) as _),
//! ])?;
//! let mut table =
//!     Table::load_or_create(&catalog, "shop", "orders", &batch.schema(), &warehouse.join("shop/orders"))?;
//! let mut writer = DataWriter::new(&table, &WriterOptions::default())?;
//! writer.write(&batch)?;
//! Append::new(writer.finish()?).commit(&catalog, &mut table)?;
//!
//! let spec = CatalogSpec::Local { identifier: "shop".into(), warehouse_path: warehouse.clone() };
//! let mut request = PinRequest::new("orders_train", warehouse.clone(), spec);
//! request.row_filter = Some("amount > 5".into());
//! let version = pin(&catalog, &mut table, &request)?;
//! assert_eq!((version.version, version.row_count), (1, 2));
//! assert_eq!(version.tag.as_deref(), Some("ldp_ds_orders_train_v1"));
//! assert_eq!(load(&version)?.num_rows(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
pub mod export;
pub mod filter;
pub mod fingerprint;
pub mod list;
pub mod load;
pub mod manifest;
pub mod name;
pub mod pin;
mod pyjson;

pub use error::{Error, ErrorKind, Result};
pub use export::{
    ExportFormat, PARQUET_METADATA_KEY, export, write_arrow, write_jsonl, write_rows,
};
pub use filter::check_filter;
pub use fingerprint::{project, schema_fingerprint};
pub use list::{get_version, list_datasets, list_versions};
pub use load::{Rows, load, load_from, open_table};
pub use manifest::{
    CatalogSpec, DATASETS_DIR, DatasetVersion, MANIFEST_FORMAT, WAREHOUSE_ENV, datasets_dir,
    iso_utc, manifest_file, resolve_warehouse, utc_seconds,
};
pub use name::{TAG_PREFIX, check_name, parse_reference, tag_name};
pub use pin::{PinRequest, normalise_fields, parse_property, pin, split_fields};
