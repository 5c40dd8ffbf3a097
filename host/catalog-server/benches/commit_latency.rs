//! Commit latency per catalog type: 200 one-row appends (write one Parquet file, stage the
//! snapshot, commit it to the catalog), one after another, through the table layer as `ldp run`
//! makes them, on each catalog type ldp reaches:
//!
//! * local: a SQLite catalog file;
//! * `sql` on PostgreSQL (a throwaway server on a loopback port, fsync on);
//! * `rest` on rustberg, a third-party Iceberg REST catalog (a process on a loopback port);
//! * `rest` on ldp's own server (`ldp catalog serve`'s library, in this process, over a local
//!   catalog);
//! * `glue` on moto's Glue server (Glue's lock patched in).
//!
//! The servers are those the tests start (`ldp-test-servers`); the data files are local, so the
//! figures are the catalogs' cost. Prints p50, p99 and the mean per catalog type.
//!
//! ```sh
//! cargo bench -p ldp-catalog-server --bench commit_latency
//! ```
//!
//! `LDP_BENCH_COMMITS=N` changes the number of appends; `LDP_BENCH_CATALOGS=local,rest` picks
//! catalog types (`local`, `postgres`, `rustberg`, `serve`, `glue`).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use ldp_catalog::{Catalog, CatalogAddress, Mode, RemoteAddress};
use ldp_catalog_rest::{RestConnector, RestSettings};
use ldp_table::{Append, DataWriter, Table, WriterOptions};

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "commit latency: run it with cargo bench -p ldp-catalog-server --bench commit_latency"
        );
        return;
    }
    let commits: usize = std::env::var("LDP_BENCH_COMMITS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let only = std::env::var("LDP_BENCH_CATALOGS").ok();
    let wanted = |name: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|w| w == name))
    };
    let dir = tempfile::tempdir().expect("temp dir");

    if wanted("local") {
        let warehouse = dir.path().join("local");
        let file = ldp_catalog::catalog_file(&warehouse, "nyc");
        let catalog = Catalog::open(file, "nyc", Mode::Create).expect("local catalog");
        report("local (SQLite)", &measure(&catalog, &warehouse, commits));
    }
    if wanted("postgres") {
        let server = ldp_test_servers::postgres::server();
        let uri = server.uri(&server.new_database("commit_latency"));
        let password = Some(ldp_test_servers::postgres::PASSWORD);
        let catalog = Catalog::open_postgres(&uri, password, "nyc", Mode::Create)
            .expect("PostgreSQL catalog");
        let warehouse = dir.path().join("pg");
        report("sql (PostgreSQL)", &measure(&catalog, &warehouse, commits));
    }
    if wanted("rustberg") {
        let server = ldp_test_servers::rustberg::Rustberg::start();
        let catalog = rest(&server.uri, ldp_test_servers::rustberg::TOKEN);
        let warehouse = dir.path().join("rustberg");
        report("rest (rustberg)", &measure(&catalog, &warehouse, commits));
    }
    if wanted("serve") {
        let served = dir.path().join("served");
        let mut settings = ldp_catalog_server::ServeSettings::new(
            "127.0.0.1:0".parse().expect("address"),
            vec![ldp_catalog_server::ServedCatalog {
                name: "lake".into(),
                address: CatalogAddress::Sqlite(ldp_catalog::catalog_file(&served, "lake")),
                warehouse: served.display().to_string(),
            }],
        );
        settings.token = Some("bench-token".into());
        let server = ldp_catalog_server::start(settings).expect("the server starts");
        let catalog = rest(&server.uri(), "bench-token");
        let warehouse = dir.path().join("serve-client");
        report(
            "rest (ldp catalog serve)",
            &measure(&catalog, &warehouse, commits),
        );
    }
    if wanted("glue") {
        use ldp_test_servers::moto;
        let server = moto::Moto::start(moto::Mode::GlueLock);
        let mut settings = ldp_catalog_glue::GlueSettings::new(
            "lake",
            moto::REGION,
            moto::ACCESS_KEY_ID,
            moto::SECRET_ACCESS_KEY,
        );
        settings.endpoint = Some(server.endpoint.clone());
        let address = RemoteAddress::new(ldp_catalog_glue::GlueConnector::new(settings));
        let catalog = Catalog::open_remote(&address, "lake", Mode::Create).expect("Glue catalog");
        let warehouse = dir.path().join("glue");
        report("glue (moto)", &measure(&catalog, &warehouse, commits));
    }
}

/// A `rest` catalog named `lake` at `uri`, with a bearer token.
fn rest(uri: &str, token: &str) -> Catalog {
    let mut settings = RestSettings::new(uri, "lake");
    settings.token = Some(token.to_string());
    let address = RemoteAddress::new(RestConnector::new(settings));
    Catalog::open_remote(&address, "lake", Mode::Create).expect("REST catalog")
}

/// The wall time of each of `commits` one-row appends to a new table `nyc.rides`.
fn measure(catalog: &Catalog, warehouse: &Path, commits: usize) -> Vec<Duration> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("city", DataType::Utf8, true),
    ]));
    let location = warehouse.join("nyc").join("rides");
    let mut table = Table::create(catalog, "nyc", "rides", &schema, &location).expect("create");
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
