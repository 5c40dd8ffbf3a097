//! ldp's Iceberg REST catalog client: a synchronous client of the
//! [Iceberg REST catalog API](https://github.com/apache/iceberg/blob/main/open-api/rest-catalog-open-api.yaml)
//! for `rest` catalog blocks.
//!
//! **Why ldp has its own client.** `iceberg-catalog-rest` (0.10.1) commits only an
//! `iceberg::TableCommit`, whose builder is `pub(crate)`: only iceberg-rust's own `Transaction`
//! can make one. ldp's writes (an overwrite that writes deleted manifest entries, upsert, branch
//! publishes guarded by fence tags, snapshot expiry) come from ldp's own snapshot producer, so ldp
//! must send its own [`TableUpdate`]s and [`TableRequirement`]s. This crate sends them as they
//! are (iceberg-rust's serde is the REST spec's JSON shape) and returns what the catalog
//! answers.
//!
//! ```no_run
//! use ldp_catalog_rest::{ErrorKind, RestCatalog, RestSettings};
//! use iceberg::{TableRequirement, TableUpdate};
//!
//! let mut settings = RestSettings::new("https://catalog.example.com", "lake");
//! settings.token = std::env::var("LAKE_TOKEN").ok();
//! let catalog = RestCatalog::connect(settings)?;
//!
//! let table = catalog.load_table("nyc", "rides")?;
//! let requirements = [TableRequirement::RefSnapshotIdMatch {
//!     r#ref: "main".into(),
//!     snapshot_id: table.metadata.current_snapshot_id(),
//! }];
//! let updates = [TableUpdate::SetProperties {
//!     updates: [("owner".to_string(), "ops".to_string())].into(),
//! }];
//! match catalog.commit_table("nyc", "rides", &requirements, &updates) {
//!     Ok(committed) => println!("now at {}", committed.metadata_location),
//!     // Another writer moved `main` first: reload, re-apply, commit again.
//!     Err(lost) if lost.kind() == ErrorKind::Conflict => assert!(lost.is_retryable()),
//!     Err(other) => return Err(other.into()),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Rules.**
//! * [`RestCatalog::connect`] reads `GET /v1/config` first: the catalog's `defaults`, then the
//!   client's [`RestSettings::properties`], then the catalog's `overrides` (the later wins), and
//!   uses the merged `prefix` in every later path (`/v1/{prefix}/namespaces/...`).
//! * Namespaces are one level (ldp's are); a namespace name is sent as one path segment.
//! * Authentication: [`RestSettings::token`] is sent as `Authorization: Bearer`; without a token,
//!   [`RestSettings::credential`] is exchanged for one (OAuth2 client credentials at the
//!   `oauth2-server-uri` property, or `<uri>/v1/oauth/tokens`), again when it expires and once
//!   after a 401. Properties named `header.<Name>` are sent as extra request headers.
//! * A token, a client secret or a header value is never written into an error message or a
//!   `Debug` output; messages name the catalog by its URI (without user info).
//! * Retries are the caller's: [`Error::is_retryable`] says when the same call may be repeated
//!   (see [`Error`] for which failures are).
//! * The client is blocking (reqwest's blocking client, which runs a runtime on a thread of its
//!   own): do not call it from inside an async task.

#![warn(missing_docs)]

mod catalog;
mod error;
mod http;
mod model;
mod remote;
mod settings;

pub use catalog::{LoadedTable, RestCatalog};
pub use error::{AuthMethod, Error, ErrorKind, Result};
pub use model::CreateTable;
pub use remote::RestConnector;
pub use settings::{DEFAULT_TIMEOUT, RestSettings, parse_credential};

pub use iceberg::{TableRequirement, TableUpdate};
