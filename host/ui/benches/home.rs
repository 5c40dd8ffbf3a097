//! How long the home page of `ldp ui` takes on a lake of 200 tables with 1,000 snapshots each:
//! the page, its script and style, and `/api/home` (every table's status: its metadata read,
//! its monitors evaluated), fetched one after another as a browser does, first at the instant
//! the server starts (the request waits for the server's read-ahead of every metadata file),
//! then again and again (each metadata file is read again only when it changes).
//!
//! One table gets its 1,000 snapshots by real appends; the 199 others are registered in the
//! catalog with copies of its metadata file, so each has a metadata file of its own to read.
//!
//! Run: `cargo bench -p ldp-ui --bench home` (it does nothing under `cargo test`).
//! `LDP_BENCH_TABLES` and `LDP_BENCH_SNAPSHOTS` change the sizes (200, 1000).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{Int64Array, RecordBatch};
use ldp_catalog::Mode;
use ldp_pipeline::TargetTable;
use ldp_table::{Append, DataWriter, Table, WriterOptions};

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("home bench: run it with cargo bench -p ldp-ui --bench home");
        return;
    }
    let tables: usize = env_number("LDP_BENCH_TABLES", 200);
    let snapshots: i64 = env_number("LDP_BENCH_SNAPSHOTS", 1000);
    let dir = tempfile::tempdir().expect("temp dir");
    let lake = dir.path().join("lake");
    std::fs::create_dir_all(&lake).expect("lake folder");
    std::fs::write(dir.path().join("rows.csv"), "id\n1\n").expect("csv");
    let started = Instant::now();
    let metadata = build_lake(&lake, tables, snapshots);
    println!(
        "lake: {tables} tables x {snapshots} snapshots (metadata file {:.1} MB each), built in {:.1} s",
        metadata as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );

    let runtime = ldp_plugin_runtime::Runtime::new(Default::default()).expect("runtime");
    let settings = ldp_ui::UiSettings::new(vec![lake], "127.0.0.1:0".parse().expect("address"));
    let server = ldp_ui::start(settings, runtime).expect("start");
    let address = server.address();
    let first = load_home(address);
    let mut times: Vec<Duration> = (0..10).map(|_| load_home(address)).collect();
    times.sort();
    println!("home page, first load after start: {:.0} ms", ms(first));
    println!(
        "home page, next 10 loads: median {:.0} ms, max {:.0} ms",
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1])
    );
}

/// The page as a browser loads it: `/`, `/app.js`, `/style.css`, then `/api/home`.
fn load_home(address: SocketAddr) -> Duration {
    let started = Instant::now();
    for path in ["/", "/app.js", "/style.css"] {
        get(address, path);
    }
    let body = get(address, "/api/home");
    assert!(
        body.contains("\"tables\""),
        "{}",
        &body[..body.len().min(300)]
    );
    started.elapsed()
}

/// `tables` configs in `lake`, each of a table of its own in one catalog; returns the size of
/// a metadata file.
fn build_lake(lake: &Path, tables: usize, snapshots: i64) -> u64 {
    let config = |i: usize| {
        format!(
            r#"{{"identifier": "t{i}", "metadata": {{
  "source": {{"name": "t{i}", "format": "CSV", "path": "../rows.csv"}},
  "target": {{"name": "t{i}", "format": "ICEBERG", "catalog": {{"identifier": "bench", "warehouse_path": "../warehouse"}}}},
  "monitors": {{"freshness": {{"max_age": "1h"}}, "volume": {{"min_rows": 1, "max_change_pct": 50, "trailing": 7}}}}}}}}"#
        )
    };
    let targets: Vec<TargetTable> = (0..tables)
        .map(|i| {
            let file = lake.join(format!("t{i}.json"));
            std::fs::write(&file, config(i)).expect("config");
            let config = ldp_pipeline::open_config(&file).expect("open config");
            TargetTable::resolve(&config, config.target()).expect("target")
        })
        .collect();
    let catalog = targets[0].open_catalog(Mode::Create).expect("catalog");
    let batch = |i: i64| {
        RecordBatch::try_from_iter([("id", Arc::new(Int64Array::from(vec![i, i + 1])) as _)])
            .expect("batch")
    };
    let location = targets[0].warehouse.join("bench").join("t0");
    let mut table =
        Table::create(&catalog, "bench", "t0", &batch(0).schema(), &location).expect("create");
    for i in 0..snapshots {
        let mut writer = DataWriter::new(&table, &WriterOptions::default()).expect("writer");
        writer.write(&batch(i)).expect("write");
        Append::new(writer.finish().expect("finish"))
            .commit(&catalog, &mut table)
            .expect("append");
    }
    let source = table
        .metadata_location()
        .trim_start_matches("file://")
        .to_string();
    for target in &targets[1..] {
        let folder = target
            .warehouse
            .join("bench")
            .join(&target.name)
            .join("metadata");
        std::fs::create_dir_all(&folder).expect("metadata folder");
        let copy = folder.join("00000-copy.metadata.json");
        std::fs::copy(&source, &copy).expect("copy metadata");
        catalog
            .create_table("bench", &target.name, &format!("file://{}", copy.display()))
            .expect("register");
    }
    std::fs::metadata(&source).map(|m| m.len()).unwrap_or(0)
}

/// One GET on a fresh connection; the body.
fn get(address: SocketAddr, path: &str) -> String {
    let mut stream = TcpStream::connect(address).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status).expect("status");
    assert!(status.contains(" 200 "), "{path}: {status}");
    let mut rest = String::new();
    reader.read_to_string(&mut rest).expect("read");
    rest.split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
