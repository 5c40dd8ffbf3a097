//! BigQuery sources (`JSON` with engine `BIGQUERY`), against a local server that answers
//! BigQuery's documented calls (`bigquery/server.py`): the host signs the service account's
//! JWT and takes a token (the server checks the RS256 signature with the key's public half), the
//! `bigquery` plugin, granted the API's address only, starts the query, waits for the job and
//! reads the result page by page; every BigQuery type the source covers reaches the CSV as its
//! Arrow type, and an Iceberg table takes the same rows. What the API refuses is named.
//!
//! Needs Python with `cryptography` (the server makes an RSA key and checks signatures).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::interop::python;
use super::{ldp, stderr, stdout};

/// The local BigQuery server, stopped when dropped (its stdin closes).
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/bigquery/server.py");
        let mut child = Command::new(python())
            .arg(script)
            .arg(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| {
            panic!(
                "the BigQuery test server did not start (it needs cryptography: .venv/bin/pip install cryptography): {line:?}"
            )
        });
        Server { child, port }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn config(port: u16, query_file: &str, target: &str) -> String {
    format!(
        r#"{{"identifier": "trips", "metadata": {{
  "source": {{"name": "trips", "format": "JSON", "engine": "BIGQUERY", "path": "{query_file}",
             "credentials": {{"name": "loader", "path": "key.json"}},
             "endpoint": "http://127.0.0.1:{port}"}},
  "target": {target}}}}}"#
    )
}

const CSV_TARGET: &str = r#"{"name": "out", "format": "CSV", "path": "out/trips.csv"}"#;

/// What the server answers, as ldp's CSV sink writes it.
const EXPECTED: &str = r#""id","name","fare","paid","ts","day","local","at","amount","raw"
1,"Ada",12.5,true,2024-01-01 00:54:38.000000Z,2024-01-01,2024-01-01 00:54:38.000000,00:54:38.000000,12.500000000,"hi"
2,"Grace",-0.25,false,2024-01-02 02:00:00.123456Z,2024-01-02,2024-01-02 02:00:00.500000,23:59:59.999999,-3.000000001,""
3,,,,,,,,,
4,"Zoë, ""quoted""",1000,true,1970-01-01 00:00:00.000000Z,1969-12-31,1969-12-31 23:59:59.000000,00:00:00.000000,0E-9,"ok"
5,"",7,false,1970-01-01 00:00:00.000001Z,2000-02-29,2000-02-29 12:00:00.000000,12:00:00.000000,99999999999999999999999999999.999999999,
"#;

fn run(dir: &Path, name: &str, text: &str) -> std::process::Output {
    std::fs::write(dir.join(name), text).unwrap();
    ldp(&["run", dir.join(name).to_str().unwrap()])
}

#[test]
fn a_bigquery_query_reads_page_by_page_into_a_file_and_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = Server::start(d);
    std::fs::write(
        d.join("query.json"),
        r#"{"query": "SELECT * FROM shop.trips"}"#,
    )
    .unwrap();

    let out = run(
        d,
        "csv.json",
        &config(server.port, "query.json", CSV_TARGET),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(d.join("out/trips.csv")).unwrap(),
        EXPECTED
    );

    // The token was taken once, by the host (no bearer yet), then every API call carried it:
    // the query, a wait while the job ran, and the pages after the first.
    let log = std::fs::read_to_string(d.join("requests.jsonl")).unwrap();
    let calls: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(calls[0]["path"], "/token");
    assert!(calls[0]["authorization"].is_null());
    assert!(
        calls[1..]
            .iter()
            .all(|c| c["authorization"] == "Bearer ya29.local-test-token"),
        "{log}"
    );
    assert_eq!(calls[1]["path"], "/bigquery/v2/projects/ldp-test/queries");
    let pages: Vec<&str> = calls
        .iter()
        .filter_map(|c| c["path"].as_str()?.split("pageToken=").nth(1))
        .collect();
    assert_eq!(pages, ["2", "4"], "{log}");

    // The same rows into an Iceberg table (BigQueryToIceberg, ldp's own route).
    let table = r#"{"name": "trips", "format": "ICEBERG", "catalog": {"identifier": "bq", "warehouse_path": "warehouse"}}"#;
    let out = run(d, "table.json", &config(server.port, "query.json", table));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("read 5 rows, wrote 5 rows"),
        "{}",
        stdout(&out)
    );
    let plan = ldp(&["plan", d.join("table.json").to_str().unwrap()]);
    assert!(
        stdout(&plan).contains("JSON -> ICEBERG (engine BIGQUERY) [BigQueryToIceberg]"),
        "{}",
        stdout(&plan)
    );
}

#[test]
fn what_the_api_or_the_token_endpoint_refuses_is_named_and_the_key_never_shown() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = Server::start(d);

    // A query the API refuses: its message, exit 1, nothing written.
    std::fs::write(d.join("bad.json"), r#"{"query": "FAIL"}"#).unwrap();
    let out = run(
        d,
        "bad_query.json",
        &config(server.port, "bad.json", CSV_TARGET),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("BigQuery answered 400") && stderr(&out).contains("Syntax error"),
        "{}",
        stderr(&out)
    );
    assert!(!d.join("out/trips.csv").exists());

    // A query file without a query, named with what to write.
    std::fs::write(d.join("empty.json"), r#"{"sql": "SELECT 1"}"#).unwrap();
    let out = run(
        d,
        "empty_query.json",
        &config(server.port, "empty.json", CSV_TARGET),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("needs a \"query\" string"),
        "{}",
        stderr(&out)
    );

    // A key the token endpoint refuses (another RSA key under the same name): its reason, and
    // not a line of the private key.
    let key: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("key.json")).unwrap()).unwrap();
    let other = Command::new(python())
        .args([
            "-c",
            "from cryptography.hazmat.primitives.asymmetric import rsa; from cryptography.hazmat.primitives import serialization as s; print(rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption()).decode())",
        ])
        .output()
        .unwrap();
    let mut forged = key.clone();
    forged["private_key"] = String::from_utf8(other.stdout).unwrap().into();
    std::fs::write(d.join("key.json"), forged.to_string()).unwrap();
    std::fs::write(d.join("query.json"), r#"{"query": "SELECT 1"}"#).unwrap();
    let out = run(
        d,
        "forged.json",
        &config(server.port, "query.json", CSV_TARGET),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("refused the BigQuery key file")
            && stderr(&out).contains("Invalid JWT Signature"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("PRIVATE KEY"), "{}", stderr(&out));
}
