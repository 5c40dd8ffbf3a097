//! Torture suites: the real `ldp` binary killed with `kill -9` at random moments of every write
//! kind (`kills.rs`), and N `ldp run` processes writing one table at once (`writers.rs`), each
//! outcome checked by pyiceberg and by `ldp commits` (`check.rs`): the table loads and every row
//! reads (no referenced file is missing), its content is the old or the new one, a re-run
//! writes its rows exactly once, and the leftovers (orphan data files, staging branches, empty
//! tables) are counted.
//!
//! Size from the environment: `LDP_TORTURE_TRIALS` kill trials per write kind (default 4),
//! `LDP_TORTURE_WRITERS` concurrent writers per kind (default 4), `LDP_TORTURE_ROWS` rows of a
//! killed run's CSV (default sized so a debug build writes it in about a second),
//! `LDP_TORTURE_SEED` the seed of the generated files and of the kill moments. With
//! `LDP_TORTURE_REPORT=FILE` every test merges its figures into that JSON file. `bench/torture`
//! runs them at full size on a release build.
//!
//! The other hostile suites live elsewhere and are not repeated here: hostile plugins (reading
//! `/etc/passwd`, endless loops, unbounded memory) in `host/plugin-runtime/tests/it/hostile.rs`
//! and, named in a config and run by `ldp run`, in `hostile_files.rs`; hostile SQL in `mcp.rs`
//! (a hostile MCP session) and `tables.rs` (statements nested past the limit); hostile table
//! names and catalog identifiers in `hostile_names.rs`; bad source files (malformed rows) in
//! `tables.rs` and a catalog file that is not SQLite in `host/catalog/tests/it/files.rs`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

mod check;
mod kills;
mod writers;

/// How big a torture run is.
#[derive(Clone, Copy, Debug)]
struct Size {
    /// Kill trials per write kind.
    trials: usize,
    /// Concurrent writers per kind.
    writers: usize,
    /// Rows of a killed run's CSV.
    rows: i64,
    seed: u64,
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(text) => text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={text} is not a whole number")),
        Err(_) => default,
    }
}

fn size() -> Size {
    // A debug build writes about 300k rows a second here; a release build several times more.
    let rows = if cfg!(debug_assertions) {
        150_000
    } else {
        1_000_000
    };
    Size {
        trials: env_number("LDP_TORTURE_TRIALS", 4) as usize,
        writers: env_number("LDP_TORTURE_WRITERS", 4).max(2) as usize,
        rows: env_number("LDP_TORTURE_ROWS", rows).max(1_000) as i64,
        seed: env_number("LDP_TORTURE_SEED", 0x1d9_70e7_u64),
    }
}

/// xorshift64*: seeded, enough for generated rows and kill moments.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Rows with the ids `start..start + n`, each with the version `v` (which write they came from).
#[derive(Clone, Copy, Debug)]
struct Part {
    start: i64,
    n: i64,
    v: i64,
}

/// What a table holds, as far as the suites tell writes apart: per version, the row count and
/// the sum of the ids.
type Content = BTreeMap<i64, (i64, i64)>;

fn content(parts: &[Part]) -> Content {
    let mut out = Content::new();
    for part in parts {
        let entry = out.entry(part.v).or_insert((0, 0));
        entry.0 += part.n;
        entry.1 += part.n * (2 * part.start + part.n - 1) / 2;
    }
    out
}

/// `a` with the rows of `b` added.
fn plus(a: &Content, b: &Content) -> Content {
    let mut out = a.clone();
    for (v, (n, sum)) in b {
        let entry = out.entry(*v).or_insert((0, 0));
        entry.0 += n;
        entry.1 += sum;
    }
    out
}

fn rows_of(c: &Content) -> i64 {
    c.values().map(|(n, _)| n).sum()
}

/// A CSV of `parts` (`id,v,city,note,fare`), its other values drawn from `seed`.
fn write_csv(path: &Path, parts: &[Part], seed: u64) {
    const CITIES: [&str; 8] = ["NYC", "LDN", "BKK", "SFO", "PAR", "BER", "TYO", "SYD"];
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz ";
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).unwrap();
    }
    let mut rng = Rng::new(seed);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(out, "id,v,city,note,fare").unwrap();
    let mut note = Vec::with_capacity(64);
    for part in parts {
        for id in part.start..part.start + part.n {
            note.clear();
            for _ in 0..8 + rng.below(40) {
                note.push(LETTERS[rng.below(LETTERS.len() as u64) as usize]);
            }
            let fare = rng.below(100_000);
            writeln!(
                out,
                "{id},{},{},{},{}.{:02}",
                part.v,
                CITIES[rng.below(8) as usize],
                std::str::from_utf8(&note).unwrap(),
                fare / 100,
                fare % 100
            )
            .unwrap();
        }
    }
    out.flush().unwrap();
}

