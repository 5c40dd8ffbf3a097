//! The bug "an empty table after a killed first run": `ldp run` created the target table when
//! its first batch arrived, so a first run killed with `kill -9` while it wrote its data files
//! left an empty table in the catalog (the docs said a failed first run leaves none). The table
//! now enters the catalog together with its first snapshot.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{files_under, ldp, stderr};

const CONFIG: &str = r#"{"identifier": "big", "metadata": {
  "source": {"name": "big", "format": "CSV", "path": "big.csv"},
  "target": {"name": "big", "format": "ICEBERG",
             "catalog": {"identifier": "lake", "warehouse_path": "warehouse"}}}}"#;

/// A CSV of `rows` rows, big enough that a debug build writes it for several seconds.
fn big_csv(path: &Path, rows: usize) {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(out, "id,city,note,fare").unwrap();
    for i in 0..rows {
        writeln!(
            out,
            "{i},city-{},note number {i} of a long enough text,{}.{:02}",
            i % 97,
            i % 500,
            i % 100
        )
        .unwrap();
    }
}

#[test]
fn a_first_run_killed_while_writing_leaves_no_table() {
    let dir = tempfile::tempdir().unwrap();
    big_csv(&dir.path().join("big.csv"), 3_000_000);
    let config = dir.path().join("big.json");
    std::fs::write(&config, CONFIG).unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_ldp"))
        .args(["run", config.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once it is writing data files.
    let data = dir.path().join("warehouse/lake/big/data");
    let started = Instant::now();
    while files_under(&data).is_empty() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it wrote a data file: use a bigger file"
        );
        assert!(started.elapsed() < Duration::from_secs(120), "no data file");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let out = ldp(&["snapshots", config.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not found") || stderr(&out).contains("does not exist"),
        "{}",
        stderr(&out)
    );

    // The next run creates the table and loads every row once.
    let out = ldp(&["run", config.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["write_result"]["rows_after"], 3_000_000, "{report}");
}
