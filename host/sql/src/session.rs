//! A read-only DataFusion session over registered tables, and running one query in it.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use datafusion::catalog::MemorySchemaProvider;
use datafusion::datasource::physical_plan::FileScanConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::context::{SQLOptions, SessionConfig, SessionContext};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::physical_plan::{ExecutionPlan, execute_stream};
use datafusion::sql::TableReference;
use futures_util::StreamExt;
use ldp_table::Table;

use crate::error::{Error, Result};
use crate::provider::snapshot_provider;

/// A name a table is registered under: `rides` or `nyc.rides`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableName {
    namespace: Option<String>,
    name: String,
}

impl TableName {
    /// A bare name (`rides`).
    pub fn bare(name: impl Into<String>) -> TableName {
        TableName {
            namespace: None,
            name: name.into(),
        }
    }

    /// A qualified name (`nyc.rides`).
    pub fn qualified(namespace: impl Into<String>, name: impl Into<String>) -> TableName {
        TableName {
            namespace: Some(namespace.into()),
            name: name.into(),
        }
    }
}

impl std::fmt::Display for TableName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{ns}.{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// What a query gave: its schema, its first rows and how many rows it had in all.
#[derive(Debug, Clone)]
pub struct QueryOutput {
    /// The result's schema.
    pub schema: SchemaRef,
    /// At most `max_rows` rows, in order.
    pub batches: Vec<RecordBatch>,
    /// Every row the query produced (rows past `max_rows` are counted, not kept).
    pub total_rows: u64,
    /// Data files the query's scans open (after skipping the files whose column bounds exclude
    /// its filters).
    pub files_scanned: usize,
}

/// How a [`Session`] runs its queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SessionOptions {
    /// Partitions a scan is split into (and threads of the runtime); one per core when `None`.
    /// One partition reads the files in path order, so the same query over the same
    /// snapshot gives its rows in the same order every time.
    pub partitions: Option<usize>,
    /// The most memory the query's operators may hold (bytes); unbounded when `None`. A query
    /// that needs more fails with DataFusion's resources-exhausted error.
    pub memory_limit: Option<usize>,
}

/// A DataFusion session: tables registered at a snapshot, queries that only read.
pub struct Session {
    runtime: tokio::runtime::Runtime,
    context: SessionContext,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").finish_non_exhaustive()
    }
}

impl Session {
    /// A session that scans with one partition per core.
    ///
    /// # Errors
    ///
    /// The async runtime cannot start.
    pub fn new() -> Result<Session> {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Session::with_partitions(cores)
    }

    /// A session that scans with `partitions` partitions (at least 1).
    ///
    /// With one partition a query's rows come out in a fixed order: a table's data files are
    /// read one after the other, in the order of their paths, each from its first row group to
    /// its last, and no operator repartitions them. The same query on the same snapshot then
    /// gives the same rows in the same order every time (pinned dataset versions rely on it).
    ///
    /// # Errors
    ///
    /// The async runtime cannot start.
    pub fn with_partitions(partitions: usize) -> Result<Session> {
        Session::with_options(SessionOptions {
            partitions: Some(partitions),
            memory_limit: None,
        })
    }

    /// A session with `options` (partitions, memory limit).
    ///
    /// # Errors
    ///
    /// The async runtime cannot start.
    pub fn with_options(options: SessionOptions) -> Result<Session> {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let partitions = options.partitions.unwrap_or(cores).max(1);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(partitions)
            .thread_name("ldp-sql")
            .enable_all()
            .build()
            .map_err(Error::Runtime)?;
        let config = SessionConfig::new()
            .with_target_partitions(partitions)
            .with_information_schema(true);
        let context = match options.memory_limit {
            Some(bytes) => {
                let env = RuntimeEnvBuilder::new()
                    .with_memory_limit(bytes, 1.0)
                    .build_arc()
                    .map_err(Error::sql)?;
                SessionContext::new_with_config_rt(config, env)
            }
            None => SessionContext::new_with_config(config),
        };
        Ok(Session { runtime, context })
    }

