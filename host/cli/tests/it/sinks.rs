//! File targets written by sinks beyond CSV, JSON and Parquet: the built-in XLSX sink (read back
//! by openpyxl, the reader the Python tool's users have, and by ldp's own XLSX source), and a
//! third-party sink plugin file named by `metadata.target.plugin`, pinned and sandboxed. Both
//! keep the file target's rule: the file is staged, and moved into place only once the checks
//! passed and the sink closed cleanly.

use std::path::Path;
use std::process::Command;

use super::interop::python;
use super::{files_under, ldp, rides, rides_workdir, stderr, stdout};

const TABLE: &str = r#"{"name": "rides", "format": "ICEBERG",
  "catalog": {"identifier": "nyc", "type": "local", "warehouse_path": "warehouse"}}"#;

pub(super) fn config(source: &str, target: &str, extra: &str) -> String {
    format!(
        r#"{{"identifier": "rides", "metadata": {{"source": {source}, "target": {target}{extra}}}}}"#
    )
}

/// Writes `name` in `dir` and runs `ldp ARGS… name`; returns the exit code and the output.
fn ldp_on(dir: &Path, name: &str, text: &str, args: &[&str]) -> (Option<i32>, String) {
    ldp_on_with(ldp, dir, name, text, args)
}

/// [`ldp_on`] with `run` running ldp (e.g. with libduckdb found).
pub(super) fn ldp_on_with(
    run: fn(&[&str]) -> std::process::Output,
    dir: &Path,
    name: &str,
    text: &str,
    args: &[&str],
) -> (Option<i32>, String) {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let mut all = args.to_vec();
    all.push(file.to_str().unwrap());
    let out = run(&all);
    (
        out.status.code(),
        format!("{}{}", stdout(&out), stderr(&out)),
    )
}

