//! Upsert of 1% changed rows into a day-partitioned table, against a full overwrite of the same
//! table, in one run.
//!
//! The table (`bench.rides`, partitioned by `day(pickup_ts)`) is loaded with N rows (default
//! 10M) in 10 appends, as daily loads would: ride ids grow with the pickup time, so each data
//! file holds one day's rides of one load. Its warehouse is then copied aside, and each scenario
//! starts from that copy:
//!
//! - `upsert recent`: the last 1% of the rides get a new fare (late corrections: the keys are
//!   close together, so few files may hold them);
//! - `upsert spread`: every 100th ride gets a new fare (1% of the rows, spread over every file:
//!   the worst case for copy-on-write);
//! - `overwrite`: the whole table written again from the N-row CSV.
//!
//! For each it measures the wall time, CPU time and peak RSS of `ldp run` (a child process),
//! and reads from `ldp run --json` the data files read and rewritten. The CSV files are
//! generated once under `<target>/bench-data/upsert_N/`; the compiled plugins are cached in
//! `<target>/bench-cache`.
//!
//! ```sh
//! cargo bench -p ldp-cli --bench upsert                 # 10M rows
//! cargo bench -p ldp-cli --bench upsert -- 1000000 --json
//! ```

mod common;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::{Measure, SplitMix, fail, group, measure, push_2, push_cents, push_u64, temp_dir};

const USAGE: &str = "usage: upsert [ROWS] [--json]";
const LOADS: u64 = 10;

/// One measured scenario.
struct Scenario {
    name: &'static str,
    measure: Measure,
    rows_written: u64,
    files_before: u64,
    files_read: u64,
    files_rewritten: u64,
    rows_rewritten: u64,
}

fn main() {
    let mut rows = 10_000_000u64;
    let mut json = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--bench" => {}
            "--json" => json = true,
            a if a.starts_with('-') => fail(&format!("unknown option {a:?}\n{USAGE}")),
            a => {
                rows = a
                    .replace(['_', ','], "")
                    .parse()
                    .ok()
                    .filter(|&n: &u64| n >= 1000)
                    .unwrap_or_else(|| fail(&format!("bad row count {a:?} (≥ 1000)\n{USAGE}")));
            }
        }
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target"));
    let cache = target.join("bench-cache");
    let data = ensure_data(&target, rows);
    let work = temp_dir(&target);
    let dir = work.path();
    write_configs(dir, &data);

    eprintln!("loading {} rows in {LOADS} appends…", group(rows as f64));
    let started = Instant::now();
    for load in 0..LOADS {
        run(dir, &cache, &format!("load_{load}.json"), "load");
    }
    eprintln!("loaded in {:.1} s", started.elapsed().as_secs_f64());
    copy_dir(&dir.join("warehouse"), &dir.join("warehouse.loaded"));

    let mut results = Vec::new();
    for (name, config) in [
        ("upsert recent", "recent.json"),
        ("upsert spread", "spread.json"),
        ("overwrite", "overwrite.json"),
    ] {
        let _ = std::fs::remove_dir_all(dir.join("warehouse"));
        copy_dir(&dir.join("warehouse.loaded"), &dir.join("warehouse"));
        eprintln!("{name}…");
        let (measure, report) = run(dir, &cache, config, name);
        let write = &report["write_result"];
        let upsert = &write["upsert"];
        let count = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
        results.push(Scenario {
            name,
            measure,
            rows_written: count(&write["rows_written"]),
            files_before: count(&upsert["files_before"]),
            files_read: count(&upsert["files_read"]),
            files_rewritten: count(&upsert["files_rewritten"]),
            rows_rewritten: count(&upsert["rows_rewritten"]),
        });
    }
    if json {
        print_json(rows, &results);
    } else {
        print_table(rows, &results);
    }
}

