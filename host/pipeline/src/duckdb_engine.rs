//! DuckDB queries for `duckdb-source-plugin` components and tables for `duckdb-sink-plugin`
//! components, run by [`ldp_duckdb`] and handed to the plugin runtime as its [`DuckdbEngine`].
//! The runtime checks the sandbox's grants first; this runs DuckDB with the limits the runtime
//! passes.

use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_duckdb::{ErrorKind as DuckKind, Query, QueryOptions, TableWriter};
use ldp_plugin_runtime::{
    DuckdbEngine, DuckdbLimits, DuckdbQuery, DuckdbTableWriter, ErrorKind, HostCallError,
    RuntimeOptions,
};

/// The runtime settings every ldp command uses: compiled code cached in `cache_dir`, DuckDB
/// queries answered by [`ldp_duckdb`].
pub fn runtime_options(cache_dir: Option<std::path::PathBuf>) -> RuntimeOptions {
    RuntimeOptions {
        cache_dir,
        duckdb: Some(Arc::new(DuckdbFiles)),
    }
}

/// Runs each query over a DuckDB file, read-only, through the libduckdb found at run time.
#[derive(Debug, Clone, Copy, Default)]
pub struct DuckdbFiles;

impl DuckdbEngine for DuckdbFiles {
    fn open(
        &self,
        file: &Path,
        sql: &str,
        limits: DuckdbLimits,
    ) -> Result<Box<dyn DuckdbQuery>, HostCallError> {
        let options = QueryOptions {
            memory_limit: Some(limits.memory_bytes),
            time_limit: Some(limits.call_time),
            ..QueryOptions::default()
        };
        let query = Query::open(file, sql, options).map_err(|e| host_error(&e))?;
        Ok(Box::new(OpenQuery(query)))
    }

    fn write_table(
        &self,
        file: &Path,
        table: &str,
        replace: bool,
        schema: SchemaRef,
        limits: DuckdbLimits,
    ) -> Result<Box<dyn DuckdbTableWriter>, HostCallError> {
        // DuckDB spills next to the file: inside the folder the sink was granted.
        let options = QueryOptions {
            memory_limit: Some(limits.memory_bytes),
            temp_directory: file.parent().map(|dir| dir.join(".duckdb-spill")),
            ..QueryOptions::default()
        };
        let writer = TableWriter::open(file, table, replace, schema, &options)
            .map_err(|e| host_error(&e))?;
        Ok(Box::new(OpenTable(writer)))
    }
}

struct OpenTable(TableWriter);

impl DuckdbTableWriter for OpenTable {
    fn write(&mut self, batch: RecordBatch) -> Result<(), HostCallError> {
        self.0.write(batch).map_err(|e| host_error(&e))
    }

    fn close(self: Box<Self>) -> Result<u64, HostCallError> {
        self.0.close().map_err(|e| host_error(&e))
    }
}

struct OpenQuery(Query);

impl DuckdbQuery for OpenQuery {
    fn schema(&self) -> SchemaRef {
        self.0.schema().clone()
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, HostCallError> {
        self.0.next_batch().map_err(|e| host_error(&e))
    }
}

fn host_error(error: &ldp_duckdb::Error) -> HostCallError {
    let kind = match error.kind() {
        DuckKind::Config => ErrorKind::Config,
        DuckKind::Io => ErrorKind::Io,
        DuckKind::Limit => ErrorKind::Limit,
        DuckKind::Internal => ErrorKind::Internal,
    };
    HostCallError {
        kind,
        message: error.to_string(),
    }
}
