//! Formats: every source format into an Iceberg table and back out to CSV gives the
//! rows and types of the example rides, byte for byte the CSV they came from; the same table
//! out to Parquet reads back in pyarrow with the same types, and out to newline-delimited JSON
//! reads back through ldp's own JSON source to the same CSV. The inputs are written by
//! `tests/data/formats/make_inputs.py` (pyarrow, openpyxl) from `examples/data/rides.csv`.

use std::path::Path;
use std::process::Command;

use super::interop::python;
use super::{ldp, rides, stderr};

fn config(source: &str, target: &str) -> String {
    format!(
        r#"{{"identifier": "formats", "metadata": {{"source": {source}, "target": {target}}}}}"#
    )
}

const TABLE: &str = r#"{"name": "rides", "format": "ICEBERG",
  "catalog": {"identifier": "lake", "type": "local", "warehouse_path": "warehouse"}}"#;

fn run(dir: &Path, name: &str, text: &str) {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let out = ldp(&["run", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
}

#[test]
fn every_source_format_round_trips_through_iceberg_to_the_same_csv() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/formats/make_inputs.py");
    let out = Command::new(python())
        .arg(&script)
        .arg(rides())
        .arg(d)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} (needs pyarrow and openpyxl: .venv/bin/pip install openpyxl==3.1.5)",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::copy(rides(), d.join("rides.csv")).unwrap();
    let expected = std::fs::read_to_string(rides()).unwrap();
    let cases = [
        ("CSV", "rides.csv", ""),
        ("JSON", "rides.jsonl", ""),
        ("JSON", "rides_array.json", ""),
        ("PARQUET", "rides.parquet", ""),
        ("XLSX", "rides.xlsx", r#", "sheet": "rides""#),
    ];
    for (format, file, extra) in cases {
        let _ = std::fs::remove_dir_all(d.join("warehouse"));
        let source =
            format!(r#"{{"name": "rides", "format": "{format}", "path": "{file}"{extra}}}"#);
        run(d, "load.json", &config(&source, TABLE));
        let target = r#"{"name": "out", "format": "CSV", "path": "out/rides.csv"}"#;
        run(d, "export.json", &config(TABLE, target));
        let got = std::fs::read_to_string(d.join("out/rides.csv")).unwrap();
        assert_eq!(got, expected, "{format} {file} -> Iceberg -> CSV");
    }
    // The table out to Parquet: pyarrow reads the same types.
    let target = r#"{"name": "out", "format": "PARQUET", "path": "out/rides.parquet"}"#;
    run(d, "export.json", &config(TABLE, target));
    let check = r#"
import sys, pyarrow.parquet as pq, pyarrow.csv as pv
a = pq.read_table(sys.argv[1]); b = pv.read_csv(sys.argv[2])
types = [str(f.type) for f in a.schema]
assert types == ["int64", "timestamp[us]", "string", "double", "double"], types
assert a.to_pylist() == b.cast(a.schema.remove_metadata()).to_pylist()
"#;
    let out = Command::new(python())
        .args(["-c", check])
        .arg(d.join("out/rides.parquet"))
        .arg(rides())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // No staging folder is left next to the target.
    let leftovers: Vec<_> = std::fs::read_dir(d.join("out"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".ldp-staging"))
        .collect();
    assert!(leftovers.is_empty());
}

/// A JSON target (`json-sink`): the rides written as newline-delimited JSON, from an Iceberg
/// table and straight from the CSV, read back by the JSON source into a table and out to CSV,
/// give the CSV they came from, byte for byte (the same rows, and the same types: timestamps,
/// strings, doubles and integers).
#[test]
fn json_targets_read_back_through_the_json_source_to_the_same_csv() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(rides(), d.join("rides.csv")).unwrap();
    let expected = std::fs::read_to_string(rides()).unwrap();
    let csv = r#"{"name": "rides", "format": "CSV", "path": "rides.csv"}"#;
    let jsonl = r#"{"name": "out", "format": "JSON", "path": "out/rides.jsonl"}"#;
    // (route, what to load into the table first, the source written to JSON)
    let cases = [
        ("ICEBERG -> JSON", "IcebergToJSON", Some(csv), TABLE),
        ("CSV -> JSON", "CSVToJSON", None, csv),
    ];
    for (route, pipeline, load, source) in cases {
        let _ = std::fs::remove_dir_all(d.join("warehouse"));
        let _ = std::fs::remove_dir_all(d.join("out"));
        if let Some(load) = load {
            run(d, "load.json", &config(load, TABLE));
        }
        let export = config(source, jsonl);
        std::fs::write(d.join("export.json"), &export).unwrap();
        let out = ldp(&["plan", d.join("export.json").to_str().unwrap(), "--json"]);
        assert_eq!(out.status.code(), Some(0), "{route}: {}", stderr(&out));
        let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (&plan["route"], &plan["pipeline"]),
            (&route.into(), &pipeline.into()),
            "{route}"
        );
        run(d, "export.json", &export);
        // One object per row, every column in order, the timestamp as the JSON source types it.
        let text = std::fs::read_to_string(d.join("out/rides.jsonl")).unwrap();
        assert_eq!(text.lines().count(), 20, "{route}");
        assert_eq!(
            text.lines().next().unwrap(),
            r#"{"ride_id":1,"pickup_ts":"2024-01-01 00:54:38.000000","city":"LDN","distance_km":16.17,"fare":32.28}"#,
            "{route}"
        );
        // Back: the JSON into a fresh table, and the table out to CSV.
        let _ = std::fs::remove_dir_all(d.join("warehouse"));
        let back = r#"{"name": "rides", "format": "JSON", "path": "out/rides.jsonl"}"#;
        run(d, "reload.json", &config(back, TABLE));
        let target = r#"{"name": "out", "format": "CSV", "path": "out/rides.csv"}"#;
        run(d, "back.json", &config(TABLE, target));
        let got = std::fs::read_to_string(d.join("out/rides.csv")).unwrap();
        assert_eq!(got, expected, "{route} -> JSON -> Iceberg -> CSV");
    }
}

