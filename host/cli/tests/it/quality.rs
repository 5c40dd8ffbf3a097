//! Quality gates end to end: the demo's seven checks pass on a clean batch and block
//! its bad batch (exit 3, the three messages, no snapshot, no file left); `warn` writes anyway;
//! `--json` carries the report; a check plugin file joins the report; `ldp plan` and `ldp run`
//! accept and refuse the same check parameters.

use std::path::{Path, PathBuf};
use std::process::Output;

use super::{ldp, rides, rides_workdir, stderr, stdout};

/// The demo's checks (its `rides.json`, `tests/data/upsert/demo_rides.json`), on an append
/// target.
fn config(on_failure: &str, extra_check: &str) -> String {
    format!(
        r#"{{
  "apiVersion": "ldp/v1",
  "identifier": "demo_rides",
  "metadata": {{
    "source": {{"name": "rides", "format": "CSV", "path": "data/rides.csv"}},
    "target": {{"name": "rides", "format": "ICEBERG",
               "catalog": {{"identifier": "demo", "warehouse_path": "warehouse"}}}},
    "quality": {{
      "on_failure": "{on_failure}",
      "checks": [
        {{"check": "row_count", "min": 1}},
        {{"check": "not_null", "columns": ["ride_id", "pickup_ts", "fare"]}},
        {{"check": "unique", "columns": ["ride_id"]}},
        {{"check": "accepted_values", "column": "city", "values": ["NYC", "BKK", "LDN", "SFO"]}},
        {{"check": "range", "column": "fare", "min": 0}},
        {{"check": "freshness", "column": "pickup_ts", "max_age_hours": 48, "now": "2024-01-08T00:00:00"}},
        {{"check": "schema", "columns": {{"ride_id": "int64", "city": "string", "fare": "double"}}}}{extra_check}
      ]
    }}
  }}
}}"#
    )
}

struct Workdir {
    dir: tempfile::TempDir,
}

impl Workdir {
    fn new(config: &str) -> Workdir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        std::fs::copy(rides(), dir.path().join("data/rides.csv")).unwrap();
        std::fs::write(dir.path().join("rides.json"), config).unwrap();
        Workdir { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn run(&self, extra: &[&str]) -> Output {
        let config = self.path("rides.json").display().to_string();
        let mut args = vec!["run", config.as_str()];
        args.extend_from_slice(extra);
        ldp(&args)
    }

    fn use_bad_batch(&self) {
        std::fs::copy(bad_batch(), self.path("data/rides.csv")).unwrap();
    }

    fn snapshots(&self) -> usize {
        let config = self.path("rides.json").display().to_string();
        let out = ldp(&["snapshots", &config, "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        value["snapshots"].as_array().map_or(0, Vec::len)
    }

    fn data_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.path("warehouse/demo/rides/data"))
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort();
        files
    }
}

/// The demo's bad batch (see `tests/data/quality/make_bad_batch.py`).
fn bad_batch() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/quality/bad_batch.csv")
}

