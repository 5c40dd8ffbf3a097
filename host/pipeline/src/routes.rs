//! The source → target routes (`ldp pipelines`): the config crate's table of the routes that
//! exist (the Python tool's eight, with its pipeline class names, then ldp's own:
//! `docs/formats.md`), and which of them this build runs, with what.

use std::sync::LazyLock;

use ldp_config::{Config, Format, PipelineRoute};

use crate::error::{Error, Result};

/// One route, and the plugins that run it in this build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// Source format.
    pub source: Format,
    /// Target format.
    pub target: Format,
    /// `BIGQUERY` for the BigQuery route.
    pub engine: Option<&'static str>,
    /// The Python tool's pipeline class name (reported by plan and the demo).
    pub pipeline: &'static str,
    /// The plugins (or `host`) that read the source and write the target, when this build
    /// runs the route.
    pub plugin: Option<&'static str>,
}

/// What runs each route, by pipeline class. Which routes exist is the config crate's table
/// (`ldp_config::PIPELINE_ROUTES` and `LDP_ROUTES`, what `ldp plan` reports); a route missing
/// here is listed as not available yet.
const PLUGINS: [(&str, &str); 38] = [
    ("CSVToIceberg", "csv"),
    ("DuckDBToIceberg", "duckdb (host: libduckdb)"),
    ("IcebergToCSV", "host → csv-sink"),
    ("BigQueryToCSV", "bigquery (host: token) → csv-sink"),
    ("IcebergToParquet", "host → parquet-sink"),
    ("ParquetToIceberg", "parquet"),
    ("ExcelToCSV", "xlsx → csv-sink"),
    ("ExcelToIceberg", "xlsx"),
    ("JSONToIceberg", "json"),
    ("IcebergToIceberg", "host"),
    ("CSVToParquet", "csv → parquet-sink"),
    ("CSVToCSV", "csv → csv-sink"),
    ("JSONToParquet", "json → parquet-sink"),
    ("JSONToCSV", "json → csv-sink"),
    ("ParquetToCSV", "parquet → csv-sink"),
    ("ParquetToParquet", "parquet → parquet-sink"),
    ("ExcelToParquet", "xlsx → parquet-sink"),
    ("IcebergToJSON", "host → json-sink"),
    ("CSVToJSON", "csv → json-sink"),
    ("JSONToJSON", "json → json-sink"),
    ("ParquetToJSON", "parquet → json-sink"),
    ("ExcelToJSON", "xlsx → json-sink"),
    ("DuckDBToCSV", "duckdb (host: libduckdb) → csv-sink"),
    ("DuckDBToParquet", "duckdb (host: libduckdb) → parquet-sink"),
    ("DuckDBToJSON", "duckdb (host: libduckdb) → json-sink"),
    ("CSVToExcel", "csv → xlsx-sink"),
    ("JSONToExcel", "json → xlsx-sink"),
    ("ParquetToExcel", "parquet → xlsx-sink"),
    ("IcebergToExcel", "host → xlsx-sink"),
    ("ExcelToExcel", "xlsx → xlsx-sink"),
    ("DuckDBToExcel", "duckdb (host: libduckdb) → xlsx-sink"),
    ("CSVToDuckDB", "csv → duckdb-sink (host: libduckdb)"),
    ("JSONToDuckDB", "json → duckdb-sink (host: libduckdb)"),
    ("ParquetToDuckDB", "parquet → duckdb-sink (host: libduckdb)"),
    ("ExcelToDuckDB", "xlsx → duckdb-sink (host: libduckdb)"),
    ("IcebergToDuckDB", "host → duckdb-sink (host: libduckdb)"),
    (
        "DuckDBToDuckDB",
        "duckdb (host: libduckdb) → duckdb-sink (host: libduckdb)",
    ),
    ("BigQueryToIceberg", "bigquery (host: token)"),
];

/// Every route, in the config crate's order: the Python tool's as it lists them, then the
/// routes only ldp runs; each with the plugins that run it.
pub static ROUTES: LazyLock<Vec<Route>> = LazyLock::new(|| {
    ldp_config::PIPELINE_ROUTES
        .iter()
        .chain(ldp_config::LDP_ROUTES.iter())
        .map(with_plugin)
        .collect()
});

/// A route of the config crate's table, with what runs it.
fn with_plugin(route: &PipelineRoute) -> Route {
    Route {
        source: route.source,
        target: route.target,
        engine: route.engine,
        pipeline: route.pipeline,
        plugin: PLUGINS
            .iter()
            .find(|(pipeline, _)| *pipeline == route.pipeline)
            .map(|(_, plugin)| *plugin),
    }
}

/// How many of [`ROUTES`] are the Python tool's (the others are ldp's own).
pub const REFERENCE_ROUTES: usize = ldp_config::PIPELINE_ROUTES.len();

/// The route of a config.
///
/// # Errors
///
/// [`Error::Unsupported`]: no route matches (the Python tool's message, every route listed), or
/// the route exists but this build does not run it yet.
pub fn check(config: &Config) -> Result<Route> {
    let (source, target) = (config.source(), config.target());
    let engine = source.engine.as_deref().filter(|e| *e == "BIGQUERY");
    // The config crate's table (the one `ldp plan` reports) decides whether a route exists,
    // with the Python tool's message; `PLUGINS` says what runs it.
    let known = ldp_config::find_route(source.format, target.format, engine)
        .map_err(|message| Error::Unsupported { message })?;
    let found = with_plugin(known);
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
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every plugin entry names a route of the config crate's table, once, and every route has
    /// one.
    #[test]
    fn plugins_name_known_routes() {
        for (pipeline, _) in PLUGINS {
            let listed = ROUTES.iter().filter(|r| r.pipeline == pipeline).count();
            assert_eq!(listed, 1, "{pipeline}");
        }
        let missing: Vec<&str> = ROUTES
            .iter()
            .filter(|r| r.plugin.is_none())
            .map(|r| r.pipeline)
            .collect();
        assert!(missing.is_empty(), "{missing:?}");
        assert_eq!(ROUTES[..REFERENCE_ROUTES].len(), 8);
        assert_eq!(ROUTES[0].pipeline, "CSVToIceberg");
    }
}
