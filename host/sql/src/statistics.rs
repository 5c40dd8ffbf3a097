//! What the planner knows of a snapshot's files before it reads them: each file's Parquet footer
//! statistics (row count, null counts, bounds), from which DataFusion orders joins, picks their
//! build sides and answers `count(*)` without a scan; less the bounds of float columns.
//!
//! Parquet statistics leave NaN out of a float column's bounds, and DataFusion 53's Parquet
//! reader reads a column whose bounds are equal and which has no nulls as that one value: a file
//! of `[10.0, NaN]` would read as `[10.0, 10.0]`. So a float column's bounds are withheld
//! (its null count and the row count stay); the test `a_float_column_with_nan_reads_its_nan`
//! pins it.

use std::any::Any;
use std::sync::Arc;

use arrow_schema::{DataType, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::stats::Precision;
use datafusion::common::{Result, Statistics};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::file_format::{FileFormat, FileMeta};
use datafusion::datasource::physical_plan::{FileScanConfig, FileSinkConfig, FileSource};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::object_store::{ObjectMeta, ObjectStore};
use datafusion::physical_expr::{LexOrdering, LexRequirement};
use datafusion::physical_plan::ExecutionPlan;

/// Parquet whose files' statistics reach the planner without the bounds of float columns.
#[derive(Debug, Default)]
pub(crate) struct ParquetWithStatistics {
    parquet: ParquetFormat,
}

/// `statistics` without the bounds of the float columns of `schema`.
fn without_float_bounds(mut statistics: Statistics, schema: &SchemaRef) -> Statistics {
    for (column, field) in statistics.column_statistics.iter_mut().zip(schema.fields()) {
        if matches!(
            field.data_type(),
            DataType::Float16 | DataType::Float32 | DataType::Float64
        ) {
            column.min_value = Precision::Absent;
            column.max_value = Precision::Absent;
        }
    }
    statistics
}

#[async_trait::async_trait]
impl FileFormat for ParquetWithStatistics {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn get_ext(&self) -> String {
        self.parquet.get_ext()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        self.parquet.get_ext_with_compression(compression)
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        self.parquet.compression_type()
    }

    async fn infer_schema(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        self.parquet.infer_schema(state, store, objects).await
    }

    async fn infer_stats(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        let statistics = self
            .parquet
            .infer_stats(state, store, Arc::clone(&table_schema), object)
            .await?;
        Ok(without_float_bounds(statistics, &table_schema))
    }

    async fn infer_ordering(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Option<LexOrdering>> {
        self.parquet
            .infer_ordering(state, store, table_schema, object)
            .await
    }

    async fn infer_stats_and_ordering(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<FileMeta> {
        let mut meta = self
            .parquet
            .infer_stats_and_ordering(state, store, Arc::clone(&table_schema), object)
            .await?;
        meta.statistics = without_float_bounds(meta.statistics, &table_schema);
        Ok(meta)
    }

    async fn create_physical_plan(
        &self,
        state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.parquet.create_physical_plan(state, conf).await
    }

    async fn create_writer_physical_plan(
        &self,
        input: Arc<dyn ExecutionPlan>,
        state: &dyn Session,
        conf: FileSinkConfig,
        order_requirements: Option<LexRequirement>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.parquet
            .create_writer_physical_plan(input, state, conf, order_requirements)
            .await
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        self.parquet.file_source(table_schema)
    }
}
