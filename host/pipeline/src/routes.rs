//! The source → target routes (`ldp pipelines`): the Python tool's eight, with its pipeline
//! class names, then ldp's own (`docs/formats.md`), and which of them this build runs.

use ldp_config::{Config, Format};

use crate::error::{Error, Result};

/// One route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// Source format.
    pub source: Format,
    /// Target format.
    pub target: Format,
    /// `BIGQUERY` for the BigQuery route.
    pub engine: Option<&'static str>,
    /// The reference's pipeline class name (reported by plan and the demo).
    pub pipeline: &'static str,
    /// The plugins (or `host`) that read the source and write the target, when this build
    /// runs the route.
    pub plugin: Option<&'static str>,
}

/// Every route of the reference, sorted as it lists them, then the routes only ldp runs.
pub const ROUTES: [Route; 25] = [
    route(
        Format::Csv,
        Format::Iceberg,
        None,
        "CSVToIceberg",
        Some("csv"),
    ),
    route(
        Format::DuckDb,
        Format::Iceberg,
        None,
        "DuckDBToIceberg",
        Some("duckdb (host: libduckdb)"),
    ),
    route(
        Format::Iceberg,
        Format::Csv,
        None,
        "IcebergToCSV",
        Some("host → csv-sink"),
    ),
    route(
        Format::Iceberg,
        Format::Parquet,
        None,
        "IcebergToParquet",
        Some("host → parquet-sink"),
    ),
    route(
        Format::Json,
        Format::Csv,
        Some("BIGQUERY"),
        "BigQueryToCSV",
        None,
    ),
    route(
        Format::Parquet,
        Format::Iceberg,
        None,
        "ParquetToIceberg",
        Some("parquet"),
    ),
    route(
        Format::Xlsx,
        Format::Csv,
        None,
        "ExcelToCSV",
        Some("xlsx → csv-sink"),
    ),
    route(
        Format::Xlsx,
        Format::Iceberg,
        None,
        "ExcelToIceberg",
        Some("xlsx"),
    ),
    // ldp only: every file format into a table, tables into tables, files into files.
    route(
        Format::Json,
        Format::Iceberg,
        None,
        "JSONToIceberg",
        Some("json"),
    ),
    route(
        Format::Iceberg,
        Format::Iceberg,
        None,
        "IcebergToIceberg",
        Some("host"),
    ),
    route(
        Format::Csv,
        Format::Parquet,
        None,
        "CSVToParquet",
        Some("csv → parquet-sink"),
    ),
    route(
        Format::Csv,
        Format::Csv,
        None,
        "CSVToCSV",
        Some("csv → csv-sink"),
    ),
    route(
        Format::Json,
        Format::Parquet,
        None,
        "JSONToParquet",
        Some("json → parquet-sink"),
    ),
    route(
        Format::Json,
        Format::Csv,
        None,
        "JSONToCSV",
        Some("json → csv-sink"),
    ),
    route(
        Format::Parquet,
        Format::Csv,
        None,
        "ParquetToCSV",
        Some("parquet → csv-sink"),
    ),
    route(
        Format::Parquet,
        Format::Parquet,
        None,
        "ParquetToParquet",
        Some("parquet → parquet-sink"),
    ),
    route(
        Format::Xlsx,
        Format::Parquet,
        None,
        "ExcelToParquet",
        Some("xlsx → parquet-sink"),
    ),
    // ldp only: tables and files into newline-delimited JSON.
    route(
        Format::Iceberg,
        Format::Json,
        None,
        "IcebergToJSON",
        Some("host → json-sink"),
    ),
    route(
        Format::Csv,
        Format::Json,
        None,
        "CSVToJSON",
        Some("csv → json-sink"),
    ),
    route(
        Format::Json,
        Format::Json,
        None,
        "JSONToJSON",
        Some("json → json-sink"),
    ),
    route(
        Format::Parquet,
        Format::Json,
        None,
        "ParquetToJSON",
        Some("parquet → json-sink"),
    ),
    route(
        Format::Xlsx,
        Format::Json,
        None,
        "ExcelToJSON",
        Some("xlsx → json-sink"),
    ),
    route(
        Format::DuckDb,
        Format::Csv,
        None,
        "DuckDBToCSV",
        Some("duckdb (host: libduckdb) → csv-sink"),
    ),
    route(
        Format::DuckDb,
        Format::Parquet,
        None,
        "DuckDBToParquet",
        Some("duckdb (host: libduckdb) → parquet-sink"),
    ),
    route(
        Format::DuckDb,
        Format::Json,
        None,
        "DuckDBToJSON",
        Some("duckdb (host: libduckdb) → json-sink"),
    ),
];

/// How many of [`ROUTES`] are the reference's (the others are ldp's own).
pub const REFERENCE_ROUTES: usize = 8;

const fn route(
    source: Format,
    target: Format,
    engine: Option<&'static str>,
    pipeline: &'static str,
    plugin: Option<&'static str>,
) -> Route {
    Route {
        source,
        target,
        engine,
        pipeline,
        plugin,
    }
}

/// The route of a config.
///
/// # Errors
///
/// [`Error::Unsupported`]: no route matches (the reference's message, every route listed), or
/// the route exists but this build does not run it yet.
pub fn check(config: &Config) -> Result<Route> {
    let (source, target) = (config.source(), config.target());
    let engine = source.engine.as_deref().filter(|e| *e == "BIGQUERY");
    // The config crate's table (the one `ldp plan` reports) decides whether a route exists,
    // with the reference's message; this one says which plugins run it.
    let known = ldp_config::find_route(source.format, target.format, engine)
        .map_err(|message| Error::Unsupported { message })?;
    let Some(found) = ROUTES.iter().find(|r| r.pipeline == known.pipeline) else {
        return Err(Error::Unsupported {
            message: format!(
                "the route {} ({}) is not available in this ldp yet",
                known.label(),
                known.pipeline
            ),
        });
    };
    if found.plugin.is_none() {
        return Err(Error::Unsupported {
            message: format!(
                "the route {} -> {} ({}) is not available in this ldp yet; 'ldp pipelines' lists the routes it runs",
                found.source.as_str(),
                found.target.as_str(),
                found.pipeline
            ),
        });
    }
    Ok(*found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two tables (the config crate's, which `ldp plan` reports, and this one, which names
    /// the plugins) list the same routes, the reference's first, in the same order.
    #[test]
    fn the_route_tables_agree() {
        let config: Vec<_> = ldp_config::PIPELINE_ROUTES
            .iter()
            .chain(ldp_config::LDP_ROUTES.iter())
            .map(|r| (r.source, r.target, r.engine, r.pipeline))
            .collect();
        let ours: Vec<_> = ROUTES
            .iter()
            .map(|r| (r.source, r.target, r.engine, r.pipeline))
            .collect();
        assert_eq!(config, ours);
        assert_eq!(ldp_config::PIPELINE_ROUTES.len(), REFERENCE_ROUTES);
    }
}
