//! CSV → Iceberg append: the `ldp` binary against DuckDB, in one run.
//!
//! For each row count N it generates (once, cached as `<target>/bench-data/rides_N.csv`) a
//! deterministic rides CSV, then measures the wall time and the peak RSS (`ru_maxrss` from
//! `wait4`) of two child processes on it:
//! - `ldp run rides.json`, a pipeline appending the CSV to an Iceberg table in a fresh local
//!   warehouse (compiled plugins cached in `<target>/bench-cache`, warmed by an untimed run);
//! - DuckDB from Python (`$LDP_PYTHON`, else `<repo>/.venv/bin/python`) copying the same CSV to
//!   a Parquet file, the yardstick for "how fast can CSV become Parquet on this machine".
//!
//! With `--checks`, a third process is measured: the same `ldp run` with the seven quality
//! checks of the Python tool's demo config (row_count, not_null, unique, accepted_values, range,
//! freshness, schema), and the overhead of the gate against the plain run.
//!
//! Targets: ldp's wall time ≤ 1.5× DuckDB's and ldp's peak RSS < 400 MB (MB = 2^20 bytes); with
//! `--checks`, the checks add ≤ 30% to ldp's wall time. The bench reports, it does not fail: it
//! exits 0 when a target is missed, with a `MISS` verdict.
//!
//! ```sh
//! cargo bench -p ldp-cli --bench csv_to_iceberg                      # 1M and 10M rows
//! cargo bench -p ldp-cli --bench csv_to_iceberg -- 100000 --runs 3 --json
//! cargo bench -p ldp-cli --bench csv_to_iceberg -- 10000000 --checks --runs 3
//! ```
//!
//! Arguments: row counts (default `1000000 10000000`), `--runs N` (default 1; the best wall
//! time and the largest peak RSS of the N runs are reported), `--checks`, `--json` (JSON
//! instead of a table). DuckDB comes from `.venv/bin/pip install duckdb==1.5.6` (`scripts/test`
//! installs it).

mod common;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use common::{Measure, SplitMix, fail, group, measure, push_2, push_cents, push_u64, temp_dir};

const DUCKDB_PIN: &str = "duckdb==1.5.6";
const TARGET_RATIO: f64 = 1.5;
const TARGET_RSS_MB: f64 = 400.0;
const TARGET_CHECKS_OVERHEAD: f64 = 0.30;
const USAGE: &str = "usage: csv_to_iceberg [ROWS...] [--runs N] [--checks] [--json]";

/// The quality block of the demo's config (`host/cli/tests/data/upsert/demo_rides.json`).
const DEMO_CHECKS: &str = r#"{"on_failure": "fail", "checks": [
  {"check": "row_count", "min": 1},
  {"check": "not_null", "columns": ["ride_id", "pickup_ts", "fare"]},
  {"check": "unique", "columns": ["ride_id"]},
  {"check": "accepted_values", "column": "city", "values": ["NYC", "BKK", "LDN", "SFO"]},
  {"check": "range", "column": "fare", "min": 0},
  {"check": "freshness", "column": "pickup_ts", "max_age_hours": 48, "now": "2024-01-08T00:00:00"},
  {"check": "schema", "columns": {"ride_id": "int64", "city": "string", "fare": "double"}}
]}"#;

struct Options {
    rows: Vec<u64>,
    runs: u32,
    checks: bool,
    json: bool,
}

/// One row count's measures: ldp, DuckDB, and ldp with the demo's checks (`--checks`).
struct Result3 {
    rows: u64,
    ldp: Measure,
    duck: Measure,
    checked: Option<Measure>,
}

fn main() {
    let opts =
        parse_args(std::env::args().skip(1)).unwrap_or_else(|e| fail(&format!("{e}\n{USAGE}")));
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target"));
    let python = std::env::var_os("LDP_PYTHON")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join(".venv/bin/python"));
    check_duckdb(&python);
    let cache = target.join("bench-cache");

    // Untimed warm-up: compiles and caches the plugins, loads DuckDB's library once.
    eprintln!("warm-up on a 1,000-row CSV…");
    let tiny = ensure_csv(&target, 1000);
    run_ldp(&target, &tiny, &cache, false);
    if opts.checks {
        run_ldp(&target, &tiny, &cache, true);
    }
    run_duckdb(&target, &tiny, &python);

    let mut results = Vec::new();
    for &n in &opts.rows {
        let csv = ensure_csv(&target, n);
        let (mut ldp, mut duck) = (Measure::NONE, Measure::NONE);
        let mut checked = opts.checks.then_some(Measure::NONE);
        for run in 1..=opts.runs {
            eprintln!("{n} rows, run {run}/{}…", opts.runs);
            ldp = ldp.best(run_ldp(&target, &csv, &cache, false));
            if let Some(c) = checked.as_mut() {
                *c = c.best(run_ldp(&target, &csv, &cache, true));
            }
            duck = duck.best(run_duckdb(&target, &csv, &python));
        }
        results.push(Result3 {
            rows: n,
            ldp,
            duck,
            checked,
        });
    }
    if opts.json {
        print_json(&results, opts.runs);
    } else {
        print_table(&results);
    }
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut opts = Options {
        rows: Vec::new(),
        runs: 1,
        checks: false,
        json: false,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bench" => {} // cargo bench passes it to harness = false benches
            "--json" => opts.json = true,
            "--checks" => opts.checks = true,
            "--runs" => {
                let v = args.next().ok_or("--runs needs a number")?;
                opts.runs = v
                    .parse()
                    .ok()
                    .filter(|&r| r > 0)
                    .ok_or(format!("bad --runs {v:?}"))?;
            }
            a if a.starts_with('-') => return Err(format!("unknown option {a:?}")),
            a => {
                let n = a
                    .replace(['_', ','], "")
                    .parse::<u64>()
                    .ok()
                    .filter(|&n| n > 0);
                opts.rows.push(n.ok_or(format!("bad row count {a:?}"))?);
            }
        }
    }
    if opts.rows.is_empty() {
        opts.rows = vec![1_000_000, 10_000_000];
    }
    Ok(opts)
}

