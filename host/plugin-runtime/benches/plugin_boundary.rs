//! The cost of the plugin boundary, measured against the same work done natively in this binary.
//!
//! `cargo bench -p ldp-plugin-runtime --bench plugin_boundary` prints, in one run:
//! - the CSV source plugin's rows/s on a generated 1M-row rides CSV against native arrow-csv
//!   (target ≥ 0.7× native);
//! - an identity transform plugin's throughput in MB/s of Arrow IPC on 8,192-row batches against
//!   the same decode/encode work done natively (targets ≥ 1,500 MB/s and ≥ 0.85× native), and
//!   its fixed cost per batch on 1-row batches (target ≤ 20 µs);
//! - the time from a cached compiled component to its first batch (target ≤ 5 ms).
//!
//! `LDP_BENCH_ROWS` changes the number of rows (default 1,000,000); `LDP_BENCH_ONLY=csv`,
//! `identity`, `one-row` or `start` (comma-separated) runs only those parts and
//! `LDP_BENCH_REPEATS` the runs each figure is the median of (default 5): for a profile, e.g.
//! `LDP_BENCH_ONLY=identity LDP_BENCH_REPEATS=200 LDP_PLUGIN_PROFILER=perfmap perf record …`.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_plugin_ipc::{Decoder, Encoder, Validation};
use ldp_plugin_runtime::{Grants, Runtime, RuntimeOptions, Sandbox};
use std::io::{BufWriter, Write};
use std::path::Path;

use std::time::{Duration, Instant};

const BATCH_ROWS: usize = 8192;
/// The runs each figure is the median of, unless `LDP_BENCH_REPEATS` says otherwise.
const REPEATS: usize = 5;

fn main() {
    let rows: usize = std::env::var("LDP_BENCH_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let dir = tempfile::tempdir().expect("a temp dir");
    let csv_path = dir.path().join("rides.csv");
    let csv_bytes = write_rides(&csv_path, rows, Quoting::None);
    let cache = tempfile::tempdir().expect("a temp dir");
    let runtime = Runtime::new(RuntimeOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        ..RuntimeOptions::default()
    })
    .expect("runtime");
    let csv = ldp_builtin_plugins::get("csv").expect("csv is built in");
    let plugin = runtime
        .load_embedded("built-in plugin 'csv'", csv.bytes, csv.sha256)
        .expect("csv loads");
    let sandbox = Sandbox {
        grants: Grants {
            read_dirs: vec![dir.path().to_path_buf()],
            write_dir: None,
            ..Grants::default()
        },
        ..Sandbox::default()
    };
    let config = serde_json::json!({"path": csv_path, "batch_size": BATCH_ROWS}).to_string();

    let only = std::env::var("LDP_BENCH_ONLY").unwrap_or_default();
    let runs = |part: &str| only.is_empty() || only.split(',').any(|p| p.trim() == part);
    println!(
        "ldp plugin boundary benchmark ({rows} rows, {:.1} MB of CSV; medians of {} runs, plugin \
         and native in turn)",
        csv_bytes as f64 / 1e6,
        repeats()
    );
    println!();

    // 1. CSV source: plugin against native arrow-csv with the same schema.
    let schema = plugin
        .open_source(&config, &sandbox)
        .expect("open")
        .schema()
        .clone();
    let batches = native_csv(&csv_path, &schema);
    if runs("csv") {
        let title = format!(
            "CSV source ({} columns: {})",
            schema.fields().len(),
            describe(&schema)
        );
        csv_source(
            &plugin,
            &sandbox,
            &csv_path,
            &schema,
            rows,
            &title,
            Some(0.7),
        );
        // The same rides with every city quoted: the plugin's fast decoder reads them.
        let quoted = dir.path().join("rides_quoted.csv");
        write_rides(&quoted, rows, Quoting::All);
        let title = "CSV source, every city quoted";
        csv_source(&plugin, &sandbox, &quoted, &schema, rows, title, None);
        // A doubled quote in every 1,000th row: the fast decoder declines every batch, and
        // arrow-csv decodes them all, as WebAssembly (the plugin's slowest path).
        let doubled = dir.path().join("rides_doubled.csv");
        write_rides(&doubled, rows, Quoting::Doubled);
        let title = "CSV source, a doubled quote in every batch (arrow-csv decodes every batch)";
        csv_source(&plugin, &sandbox, &doubled, &schema, rows, title, None);
    }
    if runs("identity") || runs("one-row") {
        identity_transform(
            &runtime,
            &schema,
            &batches,
            runs("identity"),
            runs("one-row"),
        );
    }
    if runs("start") {
        first_batch(&runtime, &dir, &cache, csv, &sandbox, &schema);
    }
}

