//! The client side of a cluster query: tables registered at a snapshot, the plan shipped to the
//! scheduler with each snapshot's scan as a listing table over its files, the rows collected.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ballista_core::extension::{SessionConfigExt, SessionStateExt};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::MemorySchemaProvider;
use datafusion::common::tree_node::Transformed;
use datafusion::datasource::empty::EmptyTable;
use datafusion::datasource::{provider_as_source, source_as_provider};
use datafusion::error::DataFusionError;
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::context::{QueryPlanner, SQLOptions, SessionConfig, SessionContext};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::execution::session_state::SessionState;
use datafusion::logical_expr::{LogicalPlan, TableScan};
use datafusion::physical_plan::{ExecutionPlan, execute_stream};
use datafusion::sql::TableReference;
use futures_util::StreamExt;
use ldp_sql::{QUERY_STACK_BYTES, QueryOutput, TableName};
use ldp_table::Table;

use crate::error::{Error, Result};
use crate::stores::EnvObjectStores;
use crate::url::ClusterUrl;

/// A session whose queries run on a Ballista cluster.
pub struct ClusterSession {
    /// Always `Some` until the session drops.
    runtime: Option<tokio::runtime::Runtime>,
    context: SessionContext,
    url: ClusterUrl,
    /// The name of this session's jobs on the scheduler, unique to it: a query stopped by its
    /// time limit cancels its jobs by this name.
    job_name: String,
    /// Data files the last query's scans shipped.
    files: Arc<AtomicUsize>,
}