#[test]
fn the_demo_checks_pass_a_clean_batch_and_block_the_bad_one() {
    let work = Workdir::new(&config("fail", ""));
    let out = work.run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .ends_with("(quality: 7 of 7 checks passed)"),
        "{text}"
    );
    for line in [
        "  Data quality: 7 of 7 checks passed",
        "    [PASS] row_count: 20 rows (expected >= 1)",
        "    [PASS] not_null(ride_id, pickup_ts, fare): no nulls in ride_id, pickup_ts, fare (20 rows)",
        "    [PASS] unique(ride_id): ride_id is unique over 20 rows",
        "    [PASS] accepted_values(city): every non-null value of city is in ['NYC', 'BKK', 'LDN', 'SFO']",
        "    [PASS] range(fare): every non-null value satisfies fare >= 0",
        "    [PASS] schema: has the expected column(s) ['ride_id', 'city', 'fare'] with the expected types",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
    let files = work.data_files();
    assert_eq!(work.snapshots(), 1);

    work.use_bad_batch();
    let out = work.run(&[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    let lines: Vec<String> = stderr(&out)
        .lines()
        .filter(|l| !l.contains("INFO"))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        lines,
        [
            "ldp: error: 3 of 7 data quality checks failed:",
            "  - not_null(ride_id, pickup_ts, fare): 3 of 20 rows have a null in ride_id, pickup_ts, fare (ride_id=3)",
            "  - unique(ride_id): 1 duplicated key(s) in (ride_id) across 4 rows; 3 rows with a null key skipped; e.g. 1017 x4",
            "  - range(fare): 1 of 20 rows violate fare >= 0: 1 below min, 0 above max",
        ]
    );
    assert_eq!(work.snapshots(), 1, "no new snapshot");
    assert_eq!(work.data_files(), files, "no new file under data/");
}

#[test]
fn warn_writes_despite_failures_and_json_carries_the_report() {
    let work = Workdir::new(&config("warn", ""));
    work.use_bad_batch();
    let out = work.run(&["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("writing despite failed quality checks (on_failure=warn)"),
        "{}",
        stderr(&out)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let quality = &report["quality"];
    assert_eq!(quality["passed"], false);
    assert_eq!(quality["checks_run"], 7);
    assert_eq!(quality["checks_failed"], 3);
    let unique = &quality["results"][2];
    assert_eq!(unique["name"], "unique(ride_id)");
    assert_eq!(unique["failing_rows"], 4);
    assert_eq!(unique["metrics"]["null_key_rows"], 3);
    assert_eq!(report["rows_written"], 20);
    assert_eq!(work.snapshots(), 1);
}

#[test]
fn a_run_without_checks_reports_an_empty_quality_object() {
    let plain = r#"{"apiVersion": "ldp/v1", "identifier": "demo_rides", "metadata": {
      "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
      "target": {"name": "rides", "format": "ICEBERG",
                 "catalog": {"identifier": "demo", "warehouse_path": "warehouse"}}}}"#;
    let work = Workdir::new(plain);
    let out = work.run(&["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["quality"],
        serde_json::json!({"passed": true, "checks_run": 0, "checks_failed": 0, "results": []})
    );
}

#[test]
fn a_check_plugin_file_joins_the_report_and_its_hash_is_enforced() {
    let plugin = ldp_builtin_plugins::testing::component_path("custom-check");
    let extra = format!(
        r#",
        {{"check": "{}", "config": {{"column": "fare", "max": 40}}}}"#,
        plugin.display()
    );
    let work = Workdir::new(&config("fail", &extra));
    let out = work.run(&[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with("ldp: error: 1 of 9 data quality checks failed:\n  - max_value(fare): "),
        "{err}"
    );
    assert_eq!(work.snapshots_or_none(), None, "the table is not created");

    // A pinned hash that does not match refuses the run before anything is read.
    let pinned = extra.replace(
        "\"config\"",
        &format!("\"sha256\": \"{}\", \"config\"", "0".repeat(64)),
    );
    let work = Workdir::new(&config("fail", &pinned));
    let out = work.run(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("but the config pins 0000"),
        "{}",
        stderr(&out)
    );

    // With a higher limit, both verdicts pass and follow the built-in ones.
    let work = Workdir::new(&config("fail", &extra.replace("40", "100")));
    let out = work.run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("    [PASS] rows_seen: 20 rows seen, 20 read from the source\n    [PASS] max_value(fare): 0 values above 100"),
        "{text}"
    );
}

impl Workdir {
    fn snapshots_or_none(&self) -> Option<usize> {
        self.path("warehouse/demo/rides/metadata")
            .exists()
            .then(|| self.snapshots())
    }
}

#[test]
fn a_check_plugin_that_traps_fails_the_run_and_leaves_nothing() {
    let plugin = ldp_builtin_plugins::testing::component_path("custom-check");
    let extra = format!(
        r#",
        {{"check": "{}", "config": {{"column": "fare", "max": 100, "panic": true}}}}"#,
        plugin.display()
    );
    let work = Workdir::new(&config("fail", &extra));
    let out = work.run(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("quality check #8 (plugin ") && err.contains("crashed"),
        "{err}"
    );
    assert_eq!(work.snapshots_or_none(), None, "the table is not created");
    assert!(work.data_files().is_empty(), "no data file is left");

    // A plugin of another kind is refused before anything is read.
    let source = ldp_builtin_plugins::testing::component_path("hostile-trap");
    let wrong = format!(
        r#",
        {{"check": "{}"}}"#,
        source.display()
    );
    let work = Workdir::new(&config("fail", &wrong));
    let out = work.run(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("a check plugin is needed here"),
        "{}",
        stderr(&out)
    );
    assert!(!work.path("warehouse/demo/rides").exists());
}

/// A config of the example rides into a JSON file, with one check item written as `item`;
/// `warn` so that a run whose checks fail still exits 0.
fn one_check(item: &str) -> String {
    format!(
        r#"{{"apiVersion": "ldp/v1", "identifier": "rides", "metadata": {{
  "source": {{"name": "rides", "format": "CSV", "path": "data/rides.csv"}},
  "target": {{"name": "out", "format": "JSON", "path": "out/rides.jsonl"}},
  "quality": {{"on_failure": "warn", "checks": [{item}]}}}}}}"#
    )
}

/// `ldp plan` and `ldp run` on `rides.json` of `dir`: (exit code, stderr) of each.
fn plan_and_run(dir: &Path) -> [(Option<i32>, String); 2] {
    let config = dir.join("rides.json").display().to_string();
    ["plan", "run"].map(|command| {
        let out = ldp(&[command, &config]);
        (out.status.code(), stderr(&out))
    })
}

/// Every case of `tests/checks/params.json` (the table the config crate and the checks plugin
/// are tested against): both commands accept the item (the run writes, its verdicts whatever
/// they are), or both refuse it, `ldp plan` with `metadata.quality.checks[0]: check ` and
/// `ldp run` with `quality check #1 ` before the same message.
#[test]
fn plan_and_run_accept_and_refuse_the_same_check_parameters() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/checks/params.json");
    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let cases = table["cases"].as_array().unwrap();
    assert!(cases.len() >= 50, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let item = case["item"].to_string();
        let dir = rides_workdir(&one_check(&item));
        let [(plan_code, plan_err), (run_code, run_err)] = plan_and_run(dir.path());
        let agree = match case["error"].as_str() {
            None => plan_code == Some(0) && run_code == Some(0),
            Some(tail) => {
                plan_code == Some(1)
                    && run_code == Some(1)
                    && plan_err.contains(&format!("metadata.quality.checks[0]: check {tail}\n"))
                    && run_err.contains(&format!("quality check #1 {tail}\n"))
            }
        };
        if !agree {
            failures.push(format!(
                "{item}: expected {}\n  plan: {plan_code:?} {plan_err}\n  run: {run_code:?} {run_err}",
                case["error"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // A NaN bound, which the Python tool refuses as a value, is not JSON: both refuse the file.
    let dir = rides_workdir(&one_check(
        r#"{"check": "range", "column": "fare", "min": NaN}"#,
    ));
    let [(plan_code, plan_err), (run_code, run_err)] = plan_and_run(dir.path());
    assert_eq!(
        (plan_code, run_code),
        (Some(1), Some(1)),
        "{plan_err}\n{run_err}"
    );
    for err in [&plan_err, &run_err] {
        assert!(
            err.contains("rides.json is not valid JSON: expected value: line 4 column"),
            "{err}"
        );
    }
}