/// The CSV source plugin against native arrow-csv given the same schema.
fn csv_source(
    plugin: &ldp_plugin_runtime::Plugin,
    sandbox: &Sandbox,
    csv_path: &Path,
    schema: &SchemaRef,
    rows: usize,
    title: &str,
    target: Option<f64>,
) {
    let config = serde_json::json!({"path": csv_path, "batch_size": BATCH_ROWS}).to_string();
    let config = config.as_str();
    let Paired {
        plugin: plugin_time,
        native: native_time,
        ratio,
    } = paired(
        repeats(),
        || {
            timed(|| {
                let mut source = plugin.open_source(config, sandbox).expect("open");
                let mut n = 0;
                while let Some(b) = source.next_batch().expect("batch") {
                    n += b.num_rows();
                }
                assert_eq!(n, rows);
            })
        },
        || {
            timed(|| {
                let batches = native_csv(csv_path, schema);
                assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), rows);
            })
        },
    );
    let plugin_rps = rows as f64 / plugin_time.as_secs_f64();
    let native_rps = rows as f64 / native_time.as_secs_f64();
    println!("{title}");
    println!(
        "  plugin   {:>12.0} rows/s  ({:.3} s)",
        plugin_rps,
        plugin_time.as_secs_f64()
    );
    println!(
        "  native   {:>12.0} rows/s  ({:.3} s)",
        native_rps,
        native_time.as_secs_f64()
    );
    match target {
        Some(target) => verdict("  ratio    ", ratio, target, "× native"),
        None => println!("  ratio    {ratio:>12.2} × native"),
    }
    println!();
}

/// An identity transform plugin on 8,192-row batches against the same IPC work natively.
fn identity_transform(
    runtime: &Runtime,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    large: bool,
    one_row: bool,
) {
    let identity = runtime
        .load_file(&ldp_builtin_plugins::testing::component_path("identity"))
        .expect("identity loads");
    if large {
        identity_large(&identity, schema, batches);
    }
    if one_row {
        identity_one_row(&identity, schema, batches);
    }
    println!();
}

fn identity_large(
    identity: &ldp_plugin_runtime::Plugin,
    schema: &SchemaRef,
    batches: &[RecordBatch],
) {
    let ipc_bytes: usize = {
        let (mut enc, _) = Encoder::new(schema).expect("encoder");
        batches
            .iter()
            .map(|b| enc.encode(b).expect("encode").len())
            .sum()
    };
    // A run takes milliseconds: four times as many runs. The plugin's clock runs from its
    // first batch to its last on a warm instance: the instance is made, opened and given one
    // batch before (part 3 measures making and opening; the first batch grows the instance's
    // fresh memory, which native code, whose allocator reuses its memory from run to run,
    // does not pay either).
    let Paired {
        plugin: plugin_time,
        native: native_time,
        ratio,
    } = paired(
        4 * repeats(),
        || {
            let mut t = identity
                .open_transform("{}", schema, &Sandbox::default())
                .expect("open");
            t.push(&batches[0]).expect("push");
            timed(|| {
                for b in batches {
                    assert_eq!(t.push(b).expect("push").len(), 1);
                }
            })
        },
        || timed(|| native_identity(schema, batches)),
    );
    let plugin_mbps = ipc_bytes as f64 / 1e6 / plugin_time.as_secs_f64();
    let native_mbps = ipc_bytes as f64 / 1e6 / native_time.as_secs_f64();
    println!(
        "Identity transform, {} batches of {BATCH_ROWS} rows, {:.1} MB of Arrow IPC",
        batches.len(),
        ipc_bytes as f64 / 1e6
    );
    verdict("  plugin   ", plugin_mbps, 1500.0, "MB/s");
    println!("  native   {native_mbps:>12.0} MB/s  (encode, decode, encode, decode in-process)");
    verdict("  ratio    ", ratio, 0.85, "× native");
}

