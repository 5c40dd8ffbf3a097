//! moto's Glue server for the tests: one per test binary, on a free loopback port, stopped when
//! the test process ends (a small shell runs it and stops it when its standard input closes).
//!
//! The Python is `$LDP_PYTHON`, else `<repo>/.venv/bin/python`; moto must be installed beside it
//! (`moto_server` in the same folder). Without either the tests fail (they never skip) and name
//! the install command.
//!
//! **moto does not enforce Glue's optimistic lock**: moto 5.2.5's `UpdateTable` ignores
//! `VersionId` (see the test `commits::moto_alone_ignores_version_id`). The
//! shared server therefore runs moto with [`ENFORCE_VERSION`]: a patch of moto's `UpdateTable`
//! that answers `ConcurrentModificationException` when `VersionId` is not the table's current
//! version, as AWS Glue documents and does. The concurrency tests need that lock; everything
//! else is moto as installed.

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ldp_catalog_glue::{GlueCatalog, GlueSettings};

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

/// Runs moto, stops it when standard input closes (TERM, KILL after 5 s).
const WATCHDOG: &str = r#"
"$@" </dev/null >"$LDP_MOTO_LOG" 2>&1 &
m=$!
cat >/dev/null
kill -TERM "$m" 2>/dev/null
i=0
while kill -0 "$m" 2>/dev/null && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "$m" 2>/dev/null
wait "$m" 2>/dev/null
exit 0
"#;

/// moto's server with Glue's optimistic lock on `UpdateTable` (`VersionId` must be the current
/// version), then moto's own `main`.
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
    log: PathBuf,
    _dir: tempfile::TempDir,
    watchdog: Option<(Child, ChildStdin)>,
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
        let log = dir.path().join("moto.log");
        let mut command = Command::new("sh");
        command.args(["-c", WATCHDOG, "sh"]);
        if mode == Mode::GlueLock {
            command.arg(python).args(["-c", ENFORCE_VERSION]);
        } else {
            command.arg(python.with_file_name("moto_server"));
        }
        if mode == Mode::Auth {
            command.env(
                "INITIAL_NO_AUTH_ACTION_COUNT",
                AUTH_FREE_ACTIONS.to_string(),
            );
        }
        let mut child = command
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .env("LDP_MOTO_LOG", &log)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot run sh: {error}"));
        let stdin = child.stdin.take().expect("piped stdin");
        let moto = Moto {
            endpoint: format!("http://127.0.0.1:{port}"),
            log,
            _dir: dir,
            watchdog: Some((child, stdin)),
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
        let mut text = String::new();
        if let Ok(mut file) = std::fs::File::open(&self.log) {
            let _ = file.read_to_string(&mut text);
        }
        text
    }

    /// Settings for a catalog named `lake` on this server.
    pub fn settings(&self) -> GlueSettings {
        let mut settings = GlueSettings::new("lake", REGION, ACCESS_KEY_ID, SECRET_ACCESS_KEY);
        settings.endpoint = Some(self.endpoint.clone());
        settings
    }

    /// A catalog on this server.
    pub fn catalog(&self) -> GlueCatalog {
        GlueCatalog::connect(self.settings()).expect("usable settings")
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let Some((mut child, stdin)) = self.watchdog.take() else {
            return;
        };
        drop(stdin);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

/// A name no other test uses: `prefix_<n>` (moto is shared by the tests of the binary).
pub fn unique(prefix: &str) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!("{prefix}_{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Runs `snippet` in Python with `glue` and `iam` (boto3 clients of `moto`, any key) in scope
/// and returns the JSON of what it assigns to `result` (dates as strings).
pub fn boto(moto: &Moto, snippet: &str) -> serde_json::Value {
    let script = format!(
        "import boto3, json, sys\n\
         kw = dict(endpoint_url=sys.argv[1], region_name='{REGION}', \
         aws_access_key_id='{ACCESS_KEY_ID}', aws_secret_access_key='boto-secret')\n\
         glue = boto3.client('glue', **kw)\n\
         iam = boto3.client('iam', **kw)\n\
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
