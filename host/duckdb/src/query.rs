//! One read-only query over one DuckDB file, streamed as Arrow record batches.

use std::ffi::{CString, c_char};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arrow_array::ffi::{FFI_ArrowArray, from_ffi};
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{Schema, SchemaRef};

use crate::error::{Error, Result, first_line};
use crate::ffi::{
    DuckResult, ERROR_CATALOG, ERROR_INTERRUPT, Handle, STATEMENT_SELECT, SUCCESS, text,
};
use crate::guard::{check_text, statement_type_name};
use crate::library::Duckdb;
use crate::memory::{Input, open_memory};

/// How a query runs.
#[derive(Debug, Clone)]
pub struct QueryOptions {
    /// DuckDB's `max_memory` (its buffer manager's limit), in bytes; `None` is DuckDB's
    /// default (80% of RAM).
    pub memory_limit: Option<u64>,
    /// Longest time one call ([`Query::open`], [`Query::next_batch`]) may run before the query
    /// is interrupted; `None` for no limit.
    pub time_limit: Option<Duration>,
    /// Rows per batch: DuckDB's 2,048-row chunks are joined up to this many.
    pub batch_rows: usize,
    /// Where a query over inputs spills what does not fit in `memory_limit`; `None` is
    /// DuckDB's default (`.tmp` in the working folder). A query over a file never spills.
    pub temp_directory: Option<PathBuf>,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            memory_limit: None,
            time_limit: None,
            batch_rows: 8_192,
            temp_directory: None,
        }
    }
}

/// A query running over a DuckDB file opened read-only. Dropping it closes the file.
pub struct Query {
    duckdb: &'static Duckdb,
    handles: Arc<Handles>,
    prepared: Handle,
    result: DuckResult,
    has_result: bool,
    arrow_options: Handle,
    schema: SchemaRef,
    ffi_schema: FFI_ArrowSchema,
    options: QueryOptions,
    watchdog: Option<Watchdog>,
    done: bool,
}

// SAFETY: DuckDB's handles may move between threads; a Query is used by one thread at a time
// (`&mut self`), and the watchdog only calls `duckdb_interrupt`, which is meant to be called from
// another thread, under the lock that `Drop` takes before it disconnects.
unsafe impl Send for Query {}

/// The database and the connection, shared with the watchdog.
pub(crate) struct Handles {
    duckdb: &'static Duckdb,
    /// `(database, connection)`; nulled under the lock when closed.
    open: Mutex<(Handle, Handle)>,
}

// SAFETY: see `Query`.
unsafe impl Send for Handles {}
unsafe impl Sync for Handles {}

impl Handles {
    pub(crate) fn new(duckdb: &'static Duckdb) -> Arc<Handles> {
        Arc::new(Handles {
            duckdb,
            open: Mutex::new((std::ptr::null_mut(), std::ptr::null_mut())),
        })
    }

    /// The open connection (null once closed).
    pub(crate) fn connection(&self) -> Handle {
        self.open.lock().map_or(std::ptr::null_mut(), |open| open.1)
    }

    fn interrupt(&self) {
        if let Ok(open) = self.open.lock()
            && !open.1.is_null()
        {
            // SAFETY: the connection is open while the lock is held.
            unsafe { (self.duckdb.api.interrupt)(open.1) };
        }
    }
}

impl Drop for Handles {
    fn drop(&mut self) {
        let api = &self.duckdb.api;
        if let Ok(mut open) = self.open.lock() {
            // SAFETY: each handle is destroyed once; null handles are skipped.
            unsafe {
                if !open.1.is_null() {
                    (api.disconnect)(&mut open.1);
                }
                if !open.0.is_null() {
                    (api.close)(&mut open.0);
                }
            }
            *open = (std::ptr::null_mut(), std::ptr::null_mut());
        }
    }
}

/// Interrupts the query when one call runs past the time limit.
struct Watchdog {
    /// Milliseconds since `start` at which the current call began, plus one; 0 between calls.
    armed: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    fired: Arc<AtomicBool>,
    start: Instant,
}