/// Runs `ldp run CONFIG --json` in `dir`; its measures and its report.
fn run(dir: &Path, cache: &Path, config: &str, what: &str) -> (Measure, serde_json::Value) {
    let logs = dir.join("logs").join(config.trim_end_matches(".json"));
    std::fs::create_dir_all(&logs).unwrap_or_else(|e| fail(&format!("{}: {e}", logs.display())));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ldp"));
    cmd.args(["run", config, "--json"])
        .current_dir(dir)
        .env("LDP_CACHE_DIR", cache);
    let measured = measure(what, cmd, &logs);
    let text = std::fs::read_to_string(logs.join("stdout.txt")).unwrap_or_default();
    let report = serde_json::from_str(&text).unwrap_or_else(|e| {
        fail(&format!(
            "{what}: ldp run --json printed no report ({e}): {text}"
        ))
    });
    (measured, report)
}

fn copy_dir(from: &Path, to: &Path) {
    let ok = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        fail(&format!(
            "cannot copy {} to {}",
            from.display(),
            to.display()
        ));
    }
}

/// The configs of the bench, all on `bench.rides` in `dir/warehouse`.
fn write_configs(dir: &Path, data: &Path) {
    let config = |source: &Path, mode: &str| {
        serde_json::json!({
            "apiVersion": "ldp/v1",
            "identifier": "bench",
            "metadata": {
                "source": {"name": "rides", "format": "CSV", "path": source.to_string_lossy()},
                "target": {
                    "name": "rides",
                    "format": "ICEBERG",
                    "catalog": {"identifier": "bench", "warehouse_path": "warehouse"},
                    "write_mode": mode,
                    "join_cols": ["ride_id"],
                    "partition_by": [{"column": "pickup_ts", "transform": "day"}]
                }
            }
        })
        .to_string()
    };
    let mut files = vec![
        (
            "recent.json".to_string(),
            config(&data.join("recent.csv"), "upsert"),
        ),
        (
            "spread.json".to_string(),
            config(&data.join("spread.csv"), "upsert"),
        ),
        (
            "overwrite.json".to_string(),
            config(&data.join("all.csv"), "overwrite"),
        ),
    ];
    for load in 0..LOADS {
        let csv = data.join(format!("load_{load}.csv"));
        files.push((format!("load_{load}.json"), config(&csv, "append")));
    }
    for (name, text) in files {
        std::fs::write(dir.join(&name), text).unwrap_or_else(|e| fail(&format!("{name}: {e}")));
    }
}

/// `<target>/bench-data/upsert_N/`: `load_K.csv` (the K-th tenth of the rides), `all.csv`,
/// `recent.csv` (the last 1%, fare + 1.00) and `spread.csv` (every 100th, fare + 1.00);
/// generated when missing (`complete` marks a finished generation).
fn ensure_data(target: &Path, rows: u64) -> PathBuf {
    let dir = target.join("bench-data").join(format!("upsert_{rows}"));
    let dir = std::path::absolute(&dir).unwrap_or(dir);
    if dir.join("complete").is_file() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
    eprintln!("generating {}…", dir.display());
    let started = Instant::now();
    let per_load = rows.div_ceil(LOADS);
    let mut files: Vec<(String, Vec<(u64, u64)>)> = (0..LOADS)
        .map(|k| {
            let from = 1 + k * per_load;
            let to = ((k + 1) * per_load).min(rows);
            (format!("load_{k}.csv"), vec![(from, to)])
        })
        .collect();
    files.push(("all.csv".into(), vec![(1, rows)]));
    for (name, ranges) in &files {
        write_csv(
            &dir.join(name),
            rows,
            ranges.iter().flat_map(|&(a, b)| a..=b),
            0,
        );
    }
    let recent_from = rows - rows / 100 + 1;
    write_csv(&dir.join("recent.csv"), rows, recent_from..=rows, 100);
    write_csv(
        &dir.join("spread.csv"),
        rows,
        (100..=rows).step_by(100),
        100,
    );
    File::create(dir.join("complete")).unwrap_or_else(|e| fail(&format!("marker: {e}")));
    eprintln!("generated in {:.1} s", started.elapsed().as_secs_f64());
    dir
}