fn run_ldp(target: &Path, csv: &Path, cache: &Path, checks: bool) -> Measure {
    let dir = temp_dir(target);
    let mut config = serde_json::json!({
        "apiVersion": "ldp/v1",
        "identifier": "bench",
        "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": csv.to_string_lossy()},
            "target": {
                "name": "rides",
                "format": "ICEBERG",
                "catalog": {"identifier": "bench", "warehouse_path": "warehouse"}
            }
        }
    });
    if checks {
        config["metadata"]["quality"] =
            serde_json::from_str(DEMO_CHECKS).unwrap_or_else(|e| fail(&format!("checks: {e}")));
    }
    std::fs::write(dir.path().join("rides.json"), config.to_string())
        .unwrap_or_else(|e| fail(&format!("writing rides.json: {e}")));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ldp"));
    cmd.args(["run", "rides.json"])
        .current_dir(dir.path())
        .env("LDP_CACHE_DIR", cache);
    measure(
        if checks {
            "ldp run (checks)"
        } else {
            "ldp run"
        },
        cmd,
        dir.path(),
    )
}

const DUCKDB_SCRIPT: &str = r#"
import sys, duckdb
q = lambda p: "'" + p.replace("'", "''") + "'"
duckdb.sql(f"COPY (SELECT * FROM read_csv({q(sys.argv[1])})) TO {q(sys.argv[2])} (FORMAT parquet)")
"#;

fn run_duckdb(target: &Path, csv: &Path, python: &Path) -> Measure {
    let dir = temp_dir(target);
    let mut cmd = Command::new(python);
    cmd.arg("-c")
        .arg(DUCKDB_SCRIPT)
        .arg(csv)
        .arg(dir.path().join("out.parquet"));
    measure("duckdb", cmd, dir.path())
}

