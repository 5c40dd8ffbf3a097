//! Load-table throughput of the REST catalog server: 16 clients, each on its own keep-alive
//! connection, load one table with 50 snapshots as fast as they can for a few seconds; prints
//! requests per second and latency percentiles.
//!
//! Run: `cargo bench -p ldp-catalog-server --bench serve` (it does nothing under `cargo test`).
//! `LDP_BENCH_SECONDS` sets the measuring time (default 5), `LDP_BENCH_CLIENTS` the clients (16).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{Int64Array, RecordBatch, StringArray};
use ldp_catalog::{Catalog, CatalogAddress, Mode};
use ldp_catalog_server::{ServeSettings, ServedCatalog, start};
use ldp_table::{Append, DataWriter, Table, WriterOptions};

const SNAPSHOTS: i64 = 50;
const PATH: &str = "/v1/lake/namespaces/bench/tables/events";

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("serve bench: run it with cargo bench -p ldp-catalog-server --bench serve");
        return;
    }
    let seconds: u64 = env_number("LDP_BENCH_SECONDS", 5);
    let clients: usize = env_number("LDP_BENCH_CLIENTS", 16);
    let dir = tempfile::tempdir().expect("temp dir");
    let warehouse = dir.path().join("warehouse");
    let file = ldp_catalog::catalog_file(&warehouse, "lake");
    let metadata_bytes = table_with_snapshots(&file, &warehouse);

    let settings = ServeSettings::new(
        "127.0.0.1:0".parse().expect("address"),
        vec![ServedCatalog {
            name: "lake".into(),
            address: CatalogAddress::Sqlite(file),
            warehouse: warehouse.display().to_string(),
        }],
    );
    let server = start(settings).expect("start the server");
    let address = server.address();
    // One load first: it reads the metadata file; later loads of the same file are answered
    // from memory after the catalog lookup.
    let first = Instant::now();
    let body = Client::connect(address).get(PATH);
    let cold = first.elapsed();

    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|_| {
            std::thread::spawn(move || {
                let mut client = Client::connect(address);
                let mut latencies = Vec::new();
                while Instant::now() < deadline {
                    let t = Instant::now();
                    let answer = client.get(PATH);
                    latencies.push(t.elapsed());
                    assert!(answer.len() > 1000, "a short answer: {answer}");
                }
                latencies
            })
        })
        .collect();
    let mut latencies: Vec<Duration> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("client"))
        .collect();
    let elapsed = started.elapsed();
    latencies.sort();
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    println!(
        "load-table: {clients} clients, {SNAPSHOTS} snapshots, response {} bytes (metadata {metadata_bytes} bytes)",
        body.len()
    );
    println!(
        "  {:.0} requests/s ({} requests in {:.2} s); latency p50 {:?}, p99 {:?}, max {:?}; first (cold) load {:?}",
        latencies.len() as f64 / elapsed.as_secs_f64(),
        latencies.len(),
        elapsed.as_secs_f64(),
        pct(0.5),
        pct(0.99),
        pct(1.0),
        cold
    );
    server.shutdown();
}

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `bench.events` with [`SNAPSHOTS`] appended snapshots; the size of its metadata file.
fn table_with_snapshots(file: &std::path::Path, warehouse: &std::path::Path) -> u64 {
    let catalog = Catalog::open(file, "lake", Mode::Create).expect("catalog");
    let batch = |start: i64| {
        let ids: Vec<i64> = (start..start + 100).collect();
        let names: Vec<String> = ids.iter().map(|i| format!("n{i}")).collect();
        RecordBatch::try_from_iter([
            ("id", Arc::new(Int64Array::from(ids)) as _),
            ("name", Arc::new(StringArray::from(names)) as _),
        ])
        .expect("batch")
    };
    let location = warehouse.join("bench").join("events");
    let mut table =
        Table::create(&catalog, "bench", "events", &batch(0).schema(), &location).expect("create");
    for i in 0..SNAPSHOTS {
        let mut writer = DataWriter::new(&table, &WriterOptions::default()).expect("writer");
        writer.write(&batch(i * 100)).expect("write");
        Append::new(writer.finish().expect("finish"))
            .commit(&catalog, &mut table)
            .expect("append");
    }
    let path = table.metadata_location().trim_start_matches("file://");
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// A keep-alive HTTP/1.1 client for GETs.
struct Client {
    reader: BufReader<TcpStream>,
    address: SocketAddr,
}

impl Client {
    fn connect(address: SocketAddr) -> Client {
        let stream = TcpStream::connect(address).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        Client {
            reader: BufReader::new(stream),
            address,
        }
    }

    fn get(&mut self, path: &str) -> String {
        let request = format!("GET {path} HTTP/1.1\r\nHost: {}\r\n\r\n", self.address);
        self.reader
            .get_mut()
            .write_all(request.as_bytes())
            .expect("send");
        let mut length = 0;
        let mut status = String::new();
        self.reader.read_line(&mut status).expect("status");
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).expect("header");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().expect("a length");
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).expect("body");
        String::from_utf8(body).expect("utf-8")
    }
}
