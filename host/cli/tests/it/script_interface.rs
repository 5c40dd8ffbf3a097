//! What scripts and ldp's Python package drive: `ldp query --arrow` (every row as an Arrow IPC
//! stream), `ldp datasets export NAME - --format arrow`, the JSON error line of
//! `LDP_ERROR_FORMAT=json`, and `ldp run --pipe-transform` with a transform at the other end of
//! two FIFOs.

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;

use arrow_array::{Float64Array, RecordBatch};
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{DataType, Field, Schema};

use super::{rides_workdir, stderr, stdout};

const CONFIG: &str = r#"{
  "apiVersion": "ldp/v1",
  "identifier": "rides",
  "metadata": {
    "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
    "target": {"name": "rides", "format": "ICEBERG",
               "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}},
    "quality": {"checks": [{"check": "row_count", "min": 1}]}
  }
}"#;

fn ldp_in(dir: &Path, args: &[&str], json_errors: bool) -> Output {
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    let mut command = Command::new(env!("CARGO_BIN_EXE_ldp"));
    command
        .current_dir(dir)
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(args);
    if json_errors {
        command.env("LDP_ERROR_FORMAT", "json");
    }
    command.output().expect("ldp runs")
}

/// The JSON line that ends stderr under `LDP_ERROR_FORMAT=json`.
fn error_line(out: &Output) -> serde_json::Value {
    let text = stderr(out);
    let line = text.lines().last().unwrap_or_default();
    serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{e}: {text}"))
        ["ldp_error"]
        .clone()
}

