//! The OpenLineage constants of the Python tool: producer, schema URLs, and the facet envelope.

use serde_json::{Map, Value};

/// The `producer` of every event and facet: the Python tool's repository at its version.
pub const PRODUCER: &str = "https://github.com/tusharchou/local-data-platform/tree/v0.1.3";

/// The `schemaURL` of every event.
pub const RUN_EVENT_SCHEMA_URL: &str =
    "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent";

/// The `_schemaURL` of the custom `ldp_run` run facet.
pub const LDP_RUN_SCHEMA_URL: &str =
    "https://local-data-platform.readthedocs.io/observability/#openlineage";

/// The `_schemaURL` of the custom `ldp_monitor` run facet of a monitor's alert: ldp's own (the
/// Python tool has no such facet), a URN since ldp publishes no schema document; the fields
/// are described in `docs/status.md`.
pub const LDP_MONITOR_SCHEMA_URL: &str = "urn:ldp:openlineage:facet:ldp_monitor:1-0-0";

const FACETS: &str = "https://openlineage.io/spec/facets";

/// The `_schemaURL` of a standard facet by its key.
pub fn facet_schema_url(name: &str) -> String {
    let (version, class) = match name {
        "schema" => ("1-2-0", "SchemaDatasetFacet"),
        "dataQualityMetrics" => ("1-0-1", "DataQualityMetricsDatasetFacet"),
        "dataQualityAssertions" => ("1-1-0", "DataQualityAssertionsDatasetFacet"),
        "outputStatistics" => ("1-0-2", "OutputStatisticsOutputDatasetFacet"),
        "errorMessage" => ("1-0-1", "ErrorMessageRunFacet"),
        "nominalTime" => ("1-0-1", "NominalTimeRunFacet"),
        "jobType" => ("2-0-4", "JobTypeJobFacet"),
        _ => ("1-1-0", "ParentRunFacet"),
    };
    format!("{FACETS}/{version}/{class}.json#/$defs/{class}")
}

/// A facet: `{_producer, _schemaURL, **fields}`.
pub fn facet(name: &str, producer: &str, fields: Map<String, Value>) -> Value {
    let mut facet = Map::new();
    facet.insert("_producer".into(), Value::from(producer));
    facet.insert("_schemaURL".into(), Value::from(facet_schema_url(name)));
    facet.extend(fields);
    Value::Object(facet)
}

/// A JSON object from pairs.
pub fn object<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
}