/// A reader polling the target CSV while `ldp run` rewrites it sees the old file or the new
/// one, never a partial file.
#[test]
fn a_reader_never_sees_a_partial_target_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A large source, so the write takes a while.
    let mut csv = String::from("id,name,amount\n");
    for i in 0..200_000 {
        csv.push_str(&format!("{i},name {i},{}.5\n", i % 1000));
    }
    std::fs::write(d.join("big.csv"), &csv).unwrap();
    std::fs::create_dir(d.join("out")).unwrap();
    std::fs::write(d.join("out/big.csv"), "id,name,amount\n0,old,1.5\n").unwrap();
    let config_text = config(
        r#"{"name": "big", "format": "CSV", "path": "big.csv"}"#,
        r#"{"name": "out", "format": "CSV", "path": "out/big.csv"}"#,
    );
    std::fs::write(d.join("copy.json"), config_text).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let stop = stop.clone();
        let path = d.join("out/big.csv");
        std::thread::spawn(move || {
            let mut reads = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let text = std::fs::read_to_string(&path).unwrap();
                let lines = text.lines().count();
                assert!(
                    lines == 2 || lines == 200_001,
                    "a reader saw {lines} lines: a partial file"
                );
                assert!(text.ends_with('\n'));
                reads += 1;
            }
            reads
        })
    };
    let out = ldp(&["run", d.join("copy.json").to_str().unwrap()]);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let reads = reader.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(reads > 1);
    let text = std::fs::read_to_string(d.join("out/big.csv")).unwrap();
    assert_eq!(text.lines().count(), 200_001);
    assert!(
        text.ends_with("199999,\"name 199999\",999.5\n"),
        "the new file is whole"
    );
}

