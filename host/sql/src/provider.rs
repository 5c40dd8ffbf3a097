//! One Iceberg snapshot as a DataFusion table: a listing table over the snapshot's live data
//! files that a query's filters may need (see [`crate::pruning`]), with the schema the snapshot
//! was written with. Data files on `s3://` and `gs://` are read through the object store of
//! their bucket, registered with the session on the first scan that needs it.

use std::any::Any;
use std::sync::Arc;

use arrow_schema::{Field, Schema, SchemaRef};
use datafusion::catalog::{Session as DfSession, TableProvider};
use datafusion::datasource::TableType;
use datafusion::datasource::empty::EmptyTable;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use ldp_table::Table;

use crate::error::Result;
use crate::pruning::{FileStats, keep};
use crate::statistics::ParquetWithStatistics;

/// The table as of `snapshot` (default: its current snapshot) as a DataFusion table.
///
/// The data files are the snapshot's live files from its manifests; columns are matched by name
/// and a column a file lacks reads as nulls. A scan opens only the files whose column bounds
/// may match its filters. A table without snapshots is an empty table with the table's schema.
///
/// # Errors
///
/// The snapshot does not exist, or the metadata, manifest list or manifests cannot be read.
pub fn snapshot_provider(table: &Table, snapshot: Option<i64>) -> Result<Arc<dyn TableProvider>> {
    let with_ids = table.arrow_schema_at(snapshot)?;
    let schema = plain_schema(&with_ids);
    let files: Vec<FileStats> = table
        .data_files(snapshot)?
        .iter()
        .map(|file| FileStats::new(file, &with_ids))
        .collect();
    if files.is_empty() {
        return Ok(Arc::new(EmptyTable::new(schema)));
    }
    tracing::debug!(
        table = table.identifier(),
        ?snapshot,
        files = files.len(),
        "registered a snapshot"
    );
    Ok(Arc::new(SnapshotTable { schema, files }))
}

/// For a table from [`snapshot_provider`]: the plain DataFusion listing table a scan with
/// `filters` reads, over the files its manifest bounds leave (the files and schema the local scan
/// opens), for a plan that runs in other processes (`ldp query --cluster`): DataFusion's own plan
/// codec ships a listing table with its file list and schema. When the bounds leave no file, the
/// listing holds the first file, whose rows the query's filters then drop (the filters are only
/// pushed down inexactly, so they stay in the plan). `None` when `provider` is not a snapshot's
/// table (a table without data files is an empty table).
///
/// # Errors
///
/// A data file's location is not a URL DataFusion can list.
pub fn shipped_listing(
    provider: &dyn TableProvider,
    filters: &[Expr],
    state: &dyn DfSession,
) -> datafusion::error::Result<Option<ListingTable>> {
    let Some(table) = provider.as_any().downcast_ref::<SnapshotTable>() else {
        return Ok(None);
    };
    let mut kept = keep(&table.files, &table.schema, filters, state);
    if kept.is_empty() {
        kept.extend(table.files.first());
    }
    // Plain Parquet without statistics: DataFusion's plan codec ships only its own formats.
    table.listing(&kept, None).map(Some)
}

/// The schema without field metadata (`PARQUET:field_id`), so files written by other tools, whose
/// fields carry other metadata, coerce to it.
fn plain_schema(schema: &SchemaRef) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| Field::new(f.name(), f.data_type().clone(), true))
        .collect();
    Arc::new(Schema::new(fields))
}

/// A snapshot's data files, pruned per scan.
#[derive(Debug)]
struct SnapshotTable {
    schema: SchemaRef,
    files: Vec<FileStats>,
}

impl SnapshotTable {
    /// The listing table over `files`. With the `state` of the session that plans it, it has
    /// the session's partitions and hands the planner each file's statistics
    /// ([`ParquetWithStatistics`]); without, it is plain Parquet, one partition, no statistics.
    fn listing(
        &self,
        files: &[&FileStats],
        state: Option<&dyn DfSession>,
    ) -> datafusion::error::Result<ListingTable> {
        let urls = files
            .iter()
            .map(|f| ListingTableUrl::parse(&f.uri))
            .collect::<datafusion::error::Result<Vec<_>>>()?;
        let options = match state {
            Some(state) => ListingOptions::new(Arc::new(ParquetWithStatistics::default()))
                .with_session_config_options(state.config()),
            None => ListingOptions::new(Arc::new(ParquetFormat::default())),
        }
        .with_file_extension(".parquet");
        let config = ListingTableConfig::new_with_multi_paths(urls)
            .with_listing_options(options)
            .with_schema(self.schema.clone());
        ListingTable::try_new(config)
    }
}

#[async_trait::async_trait]
impl TableProvider for SnapshotTable {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> datafusion::error::Result<Vec<TableProviderFilterPushDown>> {
        // Inexact: the filters choose files; DataFusion still filters their rows.
        Ok(vec![TableProviderFilterPushDown::Inexact; filters.len()])
    }

    async fn scan(
        &self,
        state: &dyn DfSession,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> datafusion::error::Result<Arc<dyn ExecutionPlan>> {
        let kept = keep(&self.files, &self.schema, filters, state);
        tracing::debug!(files = self.files.len(), kept = kept.len(), "pruned a scan");
        if kept.is_empty() {
            return EmptyTable::new(self.schema.clone())
                .scan(state, projection, filters, limit)
                .await;
        }
        register_object_stores(state.runtime_env(), &kept)?;
        self.listing(&kept, Some(state))?
            .scan(state, projection, filters, limit)
            .await
    }
}

/// Registers the object store of every bucket (`s3://bucket`) the data files `files` are in
/// and the session does not know yet, as `ldp-storage` builds it from the environment.
fn register_object_stores(
    runtime: &Arc<RuntimeEnv>,
    files: &[&FileStats],
) -> datafusion::error::Result<()> {
    for file in files {
        if !ldp_table::is_object_location(&file.uri) {
            continue;
        }
        let Some((scheme, rest)) = file.uri.split_once("://") else {
            continue;
        };
        let bucket = rest.split('/').next().unwrap_or_default();
        let url = ObjectStoreUrl::parse(format!("{scheme}://{bucket}"))?;
        if runtime.object_store(&url).is_ok() {
            continue;
        }
        let provider =
            ldp_storage::Provider::of_scheme(&scheme.to_ascii_lowercase()).ok_or_else(|| {
                datafusion::error::DataFusionError::Plan(format!(
                    "the data file {} is on {scheme}://, which this ldp does not read; \
                     ldp reads s3:// and gs://",
                    file.uri
                ))
            })?;
        let store = ldp_storage::bucket_store(provider, bucket)
            .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
        runtime.register_object_store(url.as_ref(), store);
        tracing::debug!(bucket, "registered the object store of a bucket");
    }
    Ok(())
}
