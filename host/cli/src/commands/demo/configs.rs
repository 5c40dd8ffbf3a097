//! The configs the demo runs: `rides.json` (the Python tool's, written to the workdir) and the
//! small configs of the other steps, as JSON values whose paths resolve against the workdir.

use std::path::Path;

use ldp_config::Config;
use serde_json::{Value, json};

/// The catalog every table of the demo lives in: `warehouse/demo_catalog.db`, namespace `demo`.
fn catalog() -> Value {
    json!({"identifier": "demo", "warehouse_path": "warehouse"})
}

/// `rides.json`, the config the Python tool's demo writes, value for value: the rides CSV upserted
/// on `ride_id` into `demo.rides` through seven quality checks.
pub fn rides() -> Value {
    json!({
        "identifier": "demo_rides",
        "who": "analyst",
        "what": "rides",
        "where": "NYC",
        "when": "daily",
        "how": "batch",
        "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
            "target": {
                "name": "rides",
                "format": "ICEBERG",
                "catalog": catalog(),
                "write_mode": "upsert",
                "join_cols": ["ride_id"]
            },
            "quality": {
                "on_failure": "fail",
                "checks": [
                    {"check": "row_count", "min": 1},
                    {"check": "not_null", "columns": ["ride_id", "pickup_ts", "fare"]},
                    {"check": "unique", "columns": ["ride_id"]},
                    {"check": "accepted_values", "column": "city",
                     "values": ["NYC", "BKK", "LDN", "SFO"]},
                    {"check": "range", "column": "fare", "min": 0},
                    {"check": "freshness", "column": "pickup_ts", "max_age_hours": 48,
                     "now": "2024-01-08T00:00:00"},
                    {"check": "schema",
                     "columns": {"ride_id": "int64", "city": "string", "fare": "double"}}
                ]
            }
        }
    })
}

/// `rides.json` with a Parquet batch as its source: the same target, key and checks.
pub fn rides_from_parquet(path: &str) -> Value {
    let mut config = rides();
    config["metadata"]["source"] = json!({"name": "rides", "format": "PARQUET", "path": path});
    config
}

/// Step 2: the rides Parquet file into `demo.rides_scratch` (append; `--mode` varies).
pub fn scratch() -> Value {
    json!({
        "identifier": "demo_rides_scratch",
        "metadata": {
            "source": {"name": "rides", "format": "PARQUET", "path": "data/rides.parquet"},
            "target": {"name": "rides_scratch", "format": "ICEBERG", "catalog": catalog()}
        }
    })
}

/// Step 4: the rides with their `pickup_date` into `demo.rides_by_day`, partitioned by
/// `day(pickup_ts)`, overwritten.
pub fn by_day(path: &str) -> Value {
    json!({
        "identifier": "demo_rides_by_day",
        "metadata": {
            "source": {"name": "rides", "format": "PARQUET", "path": path},
            "target": {
                "name": "rides_by_day",
                "format": "ICEBERG",
                "catalog": catalog(),
                "write_mode": "overwrite",
                "partition_by": [{"column": "pickup_ts", "transform": "day"}]
            }
        }
    })
}

/// Step 8: `demo.rides` into `exports/rides.csv`, checking that every row arrived.
pub fn export() -> Value {
    json!({
        "identifier": "demo_rides_export",
        "metadata": {
            "source": {"name": "rides", "format": "ICEBERG", "catalog": catalog()},
            "target": {"name": "rides_export", "format": "CSV", "path": "exports/rides.csv"},
            "quality": [{"check": "row_count", "equals": "source"}]
        }
    })
}

/// Step 9: `demo.rides` into `demo.rides_enriched` through one `transform` (an item of
/// `metadata.transforms`), overwritten.
pub fn enriched(transform: Value) -> Value {
    json!({
        "identifier": "demo_rides_enriched",
        "metadata": {
            "source": {"name": "rides", "format": "ICEBERG", "catalog": catalog()},
            "transforms": [transform],
            "target": {
                "name": "rides_enriched",
                "format": "ICEBERG",
                "catalog": catalog(),
                "write_mode": "overwrite"
            }
        }
    })
}

/// Loads a config value as `ldp run` loads a file, its paths resolving against `dir`.
pub fn load(value: &Value, dir: &Path) -> anyhow::Result<Config> {
    let mut config = ldp_config::load(value)?;
    config.base_dir = Some(dir.to_path_buf());
    Ok(config)
}