/// The catalog every torture config writes to: `<dir>/warehouse/lake_catalog.db`.
const CATALOG: &str = "lake";

/// A config reading `source` (relative to its folder) into `lake.<table>` with `mode`; an
/// upsert joins on `id`. Run events go to the `iceberg` sink too, so the `_ldp` tables are
/// written (and counted) as well.
fn config(table: &str, source: &str, mode: &str) -> String {
    let mut target = serde_json::json!({
        "name": table, "format": "ICEBERG", "write_mode": mode,
        "catalog": {"identifier": CATALOG, "warehouse_path": "warehouse"},
    });
    if mode == "upsert" {
        target["join_cols"] = serde_json::json!(["id"]);
    }
    serde_json::json!({
        "identifier": format!("torture_{table}"),
        "metadata": {
            "source": {"name": "rows", "format": "CSV", "path": source},
            "target": target,
            "observability": {"sinks": ["iceberg"]},
        },
    })
    .to_string()
}

/// `ldp` with the tests' component cache, as `super::ldp` runs it.
fn ldp_command() -> Command {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    let mut command = Command::new(env!("CARGO_BIN_EXE_ldp"));
    command.args(["--cache-dir", cache.to_str().unwrap()]);
    command
}

/// `ldp run CONFIG --json EXTRA…` as a child process.
fn spawn_run(config: &Path, extra: &[&str], output: bool) -> Child {
    let pipe = || {
        if output {
            Stdio::piped()
        } else {
            Stdio::null()
        }
    };
    ldp_command()
        .arg("run")
        .arg(config)
        .arg("--json")
        .args(extra)
        .stdin(Stdio::null())
        .stdout(pipe())
        .stderr(pipe())
        .spawn()
        .expect("ldp starts")
}

/// The exit code, the `--json` document and stderr of an `ldp run` that runs to its end.
struct RunOutput {
    code: i32,
    doc: serde_json::Value,
    stderr: String,
    elapsed: Duration,
}

fn run(config: &Path, extra: &[&str]) -> RunOutput {
    let started = Instant::now();
    let out = spawn_run(config, extra, true).wait_with_output().unwrap();
    finished(out, started.elapsed())
}

fn finished(out: std::process::Output, elapsed: Duration) -> RunOutput {
    RunOutput {
        code: out.status.code().unwrap_or(-1),
        doc: serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed,
    }
}

impl RunOutput {
    fn status(&self) -> &str {
        self.doc["status"].as_str().unwrap_or("-")
    }

    /// `None` when it exited 0, else what went wrong.
    fn failure(&self, what: &str) -> Option<String> {
        (self.code != 0).then(|| {
            format!(
                "{what} exited {}: {}",
                self.code,
                self.stderr.trim_end().lines().last().unwrap_or("")
            )
        })
    }
}

/// A staging tempdir kept (and named on stderr) when a suite found a violation, so the
/// warehouse can be inspected.
fn keep_on_failure(dir: tempfile::TempDir, violations: &[String]) {
    if violations.is_empty() {
        return;
    }
    let kept = dir.keep();
    eprintln!("torture: the warehouses are kept in {}", kept.display());
}

static REPORT: Mutex<()> = Mutex::new(());

/// Merges `doc` into `LDP_TORTURE_REPORT` (when set) under `section.name`, with the size.
fn report(section: &str, name: &str, doc: serde_json::Value) {
    let Some(path) = std::env::var_os("LDP_TORTURE_REPORT") else {
        return;
    };
    let _guard = REPORT.lock().unwrap_or_else(|e| e.into_inner());
    let mut all: serde_json::Value = std::fs::read(&path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .filter(serde_json::Value::is_object)
        .unwrap_or_else(|| serde_json::json!({}));
    let size = size();
    all["size"] = serde_json::json!({
        "trials_per_kind": size.trials, "writers_per_kind": size.writers,
        "rows": size.rows, "seed": size.seed,
        "build": if cfg!(debug_assertions) { "debug" } else { "release" },
    });
    if !all[section].is_object() {
        all[section] = serde_json::json!({});
    }
    all[section][name] = doc;
    std::fs::write(&path, serde_json::to_vec_pretty(&all).unwrap()).unwrap();
}

/// Prints `rows` (the first is the header) as right-aligned columns.
fn print_table(title: &str, rows: &[Vec<String>], footer: &str) {
    let mut widths = vec![0; rows.first().map_or(0, Vec::len)];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let mut text = format!("\n{title}\n");
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:>width$}"))
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text.push_str(footer);
    text.push('\n');
    eprint!("{text}");
}
