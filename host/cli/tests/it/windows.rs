//! Windowed runs: the source path of the window, `window.column` keeping the
//! window's rows (naive local times in Europe/Paris, the Python tool's own example), and an
//! overwrite that replaces only the window's rows.

use std::path::Path;

use super::{ldp, stderr, stdout};

/// The Python tool's sample config (`host/config/tests/vectors/daily_orders_config.json`), with
/// `type: local`.
const CONFIG: &str = r#"{
  "identifier": "daily_orders", "when": "daily",
  "metadata": {
    "schedule": "5 2 * * *",
    "window": {"size": "day", "column": "ordered_at", "timezone": "Europe/Paris"},
    "source": {"name": "orders", "format": "CSV", "path": "drops/orders_{window_start:%Y-%m-%d}.csv"},
    "target": {"name": "orders", "format": "ICEBERG", "write_mode": "overwrite",
               "catalog": {"identifier": "shop", "type": "local", "warehouse_path": "warehouse"}},
    "quality": {"on_failure": "fail", "checks": [
      {"check": "range", "column": "amount", "min": 0}, {"check": "row_count", "min": 1}]}}}"#;

fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("drops")).unwrap();
    std::fs::write(dir.path().join("daily.json"), CONFIG).unwrap();
    dir
}

fn drop_file(dir: &Path, day: &str, rows: &[(&str, &str, f64)]) {
    let mut text = String::from("order_id,ordered_at,amount\n");
    for (id, at, amount) in rows {
        text.push_str(&format!("{id},{at},{amount}\n"));
    }
    std::fs::write(dir.join(format!("drops/orders_{day}.csv")), text).unwrap();
}

fn run(dir: &Path, extra: &[&str]) -> std::process::Output {
    let config = dir.join("daily.json");
    let mut args = vec!["run", config.to_str().unwrap()];
    args.extend_from_slice(extra);
    ldp(&args)
}

fn orders(dir: &Path) -> Vec<(i64, f64)> {
    let config = dir.join("daily.json");
    let out = ldp(&[
        "query",
        config.to_str().unwrap(),
        "SELECT order_id, amount FROM orders ORDER BY order_id",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["order_id"].as_i64().unwrap(),
                r["amount"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_window_reads_its_file_keeps_its_rows_and_overwrites_only_them() {
    let dir = workdir();
    // The window 2026-08-02/2026-08-03 (UTC) is 02:00 to 02:00 in Paris: 00:30 on the 2nd is
    // before it, 01:00 on the 3rd inside it (the Python tool keeps 2 of 3 rows).
    drop_file(
        dir.path(),
        "2026-08-02",
        &[
            ("1", "2026-08-02 00:30:00", 10.0),
            ("2", "2026-08-02 10:00:00", 20.0),
            ("3", "2026-08-03 01:00:00", 30.0),
        ],
    );
    let out = run(dir.path(), &["--window", "2026-08-02/2026-08-03"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("daily_orders: read 3 rows, kept 2 in the window, wrote 2 rows in "),
        "{text}"
    );
    assert!(text.contains("(quality: 2 of 2 checks passed)"), "{text}");
    assert_eq!(orders(dir.path()), vec![(2, 20.0), (3, 30.0)]);

    // The next window: its own file, its own rows.
    drop_file(
        dir.path(),
        "2026-08-03",
        &[
            ("4", "2026-08-03 12:00:00", 40.0),
            ("5", "2026-08-04 01:59:59", 50.0),
        ],
    );
    let out = run(dir.path(), &["--window", "2026-08-03/2026-08-04", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["rows_kept"], 2);
    assert_eq!(doc["write_result"]["mode"], "overwrite");
    assert_eq!(doc["write_result"]["rows_before"], 2);
    assert_eq!(doc["write_result"]["rows_after"], 4);
    assert_eq!(
        orders(dir.path()),
        vec![(2, 20.0), (3, 30.0), (4, 40.0), (5, 50.0)]
    );

    // A corrected file for the first window, run under a new key: the overwrite replaces the
    // first window's rows only.
    drop_file(
        dir.path(),
        "2026-08-02",
        &[
            ("2", "2026-08-02 10:00:00", 21.0),
            ("6", "2026-08-02 23:00:00", 60.0),
        ],
    );
    let out = run(
        dir.path(),
        &[
            "--window",
            "2026-08-02/2026-08-03",
            "--idempotency-key",
            "correction-1",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        orders(dir.path()),
        vec![(2, 21.0), (4, 40.0), (5, 50.0), (6, 60.0)]
    );
}

#[test]
fn a_templated_path_needs_a_window() {
    let dir = workdir();
    let out = run(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "metadata.source.path 'drops/orders_{window_start:%Y-%m-%d}.csv' has the placeholder \
             {window_start:%Y-%m-%d}, which needs a window"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("warehouse").exists(), "nothing created");
}
