//! The routes the Python tool registers (`(source format, target format, engine)` → pipeline
//! class), which `ldp plan` reports as `route` and `pipeline`, in the order the Python tool lists
//! them (sorted by source, target, engine).

use crate::model::Format;

/// A registered route and the Python tool's pipeline class for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineRoute {
    /// The source format.
    pub source: Format,
    /// The target format.
    pub target: Format,
    /// The source engine the route needs (`BIGQUERY`), if any.
    pub engine: Option<&'static str>,
    /// The Python tool's class name (`CSVToIceberg`).
    pub pipeline: &'static str,
}

impl PipelineRoute {
    /// `CSV -> ICEBERG`, or `JSON -> CSV (engine BIGQUERY)`.
    pub fn label(&self) -> String {
        route_label(self.source.as_str(), self.target.as_str(), self.engine)
    }
}

/// Every route of the Python tool, as it lists them.
pub const PIPELINE_ROUTES: [PipelineRoute; 8] = [
    route(Format::Csv, Format::Iceberg, None, "CSVToIceberg"),
    route(Format::DuckDb, Format::Iceberg, None, "DuckDBToIceberg"),
    route(Format::Iceberg, Format::Csv, None, "IcebergToCSV"),
    route(Format::Iceberg, Format::Parquet, None, "IcebergToParquet"),
    route(Format::Json, Format::Csv, Some("BIGQUERY"), "BigQueryToCSV"),
    route(Format::Parquet, Format::Iceberg, None, "ParquetToIceberg"),
    route(Format::Xlsx, Format::Csv, None, "ExcelToCSV"),
    route(Format::Xlsx, Format::Iceberg, None, "ExcelToIceberg"),
];

/// The routes ldp runs beyond the Python tool's: every file format into a table, tables into
/// tables, files and DuckDB queries into files, and tables and files into newline-delimited
/// JSON, into XLSX workbooks and into tables of DuckDB files, and BigQuery queries into tables.
/// `ldp plan`
/// accepts them; its error for an unknown route lists the Python tool's routes only, as the
/// Python tool words it.
pub const LDP_ROUTES: [PipelineRoute; 30] = [
    route(Format::Json, Format::Iceberg, None, "JSONToIceberg"),
    route(Format::Iceberg, Format::Iceberg, None, "IcebergToIceberg"),
    route(Format::Csv, Format::Parquet, None, "CSVToParquet"),
    route(Format::Csv, Format::Csv, None, "CSVToCSV"),
    route(Format::Json, Format::Parquet, None, "JSONToParquet"),
    route(Format::Json, Format::Csv, None, "JSONToCSV"),
    route(Format::Parquet, Format::Csv, None, "ParquetToCSV"),
    route(Format::Parquet, Format::Parquet, None, "ParquetToParquet"),
    route(Format::Xlsx, Format::Parquet, None, "ExcelToParquet"),
    route(Format::Iceberg, Format::Json, None, "IcebergToJSON"),
    route(Format::Csv, Format::Json, None, "CSVToJSON"),
    route(Format::Json, Format::Json, None, "JSONToJSON"),
    route(Format::Parquet, Format::Json, None, "ParquetToJSON"),
    route(Format::Xlsx, Format::Json, None, "ExcelToJSON"),
    route(Format::DuckDb, Format::Csv, None, "DuckDBToCSV"),
    route(Format::DuckDb, Format::Parquet, None, "DuckDBToParquet"),
    route(Format::DuckDb, Format::Json, None, "DuckDBToJSON"),
    route(Format::Csv, Format::Xlsx, None, "CSVToExcel"),
    route(Format::Json, Format::Xlsx, None, "JSONToExcel"),
    route(Format::Parquet, Format::Xlsx, None, "ParquetToExcel"),
    route(Format::Iceberg, Format::Xlsx, None, "IcebergToExcel"),
    route(Format::Xlsx, Format::Xlsx, None, "ExcelToExcel"),
    route(Format::DuckDb, Format::Xlsx, None, "DuckDBToExcel"),
    route(Format::Csv, Format::DuckDb, None, "CSVToDuckDB"),
    route(Format::Json, Format::DuckDb, None, "JSONToDuckDB"),
    route(Format::Parquet, Format::DuckDb, None, "ParquetToDuckDB"),
    route(Format::Xlsx, Format::DuckDb, None, "ExcelToDuckDB"),
    route(Format::Iceberg, Format::DuckDb, None, "IcebergToDuckDB"),
    route(Format::DuckDb, Format::DuckDb, None, "DuckDBToDuckDB"),
    route(
        Format::Json,
        Format::Iceberg,
        Some("BIGQUERY"),
        "BigQueryToIceberg",
    ),
];