/// The fixed cost per batch: 1-row batches.
fn identity_one_row(
    identity: &ldp_plugin_runtime::Plugin,
    schema: &SchemaRef,
    batches: &[RecordBatch],
) {
    let one_row: Vec<RecordBatch> = (0..10_000)
        .map(|i| batches[0].slice(i % BATCH_ROWS, 1))
        .collect();
    let Paired {
        plugin: plugin_time,
        native: native_time,
        ..
    } = paired(
        repeats(),
        || {
            let mut t = identity
                .open_transform("{}", schema, &Sandbox::default())
                .expect("open");
            timed(|| {
                for b in &one_row {
                    t.push(b).expect("push");
                }
            })
        },
        || timed(|| native_identity(schema, &one_row)),
    );
    let per_batch = plugin_time / one_row.len() as u32;
    let native_per_batch = native_time / one_row.len() as u32;
    verdict_max(
        "  1-row batch, plugin  ",
        per_batch.as_secs_f64() * 1e6,
        20.0,
        "µs per batch",
    );
    println!(
        "  1-row batch, native  {:>8.2} µs per batch",
        native_per_batch.as_secs_f64() * 1e6
    );
}

/// From a cached compiled component to the first batch (a fresh runtime, as a new process).
fn first_batch(
    runtime: &Runtime,
    dir: &tempfile::TempDir,
    cache: &tempfile::TempDir,
    csv: &ldp_builtin_plugins::Builtin,
    sandbox: &Sandbox,
    schema: &SchemaRef,
) {
    let small = dir.path().join("small.csv");
    write_rides(&small, 20, Quoting::None);
    let small_config = serde_json::json!({"path": small}).to_string();
    // Best of 20 for each phase.
    let (mut load, mut open, mut first) = (Duration::MAX, Duration::MAX, Duration::MAX);
    for _ in 0..20 {
        let fresh = Runtime::new(RuntimeOptions {
            cache_dir: Some(cache.path().to_path_buf()),
            ..RuntimeOptions::default()
        })
        .expect("runtime");
        let started = Instant::now();
        let p = fresh
            .load_embedded("built-in plugin 'csv'", csv.bytes, csv.sha256)
            .expect("load");
        let loaded = started.elapsed();
        let mut s = p.open_source(&small_config, sandbox).expect("open");
        let opened = started.elapsed();
        let b = s.next_batch().expect("batch").expect("a batch");
        assert_eq!(b.num_rows(), 20);
        let total = started.elapsed();
        load = load.min(loaded);
        open = open.min(opened - loaded);
        first = first.min(total);
    }
    let identity = runtime
        .load_file(&ldp_builtin_plugins::testing::component_path("identity"))
        .expect("identity loads");
    let identity_open = best_of(20, || {
        identity
            .open_transform("{}", schema, &Sandbox::default())
            .expect("open");
    });
    println!("Cached component to first batch (csv, 20-row file, best of 20)");
    println!(
        "  load from cache  {:>8.2} ms  (read the compiled code, link, describe)",
        load.as_secs_f64() * 1e3
    );
    println!(
        "  open             {:>8.2} ms  (instantiate, read and infer the file)",
        open.as_secs_f64() * 1e3
    );
    println!(
        "  (instantiating and opening the identity transform: {:.2} ms)",
        identity_open.as_secs_f64() * 1e3
    );
    verdict_max("  to first batch   ", first.as_secs_f64() * 1e3, 5.0, "ms");
}

fn repeats() -> usize {
    std::env::var("LDP_BENCH_REPEATS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(REPEATS)
}

/// Medians of runs of the plugin and of native code taken in turn, so that both sides see the
/// machine in the same state, and the median of each pair's ratio (native time ÷ plugin time:
/// the plugin's speed as a fraction of native code's). A busy moment of the machine moves a
/// best-of figure; it hardly moves a median of paired ratios.
struct Paired {
    plugin: Duration,
    native: Duration,
    ratio: f64,
}

fn paired(
    repeats: usize,
    mut plugin: impl FnMut() -> Duration,
    mut native: impl FnMut() -> Duration,
) -> Paired {
    let mut runs: Vec<(Duration, Duration)> = (0..repeats).map(|_| (plugin(), native())).collect();
    let mut ratios: Vec<f64> = runs
        .iter()
        .map(|(p, n)| n.as_secs_f64() / p.as_secs_f64())
        .collect();
    ratios.sort_by(f64::total_cmp);
    runs.sort_by_key(|(p, _)| *p);
    let plugin = runs[repeats / 2].0;
    runs.sort_by_key(|(_, n)| *n);
    Paired {
        plugin,
        native: runs[repeats / 2].1,
        ratio: ratios[repeats / 2],
    }
}

fn timed(f: impl FnOnce()) -> Duration {
    let started = Instant::now();
    f();
    started.elapsed()
}

fn best_of(repeats: usize, mut f: impl FnMut()) -> Duration {
    (0..repeats)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed()
        })
        .min()
        .expect("repeats > 0")
}