#[test]
fn query_arrow_streams_every_row_past_max_rows() {
    let dir = rides_workdir(CONFIG);
    assert_eq!(
        ldp_in(dir.path(), &["run", "rides.json"], false)
            .status
            .code(),
        Some(0)
    );
    let sql = "SELECT ride_id, fare FROM rides ORDER BY ride_id";
    let out = ldp_in(
        dir.path(),
        &["query", "--arrow", "--max-rows", "3", "rides.json", sql],
        false,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let reader = StreamReader::try_new(out.stdout.as_slice(), None).unwrap();
    assert_eq!(reader.schema().field(1).name(), "fare");
    let rows: usize = reader.map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(
        rows, 20,
        "--max-rows limits what is printed, not the stream"
    );

    // A query that fails writes no stream, and names its kind.
    let out = ldp_in(
        dir.path(),
        &["query", "--arrow", "rides.json", "SELECT nope FROM rides"],
        true,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(error_line(&out)["kind"], "query");
}

#[test]
fn a_dataset_version_exports_to_stdout_as_arrow_with_its_manifest() {
    let dir = rides_workdir(CONFIG);
    assert_eq!(
        ldp_in(dir.path(), &["run", "rides.json"], false)
            .status
            .code(),
        Some(0)
    );
    let pin = ldp_in(
        dir.path(),
        &[
            "datasets",
            "pin",
            "rides.json",
            "cheap",
            "--filter",
            "fare < 10",
        ],
        false,
    );
    assert_eq!(pin.status.code(), Some(0), "{}", stderr(&pin));
    let args = [
        "datasets",
        "export",
        "cheap",
        "-",
        "--format",
        "arrow",
        "--config",
        "rides.json",
    ];
    let out = ldp_in(dir.path(), &args, false);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let reader = StreamReader::try_new(out.stdout.as_slice(), None).unwrap();
    let manifest = reader.schema().metadata()["ldp.dataset"].clone();
    let fares: Vec<f64> = reader
        .flat_map(|b| {
            let b = b.unwrap();
            let fare = b.column_by_name("fare").unwrap();
            let fare = fare.as_any().downcast_ref::<Float64Array>().unwrap();
            fare.values().to_vec()
        })
        .collect();
    assert!(
        !fares.is_empty() && fares.iter().all(|f| *f < 10.0),
        "{fares:?}"
    );
    assert!(manifest.contains(r#""name": "cheap""#), "{manifest}");

    let args = ["datasets", "export", "cheap", "-", "--config", "rides.json"];
    let out = ldp_in(dir.path(), &args, false);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("Parquet needs a file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn errors_end_with_a_json_line_naming_their_kind() {
    let dir = rides_workdir(CONFIG);
    let missing = ldp_in(dir.path(), &["run", "missing.json"], true);
    let line = error_line(&missing);
    assert_eq!(line["kind"], "config");
    assert_eq!(line["python_type"], "ConfigError");
    assert!(
        line["message"]
            .as_str()
            .unwrap()
            .starts_with("config file not found")
    );

    let usage = ldp_in(
        dir.path(),
        &["run", "rides.json", "--mode", "sideways"],
        true,
    );
    assert_eq!(error_line(&usage)["kind"], "usage");
    let usage = ldp_in(dir.path(), &["run", "rides.json", "--attempt", "2"], true);
    assert_eq!(error_line(&usage)["kind"], "usage");

    let gated = CONFIG.replace(r#""min": 1"#, r#""min": 1000"#);
    std::fs::write(dir.path().join("rides.json"), gated).unwrap();
    let blocked = ldp_in(dir.path(), &["run", "rides.json"], true);
    assert_eq!(blocked.status.code(), Some(3));
    let line = error_line(&blocked);
    assert_eq!(
        (line["kind"].as_str(), line["exit_code"].as_u64()),
        (Some("quality_blocked"), Some(3))
    );
    assert_eq!(line["retryable"], false);

    // Without the variable, stderr is the message alone.
    let plain = ldp_in(dir.path(), &["run", "missing.json"], false);
    assert!(!stderr(&plain).contains("ldp_error"), "{}", stderr(&plain));
}

#[test]
fn a_pipe_transform_rewrites_every_batch_before_the_gate() {
    let dir = rides_workdir(CONFIG);
    let (to, from) = (dir.path().join("to.fifo"), dir.path().join("from.fifo"));
    for fifo in [&to, &from] {
        let made = Command::new("mkfifo")
            .arg(fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
    }
    // The other end: fare doubled, as a new column.
    let (to_path, from_path) = (to.clone(), from.clone());
    let other_end = std::thread::spawn(move || {
        let reader = StreamReader::try_new(File::open(&to_path).unwrap(), None).unwrap();
        let mut fields: Vec<Field> = reader
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields.push(Field::new("fare_x2", DataType::Float64, true));
        let schema = Arc::new(Schema::new(fields));
        let out = OpenOptions::new().write(true).open(&from_path).unwrap();
        let mut writer = StreamWriter::try_new(out, &schema).unwrap();
        writer.flush().unwrap();
        let mut batches = 0;
        for batch in reader {
            let batch = batch.unwrap();
            let fare = batch.column_by_name("fare").unwrap();
            let fare = fare.as_any().downcast_ref::<Float64Array>().unwrap();
            let doubled: Float64Array = fare.iter().map(|f| f.map(|f| f * 2.0)).collect();
            let mut columns = batch.columns().to_vec();
            columns.push(Arc::new(doubled));
            writer
                .write(&RecordBatch::try_new(schema.clone(), columns).unwrap())
                .unwrap();
            writer.flush().unwrap();
            batches += 1;
        }
        writer.finish().unwrap();
        batches
    });
    let spec = format!("{},{}", to.display(), from.display());
    let out = ldp_in(
        dir.path(),
        &["run", "rides.json", "--pipe-transform", &spec],
        false,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(other_end.join().unwrap() >= 1);
    let sum = ldp_in(
        dir.path(),
        &[
            "query",
            "--json",
            "rides.json",
            "SELECT sum(fare_x2) - 2 * sum(fare) AS d FROM rides",
        ],
        false,
    );
    let doc: serde_json::Value = serde_json::from_slice(&sum.stdout).unwrap();
    assert!(
        doc["rows"][0]["d"].as_f64().unwrap().abs() < 1e-6,
        "{}",
        stdout(&sum)
    );

    let bad = ldp_in(
        dir.path(),
        &["run", "rides.json", "--pipe-transform", "only-one"],
        true,
    );
    assert_eq!(error_line(&bad)["kind"], "usage");
}
