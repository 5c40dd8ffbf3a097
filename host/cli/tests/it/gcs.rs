//! `gs://` sources, file targets and warehouses against fake-gcs-server (a GCS emulator from
//! PyPI, installed into `.venv` by `scripts/test`), one per test on 127.0.0.1. The `ldp` child
//! alone gets `STORAGE_EMULATOR_HOST`; no Google credential of the machine is read.
//!
//! Without the emulator the tests fail, never skip, naming the install command.

use std::path::Path;
use std::process::Output;

use ldp_test_servers::gcs::FakeGcs;

use super::s3::{ids, write};
use super::{rides, stderr};

/// `ldp ARGS` in `dir` against `gcs`, with no `GOOGLE_*` or `AWS_*` variable of the test's own
/// environment.
fn ldp(gcs: &FakeGcs, dir: &Path, args: &[&str]) -> Output {
    super::ldp_in_env(dir, args, &["AWS_", "GOOGLE_"], |command| {
        command
            .env("STORAGE_EMULATOR_HOST", &gcs.endpoint)
            .env("NO_PROXY", "127.0.0.1");
    })
}

fn gs_table_block(dir: &Path) -> serde_json::Value {
    let uri = format!("sqlite:///{}", dir.join("catalog.db").display());
    serde_json::json!({"name": "rides", "format": "ICEBERG", "write_mode": "append",
        "catalog": {"type": "sql", "name": "lakecat", "namespace": "nyc", "uri": uri,
            "warehouse": "gs://lake/wh"}})
}

fn json(out: Output) -> serde_json::Value {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The round trip: a CSV object loaded twice into a table whose warehouse is a bucket, the
/// table queried from the bucket, exported to an object, listed and compacted by `ldp maintain`.
#[test]
fn a_csv_on_gs_goes_into_a_gs_warehouse_and_back_out_to_gs() {
    let gcs = FakeGcs::start(&["lake"]);
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read(rides()).unwrap();
    gcs.put("lake", "drops/rides.csv", &original);
    write(
        dir.path(),
        "load.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "gs://lake/drops/rides.csv"},
            "target": gs_table_block(dir.path())}}),
    );
    let out = ldp(&gcs, dir.path(), &["plan", "load.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for _ in 0..2 {
        let out = ldp(&gcs, dir.path(), &["run", "load.json"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}\n{}",
            stderr(&out),
            gcs.log()
        );
    }
    // Nothing of the table on the local disk: only the catalog file.
    assert!(!dir.path().join("wh").exists() && !dir.path().join("gs:").exists());
    let names = gcs.names("lake");
    let under = |prefix: &str, suffix: &str| {
        names
            .iter()
            .filter(|k| k.starts_with(prefix) && k.ends_with(suffix))
            .count()
    };
    assert_eq!(under("wh/nyc/rides/data/", ".parquet"), 2, "{names:?}");
    assert_eq!(
        under("wh/nyc/rides/metadata/", ".metadata.json"),
        3,
        "{names:?}"
    );

    let doc = json(ldp(
        &gcs,
        dir.path(),
        &[
            "query",
            "load.json",
            "SELECT count(*) AS n FROM rides",
            "--json",
        ],
    ));
    assert_eq!(doc["rows"][0]["n"], 40, "{doc}");

    write(
        dir.path(),
        "export.json",
        serde_json::json!({"identifier": "rides_export", "metadata": {
            "source": gs_table_block(dir.path()),
            "target": {"name": "rides_csv", "format": "CSV", "path": "gs://lake/exports/rides.csv"}}}),
    );
    let out = ldp(&gcs, dir.path(), &["run", "export.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let object = gcs.get("lake", "exports/rides.csv").expect("the export");
    let mut twice = ids(&original);
    twice.extend(ids(&original));
    twice.sort();
    assert_eq!(ids(&object), twice);

    gcs.put("lake", "wh/nyc/rides/data/stray.parquet", &original);
    let done = json(ldp(
        &gcs,
        dir.path(),
        &[
            "maintain",
            "load.json",
            "--compact",
            "--orphans",
            "--orphan-age-hours",
            "0",
            "--allow-recent",
            "--apply",
            "--json",
        ],
    ));
    assert_eq!(done["compact"]["committed"], true, "{done:#}");
    assert_eq!(
        done["orphans"]["deleted"],
        serde_json::json!(["gs://lake/wh/nyc/rides/data/stray.parquet"]),
        "{done:#}"
    );
    assert!(gcs.get("lake", "wh/nyc/rides/data/stray.parquet").is_none());
    let doc = json(ldp(
        &gcs,
        dir.path(),
        &[
            "query",
            "load.json",
            "SELECT count(*) AS n FROM rides",
            "--json",
        ],
    ));
    assert_eq!(doc["rows"][0]["n"], 40, "{doc}");
}

/// A missing object fails the run naming it (a workflow retries it); a check that blocks an
/// export to `gs://` uploads nothing; a `local` catalog cannot keep its warehouse on `gs://`.
#[test]
fn a_missing_gs_object_a_blocked_export_and_a_local_catalog_on_gs() {
    let gcs = FakeGcs::start(&["lake"]);
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "missing.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "gs://lake/drops/nope.csv"},
            "target": {"name": "rides_csv", "format": "CSV", "path": "out.csv"}}}),
    );
    let out = ldp(&gcs, dir.path(), &["run", "missing.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the source object gs://lake/drops/nope.csv does not exist"),
        "{}",
        stderr(&out)
    );

    gcs.put("lake", "drops/rides.csv", &std::fs::read(rides()).unwrap());
    write(
        dir.path(),
        "blocked.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "gs://lake/drops/rides.csv"},
            "target": {"name": "rides_csv", "format": "CSV", "path": "gs://lake/exports/rides.csv"},
            "quality": {"on_failure": "fail",
                "checks": [{"check": "row_count", "min": 1000}]}}}),
    );
    let out = ldp(&gcs, dir.path(), &["run", "blocked.json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(gcs.names("lake"), ["drops/rides.csv"]);

    write(
        dir.path(),
        "local.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "gs://lake/drops/rides.csv"},
            "target": {"name": "rides", "format": "ICEBERG",
                "catalog": {"identifier": "nyc", "warehouse_path": "gs://lake/warehouse"}}}}),
    );
    let out = ldp(&gcs, dir.path(), &["plan", "local.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is on object storage; a local catalog keeps its SQLite file"),
        "{}",
        stderr(&out)
    );
}
