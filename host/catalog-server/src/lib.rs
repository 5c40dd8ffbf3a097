//! `ldp catalog serve`: an Iceberg REST catalog over ldp's catalogs (pyiceberg `SqlCatalog`
//! tables in SQLite or PostgreSQL), so pyiceberg, DuckDB, Spark and Trino read and write the
//! tables ldp writes, through the catalog ldp uses.
//!
//! The server implements the catalog part of Apache Iceberg's REST spec
//! (`open-api/rest-catalog-open-api.yaml`): `GET /v1/config`, namespaces (list, create, load,
//! exists, drop when empty, update properties), tables (list, create, staged create, register,
//! load, exists, drop without purge, rename) and table commits. A commit checks its requirements
//! against the metadata the catalog's compare-and-swap starts from
//! ([`ldp_table::apply_commit`]), so a lost race or a failed requirement is a 409 that changes
//! nothing. Every error is the spec's
//! `{"error": {"message", "type", "code"}}`.
//!
//! Rules:
//! * each [`ServedCatalog`] is served under its name as REST prefix (`/v1/<name>/…`, which
//!   clients pick with `warehouse=<name>`); new tables go to `<warehouse>/<namespace>/<name>`;
//! * namespaces have one level (ldp's catalogs read `.` as a level separator): nested ones are
//!   refused with 400;
//! * with a token, every request needs `Authorization: Bearer <token>` (401 otherwise);
//! * read-only: every write is refused with 403;
//! * the listen address is bound exactly, and must be loopback unless
//!   [`ServeSettings::allow_remote`];
//! * clients read and write the data and metadata files themselves: the server hands out no
//!   storage credentials (`config` is empty);
//! * not served: purge, multi-table transactions (406), views (none exist),
//!   server-side scan planning, OAuth token exchange.
//!
//! ```
//! use ldp_catalog::CatalogAddress;
//! use ldp_catalog_server::{ServeSettings, ServedCatalog, start};
//!
//! let dir = tempfile::tempdir()?;
//! let settings = ServeSettings::new(
//!     "127.0.0.1:0".parse()?,
//!     vec![ServedCatalog {
//!         name: "lake".into(),
//!         address: CatalogAddress::Sqlite(dir.path().join("lake_catalog.db")),
//!         warehouse: dir.path().display().to_string(),
//!     }],
//! );
//! let server = start(settings)?;
//! println!("pyiceberg: load_catalog('lake', type='rest', uri='{}')", server.uri());
//! server.shutdown();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod auth;
mod cache;
mod commit;
mod config;
mod error;
mod ident;
mod namespaces;
mod pool;
mod routes;
mod server;
mod settings;
mod tables;

pub use error::{Error, ErrorKind, Result};
pub use server::{MAX_BODY_BYTES, RunningServer, ShutdownHandle, serve, start};
pub use settings::{ServeSettings, ServedCatalog};
