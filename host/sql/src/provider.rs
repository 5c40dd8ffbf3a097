//! One Iceberg snapshot as a DataFusion table: a listing table over the snapshot's live data
//! files, with the schema the snapshot was written with.

use std::sync::Arc;

use arrow_schema::{Field, Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::datasource::empty::EmptyTable;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use ldp_table::Table;

use crate::error::{Error, Result};

/// The table as of `snapshot` (default: its current snapshot) as a DataFusion table.
///
/// The data files are the snapshot's live files from its manifests; columns are matched by name
/// and a column a file lacks reads as nulls. A table without snapshots is an empty table with
/// the table's schema.
///
/// # Errors
///
/// The snapshot does not exist, or the metadata, manifest list or manifests cannot be read.
pub fn snapshot_provider(table: &Table, snapshot: Option<i64>) -> Result<Arc<dyn TableProvider>> {
    let schema = plain_schema(&table.arrow_schema_at(snapshot)?);
    let files = table.data_file_paths(snapshot)?;
    if files.is_empty() {
        return Ok(Arc::new(EmptyTable::new(schema)));
    }
    let urls = files
        .iter()
        .map(|uri| ListingTableUrl::parse(uri).map_err(Error::sql))
        .collect::<Result<Vec<_>>>()?;
    let options =
        ListingOptions::new(Arc::new(ParquetFormat::default())).with_file_extension(".parquet");
    let config = ListingTableConfig::new_with_multi_paths(urls)
        .with_listing_options(options)
        .with_schema(schema);
    let listing = ListingTable::try_new(config).map_err(Error::sql)?;
    tracing::debug!(
        table = table.identifier(),
        ?snapshot,
        files = files.len(),
        "registered a snapshot"
    );
    Ok(Arc::new(listing))
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
