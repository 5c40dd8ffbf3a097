//! Commit latency per catalog type: 200 one-row appends (write one Parquet file, stage the
//! snapshot, compare-and-swap the catalog pointer), one after another, on a local SQLite
//! catalog and on a `sql` catalog in PostgreSQL (a throwaway server on a loopback port, started
//! by `ldp-test-servers`). Prints p50, p99 and the mean per catalog type.
//!
//! ```sh
//! cargo bench -p ldp-table --bench commit_latency
//! ```
//!
//! `LDP_BENCH_COMMITS=N` changes the number of appends.

use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use ldp_catalog::{Catalog, Mode};
use ldp_table::{Append, DataWriter, Table, WriterOptions};

fn main() {
    let commits: usize = std::env::var("LDP_BENCH_COMMITS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let dir = tempfile::tempdir().expect("temp dir");

    let local = Catalog::open(
        ldp_catalog::catalog_file(&dir.path().join("local"), "nyc"),
        "nyc",
        Mode::Create,
    )
    .expect("local catalog");
    report(
        "local (SQLite)",
        &measure(&local, &dir.path().join("local"), commits),
    );

    let server = ldp_test_servers::postgres::server();
    let uri = server.uri(&server.new_database("commit_latency"));
    let postgres = Catalog::open_postgres(
        &uri,
        Some(ldp_test_servers::postgres::PASSWORD),
        "nyc",
        Mode::Create,
    )
    .expect("PostgreSQL catalog");
    report(
        "sql (PostgreSQL)",
        &measure(&postgres, &dir.path().join("pg"), commits),
    );
}

/// The wall time of each of `commits` one-row appends to a new table.
fn measure(catalog: &Catalog, warehouse: &std::path::Path, commits: usize) -> Vec<Duration> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("city", DataType::Utf8, true),
    ]));
    let mut table = Table::create(
        catalog,
        "nyc",
        "rides",
        &schema,
        &warehouse.join("nyc").join("rides"),
    )
    .expect("create");
    (0..commits)
        .map(|i| {
            let batch = RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(Int64Array::from(vec![i as i64])),
                    Arc::new(StringArray::from(vec!["NYC"])),
                ],
            )
            .expect("batch");
            let started = Instant::now();
            let mut writer = DataWriter::new(&table, &WriterOptions::default()).expect("writer");
            writer.write(&batch).expect("write");
            Append::new(writer.finish().expect("finish"))
                .commit(catalog, &mut table)
                .expect("commit");
            started.elapsed()
        })
        .collect()
}

fn report(name: &str, times: &[Duration]) {
    let mut sorted = times.to_vec();
    sorted.sort();
    let at = |q: f64| sorted[((sorted.len() as f64 - 1.0) * q).round() as usize];
    let mean = sorted.iter().sum::<Duration>() / sorted.len().max(1) as u32;
    println!(
        "commit latency, {name}: {} one-row appends: p50 {:.1} ms, p99 {:.1} ms, mean {:.1} ms",
        sorted.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        mean.as_secs_f64() * 1e3,
    );
}