impl Watchdog {
    fn start(handles: &Arc<Handles>, limit: Duration) -> Watchdog {
        let armed = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let fired = Arc::new(AtomicBool::new(false));
        let start = Instant::now();
        let (a, s, f, h) = (armed.clone(), stop.clone(), fired.clone(), handles.clone());
        std::thread::spawn(move || {
            let poll = (limit / 10).clamp(Duration::from_millis(5), Duration::from_millis(100));
            while !s.load(Ordering::Relaxed) {
                std::thread::sleep(poll);
                let began = a.load(Ordering::Relaxed);
                if began != 0 {
                    let elapsed = start.elapsed().as_millis() as u64 + 1 - began;
                    if Duration::from_millis(elapsed) > limit {
                        f.store(true, Ordering::Relaxed);
                        h.interrupt();
                        a.store(0, Ordering::Relaxed);
                    }
                }
            }
        });
        Watchdog {
            armed,
            stop,
            fired,
            start,
        }
    }

    fn arm(&self) {
        self.armed.store(
            self.start.elapsed().as_millis() as u64 + 1,
            Ordering::Relaxed,
        );
    }

    fn disarm(&self) {
        self.armed.store(0, Ordering::Relaxed);
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A C string argument (SQL text or a path never holds NUL in practice; one that does is
/// refused).
pub(crate) fn c_string(what: &str, value: &str) -> Result<CString> {
    CString::new(value).map_err(|_| Error::Rejected {
        message: format!("{what} holds a NUL character"),
    })
}

impl Query {
    /// Opens `path` read-only (external access, extensions and configuration changes off) and
    /// starts `sql`, which must be exactly one read-only SELECT or WITH query.
    ///
    /// # Errors
    ///
    /// [`Error::Library`] without a usable libduckdb; [`Error::Rejected`] for SQL the guard
    /// refuses; [`Error::Open`] when the file does not open; [`Error::Catalog`] or
    /// [`Error::Query`] when the query does not prepare or run.
    pub fn open(path: &Path, sql: &str, options: QueryOptions) -> Result<Query> {
        check_text(sql)?;
        let duckdb = Duckdb::get()?;
        let handles = Handles::new(duckdb);
        open_database(duckdb, &handles, path, &options)?;
        Query::start(duckdb, handles, sql, options)
    }

    /// Starts `sql`, which must be exactly one read-only SELECT or WITH query, over `inputs`
    /// only: each is copied into an in-memory table of its name (the time zone UTC), and the
    /// query can read nothing else (a table that is not an input is DuckDB's own catalog
    /// error). Memory past `memory_limit` spills to `temp_directory`.
    ///
    /// # Errors
    ///
    /// As [`Query::open`]; [`Error::Rejected`] for two inputs of one name; [`Error::Query`]
    /// when an input's stream fails (its message included).
    pub fn over_inputs(inputs: Vec<Input>, sql: &str, options: QueryOptions) -> Result<Query> {
        check_text(sql)?;
        let duckdb = Duckdb::get()?;
        let handles = Handles::new(duckdb);
        open_memory(duckdb, &handles, inputs, &options)?;
        Query::start(duckdb, handles, sql, options)
    }

    /// Prepares and executes `sql` on the open connection of `handles`, under the watchdog.
    fn start(
        duckdb: &'static Duckdb,
        handles: Arc<Handles>,
        sql: &str,
        options: QueryOptions,
    ) -> Result<Query> {
        let watchdog = options
            .time_limit
            .map(|limit| Watchdog::start(&handles, limit));
        let mut query = Query {
            duckdb,
            handles,
            prepared: std::ptr::null_mut(),
            result: DuckResult::empty(),
            has_result: false,
            arrow_options: std::ptr::null_mut(),
            schema: Arc::new(Schema::empty()),
            ffi_schema: FFI_ArrowSchema::empty(),
            options,
            watchdog,
            done: false,
        };
        query.guarded(|q| q.prepare(sql))?;
        query.guarded(Query::execute)?;
        Ok(query)
    }

    /// The schema every batch follows.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The next batch (up to `batch_rows` rows), or `None` at the end.
    ///
    /// # Errors
    ///
    /// A run-time error of the query, its time limit, or a chunk that does not convert.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if self.done {
            return Ok(None);
        }
        self.guarded(Query::fetch)
    }

    /// Runs one call under the watchdog, turning an interrupt into [`Error::TimedOut`].
    fn guarded<T>(&mut self, call: impl FnOnce(&mut Query) -> Result<T>) -> Result<T> {
        if let Some(watchdog) = &self.watchdog {
            watchdog.arm();
        }
        let outcome = call(self);
        if let Some(watchdog) = &self.watchdog {
            watchdog.disarm();
            if watchdog.fired.load(Ordering::Relaxed) && outcome.is_err() {
                self.done = true;
                return Err(Error::TimedOut {
                    limit: self.options.time_limit.unwrap_or_default(),
                });
            }
        }
        outcome
    }

    /// The guard's parsed check, then the prepared statement.
    fn prepare(&mut self, sql: &str) -> Result<()> {
        let api = &self.duckdb.api;
        let connection = self.connection();
        let text_c = c_string("the sql", sql)?;
        let mut extracted: Handle = std::ptr::null_mut();
        // SAFETY: valid connection and NUL-terminated text; `extracted` is destroyed below.
        let count =
            unsafe { (api.extract_statements)(connection, text_c.as_ptr(), &mut extracted) };
        let outcome = (|| {
            if count == 0 {
                // SAFETY: `extracted` is valid until destroyed.
                let why = text(unsafe { (api.extract_statements_error)(extracted) });
                let why = if why.is_empty() {
                    "no statement".to_string()
                } else {
                    first_line(&why)
                };
                return Err(Error::Rejected {
                    message: format!("sql does not parse: {why}"),
                });
            }
            if count != 1 {
                return Err(Error::Rejected {
                    message: format!("exactly one statement is allowed; found {count}"),
                });
            }
            // SAFETY: index 0 exists; `self.prepared` is destroyed in Drop.
            let state = unsafe {
                (api.prepare_extracted_statement)(connection, extracted, 0, &mut self.prepared)
            };
            if state != SUCCESS {
                // SAFETY: the prepared statement holds its error until destroyed.
                let why = first_line(&text(unsafe { (api.prepare_error)(self.prepared) }));
                return Err(classify(&why));
            }
            // SAFETY: a prepared statement.
            let kind = unsafe { (api.prepared_statement_type)(self.prepared) };
            if kind != STATEMENT_SELECT {
                return Err(Error::Rejected {
                    message: format!(
                        "only read-only SELECT or WITH queries are allowed; this is a {} statement",
                        statement_type_name(kind)
                    ),
                });
            }
            Ok(())
        })();
        // SAFETY: created by extract_statements above, destroyed once.
        unsafe { (api.destroy_extracted)(&mut extracted) };
        outcome
    }

    /// Starts the prepared statement (streaming when the library still offers it) and reads
    /// the result's schema.
    fn execute(&mut self) -> Result<()> {
        let api = &self.duckdb.api;
        let execute = api
            .execute_prepared_streaming
            .unwrap_or(api.execute_prepared);
        // SAFETY: a prepared statement; the result is destroyed in Drop even when it failed.
        let state = unsafe { execute(self.prepared, &mut self.result) };
        self.has_result = true;
        if state != SUCCESS {
            return Err(self.result_error());
        }
        // SAFETY: a result that succeeded; every logical type is destroyed below.
        unsafe {
            let columns = (api.column_count)(&mut self.result);
            let mut names: Vec<*const c_char> = Vec::with_capacity(columns as usize);
            let mut types: Vec<Handle> = Vec::with_capacity(columns as usize);
            for column in 0..columns {
                names.push((api.column_name)(&mut self.result, column));
                types.push((api.column_logical_type)(&mut self.result, column));
            }
            self.arrow_options = (api.result_get_arrow_options)(&mut self.result);
            let error = (api.to_arrow_schema)(
                self.arrow_options,
                types.as_mut_ptr(),
                names.as_mut_ptr(),
                columns,
                &mut self.ffi_schema,
            );
            for logical in &mut types {
                (api.destroy_logical_type)(logical);
            }
            check_error_data(self.duckdb, error)?;
        }
        let schema = Schema::try_from(&self.ffi_schema).map_err(|e| Error::Arrow {
            message: e.to_string(),
        })?;
        self.schema = Arc::new(schema);
        Ok(())
    }

    /// Joins chunks up to `batch_rows` rows.
    fn fetch(&mut self) -> Result<Option<RecordBatch>> {
        let mut batches = Vec::new();
        let mut rows = 0;
        while rows < self.options.batch_rows.max(1) {
            match self.fetch_chunk()? {
                Some(batch) => {
                    rows += batch.num_rows();
                    batches.push(batch);
                }
                None => {
                    self.done = true;
                    break;
                }
            }
        }
        match batches.len() {
            0 => Ok(None),
            1 => Ok(batches.pop()),
            _ => arrow_select::concat::concat_batches(&self.schema, &batches)
                .map(Some)
                .map_err(|e| Error::Arrow {
                    message: e.to_string(),
                }),
        }
    }

    /// One DuckDB chunk as a batch, `None` at the end.
    fn fetch_chunk(&mut self) -> Result<Option<RecordBatch>> {
        let api = &self.duckdb.api;
        // SAFETY: a result that succeeded; the chunk is destroyed below.
        let mut chunk = unsafe { (api.fetch_chunk)(self.result) };
        if chunk.is_null() {
            // SAFETY: the result holds its error, if any, until destroyed.
            let error = unsafe { (api.result_error)(&mut self.result) };
            if error.is_null() {
                return Ok(None);
            }
            return Err(self.result_error());
        }
        let mut array = FFI_ArrowArray::empty();
        // SAFETY: valid options and chunk; `array` receives an owned ArrowArray.
        let error = unsafe { (api.data_chunk_to_arrow)(self.arrow_options, chunk, &mut array) };
        // SAFETY: the chunk is no longer needed (the Arrow array owns copies of its buffers).
        unsafe { (api.destroy_data_chunk)(&mut chunk) };
        check_error_data(self.duckdb, error)?;
        // SAFETY: `array` follows `ffi_schema`, which DuckDB made from the same options.
        let data = unsafe { from_ffi(array, &self.ffi_schema) }.map_err(|e| Error::Arrow {
            message: e.to_string(),
        })?;
        let array = StructArray::from(data);
        if array.null_count() > 0 {
            return Err(Error::Arrow {
                message: "a chunk has null rows".to_string(),
            });
        }
        let batch = RecordBatch::from(array);
        let batch = batch
            .with_schema(self.schema.clone())
            .map_err(|e| Error::Arrow {
                message: e.to_string(),
            })?;
        Ok(Some(batch))
    }

    fn connection(&self) -> Handle {
        self.handles.connection()
    }

    fn result_error(&mut self) -> Error {
        let api = &self.duckdb.api;
        // SAFETY: the result holds its error until destroyed.
        let (why, kind) = unsafe {
            (
                first_line(&text((api.result_error)(&mut self.result))),
                (api.result_error_type)(&mut self.result),
            )
        };
        match kind {
            ERROR_CATALOG => Error::Catalog { message: why },
            ERROR_INTERRUPT => Error::TimedOut {
                limit: self.options.time_limit.unwrap_or_default(),
            },
            _ => Error::Query { message: why },
        }
    }
}

impl Drop for Query {
    fn drop(&mut self) {
        self.watchdog = None;
        let api = &self.duckdb.api;
        // SAFETY: each handle is destroyed once; null ones are skipped. The connection and the
        // database close when `handles` drops (after the watchdog thread lets go of it).
        unsafe {
            if !self.arrow_options.is_null() {
                (api.destroy_arrow_options)(&mut self.arrow_options);
            }
            if self.has_result {
                (api.destroy_result)(&mut self.result);
            }
            if !self.prepared.is_null() {
                (api.destroy_prepare)(&mut self.prepared);
            }
        }
    }
}

impl std::fmt::Debug for Query {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query")
            .field("schema", &self.schema)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// A catalog error when DuckDB's message says so, else a query error.
fn classify(message: &str) -> Error {
    if message.starts_with("Catalog Error") {
        Error::Catalog {
            message: message.to_string(),
        }
    } else {
        Error::Query {
            message: message.to_string(),
        }
    }
}

/// Turns a `duckdb_error_data` into a result, destroying it.
fn check_error_data(duckdb: &Duckdb, mut error: Handle) -> Result<()> {
    if error.is_null() {
        return Ok(());
    }
    let api = &duckdb.api;
    // SAFETY: a valid error data, destroyed once.
    unsafe {
        let outcome = if (api.error_data_has_error)(error) {
            Err(Error::Arrow {
                message: first_line(&text((api.error_data_message)(error))),
            })
        } else {
            Ok(())
        };
        (api.destroy_error_data)(&mut error);
        outcome
    }
}

/// Opens the file read-only with everything that reaches beyond it switched off.
fn open_database(
    duckdb: &'static Duckdb,
    handles: &Handles,
    path: &Path,
    options: &QueryOptions,
) -> Result<()> {
    let mut settings: Vec<(&str, String)> = vec![
        ("access_mode", "READ_ONLY".into()),
        ("enable_external_access", "false".into()),
        ("autoload_known_extensions", "false".into()),
        ("autoinstall_known_extensions", "false".into()),
    ];
    if let Some(bytes) = options.memory_limit {
        settings.push(("max_memory", format!("{}MiB", (bytes >> 20).max(1))));
    }
    settings.push(("lock_configuration", "true".into()));
    open_with(duckdb, handles, Some(path), &settings)
}

/// Opens the database at `path` (`None`: in memory) with `settings` and connects to it; the
/// handles go into `handles`, which closes them.
pub(crate) fn open_with(
    duckdb: &'static Duckdb,
    handles: &Handles,
    path: Option<&Path>,
    settings: &[(&str, String)],
) -> Result<()> {
    let api = &duckdb.api;
    let shown = path.map_or(":memory:".to_string(), |p| p.display().to_string());
    let open_error = |message: String| Error::Open {
        path: shown.clone(),
        message,
    };
    let path_c = path
        .map(|_| c_string("the DuckDB file's path", &shown))
        .transpose()?;
    let mut config: Handle = std::ptr::null_mut();
    let mut database: Handle = std::ptr::null_mut();
    let mut error: *mut c_char = std::ptr::null_mut();
    // SAFETY: the config is destroyed once below; the database is closed by `handles`.
    unsafe {
        if (api.create_config)(&mut config) != SUCCESS {
            (api.destroy_config)(&mut config);
            return Err(open_error("DuckDB could not make a configuration".into()));
        }
        for (name, value) in settings {
            let (name_c, value_c) = (c_string(name, name)?, c_string(name, value)?);
            if (api.set_config)(config, name_c.as_ptr(), value_c.as_ptr()) != SUCCESS {
                (api.destroy_config)(&mut config);
                return Err(open_error(format!(
                    "DuckDB refused the setting {name}={value}"
                )));
            }
        }
        let path_ptr = path_c.as_ref().map_or(std::ptr::null(), |p| p.as_ptr());
        let state = (api.open_ext)(path_ptr, &mut database, config, &mut error);
        (api.destroy_config)(&mut config);
        if state != SUCCESS {
            let why = first_line(&text(error));
            if !error.is_null() {
                (api.free)(error.cast());
            }
            if !database.is_null() {
                (api.close)(&mut database);
            }
            return Err(open_error(why));
        }
        let mut connection: Handle = std::ptr::null_mut();
        if (api.connect)(database, &mut connection) != SUCCESS {
            (api.close)(&mut database);
            return Err(open_error("DuckDB could not connect".into()));
        }
        if let Ok(mut open) = handles.open.lock() {
            *open = (database, connection);
        }
    }
    Ok(())
}
