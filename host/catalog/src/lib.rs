//! The ldp Iceberg catalog: the tables of pyiceberg's `SqlCatalog` and Iceberg's `JdbcCatalog`,
//! in a SQLite file or a PostgreSQL database, so pyiceberg, Spark and the Python ldp read what
//! ldp writes.
//!
//! A `local` catalog block keeps its catalog at [`catalog_file`]`(warehouse_path, identifier)`,
//! `<warehouse_path>/<identifier>_catalog.db` ([`Catalog::open`]). A `sql` catalog block whose
//! `uri` is `postgresql://user@host:5432/db` (or `postgres://`, `postgresql+psycopg://`,
//! `postgresql+psycopg2://`) shares a PostgreSQL database ([`Catalog::open_postgres`], or
//! [`Catalog::connect`] with a [`CatalogAddress`]); its password comes apart from the URI, from
//! the variable its `password_env` names, and messages name it by the URI without password.
//! Either way the catalog holds two tables (see [`schema`] for the exact DDL, that of pyiceberg
//! 0.12; SQLAlchemy emits the same text for both engines):
//!
//! * `iceberg_tables`: one row per table, `(catalog_name, table_namespace, table_name)` →
//!   `metadata_location`, `previous_metadata_location` (and `iceberg_type` = `TABLE`);
//! * `iceberg_namespace_properties`: namespace properties; a namespace created without any is
//!   marked by the row `exists` = `true`.
//!
//! This crate knows nothing of Iceberg metadata: the table layer writes a new metadata file, then
//! moves the table's pointer with [`Catalog::commit`], a compare-and-swap on the old location.
//! When another writer got there first the commit fails with [`ErrorKind::CommitConflict`]; the
//! caller reloads, re-applies its change and commits again ([`Error::is_retryable`]).
//!
//! ```
//! use ldp_catalog::{Catalog, ErrorKind, Mode};
//!
//! let dir = tempfile::tempdir()?;
//! let file = ldp_catalog::catalog_file(dir.path(), "nyc");
//! let catalog = Catalog::open(&file, "nyc", Mode::Create)?;
//! catalog.create_namespace_if_missing("nyc")?;
//! catalog.create_table("nyc", "rides", "file:///w/nyc/rides/metadata/00000-a.metadata.json")?;
//!
//! let current = catalog.load_table("nyc", "rides")?.expect("just created");
//! let next = "file:///w/nyc/rides/metadata/00001-b.metadata.json";
//! catalog.commit("nyc", "rides", &current.metadata_location, next)?;
//!
//! // A writer still holding the old location loses the race.
//! let lost = catalog.commit("nyc", "rides", &current.metadata_location, "elsewhere").unwrap_err();
//! assert_eq!(lost.kind(), ErrorKind::CommitConflict);
//! assert!(lost.is_retryable());
//! assert_eq!(catalog.list_tables("nyc")?, ["rides"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Locking.** Every write runs in a transaction that takes the write lock first (SQLite:
//! `BEGIN IMMEDIATE`; PostgreSQL: `LOCK TABLE … IN SHARE ROW EXCLUSIVE MODE` on both catalog
//! tables, which readers pass and other writers wait for) and every statement waits up to
//! [`BUSY_TIMEOUT`] (5 s) for another connection's lock; past that the error is
//! [`ErrorKind::Busy`], also retryable. A SQLite file's journal mode is never changed: pyiceberg
//! (SQLAlchemy over Python's `sqlite3`) leaves SQLite's default rollback journal (`delete`), and
//! switching a file to WAL would be persistent, add `-wal`/`-shm` files, and need shared memory
//! that network file systems and read-only users cannot give.

mod address;
mod backend;
mod catalog;
mod error;
mod ident;
mod namespace;
pub mod remote;
pub mod schema;
mod sql;
mod table;

pub use address::{CONNECT_TIMEOUT, CatalogAddress, POSTGRES_SCHEMES, PostgresAddress};
pub use catalog::{BUSY_TIMEOUT, Catalog, Mode, catalog_file};
pub use error::{Error, ErrorKind, Result, no_catalog};
pub use ident::qualified;
pub use namespace::{EXISTS_PROPERTY, PropertiesUpdate};
pub use remote::{
    Failure, NewTable, RemoteAddress, RemoteCatalog, RemoteConnector, Subject, TableChange,
};
pub use schema::SchemaVersion;
pub use table::TableRecord;
