//! moto's server (AWS S3, Glue and IAM, from PyPI) for the tests: one shared per test binary, or
//! one per test, on a free loopback port, stopped when dropped or when the test process ends (a
//! small shell runs it and stops it when its standard input closes).
//!
//! The Python is `$LDP_PYTHON`, else `<repo>/.venv/bin/python`; moto must be installed beside it
//! (`moto_server` in the same folder). Without either the tests fail (they never skip) and name
//! the install command.
//!
//! **moto does not enforce Glue's optimistic lock**: moto 5.2.5's `UpdateTable` ignores
//! `VersionId` (the Glue client's test `commits::moto_alone_ignores_version_id` pins it). The
//! shared server therefore runs moto with [`ENFORCE_VERSION`]: a patch of moto's `UpdateTable`
//! that answers `ConcurrentModificationException` when `VersionId` is not the table's current
//! version, as AWS Glue documents and does, and that makes `CreateTable` atomic (moto checks
//! that the table is absent, then creates it, unlocked: two racing creates could both succeed,
//! the second replacing the first, where Glue answers `AlreadyExistsException`). The
//! concurrency tests need both; everything else is moto as installed.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub use crate::rustberg::free_port;
use crate::watchdog::Watched;
use std::time::{Duration, Instant};

/// The command that installs moto's server beside the Python.
pub const INSTALL: &str =
    "$LDP_PYTHON -m pip install 'moto[server]==5.2.5' 'pyiceberg[glue,pyarrow]==0.12.0'";
/// How long moto may take to listen.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// The access key the tests sign with (moto accepts any).
pub const ACCESS_KEY_ID: &str = "AKIDLDPTEST";
/// The secret key the tests sign with; no message may show it.
pub const SECRET_ACCESS_KEY: &str = "ldp-test-SECRET-key-0123456789";
/// The region of every test catalog.
pub const REGION: &str = "us-east-1";

/// moto's server with Glue's optimistic lock on `UpdateTable` (`VersionId` must be the current
/// version) and an atomic `CreateTable`, then moto's own `main`.
pub const ENFORCE_VERSION: &str = r#"
import sys, threading
from moto.core.exceptions import JsonRESTError
from moto.glue.responses import GlueResponse
from moto.server import main

_lock = threading.Lock()
_update_table = GlueResponse.update_table

def update_table(self):
    version = self.parameters.get("VersionId")
    with _lock:
        if version is not None:
            table = self.glue_backend.get_table(
                self.parameters.get("DatabaseName"), self.parameters["TableInput"]["Name"])
            if str(table._current_version) != str(version):
                raise JsonRESTError(
                    "ConcurrentModificationException",
                    f"Update table failed due to concurrent modifications: version {version} "
                    f"is not the current version {table._current_version}")
        return _update_table(self)

GlueResponse.update_table = update_table

# moto checks that a table does not exist and then creates it without a lock, so two threads
# could both create it (the second replacing the first); Glue's CreateTable is atomic.
_create_table = GlueResponse.create_table

def create_table(self):
    with _lock:
        return _create_table(self)

GlueResponse.create_table = create_table
sys.argv[0] = "moto_server"
sys.exit(main())
"#;

/// The Python the tests run (moto, pyiceberg, boto3 beside it).
pub fn python() -> PathBuf {
    let python = std::env::var_os("LDP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python")
        });
    assert!(
        python.exists(),
        "no Python for the Glue tests at {} (set LDP_PYTHON); create one and install: {INSTALL}",
        python.display()
    );
    python
}

/// A running moto server.
pub struct Moto {
    /// `http://127.0.0.1:<port>`.
    pub endpoint: String,
    server: Watched,
    _dir: tempfile::TempDir,
}

/// Which moto a test runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// moto with [`ENFORCE_VERSION`]: the shared server.
    GlueLock,
    /// moto as installed.
    Plain,
    /// moto as installed, checking every request's signature against its IAM users after the
    /// first [`AUTH_FREE_ACTIONS`] (`INITIAL_NO_AUTH_ACTION_COUNT`), which create the one user.
    Auth,
}

/// How many requests moto in [`Mode::Auth`] takes unsigned: the IAM calls that make the user.
pub const AUTH_FREE_ACTIONS: usize = 3;

/// The server the tests of this binary share (Glue's lock enforced).
pub fn shared() -> &'static Moto {
    static MOTO: OnceLock<Moto> = OnceLock::new();
    MOTO.get_or_init(|| Moto::start(Mode::GlueLock))
}

impl Moto {
    /// A server of its own for one test (stopped when dropped).
    pub fn start(mode: Mode) -> Moto {
        let python = python();
        let moto_server = python.with_file_name("moto_server");
        assert!(
            moto_server.exists(),
            "moto's server is not installed beside {} (no {}); install it with: {INSTALL}",
            python.display(),
            moto_server.display()
        );
        let mut failures = Vec::new();
        for _ in 0..3 {
            match Moto::try_start(&python, mode) {
                Ok(moto) => return moto,
                Err(failure) => failures.push(failure),
            }
        }
        panic!("moto did not start:\n{}", failures.join("\n---\n"));
    }

    fn try_start(python: &Path, mode: Mode) -> Result<Moto, String> {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let port = free_port();
        let mut command = if mode == Mode::GlueLock {
            let mut command = Command::new(python);
            command.args(["-c", ENFORCE_VERSION]);
            command
        } else {
            Command::new(python.with_file_name("moto_server"))
        };
        if mode == Mode::Auth {
            command.env(
                "INITIAL_NO_AUTH_ACTION_COUNT",
                AUTH_FREE_ACTIONS.to_string(),
            );
        }
        command.args(["-H", "127.0.0.1", "-p", &port.to_string()]);
        let moto = Moto {
            endpoint: format!("http://127.0.0.1:{port}"),
            server: Watched::spawn(&command, &dir.path().join("moto.log")),
            _dir: dir,
        };
        let deadline = Instant::now() + START_TIMEOUT;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err(format!(
                    "moto did not listen on port {port} within {START_TIMEOUT:?}\nlog:\n{}",
                    moto.log()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(moto)
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        self.server.log()
    }
}

/// A name no other test uses: `prefix_<n>` (moto is shared by the tests of the binary).
pub fn unique(prefix: &str) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!("{prefix}_{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Runs `snippet` in Python with `glue`, `iam` and `s3` (boto3 clients of `moto`, any key) in scope
/// and returns the JSON of what it assigns to `result` (dates as strings).
pub fn boto(moto: &Moto, snippet: &str) -> serde_json::Value {
    let script = format!(
        "import boto3, json, sys\n\
         kw = dict(endpoint_url=sys.argv[1], region_name='{REGION}', \
         aws_access_key_id='{ACCESS_KEY_ID}', aws_secret_access_key='boto-secret')\n\
         glue = boto3.client('glue', **kw)\n\
         iam = boto3.client('iam', **kw)\n\
         s3 = boto3.client('s3', **kw)\n\
         result = None\n\
         {snippet}\n\
         print(json.dumps(result, default=str))\n"
    );
    let output = Command::new(python())
        .args(["-c", &script, &moto.endpoint])
        .output()
        .expect("run Python");
    assert!(
        output.status.success(),
        "the boto3 snippet failed:\n{snippet}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON from the snippet")
}