    /// Registers `table` as of `snapshot` (default: current) under every name in `names`.
    ///
    /// # Errors
    ///
    /// The snapshot does not exist or the table's metadata cannot be read.
    pub fn register(
        &self,
        table: &Table,
        snapshot: Option<i64>,
        names: &[TableName],
    ) -> Result<()> {
        let provider = snapshot_provider(table, snapshot)?;
        for name in names {
            let reference = match &name.namespace {
                Some(namespace) => {
                    self.ensure_schema(namespace)?;
                    TableReference::partial(namespace.as_str(), name.name.as_str())
                }
                None => TableReference::bare(name.name.as_str()),
            };
            self.context
                .register_table(reference, Arc::clone(&provider))
                .map_err(Error::sql)?;
        }
        Ok(())
    }

    fn ensure_schema(&self, namespace: &str) -> Result<()> {
        let catalog = self
            .context
            .catalog("datafusion")
            .ok_or_else(|| Error::Sql {
                message: "the default catalog is missing".into(),
            })?;
        if catalog.schema(namespace).is_none() {
            catalog
                .register_schema(namespace, Arc::new(MemorySchemaProvider::new()))
                .map_err(Error::sql)?;
        }
        Ok(())
    }

    /// Runs one read-only query, keeping its first `max_rows` rows and counting the rest.
    ///
    /// # Errors
    ///
    /// [`Error::Sql`] when the SQL does not parse or plan (or is DDL, DML or a statement such as
    /// `SET`); [`Error::Execution`] when it fails while running.
    pub fn query(&self, sql: &str, max_rows: usize) -> Result<QueryOutput> {
        self.runtime.block_on(self.run(sql, max_rows))
    }

    /// As [`Session::query`], stopped after `limit`: [`Error::Timeout`].
    ///
    /// # Errors
    ///
    /// As [`Session::query`], and [`Error::Timeout`] when it runs longer than `limit`.
    pub fn query_within(
        &self,
        sql: &str,
        max_rows: usize,
        limit: std::time::Duration,
    ) -> Result<QueryOutput> {
        self.runtime.block_on(async {
            match tokio::time::timeout(limit, self.run(sql, max_rows)).await {
                Ok(result) => result,
                Err(_) => Err(Error::Timeout {
                    seconds: limit.as_secs_f64(),
                }),
            }
        })
    }

    async fn run(&self, sql: &str, max_rows: usize) -> Result<QueryOutput> {
        {
            let options = SQLOptions::new()
                .with_allow_ddl(false)
                .with_allow_dml(false)
                .with_allow_statements(false);
            let frame = self
                .context
                .sql_with_options(sql, options)
                .await
                .map_err(Error::sql)?;
            let schema: SchemaRef = Arc::new(frame.schema().as_arrow().clone());
            let task = Arc::new(frame.task_ctx());
            let plan = frame
                .create_physical_plan()
                .await
                .map_err(Error::execution)?;
            let files_scanned = files_in(plan.as_ref());
            let mut stream = execute_stream(plan, task).map_err(Error::execution)?;
            let mut batches = Vec::new();
            let mut kept = 0usize;
            let mut total_rows = 0u64;
            while let Some(batch) = stream.next().await {
                let batch = batch.map_err(Error::execution)?;
                total_rows += batch.num_rows() as u64;
                if kept < max_rows {
                    let take = batch.num_rows().min(max_rows - kept);
                    kept += take;
                    batches.push(batch.slice(0, take));
                }
            }
            Ok(QueryOutput {
                schema,
                batches,
                total_rows,
                files_scanned,
            })
        }
    }
}

/// The data files the scans of `plan` open.
fn files_in(plan: &dyn ExecutionPlan) -> usize {
    let here = plan
        .as_any()
        .downcast_ref::<DataSourceExec>()
        .and_then(|exec| exec.data_source().as_any().downcast_ref::<FileScanConfig>())
        .map_or(0, |config| config.file_groups.iter().map(|g| g.len()).sum());
    here + plan
        .children()
        .into_iter()
        .map(|child| files_in(child.as_ref()))
        .sum::<usize>()
}