/// A loaded table of the example rides in a fresh folder.
fn lake() -> tempfile::TempDir {
    let csv = r#"{"name": "rides", "format": "CSV", "path": "data/rides.csv"}"#;
    let dir = rides_workdir(&config(csv, TABLE, ""));
    let out = ldp(&["run", dir.path().join("rides.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    dir
}

/// No `.ldp-staging-*` folder is left anywhere under `dir`.
pub(super) fn no_staging_left(dir: &Path) {
    let left: Vec<_> = files_under(dir)
        .into_iter()
        .filter(|f| f.to_string_lossy().contains(".ldp-staging-"))
        .collect();
    assert!(left.is_empty(), "staging left: {left:?}");
}

#[test]
fn an_xlsx_target_has_excel_types_and_reads_back_to_the_same_csv() {
    let dir = lake();
    let d = dir.path();
    let target =
        r#"{"name": "report", "format": "XLSX", "path": "out/rides.xlsx", "sheet": "Rides"}"#;
    let (code, out) = ldp_on(d, "export.json", &config(TABLE, target, ""), &["run"]);
    assert_eq!(code, Some(0), "{out}");
    no_staging_left(d);

    // openpyxl: one sheet named Rides, the header, and each column as its Excel type.
    let check = r#"
import sys, datetime, openpyxl
book = openpyxl.load_workbook(sys.argv[1])
assert book.sheetnames == ["Rides"], book.sheetnames
rows = list(book["Rides"].iter_rows(values_only=True))
assert rows[0] == ("ride_id", "pickup_ts", "city", "distance_km", "fare"), rows[0]
first = rows[1]
assert first == (1, datetime.datetime(2024, 1, 1, 0, 54, 38), "LDN", 16.17, 32.28), first
assert all(isinstance(r[1], datetime.datetime) for r in rows[1:]), "dates as dates"
print(len(rows) - 1)
"#;
    let out = Command::new(python())
        .args(["-c", check])
        .arg(d.join("out/rides.xlsx"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} (needs openpyxl: .venv/bin/pip install openpyxl==3.1.5)",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    let expected = std::fs::read_to_string(rides()).unwrap();
    assert_eq!(rows, expected.lines().count() - 1);

    // ldp's XLSX source reads it back to the CSV the table was loaded from, byte for byte.
    let source =
        r#"{"name": "report", "format": "XLSX", "path": "out/rides.xlsx", "sheet": "Rides"}"#;
    let target = r#"{"name": "back", "format": "CSV", "path": "out/back.csv"}"#;
    let (code, out) = ldp_on(d, "back.json", &config(source, target, ""), &["run"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        std::fs::read_to_string(d.join("out/back.csv")).unwrap(),
        expected
    );
}

#[test]
fn a_blocked_or_bad_xlsx_target_leaves_the_old_workbook() {
    let dir = lake();
    let d = dir.path();
    let target = r#"{"name": "report", "format": "XLSX", "path": "rides.xlsx", "header": false}"#;
    let (code, out) = ldp_on(d, "export.json", &config(TABLE, target, ""), &["run"]);
    assert_eq!(code, Some(0), "{out}");
    let before = std::fs::read(d.join("rides.xlsx")).unwrap();

    // A failing check: exit 3, the workbook as it was.
    let gate = r#", "quality": {"checks": [{"check": "row_count", "min": 1000000}]}"#;
    let (code, out) = ldp_on(d, "export.json", &config(TABLE, target, gate), &["run"]);
    assert_eq!(code, Some(3), "{out}");
    assert_eq!(std::fs::read(d.join("rides.xlsx")).unwrap(), before);
    no_staging_left(d);

    // A sheet name Excel refuses is named by `ldp plan` before anything runs.
    let bad = r#"{"name": "report", "format": "XLSX", "path": "rides.xlsx", "sheet": "Q1/Q2"}"#;
    let (code, out) = ldp_on(d, "bad.json", &config(TABLE, bad, ""), &["plan"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(r#"metadata.target.sheet: "Q1/Q2" holds '/'; Excel allows none of"#),
        "{out}"
    );
    // A file target is replaced whole: --mode append is refused.
    let (code, out) = ldp_on(
        d,
        "export.json",
        &config(TABLE, target, ""),
        &["run", "--mode", "append"],
    );
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(std::fs::read(d.join("rides.xlsx")).unwrap(), before);
}

/// Copies the test sink plugin next to the configs; returns its sha256.
fn markdown_sink(dir: &Path) -> String {
    let bytes = std::fs::read(ldp_builtin_plugins::testing::component_path(
        "markdown-sink",
    ))
    .unwrap();
    std::fs::create_dir_all(dir.join("plugins")).unwrap();
    std::fs::write(dir.join("plugins/markdown.wasm"), &bytes).unwrap();
    ldp_plugin_runtime::sha256_hex(&bytes)
}

#[test]
fn a_third_party_sink_plugin_writes_the_staged_file_and_nothing_else() {
    let dir = lake();
    let d = dir.path();
    let sha = markdown_sink(d);
    let target = |extra: &str| {
        format!(
            r#"{{"name": "report", "format": "CSV", "path": "out/rides.md",
                 "plugin": "plugins/markdown.wasm", "sha256": "{sha}",
                 "config": {{"title": "Rides"{extra}}}}}"#
        )
    };
    // `ldp plan` lists the sink with its pin.
    let (code, out) = ldp_on(
        d,
        "md.json",
        &config(TABLE, &target(""), ""),
        &["plan", "--json"],
    );
    assert_eq!(code, Some(0), "{out}");
    let plan: serde_json::Value = serde_json::from_str(&out).unwrap();
    let plugin = &plan["plugins"][0];
    assert_eq!(
        (
            plugin["at"].as_str(),
            plugin["role"].as_str(),
            plugin["sha256"].as_str()
        ),
        (Some("metadata.target"), Some("sink"), Some(sha.as_str())),
        "{plan}"
    );

    let (code, out) = ldp_on(d, "md.json", &config(TABLE, &target(""), ""), &["run"]);
    assert_eq!(code, Some(0), "{out}");
    let text = std::fs::read_to_string(d.join("out/rides.md")).unwrap();
    assert!(
        text.starts_with(
            "# Rides\n\n| ride_id | pickup_ts | city | distance_km | fare |\n|---|---|---|---|---|\n| 1 | 2024-01-01T00:54:38 | LDN | 16.17 | 32.28 |\n"
        ),
        "{text}"
    );
    let before = text;
    no_staging_left(d);

    // Writing outside the staging folder is refused by the sandbox: exit 1, nothing written.
    let outside = d.join("escaped.txt");
    let escape = format!(r#", "escape_to": "{}""#, outside.display());
    let (code, out) = ldp_on(d, "md.json", &config(TABLE, &target(&escape), ""), &["run"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("plugins/markdown.wasm"), "{out}");
    assert!(!outside.exists(), "the plugin wrote outside its folder");
    assert_eq!(
        std::fs::read_to_string(d.join("out/rides.md")).unwrap(),
        before
    );
    no_staging_left(d);

    // A changed file is refused before anything is read.
    let wrong = target("").replace(&sha, &"0".repeat(64));
    let (code, out) = ldp_on(d, "md.json", &config(TABLE, &wrong, ""), &["run"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("but the config pins 0000"), "{out}");

    // A network grant would let rows out before the checks decide: refused by plan and run.
    let net = target("").replace(
        r#""sha256""#,
        r#""grants": {"net": ["example.com:443"]}, "sha256""#,
    );
    for command in ["plan", "run"] {
        let (code, out) = ldp_on(d, "md.json", &config(TABLE, &net, ""), &[command]);
        assert_ne!(code, Some(0), "{command}: {out}");
        assert!(
            out.contains("metadata.target.grants.net: a sink plugin writes"),
            "{command}: {out}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(d.join("out/rides.md")).unwrap(),
        before
    );
}
