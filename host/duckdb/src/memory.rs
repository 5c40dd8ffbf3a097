//! An in-memory database that holds the inputs of one query: each input is an Arrow stream,
//! copied into a table of its own name, and then the database is closed to everything else
//! (external access, extension loading and configuration changes off), so the query reads those
//! tables and nothing more.

use std::ffi::c_char;

use arrow_array::RecordBatchReader;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;

use crate::error::{Error, Result, first_line};
use crate::ffi::{DuckResult, ERROR_CATALOG, Handle, SUCCESS, text};
use crate::library::Duckdb;
use crate::query::{Handles, QueryOptions, c_string};

/// A table of a query over inputs: `name` is what the query calls it.
pub struct Input {
    /// The table's name in the query (unquoted; compared without case, as DuckDB does).
    pub name: String,
    /// Its rows.
    pub reader: Box<dyn RecordBatchReader + Send>,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// The settings of a database ldp writes Arrow streams into: no extension loaded or installed,
/// DuckDB's memory capped and its spill folder set as `options` say.
pub(crate) fn writable_settings(options: &QueryOptions) -> Vec<(&'static str, String)> {
    let mut settings: Vec<(&str, String)> = vec![
        ("autoload_known_extensions", "false".into()),
        ("autoinstall_known_extensions", "false".into()),
    ];
    if let Some(bytes) = options.memory_limit {
        settings.push(("max_memory", format!("{}MiB", (bytes >> 20).max(1))));
    }
    if let Some(dir) = &options.temp_directory {
        settings.push(("temp_directory", dir.display().to_string()));
    }
    settings
}

/// Opens an in-memory database, copies every input into its table, then locks the database.
pub(crate) fn open_memory(
    duckdb: &'static Duckdb,
    handles: &Handles,
    inputs: Vec<Input>,
    options: &QueryOptions,
) -> Result<()> {
    let settings = writable_settings(options);
    crate::query::open_with(duckdb, handles, None, &settings)?;
    let connection = handles.connection();
    // Timestamps with a time zone read and print in UTC, whatever the machine's zone. A build
    // without the ICU extension has no session zone and works in UTC already.
    if let Err(e) = execute(duckdb, connection, "SET TimeZone = 'UTC'") {
        tracing::debug!("DuckDB keeps its default time zone: {e}");
    }
    let mut names: Vec<String> = Vec::with_capacity(inputs.len());
    for (position, input) in inputs.into_iter().enumerate() {
        let folded = input.name.to_lowercase();
        if names.contains(&folded) {
            return Err(Error::Rejected {
                message: format!(
                    "two inputs are both called {}; each table of the query needs its own name",
                    input.name
                ),
            });
        }
        names.push(folded);
        let table = quote_identifier(&input.name);
        register(duckdb, connection, position, &table, input)?;
    }
    execute(duckdb, connection, "SET enable_external_access = false")?;
    execute(duckdb, connection, "SET lock_configuration = true")?;
    Ok(())
}

/// Copies one input into `table` (a quoted, maybe qualified name), replacing a table of that
/// name.
pub(crate) fn register(
    duckdb: &Duckdb,
    connection: Handle,
    position: usize,
    table: &str,
    input: Input,
) -> Result<()> {
    scan_into(duckdb, connection, position, input, |view| {
        format!("CREATE OR REPLACE TABLE {table} AS SELECT * FROM {view}")
    })
}

/// Runs `statement(view)` over a view of `input`'s stream, read once, then drops the view.
pub(crate) fn scan_into(
    duckdb: &Duckdb,
    connection: Handle,
    position: usize,
    input: Input,
    statement: impl FnOnce(&str) -> String,
) -> Result<()> {
    let Some(arrow_scan) = duckdb.api.arrow_scan else {
        return Err(Error::Library {
            message: format!(
                "{} lacks duckdb_arrow_scan, which a query over inputs needs; use libduckdb 1.4 or 1.5",
                duckdb.file()
            ),
        });
    };
    let view = format!("ldp_input_{position}");
    let view_c = c_string("the view's name", &view)?;
    let mut stream = FFI_ArrowArrayStream::new(input.reader);
    // SAFETY: a valid connection; `stream` outlives every scan of the view, which is dropped
    // below before the stream is released.
    let state = unsafe {
        arrow_scan(
            connection,
            view_c.as_ptr(),
            (&mut stream as *mut FFI_ArrowArrayStream).cast(),
        )
    };
    if state != SUCCESS {
        return Err(Error::Query {
            message: format!("DuckDB could not read the input {}", input.name),
        });
    }
    let copied = execute(duckdb, connection, &statement(&view));
    let dropped = execute(duckdb, connection, &format!("DROP VIEW IF EXISTS {view}"));
    copied.map_err(|e| Error::Query {
        message: format!("DuckDB could not load the input {}: {e}", input.name),
    })?;
    dropped
}

/// A name in double quotes, inner quotes doubled.
pub(crate) fn quote_identifier(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Runs one statement of ldp's own and drops its result.
pub(crate) fn execute(duckdb: &Duckdb, connection: Handle, sql: &str) -> Result<()> {
    let api = &duckdb.api;
    let sql_c = c_string("the statement", sql)?;
    let mut result = DuckResult::empty();
    // SAFETY: a valid connection and text; the result is destroyed once below, even on failure.
    unsafe {
        let state = (api.query)(connection, sql_c.as_ptr(), &mut result);
        let outcome = if state == SUCCESS {
            Ok(())
        } else {
            let why = first_line(&text((api.result_error)(&mut result) as *const c_char));
            Err(match (api.result_error_type)(&mut result) {
                ERROR_CATALOG => Error::Catalog { message: why },
                _ => Error::Query { message: why },
            })
        };
        (api.destroy_result)(&mut result);
        outcome
    }
}