/// Writes the rides `ids` of an `rows`-ride table, with `bump` hundredths added to each fare.
/// Ride `id`'s pickup is `(id − 1) · 7 days / rows` after 2024-01-01, so ids grow with time;
/// its city, distance and fare come from a hash of the id, so a ride is the same in every file.
fn write_csv(path: &Path, rows: u64, ids: impl Iterator<Item = u64>, bump: u64) {
    const CITIES: [&[u8]; 4] = [b"\"NYC\"", b"\"BKK\"", b"\"LDN\"", b"\"SFO\""];
    let written = File::create(path).and_then(|file| {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(b"\"ride_id\",\"pickup_ts\",\"city\",\"distance_km\",\"fare\"\n")?;
        let mut line = Vec::with_capacity(128);
        for id in ids {
            line.clear();
            let h = SplitMix(id).next();
            let secs = (id - 1) * 7 * 86_400 / rows;
            push_u64(&mut line, id);
            line.extend_from_slice(b",2024-01-0");
            push_u64(&mut line, 1 + secs / 86_400);
            line.push(b' ');
            push_2(&mut line, secs % 86_400 / 3600);
            line.push(b':');
            push_2(&mut line, secs % 3600 / 60);
            line.push(b':');
            push_2(&mut line, secs % 60);
            line.push(b',');
            line.extend_from_slice(CITIES[(h % 4) as usize]);
            line.push(b',');
            let distance = 50 + (h >> 8) % 2951;
            push_cents(&mut line, distance);
            line.push(b',');
            push_cents(&mut line, 250 + distance * 18 / 10 + (h >> 24) % 200 + bump);
            line.push(b'\n');
            out.write_all(&line)?;
        }
        out.flush()
    });
    if let Err(e) = written {
        fail(&format!("writing {}: {e}", path.display()));
    }
}

fn print_table(rows: u64, results: &[Scenario]) {
    println!(
        "{} rows, partitioned by day(pickup_ts), loaded in {LOADS} appends",
        group(rows as f64)
    );
    println!(
        "{:<14} {:>8} {:>8} {:>12} {:>14} {:>10} {:>16} {:>14}",
        "scenario",
        "wall s",
        "cpu s",
        "peak RSS MB",
        "rows written",
        "files read",
        "files rewritten",
        "rows rewritten"
    );
    for r in results {
        let upsert = r.name.starts_with("upsert");
        let files = |n: u64| {
            if upsert {
                format!("{n} of {}", r.files_before)
            } else {
                "all".to_string()
            }
        };
        println!(
            "{:<14} {:>8.2} {:>8.2} {:>12.0} {:>14} {:>10} {:>16} {:>14}",
            r.name,
            r.measure.wall_s,
            r.measure.cpu_s,
            r.measure.peak_rss_mb,
            group(r.rows_written as f64),
            files(r.files_read),
            files(r.files_rewritten),
            if upsert {
                group(r.rows_rewritten as f64)
            } else {
                "-".into()
            }
        );
    }
    if let Some(overwrite) = results.iter().find(|r| r.name == "overwrite") {
        for r in results.iter().filter(|r| r.name != "overwrite") {
            println!(
                "{}: {:.2}× the overwrite's wall time",
                r.name,
                r.measure.wall_s / overwrite.measure.wall_s
            );
        }
    }
}

fn print_json(rows: u64, results: &[Scenario]) {
    let scenarios: Vec<_> = results
        .iter()
        .map(|r| {
            serde_json::json!({
                "scenario": r.name,
                "wall_s": r.measure.wall_s,
                "cpu_s": r.measure.cpu_s,
                "peak_rss_mb": r.measure.peak_rss_mb,
                "rows_written": r.rows_written,
                "files_before": r.files_before,
                "files_read": r.files_read,
                "files_rewritten": r.files_rewritten,
                "rows_rewritten": r.rows_rewritten,
            })
        })
        .collect();
    let out = serde_json::json!({"bench": "upsert", "rows": rows, "loads": LOADS, "scenarios": scenarios});
    println!("{out:#}");
}