impl std::fmt::Debug for ClusterSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterSession")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl ClusterSession {
    /// A session on the scheduler at `url`, checked to answer and to have an executor.
    ///
    /// # Errors
    ///
    /// [`Error::Unreachable`] when nothing answers at `url`, [`Error::NoExecutor`] when the
    /// scheduler has no executor, [`Error::Runtime`] when the async runtime cannot start.
    pub fn connect(url: &ClusterUrl) -> Result<ClusterSession> {
        if crate::rest::executors(url)?.is_empty() {
            return Err(Error::NoExecutor {
                url: url.to_string(),
            });
        }
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(cores)
            .thread_name("ldp-cluster")
            .thread_stack_size(QUERY_STACK_BYTES)
            .enable_all()
            .build()
            .map_err(Error::Runtime)?;
        let job_name = format!(
            "ldp-query-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        );
        let config = SessionConfig::new_with_ballista()
            .with_ballista_job_name(&job_name)
            .with_target_partitions(cores)
            .with_information_schema(true);
        let stores = RuntimeEnvBuilder::new()
            .with_object_store_registry(Arc::new(EnvObjectStores::new()))
            .build_arc()
            .map_err(sql_error)?;
        let state = SessionStateBuilder::new()
            .with_default_features()
            .with_config(config)
            .with_runtime_env(stores)
            .build()
            .upgrade_for_ballista(url.grpc())
            .map_err(sql_error)?;
        let files = Arc::new(AtomicUsize::new(0));
        let planner = ShipSnapshots {
            inner: Arc::clone(state.query_planner()),
            files: Arc::clone(&files),
        };
        let state = SessionStateBuilder::new_from_existing(state)
            .with_query_planner(Arc::new(planner))
            .build();
        Ok(ClusterSession {
            runtime: Some(runtime),
            context: SessionContext::new_with_state(state),
            url: url.clone(),
            job_name,
            files,
        })
    }

    /// Registers `table` as of `snapshot` (default: current) under every name in `names`, as
    /// [`ldp_sql::Session::register`] does.
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
        let provider = ldp_sql::snapshot_provider(table, snapshot)?;
        for name in names {
            let reference = match name.namespace() {
                Some(namespace) => {
                    self.ensure_schema(namespace)?;
                    TableReference::partial(namespace, name.name())
                }
                None => TableReference::bare(name.name()),
            };
            self.context
                .register_table(reference, Arc::clone(&provider))
                .map_err(sql_error)?;
        }
        Ok(())
    }

    fn ensure_schema(&self, namespace: &str) -> Result<()> {
        let catalog = self.context.catalog("datafusion").ok_or_else(|| {
            Error::Sql(ldp_sql::Error::Sql {
                message: "the default catalog is missing".into(),
            })
        })?;
        if catalog.schema(namespace).is_none() {
            catalog
                .register_schema(namespace, Arc::new(MemorySchemaProvider::new()))
                .map_err(sql_error)?;
        }
        Ok(())
    }

    /// Runs one read-only query on the cluster (the local query's guard: the nesting limits,
    /// no DDL, DML or statements), keeping its first `max_rows` rows and counting the rest.
    /// With a `limit`, the client stops waiting at it and cancels the query's jobs on the
    /// scheduler, which stops their tasks on the executors.
    ///
    /// # Errors
    ///
    /// As [`ldp_sql::Session::query`]; a failure on the cluster is an execution error, and a
    /// query past its `limit` a timeout error.
    pub fn query(
        &self,
        sql: &str,
        max_rows: usize,
        limit: Option<Duration>,
    ) -> Result<QueryOutput> {
        let task = run(
            self.context.clone(),
            sql.to_owned(),
            max_rows,
            Arc::clone(&self.files),
        );
        let runtime = self.runtime();
        let mut handle = runtime.spawn(task);
        let joined = match limit {
            None => runtime.block_on(&mut handle),
            Some(limit) => {
                match runtime.block_on(async { tokio::time::timeout(limit, &mut handle).await }) {
                    Ok(joined) => joined,
                    Err(_) => {
                        handle.abort();
                        match crate::rest::cancel_jobs_named(&self.url, &self.job_name) {
                            Ok(n) => tracing::debug!(jobs = n, "cancelled the query's jobs"),
                            Err(e) => tracing::warn!("could not cancel the query's jobs: {e}"),
                        }
                        return Err(Error::Sql(ldp_sql::Error::Timeout {
                            seconds: limit.as_secs_f64(),
                        }));
                    }
                }
            }
        };
        joined.unwrap_or_else(|_| {
            Err(Error::Sql(ldp_sql::Error::Execution {
                message: "the query stopped on an internal error of the engine".into(),
            }))
        })
    }

    fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime
            .as_ref()
            .expect("the runtime lives as long as the session")
    }
}

impl Drop for ClusterSession {
    fn drop(&mut self) {
        // The runtime's threads are stopped before the process goes on (and may exit): a
        // thread of Ballista's client still running while the process exits can crash it.
        // Inside another runtime a blocking wait is not allowed, so there it is left to stop.
        if let Some(runtime) = self.runtime.take() {
            if tokio::runtime::Handle::try_current().is_ok() {
                runtime.shutdown_background();
            } else {
                runtime.shutdown_timeout(Duration::from_secs(2));
            }
        }
    }
}

async fn run(
    context: SessionContext,
    sql: String,
    max_rows: usize,
    files: Arc<AtomicUsize>,
) -> Result<QueryOutput> {
    ldp_sql::check_nesting(&sql)?;
    let options = SQLOptions::new()
        .with_allow_ddl(false)
        .with_allow_dml(false)
        .with_allow_statements(false);
    let frame = context
        .sql_with_options(&sql, options)
        .await
        .map_err(sql_error)?;
    let schema: SchemaRef = Arc::new(frame.schema().as_arrow().clone());
    let task = Arc::new(frame.task_ctx());
    files.store(0, Ordering::Relaxed);
    let plan = frame
        .create_physical_plan()
        .await
        .map_err(execution_error)?;
    let mut stream = execute_stream(plan, task).map_err(execution_error)?;
    let mut batches = Vec::new();
    let mut kept = 0usize;
    let mut total_rows = 0u64;
    while let Some(batch) = stream.next().await {
        let batch = batch.map_err(execution_error)?;
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
        files_scanned: files.load(Ordering::Relaxed),
    })
}

