//! `ldp run`, `ldp snapshots`, `ldp query`, `ldp pipelines` end to end: a CSV into a local
//! catalog, read back with SQL, now and at earlier snapshots; failures that change nothing.

use std::path::PathBuf;
use std::process::{Command, Output};

use super::{ldp, rides, stderr, stdout};

/// A workdir with `data/rides.csv` (20 rows) and `rides.json` naming it.
struct Workdir {
    dir: tempfile::TempDir,
}

const CONFIG: &str = r#"{
  "apiVersion": "ldp/v1",
  "identifier": "rides",
  "metadata": {
    "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
    "target": {"name": "rides", "format": "ICEBERG",
               "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}}
  }
}"#;

impl Workdir {
    fn new() -> Workdir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        std::fs::copy(rides(), dir.path().join("data/rides.csv")).unwrap();
        std::fs::write(dir.path().join("rides.json"), CONFIG).unwrap();
        Workdir { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn config(&self) -> String {
        self.path("rides.json").display().to_string()
    }

    fn ldp(&self, args: &[&str]) -> Output {
        ldp(args)
    }

    fn run(&self, extra: &[&str]) -> Output {
        let config = self.config();
        let mut args = vec!["run", config.as_str()];
        args.extend_from_slice(extra);
        self.ldp(&args)
    }

    fn count(&self, extra: &[&str]) -> Output {
        let config = self.config();
        let mut args = vec!["query", config.as_str(), "SELECT count(*) AS n FROM rides"];
        args.extend_from_slice(extra);
        self.ldp(&args)
    }

    fn snapshots_json(&self) -> serde_json::Value {
        let out = self.ldp(&["snapshots", &self.config(), "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn data_files(&self) -> Vec<PathBuf> {
        let dir = self.path("warehouse/nyc/rides/data");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort();
        files
    }
}

fn ok(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
    stdout(out)
}

fn count_of(out: &Output) -> u64 {
    let text = ok(out);
    // n / - / value / (1 row)
    text.lines().nth(2).unwrap().trim().parse().unwrap()
}

#[test]
fn append_twice_overwrite_twice_and_time_travel() {
    let w = Workdir::new();
    let first = ok(&w.run(&[]));
    assert!(
        first.starts_with("rides: read 20 rows, wrote 20 rows in "),
        "{first}"
    );
    assert!(
        first.contains("  target nyc.rides: append, 0 -> 20 rows, snapshot "),
        "{first}"
    );
    let out = w.run(&["--json"]);
    let report: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(report["write_result"]["rows_before"], 20);
    assert_eq!(report["write_result"]["rows_after"], 40);
    assert_eq!(report["write_result"]["mode"], "append");
    let keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "name",
            "rows_read",
            "rows_written",
            "write_result",
            "quality",
            "duration_s",
            "run_id",
            "idempotency_key",
            "published_snapshot_id",
            "status",
            "rows_kept"
        ]
    );
    assert_eq!(count_of(&w.count(&[])), 40);

    ok(&w.run(&["--mode", "overwrite"]));
    ok(&w.run(&["--mode", "overwrite"]));
    assert_eq!(count_of(&w.count(&[])), 20);

    let snapshots = w.snapshots_json();
    let list = snapshots["snapshots"].as_array().unwrap();
    let ops: Vec<&str> = list
        .iter()
        .map(|s| s["operation"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["append", "append", "overwrite", "overwrite"]);
    let totals: Vec<u64> = list
        .iter()
        .map(|s| s["total_records"].as_u64().unwrap())
        .collect();
    assert_eq!(totals, [20, 40, 20, 20]);

    let first_id = list[0]["snapshot_id"].to_string();
    let second_id = list[1]["snapshot_id"].to_string();
    assert_eq!(count_of(&w.count(&["--snapshot", &first_id])), 20);
    assert_eq!(count_of(&w.count(&["--snapshot", &second_id])), 40);
    // --as-of now reads the current snapshot.
    assert_eq!(count_of(&w.count(&["--as-of", "2999-01-01"])), 20);

    let before = w.count(&["--as-of", "2020-01-01"]);
    assert_eq!(before.status.code(), Some(1));
    let err = stderr(&before);
    assert!(
        err.starts_with(
            "ldp: error: Iceberg table nyc.rides has no snapshot committed at or before \
             2020-01-01 00:00:00.000 UTC; its oldest snapshot was committed at "
        ),
        "{err}"
    );

    let text = ok(&w.ldp(&["snapshots", &w.config()]));
    assert!(
        text.starts_with("Snapshots of Iceberg table nyc.rides, oldest first:\n"),
        "{text}"
    );
    assert!(
        text.lines().nth(1).unwrap().starts_with(
            "        snapshot_id            parent_id  committed_at_utc     operation  total_records"
        ) || text.lines().nth(1).unwrap().contains("snapshot_id"),
        "{text}"
    );
    assert!(text.ends_with("(4 rows)\n"), "{text}");
}

/// The summary line and `--json`'s `name` say the config's `identifier`, as the Python tool's
/// do (`nightly_rides: read 20 rows, …`, `"name": "nightly_rides"`): they once said the source
/// block's `name`. The same for a run into a file target.
#[test]
fn the_summary_and_json_name_a_run_by_its_identifier() {
    let dir = super::rides_workdir(
        r#"{"identifier": "nightly_rides", "metadata": {
          "source": {"name": "rides_csv", "format": "CSV", "path": "data/rides.csv"},
          "target": {"name": "rides", "format": "ICEBERG", "write_mode": "overwrite",
                     "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}}}}"#,
    );
    std::fs::write(
        dir.path().join("export.json"),
        r#"{"identifier": "rides_export", "metadata": {
          "source": {"name": "rides", "format": "ICEBERG",
                     "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}},
          "target": {"name": "rides_file", "format": "CSV", "path": "out/rides.csv"}}}"#,
    )
    .unwrap();
    for (config, identifier) in [
        ("rides.json", "nightly_rides"),
        ("export.json", "rides_export"),
    ] {
        let config = dir.path().join(config).display().to_string();
        let text = ok(&ldp(&["run", &config]));
        assert!(
            text.starts_with(&format!("{identifier}: read 20 rows, wrote 20 rows in ")),
            "{text}"
        );
        let report: serde_json::Value =
            serde_json::from_str(&ok(&ldp(&["run", &config, "--json"]))).unwrap();
        assert_eq!(report["name"], identifier, "{report}");
    }
}

#[test]
fn query_prints_the_common_table_format_and_json() {
    let w = Workdir::new();
    ok(&w.run(&[]));
    let config = w.config();
    let text = ok(&w.ldp(&[
        "query",
        &config,
        "SELECT city, count(*) AS rides, round(avg(fare), 2) AS avg_fare FROM rides \
         GROUP BY city ORDER BY city",
        "--max-rows",
        "2",
    ]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "city  rides  avg_fare", "{text}");
    assert_eq!(lines[1], "----  -----  --------", "{text}");
    assert!(
        lines[4].starts_with("... ") && lines[4].ends_with(" more rows"),
        "{text}"
    );
    assert!(
        lines[5].starts_with('(') && lines[5].ends_with(" rows)"),
        "{text}"
    );

    let out = w.ldp(&[
        "query",
        &config,
        "SELECT ride_id, pickup_ts, city FROM nyc.rides ORDER BY ride_id LIMIT 1",
        "--json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(doc["rows"][0]["ride_id"], 1);
    assert_eq!(doc["rows"][0]["pickup_ts"], "2024-01-01 00:54:38");
    assert_eq!(doc["rows"][0]["city"], "LDN");
    assert_eq!(doc["row_count"], 1);
    assert_eq!(doc["truncated"], false);

    let out = w.ldp(&["query", &config, "DROP TABLE rides"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("ldp: error: SQL error: "),
        "{}",
        stderr(&out)
    );
}

/// The bug: `ldp query` with 2,000 `SELECT 1` joined by `UNION ALL` overflowed its stack and
/// aborted (exit 134). 1,000 run; 5,000 are refused before they plan, saying what the limit is.
#[test]
fn query_refuses_a_statement_nested_past_the_limit_and_runs_a_thousand_unions() {
    let w = Workdir::new();
    ok(&w.run(&[]));
    let config = w.config();
    let thousand = vec!["SELECT ride_id FROM rides WHERE ride_id = 1"; 1_000].join(" UNION ALL ");
    let out = w.ldp(&["query", &config, &thousand, "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(doc["row_count"], 1_000);
    // (An argument holds at most 128 KiB: the refused statements are short to write.)
    let out = w.ldp(&[
        "query",
        &config,
        &vec!["SELECT 1"; 5_000].join(" UNION ALL "),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "more than 2000 UNION/INTERSECT/EXCEPT operations; the limit is 2000: split it"
        ),
        "{}",
        stderr(&out)
    );
    let sum = format!("SELECT {} FROM rides", vec!["1"; 30_000].join("+"));
    let out = w.ldp(&["query", &config, &sum]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nests more than 2000 levels"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_folder_of_configs_is_one_lake() {
    let w = Workdir::new();
    ok(&w.run(&[]));
    let other = CONFIG
        .replace(
            "\"identifier\": \"rides\"",
            "\"identifier\": \"rides_copy\"",
        )
        .replace(
            "\"name\": \"rides\", \"format\": \"ICEBERG\"",
            "\"name\": \"copy\", \"format\": \"ICEBERG\"",
        );
    std::fs::write(w.path("copy.json"), other).unwrap();
    ok(&w.ldp(&["run", &w.path("copy.json").display().to_string()]));
    let folder = w.dir.path().display().to_string();
    let out = w.ldp(&[
        "query",
        &folder,
        "SELECT count(*) AS n FROM nyc.rides r JOIN copy c ON r.ride_id = c.ride_id",
    ]);
    assert_eq!(count_of(&out), 20);

    // --as-of reads every table of the lake as it was then: a later append to one
    // of them is not seen.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let then = jiff::Timestamp::now()
        .strftime("%Y-%m-%d %H:%M:%S")
        .to_string();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    ok(&w.run(&[]));
    let join = "SELECT count(*) AS n FROM nyc.rides r JOIN copy c ON r.ride_id = c.ride_id";
    assert_eq!(count_of(&w.ldp(&["query", &folder, join])), 40);
    assert_eq!(
        count_of(&w.ldp(&["query", &folder, join, "--as-of", &then])),
        20
    );
    let refused = w.ldp(&["query", &folder, join, "--snapshot", "1"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--as-of TIME to read every table"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}

#[test]
fn failures_change_nothing() {
    let w = Workdir::new();
    ok(&w.run(&[]));
    let files_before = w.data_files();
    let snapshots_before = w.snapshots_json();

    // A malformed row (too many fields) on line 5.
    let mut csv = std::fs::read_to_string(rides()).unwrap();
    let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
    lines[4].push_str(",extra");
    csv = lines.join("\n") + "\n";
    std::fs::write(w.path("data/rides.csv"), csv).unwrap();
    let out = w.run(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.starts_with("ldp: error: source rides (CSV "), "{err}");
    assert!(err.contains("rides.csv") && err.contains("line 5"), "{err}");

    // A missing source file.
    std::fs::remove_file(w.path("data/rides.csv")).unwrap();
    let out = w.run(&[]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("the source file ") && err.contains("does not exist"),
        "{err}"
    );

    // A config with three problems: every one is reported.
    std::fs::write(
        w.path("bad.json"),
        r#"{"identifier": "", "metadata": {"source": {"name": "rides", "format": "TSV", "path": "x"},
            "target": {"name": "a.b", "format": "ICEBERG", "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}}}}"#,
    )
    .unwrap();
    let out = w.ldp(&["run", &w.path("bad.json").display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("3 problem(s):"), "{err}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with("  - ")).count(),
        3,
        "{err}"
    );

    assert_eq!(w.snapshots_json(), snapshots_before);
    assert_eq!(w.data_files(), files_before);
}

#[test]
fn an_empty_source_writes_nothing() {
    let w = Workdir::new();
    std::fs::write(w.path("data/rides.csv"), "\"ride_id\",\"fare\"\n").unwrap();
    let out = w.run(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim_end(),
        "ldp: error: No data to write: the table has 0 rows (the source gave none, so nothing was written; check the source's path, window or filter)"
    );
    // No table was created.
    let out = w.ldp(&["snapshots", &w.config()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("does not exist"), "{}", stderr(&out));
}

#[test]
fn read_only_commands_never_create_a_catalog() {
    let w = Workdir::new();
    for args in [
        vec!["snapshots", w.path("rides.json").to_str().unwrap()],
        vec!["query", w.path("rides.json").to_str().unwrap(), "SELECT 1"],
    ] {
        let out = w.ldp(&args);
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert!(
            err.starts_with(
                "ldp: error: Iceberg table nyc.rides does not exist: there is no catalog at "
            ),
            "{err}"
        );
        assert!(!w.path("warehouse").exists());
    }
}

#[test]
fn two_appends_started_together_both_land() {
    let w = Workdir::new();
    ok(&w.run(&[]));
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_ldp"))
            .args(["--cache-dir", cache.to_str().unwrap(), "run", &w.config()])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let children: Vec<_> = (0..3).map(|_| spawn()).collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        ok(&out);
    }
    assert_eq!(count_of(&w.count(&[])), 80);
    let snapshots = w.snapshots_json();
    assert_eq!(snapshots["snapshots"].as_array().unwrap().len(), 4);
}

#[test]
fn pipelines_and_version() {
    let text = ok(&ldp(&["pipelines"]));
    assert!(
        text.starts_with("source   target   engine    pipeline           plugin"),
        "{text}"
    );
    assert!(
        text.contains("CSV      ICEBERG  -         CSVToIceberg       csv\n"),
        "{text}"
    );
    let text = ok(&ldp(&["--version"]));
    assert_eq!(
        text,
        format!(
            "ldp {} (compatible with local-data-platform 0.1.3)\n",
            env!("CARGO_PKG_VERSION")
        )
    );
}

#[test]
fn a_sql_catalog_on_a_sqlite_file_works_the_same_way() {
    let w = Workdir::new();
    let sql = CONFIG.replace(
        r#""catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}"#,
        r#""catalog": {"type": "sql", "uri": "sqlite:///catalog.db", "warehouse": "lake", "namespace": "nyc"}"#,
    );
    std::fs::write(w.path("rides.json"), sql).unwrap();
    let text = ok(&w.run(&[]));
    assert!(
        text.contains("target nyc.rides: append, 0 -> 20 rows"),
        "{text}"
    );
    assert!(w.path("catalog.db").is_file());
    assert!(w.path("lake/nyc/rides/metadata").is_dir());
    assert_eq!(count_of(&w.count(&[])), 20);

    // A password in the uri is refused before anything is read or created (use `password_env`).
    let secret = CONFIG.replace(
        r#""catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}"#,
        r#""catalog": {"type": "sql", "uri": "postgresql://me:hunter2@db/x", "namespace": "nyc"}"#,
    );
    std::fs::write(w.path("secret.json"), secret).unwrap();
    let out = w.ldp(&["run", &w.path("secret.json").display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("password_env"), "{}", stderr(&out));
}