const fn route(
    source: Format,
    target: Format,
    engine: Option<&'static str>,
    pipeline: &'static str,
) -> PipelineRoute {
    PipelineRoute {
        source,
        target,
        engine,
        pipeline,
    }
}

/// The label of a route: `SOURCE -> TARGET`, with ` (engine E)` when the source names an
/// engine (any engine, registered or not).
pub fn route_label(source: &str, target: &str, engine: Option<&str>) -> String {
    match engine {
        Some(engine) => format!("{source} -> {target} (engine {engine})"),
        None => format!("{source} -> {target}"),
    }
}

/// The registered route for formats and an engine (upper-case); the engine must match exactly.
///
/// # Errors
///
/// The Python tool's message when none matches: `no pipeline is registered for CSV -> CSV.
/// Registered routes: CSV -> ICEBERG [CSVToIceberg]; ...`.
pub fn find_route(
    source: Format,
    target: Format,
    engine: Option<&str>,
) -> Result<&'static PipelineRoute, String> {
    PIPELINE_ROUTES
        .iter()
        .chain(LDP_ROUTES.iter())
        .find(|route| route.source == source && route.target == target && route.engine == engine)
        .ok_or_else(|| {
            let listed: Vec<String> = PIPELINE_ROUTES
                .iter()
                .map(|route| format!("{} [{}]", route.label(), route.pipeline))
                .collect();
            format!(
                "no pipeline is registered for {}. Registered routes: {}",
                route_label(source.as_str(), target.as_str(), engine),
                listed.join("; ")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        let found = find_route(Format::Csv, Format::Iceberg, None).expect("route");
        assert_eq!(
            (found.label(), found.pipeline),
            ("CSV -> ICEBERG".to_owned(), "CSVToIceberg")
        );
        let found = find_route(Format::Json, Format::Csv, Some("BIGQUERY")).expect("route");
        assert_eq!(found.label(), "JSON -> CSV (engine BIGQUERY)");
        // A JSON target is ldp's (no engine); with the BigQuery engine it is not a route.
        let found = find_route(Format::Iceberg, Format::Json, None).expect("route");
        assert_eq!(
            (found.label(), found.pipeline),
            ("ICEBERG -> JSON".to_owned(), "IcebergToJSON")
        );
        assert!(find_route(Format::Json, Format::Json, Some("BIGQUERY")).is_err());
        assert_eq!(
            find_route(Format::Csv, Format::Iceberg, Some("SPARK")).unwrap_err(),
            "no pipeline is registered for CSV -> ICEBERG (engine SPARK). Registered routes: \
             CSV -> ICEBERG [CSVToIceberg]; DUCKDB -> ICEBERG [DuckDBToIceberg]; \
             ICEBERG -> CSV [IcebergToCSV]; ICEBERG -> PARQUET [IcebergToParquet]; \
             JSON -> CSV (engine BIGQUERY) [BigQueryToCSV]; PARQUET -> ICEBERG [ParquetToIceberg]; \
             XLSX -> CSV [ExcelToCSV]; XLSX -> ICEBERG [ExcelToIceberg]"
        );
    }
}