/// The query planner of a cluster session: the optimized plan's snapshot scans become listing
/// tables over their files, then Ballista's planner sends the plan to the scheduler.
#[derive(Debug)]
struct ShipSnapshots {
    inner: Arc<dyn QueryPlanner + Send + Sync>,
    files: Arc<AtomicUsize>,
}

#[async_trait::async_trait]
impl QueryPlanner for ShipSnapshots {
    async fn create_physical_plan(
        &self,
        plan: &LogicalPlan,
        state: &SessionState,
    ) -> datafusion::error::Result<Arc<dyn ExecutionPlan>> {
        let mut files = 0usize;
        let shipped = plan
            .clone()
            .transform_up_with_subqueries(|node| ship_scan(node, state, &mut files))?
            .data;
        self.files.fetch_add(files, Ordering::Relaxed);
        self.inner.create_physical_plan(&shipped, state).await
    }
}

/// A scan of a snapshot's table as a scan of a listing table over the files it needs.
fn ship_scan(
    node: LogicalPlan,
    state: &SessionState,
    files: &mut usize,
) -> datafusion::error::Result<Transformed<LogicalPlan>> {
    let LogicalPlan::TableScan(scan) = node else {
        return Ok(Transformed::no(node));
    };
    let Ok(provider) = source_as_provider(&scan.source) else {
        return Ok(Transformed::no(LogicalPlan::TableScan(scan)));
    };
    if provider.as_any().is::<EmptyTable>() {
        return Err(DataFusionError::NotImplemented(format!(
            "table {} has no data files in the snapshot read, and ldp query --cluster cannot ship an empty table yet; run the query without --cluster",
            scan.table_name
        )));
    }
    match ldp_sql::shipped_listing(provider.as_ref(), &scan.filters, state)? {
        Some(listing) => {
            *files += listing.table_paths().len();
            Ok(Transformed::yes(LogicalPlan::TableScan(TableScan {
                source: provider_as_source(Arc::new(listing)),
                ..scan
            })))
        }
        None => Ok(Transformed::no(LogicalPlan::TableScan(scan))),
    }
}

fn sql_error(e: DataFusionError) -> Error {
    Error::Sql(ldp_sql::Error::Sql {
        message: e.find_root().to_string(),
    })
}

fn execution_error(e: DataFusionError) -> Error {
    Error::Sql(ldp_sql::Error::Execution {
        message: e.find_root().to_string(),
    })
}

impl ldp_sql::Engine for ClusterSession {
    fn register(
        &self,
        table: &Table,
        snapshot: Option<i64>,
        names: &[TableName],
    ) -> ldp_sql::Result<()> {
        ClusterSession::register(self, table, snapshot, names).map_err(into_sql)
    }

    fn query(
        &self,
        sql: &str,
        max_rows: usize,
        limit: Option<Duration>,
    ) -> ldp_sql::Result<QueryOutput> {
        ClusterSession::query(self, sql, max_rows, limit).map_err(into_sql)
    }
}

/// The factory of sessions on the cluster at `url` (each one connects, and checks that the
/// scheduler has an executor), for the callers that take any [`ldp_sql::Engine`].
pub fn cluster_engine(url: ClusterUrl) -> ldp_sql::EngineFactory {
    ldp_sql::EngineFactory::new(url.to_string(), move || {
        let session = ClusterSession::connect(&url).map_err(into_sql)?;
        Ok(Box::new(session) as Box<dyn ldp_sql::Engine>)
    })
}

/// A cluster error as the SQL layer's: its own, or a failed run with the cluster's message.
fn into_sql(e: Error) -> ldp_sql::Error {
    match e {
        Error::Sql(e) => e,
        other => ldp_sql::Error::Execution {
            message: other.to_string(),
        },
    }
}
