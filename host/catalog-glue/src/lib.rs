//! ldp's AWS Glue catalog client for Iceberg tables: a synchronous **pointer store** with the
//! semantics of ldp's SQL catalog, on the
//! [AWS Glue Data Catalog API](https://docs.aws.amazon.com/glue/latest/webapi/API_Operations.html).
//!
//! * A Glue **database** is a namespace (one level).
//! * A Glue **table** of an Iceberg table has `TableType = EXTERNAL_TABLE` and `Parameters`
//!   `table_type = ICEBERG`, `metadata_location`, `previous_metadata_location`, exactly as
//!   pyiceberg's and Iceberg Java's `GlueCatalog` write them; [`TableDescriptor`] adds the
//!   `StorageDescriptor` (location, columns) pyiceberg writes too.
//! * A **commit** is a compare-and-swap: `GetTable`, check `metadata_location`, `UpdateTable`
//!   with the `VersionId` read (Glue's optimistic lock). See [`GlueCatalog::commit_with`].
//!
//! ```no_run
//! use std::collections::BTreeMap;
//! use ldp_catalog_glue::{ErrorKind, GlueCatalog, GlueSettings};
//!
//! // AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN) from the environment.
//! let catalog = GlueCatalog::connect(GlueSettings::from_env("lake", &BTreeMap::new())?)?;
//! catalog.create_namespace_if_missing("nyc")?;
//! let table = catalog.load_table("nyc", "rides")?.expect("the table exists");
//! let next = "s3://lake/nyc/rides/metadata/00002-….metadata.json";
//! match catalog.commit("nyc", "rides", &table.metadata_location, next) {
//!     Ok(()) => {}
//!     // Another writer committed first: reload, re-apply, commit again.
//!     Err(lost) if lost.kind() == ErrorKind::Conflict => assert!(lost.is_retryable()),
//!     Err(other) => return Err(other.into()),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **No AWS SDK.** Glue's API is JSON over HTTP POST (`X-Amz-Target: AWSGlue.<Operation>`)
//! signed with Signature Version 4; this crate signs with its own SigV4 (checked against
//! botocore's signatures) and sends with reqwest's blocking client, which runs a runtime on a
//! thread of its own: do not call it from inside an async task. Credentials are static (from
//! the environment or the catalog's properties); profiles and instance roles are not read.
//!
//! **Secrets.** The secret access key and the session token never appear in an error message
//! or a `Debug` output.

#![warn(missing_docs)]

mod catalog;
mod describe;
mod error;
mod http;
mod remote;
mod settings;
mod sigv4;
mod table;

pub use catalog::GlueCatalog;
pub use describe::TableDescriptor;
pub use error::{Error, ErrorKind, Result};
pub use remote::GlueConnector;
pub use settings::{DEFAULT_TIMEOUT, GlueSettings};
pub use table::{
    EXTERNAL_TABLE, GlueTable, ICEBERG_TABLE_TYPE, METADATA_LOCATION, PREVIOUS_METADATA_LOCATION,
};
