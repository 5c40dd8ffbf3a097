//! Helpers: a served temp SQLite catalog, pyiceberg through `$LDP_PYTHON`, and a raw HTTP/1.1
//! client for checking statuses and error bodies exactly.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use ldp_catalog::{Catalog, CatalogAddress, Mode};
use ldp_catalog_server::{RunningServer, ServeSettings, ServedCatalog, start};
use serde_json::Value;

/// The served catalog's name (REST prefix).
pub const NAME: &str = "lake";

const SETUP: &str = "create it with: python3 -m venv /var/tmp/ldp-test-venv && \
     /var/tmp/ldp-test-venv/bin/pip install 'pyiceberg[sql-sqlite,pyarrow]==0.12.0' and export \
     LDP_PYTHON=/var/tmp/ldp-test-venv/bin/python (scripts/test does both)";

/// A warehouse folder with a SQLite catalog file, removed at the end of the test.
pub struct Lake {
    pub dir: tempfile::TempDir,
}

impl Lake {
    pub fn new() -> Lake {
        Lake {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn warehouse(&self) -> PathBuf {
        self.dir.path().join("warehouse")
    }

    pub fn catalog_file(&self) -> PathBuf {
        ldp_catalog::catalog_file(&self.warehouse(), NAME)
    }

    /// The settings serving this lake on 127.0.0.1:0.
    pub fn settings(&self) -> ServeSettings {
        ServeSettings::new(
            "127.0.0.1:0".parse().expect("address"),
            vec![ServedCatalog {
                name: NAME.into(),
                address: CatalogAddress::Sqlite(self.catalog_file()),
                warehouse: self.warehouse().display().to_string(),
            }],
        )
    }

    pub fn serve(&self) -> RunningServer {
        start(self.settings()).expect("start the server")
    }

    /// A connection of ldp's own to the catalog.
    pub fn catalog(&self) -> Catalog {
        Catalog::open(self.catalog_file(), NAME, Mode::Create).expect("open the catalog")
    }
}

/// The Python with pyiceberg: `$LDP_PYTHON`. The tests fail (never skip) without it.
pub fn python() -> PathBuf {
    let python = std::env::var_os("LDP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!("LDP_PYTHON is not set: the REST catalog tests drive pyiceberg; {SETUP}")
        });
    let probe = Command::new(&python)
        .args(["-c", "import pyiceberg, pyarrow"])
        .status()
        .unwrap_or_else(|e| panic!("cannot run {} ({e}); {SETUP}", python.display()));
    assert!(
        probe.success(),
        "{} has no pyiceberg or pyarrow; {SETUP}",
        python.display()
    );
    python
}

/// Runs `script` with `python`, `args` as its JSON argument; its last stdout line as JSON.
pub fn run_script(python: &PathBuf, script: &str, args: &Value) -> Value {
    let output = Command::new(python)
        .args(["-c", script, &args.to_string()])
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "python failed: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr:\n{stderr}"))
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {:?}", self.body))
    }

    /// Asserts the spec's error model with `status` and `error_type`; the message.
    pub fn error(&self, status: u16, error_type: &str) -> String {
        assert_eq!(self.status, status, "{}", self.body);
        let json = self.json();
        let error = &json["error"];
        assert_eq!(error["type"], error_type, "{json}");
        assert_eq!(error["code"], status, "{json}");
        assert_eq!(json.as_object().map(|o| o.len()), Some(1), "{json}");
        error["message"].as_str().expect("a message").to_string()
    }
}

/// One request on a fresh connection.
pub fn http(
    address: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> Answer {
    let mut stream = TcpStream::connect(address).expect("connect");
    let body = body.unwrap_or_default();
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\n{auth}Content-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("read");
    let (head, body) = raw.split_once("\r\n\r\n").expect("a response head");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    Answer {
        status,
        body: body.to_string(),
    }
}

/// A batch of `rows` rows: id (from `start`) and name.
pub fn batch(start: i64, rows: usize) -> RecordBatch {
    let ids: Vec<i64> = (start..start + rows as i64).collect();
    let names: Vec<String> = ids.iter().map(|i| format!("n{i}")).collect();
    RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as _),
        ("name", Arc::new(StringArray::from(names)) as _),
    ])
    .expect("batch")
}

/// Rows of a table as ldp reads them.
pub fn ldp_rows(catalog: &Catalog, namespace: &str, name: &str) -> usize {
    let table = ldp_table::Table::load(catalog, namespace, name).expect("ldp loads the table");
    table
        .read_all(None)
        .expect("ldp reads the table")
        .iter()
        .map(RecordBatch::num_rows)
        .sum()
}
