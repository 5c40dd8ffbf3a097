//! Real-world files read as the Python tool reads them, and the source block's reading options:
//! null markers in CSV cells give the Python tool's quality verdicts; `columns` fixes a wrongly
//! inferred type; `delimiter`, `encoding` and a `.tsv` name reach the CSV plugin and bad values
//! are refused by `ldp plan`; a JSON key of mixed kinds loads as strings with a warning and is
//! refused under `strict_types`.

use std::path::{Path, PathBuf};

use super::{ldp, stderr};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/csv-values")
        .join(rel)
}

/// A config loading `source` (a source block's JSON) into table `t` of a local catalog.
fn config(source: &str) -> String {
    format!(
        r#"{{"apiVersion": "ldp/v1", "identifier": "opts",
  "metadata": {{
    "source": {source},
    "target": {{"name": "t", "format": "ICEBERG",
               "catalog": {{"identifier": "opts", "warehouse_path": "warehouse"}}}}}}}}"#
    )
}

fn workdir(files: &[(&str, &[u8])], config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    std::fs::write(dir.path().join("load.json"), config).unwrap();
    dir
}

fn run(dir: &Path) -> std::process::Output {
    ldp(&["run", dir.join("load.json").to_str().unwrap()])
}

fn rows(dir: &Path, sql: &str) -> Vec<serde_json::Value> {
    let out = ldp(&[
        "query",
        dir.join("load.json").to_str().unwrap(),
        sql,
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    value["rows"].as_array().unwrap().clone()
}

/// `nan`, `NA`, `N/A`, `NULL`, `null` and empty cells: the Python tool reads them as nulls in
/// number and boolean columns and keeps them in text columns, so its quality gate blocks on
/// `not_null(fare)` and passes `not_null(city)`. ldp once read `NA` columns as text and `nan`
/// as NaN, and gave other verdicts. The expected verdict is the Python tool's
/// (`tests/data/csv-values/null-cells/make_expected.sh`).
#[test]
fn null_markers_give_the_reference_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["cells.csv", "config.json"] {
        std::fs::copy(data(&format!("null-cells/{name}")), dir.path().join(name)).unwrap();
    }
    let expected = std::fs::read_to_string(data("null-cells/expected.txt")).unwrap();
    let (status, verdict) = expected.split_once('\n').unwrap();
    let out = ldp(&["run", dir.path().join("config.json").to_str().unwrap()]);
    assert_eq!(
        format!("exit {}", out.status.code().unwrap()),
        status,
        "{}",
        stderr(&out)
    );
    let err = stderr(&out);
    let ours: Vec<&str> = err
        .lines()
        .map(|l| l.strip_prefix("ldp: error: ").unwrap_or(l))
        .skip_while(|l| !l.contains("data quality checks failed"))
        .collect();
    let theirs: Vec<&str> = verdict.lines().collect();
    assert_eq!(ours, theirs, "{err}");
}

/// A zip code with leading zeros is inferred as an integer (as the Python tool infers it);
/// `columns` reads it as text.
#[test]
fn columns_fix_a_wrongly_inferred_type() {
    let csv: &[u8] = b"zip,city\n02134,Boston\n10001,New York\n";
    let dir = workdir(
        &[("zips.csv", csv)],
        &config(r#"{"name": "zips", "format": "CSV", "path": "zips.csv"}"#),
    );
    assert_eq!(run(dir.path()).status.code(), Some(0));
    assert_eq!(
        rows(dir.path(), "SELECT zip FROM t ORDER BY zip")[0]["zip"],
        2134
    );
    let dir = workdir(
        &[("zips.csv", csv)],
        &config(
            r#"{"name": "zips", "format": "CSV", "path": "zips.csv", "columns": {"zip": "string"}}"#,
        ),
    );
    let out = run(dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        rows(dir.path(), "SELECT zip FROM t ORDER BY zip")[0]["zip"],
        "02134"
    );
}

/// The source block's `delimiter` and `encoding` reach the plugin (ldp once loaded one column
/// named `a;b`); a `.tsv` file is split at tabs.
#[test]
fn delimiter_encoding_and_tsv_reach_the_plugin() {
    let latin1: &[u8] = b"city;n\nS\xe3o Paulo;1\n";
    let dir = workdir(
        &[("c.csv", latin1)],
        &config(
            r#"{"name": "c", "format": "CSV", "path": "c.csv", "delimiter": ";", "encoding": "latin-1"}"#,
        ),
    );
    let out = run(dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let got = rows(dir.path(), "SELECT city, n FROM t");
    assert_eq!(got[0]["city"], "São Paulo");
    assert_eq!(got[0]["n"], 1);

    let dir = workdir(
        &[("c.tsv", b"a\tb\n1\tx y\n")],
        &config(r#"{"name": "c", "format": "CSV", "path": "c.tsv"}"#),
    );
    let out = run(dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(rows(dir.path(), "SELECT b FROM t")[0]["b"], "x y");
}

/// `ldp plan` refuses what the plugin would refuse, naming the key (ldp once accepted `";;"`).
#[test]
fn plan_refuses_bad_source_options() {
    for (source, problem) in [
        (
            r#"{"name": "c", "format": "CSV", "path": "c.csv", "delimiter": ";;"}"#,
            r#"metadata.source.delimiter: expected one character, got ";;""#,
        ),
        (
            r#"{"name": "c", "format": "CSV", "path": "c.csv", "encoding": "ebcdic"}"#,
            "metadata.source.encoding: expected one of utf-8, utf-16, utf-16le, utf-16be, \
             latin-1, windows-1252, got \"ebcdic\"",
        ),
        (
            r#"{"name": "c", "format": "JSON", "path": "c.jsonl", "strict_types": "yes"}"#,
            r#"metadata.source.strict_types: expected true or false, got "yes""#,
        ),
    ] {
        let dir = workdir(
            &[("c.csv", b"a\n1\n"), ("c.jsonl", b"{}\n")],
            &config(source),
        );
        let out = ldp(&["plan", dir.path().join("load.json").to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{source}");
        let text = format!("{}{}", super::stdout(&out), stderr(&out));
        assert!(text.contains(problem), "{source}: {text}");
    }
}

/// A JSON key holding a number in one record and a string in another loads as a string
/// column, with a warning naming the key and the records, as DuckDB loads it (ldp once
/// refused the file); `strict_types` refuses it.
#[test]
fn a_mixed_json_key_loads_as_strings_unless_strict() {
    let jsonl: &[u8] = b"{\"id\": 1, \"code\": 7}\n{\"id\": 2, \"code\": \"A7\"}\n";
    let source = r#"{"name": "m", "format": "JSON", "path": "m.jsonl"}"#;
    let dir = workdir(&[("m.jsonl", jsonl)], &config(source));
    let out = run(dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "the key \"code\" holds a number (first in the record at line 1) and a string \
             (first in the record at line 2)"
        ),
        "{}",
        stderr(&out)
    );
    let got = rows(dir.path(), "SELECT code FROM t ORDER BY id");
    assert_eq!(
        (&got[0]["code"], &got[1]["code"]),
        (&"7".into(), &"A7".into())
    );

    let strict = source.replace("}", r#", "strict_types": true}"#);
    let dir = workdir(&[("m.jsonl", jsonl)], &config(&strict));
    let out = run(dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("the key \"code\" holds a string here"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("warehouse/opts/t").exists());
}
