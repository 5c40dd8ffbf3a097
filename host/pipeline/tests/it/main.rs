//! Pipelines run end to end through the API: the built-in CSV plugin into a local catalog.

use std::path::{Path, PathBuf};

use ldp_config::WriteMode;
use ldp_pipeline::{Pipeline, RunOptions, open_config};
use ldp_plugin_runtime::Runtime;

mod checks;

fn runtime() -> Runtime {
    Runtime::new(ldp_pipeline::runtime_options(Some(
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache"),
    )))
    .unwrap()
}

fn workdir(csv: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    std::fs::write(dir.path().join("data/rides.csv"), csv).unwrap();
    let config = dir.path().join("rides.json");
    std::fs::write(
        &config,
        r#"{"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
            "target": {"name": "rides", "format": "ICEBERG",
                       "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}}}}"#,
    )
    .unwrap();
    (dir, config)
}

fn rides_csv() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/rides.csv"),
    )
    .unwrap()
}

fn run(config: &Path, mode: Option<WriteMode>) -> ldp_pipeline::Result<ldp_pipeline::RunReport> {
    let pipeline = Pipeline::open(open_config(config)?)?;
    pipeline.run(
        &runtime(),
        &RunOptions {
            mode,
            ..RunOptions::default()
        },
    )
}

#[test]
fn append_then_overwrite() {
    let (_dir, config) = workdir(&rides_csv());
    let a = run(&config, None).unwrap();
    assert_eq!(
        (
            a.rows_read,
            a.rows_written,
            a.write_result.as_ref().unwrap().rows_after
        ),
        (20, 20, 20)
    );
    let b = run(&config, None).unwrap();
    assert_eq!(
        (
            b.write_result.as_ref().unwrap().rows_before,
            b.write_result.as_ref().unwrap().rows_after
        ),
        (20, 40)
    );
    let c = run(&config, Some(WriteMode::Overwrite)).unwrap();
    assert_eq!(
        (
            c.write_result.as_ref().unwrap().mode.as_str(),
            c.write_result.as_ref().unwrap().rows_after
        ),
        ("overwrite", 20)
    );
    assert!(
        _dir.path()
            .join("warehouse/.ldp/locks/nyc.rides.lock")
            .is_file()
    );
}

#[test]
fn a_failed_first_run_leaves_no_table_and_no_files() {
    // Regression: a first run that failed after creating the table left an empty table behind.
    // The bad value comes after the first MiB, which types are inferred from: the first batches
    // are written (and the table created) before the source fails.
    let mut csv = String::from("ride_id,distance_km\n");
    let mut id = 0;
    while csv.len() < 3 << 20 {
        id += 1;
        csv.push_str(&format!("{id},{}.25\n", id % 30));
    }
    csv.push_str("0,not-a-number\n");
    let (dir, config) = workdir(&csv);
    let err = run(&config, None).unwrap_err();
    assert_eq!(err.kind(), ldp_pipeline::ErrorKind::Source, "{err}");
    assert!(
        err.to_string().contains(&format!("line {}", id + 2)),
        "{err}"
    );
    let table_dir = dir.path().join("warehouse/nyc/rides");
    assert!(
        !table_dir.exists(),
        "{:?}",
        std::fs::read_dir(&table_dir).map(|d| d.count())
    );
    let catalog = ldp_catalog::Catalog::open(
        dir.path().join("warehouse/nyc_catalog.db"),
        "nyc",
        ldp_catalog::Mode::ReadOnly,
    )
    .unwrap();
    assert!(!catalog.table_exists("nyc", "rides").unwrap());
}

#[test]
fn upsert_is_refused_before_anything_is_read() {
    let (dir, config) = workdir(&rides_csv());
    let err = run(&config, Some(WriteMode::Upsert)).unwrap_err();
    assert!(err.to_string().contains("upsert"), "{err}");
    assert!(!dir.path().join("warehouse").exists());
}

#[test]
fn concurrent_first_runs_both_land() {
    let (_dir, config) = workdir(&rides_csv());
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2).map(|_| s.spawn(|| run(&config, None))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in &results {
        assert!(r.is_ok(), "{r:?}");
    }
    let last = run(&config, None).unwrap();
    assert_eq!(last.write_result.as_ref().unwrap().rows_after, 60);
}

#[test]
fn an_interrupted_run_writes_nothing() {
    static CANCEL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);
    let (dir, config) = workdir(&rides_csv());
    let pipeline = Pipeline::open(open_config(&config).unwrap()).unwrap();
    let options = RunOptions {
        cancel: Some(&CANCEL),
        ..RunOptions::default()
    };
    let err = pipeline.run(&runtime(), &options).unwrap_err();
    assert!(matches!(err, ldp_pipeline::Error::Interrupted), "{err}");
    assert_eq!(err.exit_code(), 130);
    assert!(!dir.path().join("warehouse/nyc/rides").exists());
}

#[test]
fn a_partition_column_not_in_the_data_fails_naming_the_columns() {
    let (dir, config) = workdir(&rides_csv());
    let mut partitioned: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    partitioned["metadata"]["target"]["partition_by"] =
        serde_json::json!([{"column": "dropoff_ts", "transform": "day"}]);
    std::fs::write(&config, partitioned.to_string()).unwrap();
    let err = run(&config, None).unwrap_err();
    assert!(
        err.to_string()
            .contains("partition column 'dropoff_ts' is not in the data; columns are ['ride_id'"),
        "{err}"
    );
    assert!(!dir.path().join("warehouse/nyc/rides").exists());
}
