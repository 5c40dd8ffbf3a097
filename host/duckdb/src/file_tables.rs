//! Tables written into a DuckDB file: each an Arrow stream copied into `schema.table`, replacing
//! the table of that name, so that another DuckDB client (dbt's, for `ldp dbt`) reads them as
//! plain tables.

use std::path::Path;

use crate::error::{Error, Result};
use crate::library::Duckdb;
use crate::memory::{Input, execute, quote_identifier, register, writable_settings};
use crate::query::{Handles, QueryOptions, open_with};

/// Copies `tables` into schema `schema` of the DuckDB file at `path` (created when missing),
/// each replacing the table of its name, then closes the file. Each table is its own
/// statement: a stream that fails leaves the tables before it written and the failing one as
/// it was.
///
/// # Errors
///
/// [`Error::Library`] without a usable libduckdb; [`Error::Open`] when the file does not open
/// (another process holds it); [`Error::Query`] when a stream fails (its message included).
pub fn write_tables(
    path: &Path,
    schema: &str,
    tables: Vec<Input>,
    options: &QueryOptions,
) -> Result<()> {
    let duckdb = Duckdb::get()?;
    let handles = Handles::new(duckdb);
    let settings = writable_settings(options);
    open_with(duckdb, &handles, Some(path), &settings)?;
    let connection = handles.connection();
    let schema = quote_identifier(schema);
    execute(
        duckdb,
        connection,
        &format!("CREATE SCHEMA IF NOT EXISTS {schema}"),
    )?;
    for (position, table) in tables.into_iter().enumerate() {
        let name = format!("{schema}.{}", quote_identifier(&table.name));
        register(duckdb, connection, position, &name, table).map_err(|e| match e {
            Error::Query { message } => Error::Query {
                message: format!("{message} (writing {})", path.display()),
            },
            other => other,
        })?;
    }
    Ok(())
}
