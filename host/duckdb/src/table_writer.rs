//! One table of a DuckDB file written from a stream of Arrow batches: the host's side of a
//! DUCKDB target. The file is opened read-write with external access and extensions off, the
//! table is created (or replaced) with the stream's columns, and each batch is appended by
//! name; `close` checkpoints the file so that it is whole on its own, with no `.wal` beside it.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::SchemaRef;

use crate::error::Result;
use crate::library::Duckdb;
use crate::memory::{Input, execute, quote_identifier, scan_into, writable_settings};
use crate::query::{Handles, QueryOptions, open_with};

/// A table being written. Dropping it without [`TableWriter::close`] closes the file, with
/// whatever DuckDB has written so far: the caller writes into a copy it can throw away.
pub struct TableWriter {
    duckdb: &'static Duckdb,
    handles: Arc<Handles>,
    table: String,
    schema: SchemaRef,
    rows: u64,
}

// SAFETY: DuckDB's handles may move between threads; a TableWriter is used by one thread at a
// time (`&mut self`).
unsafe impl Send for TableWriter {}

impl TableWriter {
    /// Opens the DuckDB file at `path` (created when missing) and starts `table` in its `main`
    /// schema with `schema`'s columns: `replace` replaces a table of that name, otherwise rows
    /// are appended to it (created when missing). DuckDB's memory is capped and its spill
    /// folder set as `options` say.
    ///
    /// # Errors
    ///
    /// [`crate::Error::Library`] without a usable libduckdb, [`crate::Error::Open`] when the
    /// file does not open, [`crate::Error::Query`] when the table cannot be made.
    pub fn open(
        path: &Path,
        table: &str,
        replace: bool,
        schema: SchemaRef,
        options: &QueryOptions,
    ) -> Result<TableWriter> {
        let duckdb = Duckdb::get()?;
        let handles = Handles::new(duckdb);
        let mut settings = writable_settings(options);
        settings.push(("enable_external_access", "false".into()));
        open_with(duckdb, &handles, Some(path), &settings)?;
        let writer = TableWriter {
            duckdb,
            handles,
            table: format!("main.{}", quote_identifier(table)),
            schema,
            rows: 0,
        };
        let create = if replace {
            "CREATE OR REPLACE TABLE"
        } else {
            "CREATE TABLE IF NOT EXISTS"
        };
        let empty = writer.input(Vec::new());
        scan_into(duckdb, writer.handles.connection(), 0, empty, |view| {
            format!("{create} {} AS SELECT * FROM {view} LIMIT 0", writer.table)
        })?;
        Ok(writer)
    }

    /// Appends `batch` (of the schema the table was opened with), its columns matched by name.
    ///
    /// # Errors
    ///
    /// [`crate::Error::Query`] when DuckDB refuses the rows (a column the table lacks, a type
    /// it cannot take).
    pub fn write(&mut self, batch: RecordBatch) -> Result<()> {
        let rows = batch.num_rows() as u64;
        let input = self.input(vec![batch]);
        let table = &self.table;
        scan_into(self.duckdb, self.handles.connection(), 0, input, |view| {
            format!("INSERT INTO {table} BY NAME SELECT * FROM {view}")
        })?;
        self.rows += rows;
        Ok(())
    }

    /// Checkpoints and closes the file; returns the rows written.
    ///
    /// # Errors
    ///
    /// [`crate::Error::Query`] when the checkpoint fails.
    pub fn close(self) -> Result<u64> {
        execute(self.duckdb, self.handles.connection(), "CHECKPOINT")?;
        Ok(self.rows)
    }

    fn input(&self, batches: Vec<RecordBatch>) -> Input {
        Input {
            name: "the stream".into(),
            reader: Box::new(RecordBatchIterator::new(
                batches.into_iter().map(Ok),
                self.schema.clone(),
            )),
        }
    }
}

impl std::fmt::Debug for TableWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableWriter")
            .field("table", &self.table)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}