fn check_duckdb(python: &Path) {
    let ok = Command::new(python)
        .args(["-c", "import duckdb"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        fail(&format!(
            "no DuckDB for the comparison: `{} -c 'import duckdb'` failed; at the repository root \
             run: python3 -m venv .venv && .venv/bin/pip install {DUCKDB_PIN} \
             (or set LDP_PYTHON to a Python that has it)",
            python.display()
        ));
    }
}

fn verdict(ldp: Measure, duck: Measure) -> (f64, bool, bool) {
    let ratio = ldp.wall_s / duck.wall_s;
    (
        ratio,
        ratio <= TARGET_RATIO,
        ldp.peak_rss_mb < TARGET_RSS_MB,
    )
}

/// The checks' overhead over the plain run, and whether it meets the target.
fn overhead(ldp: Measure, checked: Measure) -> (f64, bool) {
    let overhead = checked.wall_s / ldp.wall_s - 1.0;
    (overhead, overhead <= TARGET_CHECKS_OVERHEAD)
}

fn print_table(results: &[Result3]) {
    println!(
        "{:>12}  {:<11} {:>9} {:>8} {:>14} {:>12}",
        "rows", "tool", "wall s", "cpu s", "rows/s", "peak RSS MB"
    );
    for r in results {
        let n = r.rows;
        let mut tools = vec![("ldp", r.ldp), ("duckdb", r.duck)];
        if let Some(c) = r.checked {
            tools.insert(1, ("ldp+checks", c));
        }
        for (tool, m) in tools {
            let rate = group(n as f64 / m.wall_s);
            println!(
                "{:>12}  {tool:<11} {:>9.3} {:>8.2} {rate:>14} {:>12.1}",
                group(n as f64),
                m.wall_s,
                m.cpu_s,
                m.peak_rss_mb
            );
        }
        let (ratio, ..) = verdict(r.ldp, r.duck);
        println!("{:>12}  ldp/duckdb time {ratio:.2}×", "");
    }
    println!();
    for r in results {
        if let Some(c) = r.checked {
            let (over, ok) = overhead(r.ldp, c);
            println!(
                "verdict {} rows with the demo's 7 checks: {} — {:+.1}% wall time (target ≤ +{:.0}%), \
                 {:+.1}% CPU time, peak RSS {:.0} MB",
                group(r.rows as f64),
                if ok { "PASS" } else { "MISS" },
                over * 100.0,
                TARGET_CHECKS_OVERHEAD * 100.0,
                (c.cpu_s / r.ldp.cpu_s - 1.0) * 100.0,
                c.peak_rss_mb
            );
        }
    }
    for &Result3 {
        rows: n, ldp, duck, ..
    } in results
    {
        let (ratio, time_ok, rss_ok) = verdict(ldp, duck);
        let mark = |ok| if ok { "ok" } else { "MISS" };
        println!(
            "verdict {} rows: {} — time {ratio:.2}× DuckDB (target ≤ {TARGET_RATIO}×) {}; \
             peak RSS {:.0} MB (target < {TARGET_RSS_MB:.0} MB) {}",
            group(n as f64),
            if time_ok && rss_ok { "PASS" } else { "MISS" },
            mark(time_ok),
            ldp.peak_rss_mb,
            mark(rss_ok),
        );
    }
}

fn print_json(results: &[Result3], runs: u32) {
    let m = |n: u64, m: Measure| {
        let rate = n as f64 / m.wall_s;
        serde_json::json!({"wall_s": m.wall_s, "cpu_s": m.cpu_s, "rows_per_s": rate, "peak_rss_mb": m.peak_rss_mb})
    };
    let rows: Vec<_> = results
        .iter()
        .map(|r| {
            let (n, ldp, duck) = (r.rows, r.ldp, r.duck);
            let (ratio, time_ok, rss_ok) = verdict(ldp, duck);
            let mut row = serde_json::json!({
                "rows": n,
                "ldp": m(n, ldp),
                "duckdb": m(n, duck),
                "time_ratio": ratio,
                "time_target_met": time_ok,
                "rss_target_met": rss_ok,
                "pass": time_ok && rss_ok,
            });
            if let Some(c) = r.checked {
                let (over, ok) = overhead(ldp, c);
                row["ldp_with_checks"] = m(n, c);
                row["checks_overhead"] = serde_json::json!(over);
                row["checks_target_met"] = serde_json::json!(ok);
            }
            row
        })
        .collect();
    let out = serde_json::json!({
        "bench": "csv_to_iceberg",
        "runs": runs,
        "targets": {
            "max_time_ratio": TARGET_RATIO,
            "max_peak_rss_mb": TARGET_RSS_MB,
            "max_checks_overhead": TARGET_CHECKS_OVERHEAD,
        },
        "results": rows,
    });
    println!("{out:#}");
}

/// `<target>/bench-data/rides_N.csv`, generated when missing (through a temp file renamed into
/// place, so an interrupted generation is never mistaken for a complete file).
fn ensure_csv(target: &Path, rows: u64) -> PathBuf {
    let dir = target.join("bench-data");
    let path = dir.join(format!("rides_{rows}.csv"));
    if path.is_file() {
        return std::path::absolute(&path).unwrap_or(path);
    }
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
    let tmp = dir.join(format!("rides_{rows}.csv.{}.tmp", std::process::id()));
    eprintln!("generating {}…", path.display());
    let start = Instant::now();
    let written = File::create(&tmp)
        .and_then(|f| write_rides(f, rows))
        .and_then(|()| std::fs::rename(&tmp, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        fail(&format!("generating {}: {e}", path.display()));
    }
    eprintln!(
        "generated {rows} rows in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    std::path::absolute(&path).unwrap_or(path)
}

/// Rides `1..=rows`: pickups uniform over the 7 days from 2024-01-01, distance 0.50–30.00 km,
/// fare = 2.50 + 1.8 × distance ± 1.00, all in integer hundredths (no float formatting).
fn write_rides(file: File, rows: u64) -> std::io::Result<()> {
    const CITIES: [&[u8]; 4] = [b"\"NYC\"", b"\"BKK\"", b"\"LDN\"", b"\"SFO\""];
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut rng = SplitMix(0x5EED_F1DE);
    let mut line = Vec::with_capacity(128);
    out.write_all(b"\"ride_id\",\"pickup_ts\",\"city\",\"distance_km\",\"fare\"\n")?;
    for id in 1..=rows {
        line.clear();
        push_u64(&mut line, id);
        let secs = rng.below(7 * 86_400);
        line.extend_from_slice(b",2024-01-0");
        push_u64(&mut line, 1 + secs / 86_400);
        line.push(b' ');
        push_2(&mut line, secs % 86_400 / 3600);
        line.push(b':');
        push_2(&mut line, secs % 3600 / 60);
        line.push(b':');
        push_2(&mut line, secs % 60);
        line.extend_from_slice(b".000000,");
        line.extend_from_slice(CITIES[rng.below(4) as usize]);
        line.push(b',');
        let distance = 50 + rng.below(2951); // 0.50..=30.00
        push_cents(&mut line, distance);
        line.push(b',');
        push_cents(&mut line, 250 + distance * 18 / 10 + rng.below(201) - 100);
        line.push(b'\n');
        out.write_all(&line)?;
    }
    out.flush()
}