fn verdict(label: &str, value: f64, target: f64, unit: &str) {
    let ok = if value >= target {
        "ok"
    } else {
        "BELOW TARGET"
    };
    println!("{label}{value:>12.2} {unit}  (target ≥ {target}: {ok})");
}

fn verdict_max(label: &str, value: f64, target: f64, unit: &str) {
    let ok = if value <= target {
        "ok"
    } else {
        "ABOVE TARGET"
    };
    println!("{label}{value:>8.2} {unit}  (target ≤ {target}: {ok})");
}

fn describe(schema: &SchemaRef) -> String {
    schema
        .fields()
        .iter()
        .map(|f| format!("{} {}", f.name(), f.data_type()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the plugin path does, natively: the host encodes, the plugin decodes (trusted) and
/// encodes, the host decodes (validated).
fn native_identity(schema: &SchemaRef, batches: &[RecordBatch]) {
    let (mut host_enc, schema_msg) = Encoder::new(schema).expect("encoder");
    let mut guest_dec = Decoder::new(schema_msg, Validation::Trusted).expect("decoder");
    let (mut guest_enc, out_schema) = Encoder::new(schema).expect("encoder");
    let mut host_dec = Decoder::new(out_schema, Validation::Full).expect("decoder");
    for b in batches {
        let msg = host_enc.encode(b).expect("encode");
        let decoded = guest_dec.decode(msg).expect("decode");
        let back = guest_enc.encode(&decoded).expect("encode");
        std::hint::black_box(host_dec.decode(back).expect("decode"));
    }
}

fn native_csv(path: &Path, schema: &SchemaRef) -> Vec<RecordBatch> {
    let file = std::fs::File::open(path).expect("csv");
    let reader = arrow_csv::ReaderBuilder::new(schema.clone())
        .with_header(true)
        .with_batch_size(BATCH_ROWS)
        .build(std::io::BufReader::with_capacity(1 << 20, file))
        .expect("reader");
    reader.map(|b| b.expect("batch")).collect()
}

// The rides: ride_id int, pickup_ts timestamp, city string, distance_km double, fare double.
/// How the cities of a rides CSV are written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quoting {
    /// `NYC`
    None,
    /// `"NYC"`
    All,
    /// `"N""YC"` in every 1,000th row, plain elsewhere.
    Doubled,
}

/// A rides CSV.
fn write_rides(path: &Path, rows: usize, quoting: Quoting) -> u64 {
    const CITIES: [&str; 6] = ["NYC", "LDN", "PAR", "BKK", "SFO", "BER"];
    let mut out = BufWriter::new(std::fs::File::create(path).expect("create"));
    writeln!(out, "ride_id,pickup_ts,city,distance_km,fare").expect("write");
    let mut state: u64 = 42;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    let start = 1_704_067_200u64; // 2024-01-01T00:00:00Z
    for id in 1..=rows {
        let ts = start + next() % (366 * 86400);
        let (days, secs) = (ts / 86400, ts % 86400);
        let (y, m, d) = civil(days as i64);
        let distance = (next() % 2500) as f64 / 100.0 + 0.5;
        let fare = (distance * 1.8 + 2.5) * 100.0;
        let city = CITIES[(next() % 6) as usize];
        let city = match quoting {
            Quoting::None => city.to_string(),
            Quoting::All => format!("\"{city}\""),
            Quoting::Doubled if id % 1000 == 0 => format!("\"{}\"\"{}\"", &city[..1], &city[1..]),
            Quoting::Doubled => city.to_string(),
        };
        writeln!(
            out,
            "{id},{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02},{city},{distance:.2},{:.2}",
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            fare.round() / 100.0
        )
        .expect("write");
    }
    out.flush().expect("flush");
    std::fs::metadata(path).expect("size").len()
}

/// Days since 1970-01-01 to (year, month, day).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (era * 400 + yoe + i64::from(m <= 2), m, d)
}
