//! DuckDB for ldp's `DUCKDB` sources and targets: one read-only query over one `.duckdb` file,
//! streamed as Arrow record batches, and one table of a file written from Arrow batches
//! ([`TableWriter`]).
//!
//! DuckDB is C++ and cannot run inside the WebAssembly sandbox, so the `duckdb` source plugin
//! asks the host for exactly this one thing through the `ldp:plugin/duckdb` interface, and the
//! host answers with this crate. ldp does not link DuckDB: it loads `libduckdb` (1.4 or later)
//! the first time a DUCKDB source runs ([`Duckdb::get`], `LDP_DUCKDB_LIB`), so building ldp
//! does not build DuckDB's C++ (docs/duckdb.md has the measurements behind this).
//!
//! What a query may do is narrow by construction: the file is opened read-only with external
//! access, extension loading and configuration changes off; the SQL must pass the Python tool's
//! guard ([`guard`]): one statement, SELECT or WITH, checked by DuckDB's own parser; a time
//! limit interrupts a call that runs too long, and DuckDB's memory is capped.
//!
//! ```no_run
//! use ldp_duckdb::{Query, QueryOptions};
//! let mut query = Query::open("shop.duckdb".as_ref(), "SELECT * FROM orders", QueryOptions::default())?;
//! while let Some(batch) = query.next_batch()? {
//!     println!("{} rows", batch.num_rows());
//! }
//! # Ok::<(), ldp_duckdb::Error>(())
//! ```

mod error;
mod ffi;
mod file_tables;
pub mod guard;
mod library;
mod memory;
mod query;
mod table_writer;

pub use error::{Error, ErrorKind, Result};
pub use file_tables::write_tables;
pub use library::{Duckdb, LIBRARY_ENV, LIBRARY_FILE};
pub use memory::Input;
pub use query::{Query, QueryOptions};
pub use table_writer::TableWriter;