/// An Iceberg source is read at the current snapshot, or a pinned one:
/// `snapshot_id` reads the table as that snapshot left it, `ref` the snapshot a branch or tag
/// points at; a ref the table does not have is named.
#[test]
fn an_iceberg_source_reads_a_pinned_snapshot_or_ref() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(rides(), d.join("rides.csv")).unwrap();
    let original = std::fs::read_to_string(rides()).unwrap();
    let more: String = original.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(d.join("more.csv"), &more).unwrap();
    for file in ["rides.csv", "more.csv"] {
        let source = format!(r#"{{"name": "rides", "format": "CSV", "path": "{file}"}}"#);
        run(d, "load.json", &config(&source, TABLE));
    }
    let out = ldp(&["snapshots", d.join("load.json").to_str().unwrap(), "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<i64> = listed["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["snapshot_id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{listed}");
    let export = |pin: &str| {
        let source = TABLE.replacen("\"ICEBERG\",", &format!("\"ICEBERG\", {pin}"), 1);
        let target = r#"{"name": "out", "format": "CSV", "path": "out/rides.csv"}"#;
        let file = d.join("export.json");
        std::fs::write(&file, config(&source, target)).unwrap();
        ldp(&["run", file.to_str().unwrap()])
    };
    let rows = |text: &str| text.lines().count() - 1;
    let read = || std::fs::read_to_string(d.join("out/rides.csv")).unwrap();
    let out = export(&format!(r#""snapshot_id": {},"#, ids[0]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(read(), original, "the first snapshot is the first load");
    let out = export(r#""ref": "main","#);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(rows(&read()), rows(&original) + 2);
    let out = export(r#""ref": "nightly","#);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("has no tag or branch 'nightly'"),
        "{}",
        stderr(&out)
    );
    let out = export(r#""snapshot_id": 1, "ref": "main","#);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("not both"), "{}", stderr(&out));
}

/// A Parquet source compressed with zstd (pyiceberg's and Spark's default), which the sandbox
/// cannot decompress: the host hands the plugin an uncompressed copy, and the rows and types
/// come through as from any Parquet file, byte for byte the CSV they came from.
#[test]
fn a_zstd_parquet_source_loads_through_an_uncompressed_copy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = "import sys, pyarrow.csv as pv, pyarrow.parquet as pq\n\
        pq.write_table(pv.read_csv(sys.argv[1]), sys.argv[2], compression='zstd')\n\
        assert pq.ParquetFile(sys.argv[2]).metadata.row_group(0).column(0).compression == 'ZSTD'\n";
    let out = Command::new(python())
        .args(["-c", script])
        .arg(rides())
        .arg(d.join("rides.parquet"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let source = r#"{"name": "rides", "format": "PARQUET", "path": "rides.parquet"}"#;
    run(d, "load.json", &config(source, TABLE));
    let target = r#"{"name": "out", "format": "CSV", "path": "out/rides.csv"}"#;
    run(d, "export.json", &config(TABLE, target));
    assert_eq!(
        std::fs::read_to_string(d.join("out/rides.csv")).unwrap(),
        std::fs::read_to_string(rides()).unwrap()
    );
}

/// `--mode append` or `--mode upsert` on a file target is refused with the Python tool's
/// message and exit code 1, before anything is read or written; it was once accepted silently
/// and the file replaced. An existing file is left as it was; `--mode overwrite` writes.
#[test]
fn a_mode_other_than_overwrite_on_a_file_target_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().canonicalize().unwrap();
    std::fs::copy(rides(), d.join("rides.csv")).unwrap();
    let csv = r#"{"name": "rides", "format": "CSV", "path": "rides.csv"}"#;
    run(&d, "load.json", &config(csv, TABLE));
    let export = d.join("export.json");
    let export = export.to_str().unwrap();
    let files = [
        ("CSV", "CSV", "rides.csv"),
        ("PARQUET", "Parquet", "rides.parquet"),
        ("JSON", "JSON", "rides.jsonl"),
    ];
    for (format, class, file) in files {
        let target =
            format!(r#"{{"name": "rides_out", "format": "{format}", "path": "out/{file}"}}"#);
        std::fs::write(d.join("export.json"), config(TABLE, &target)).unwrap();
        let path = d.join("out").join(file);
        let refused = |mode: &str| {
            let out = ldp(&["run", export, "--mode", mode]);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{format} {mode}: {}",
                stderr(&out)
            );
            assert_eq!(
                stderr(&out),
                format!(
                    "ldp: error: target {class}(name='rides_out', path='{}') is always \
                     overwritten; write mode '{mode}' only applies to Iceberg targets\n",
                    path.display()
                )
            );
        };
        for mode in ["append", "upsert"] {
            refused(mode);
            assert!(!d.join("out").exists(), "{format} {mode} wrote something");
        }
        let out = ldp(&["run", export, "--mode", "overwrite"]);
        assert_eq!(out.status.code(), Some(0), "{format}: {}", stderr(&out));
        let written = std::fs::read(&path).unwrap();
        refused("append");
        assert!(
            std::fs::read(&path).unwrap() == written,
            "{format}: changed"
        );
        assert_eq!(std::fs::read_dir(d.join("out")).unwrap().count(), 1);
        std::fs::remove_dir_all(d.join("out")).unwrap();
    }
}

/// Regression (a PARQUET source's folder refused): `metadata.source.path` naming a folder of
/// Parquet files, as docs/formats.md and the plugin allow, failed with `… is not a file` before
/// the plugin saw it. Two files written by ldp's own Parquet target load as one source.
#[test]
fn a_parquet_source_reads_a_folder_of_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(rides(), d.join("rides.csv")).unwrap();
    let csv = r#"{"name": "rides", "format": "CSV", "path": "rides.csv"}"#;
    for part in ["a", "b"] {
        let target =
            format!(r#"{{"name": "out", "format": "PARQUET", "path": "parts/{part}.parquet"}}"#);
        run(d, "export.json", &config(csv, &target));
    }
    let folder = r#"{"name": "rides", "format": "PARQUET", "path": "parts"}"#;
    run(d, "load.json", &config(folder, TABLE));
    let out = ldp(&[
        "query",
        d.join("load.json").to_str().unwrap(),
        "SELECT count(*) AS n, count(DISTINCT ride_id) AS ids FROM rides",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("40") && text.contains("20"),
        "{text}{}",
        stderr(&out)
    );
}
