//! A throwaway third-party Iceberg REST catalog per test: [rustberg](https://crates.io/crates/rustberg)
//! (a single Rust binary; its catalog is an embedded redb file, its warehouse a local folder).
//!
//! The binary is `$LDP_TEST_RUSTBERG`, else `/var/tmp/ldp-tools/bin/rustberg`, else `rustberg` on
//! `PATH`; without it the test fails (it never skips) and names the install command
//! ([`INSTALL`], which `scripts/test` runs when it is missing).
//!
//! Each server listens on 127.0.0.1 on a free port, with API-key authentication: [`TOKEN`] is the
//! one key, an admin, sent as `Authorization: Bearer`. A small shell runs it and stops it (TERM,
//! then KILL after 5 s) when its standard input closes: when the [`Rustberg`] is dropped, or when
//! the test process ends in any way.

use std::io::{Read, Write};

use crate::watchdog::Watched;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The admin API key the server accepts.
pub const TOKEN: &str = "rb_ldpTestKey0123456789abcdefghijklmnopqrstuvwxyzAB";
/// A well-formed key the server does not know.
pub const WRONG_TOKEN: &str = "rb_ldpWrongKey123456789abcdefghijklmnopqrstuvwxyzAB";
/// The command that installs the server where the tests look first.
pub const INSTALL: &str = "CARGO_BUILD_JOBS=1 cargo install --locked rustberg@0.3.0 \
                           --no-default-features --features cli --root /var/tmp/ldp-tools";
/// How long the server may take to answer its first request.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// The variable the server reads its key from.
const KEY_ENV: &str = "LDP_TEST_RUSTBERG_KEY";

/// The rustberg binary.
fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("LDP_TEST_RUSTBERG").map(PathBuf::from) {
        assert!(
            path.is_file(),
            "LDP_TEST_RUSTBERG={} is not a file; install rustberg with: {INSTALL}",
            path.display()
        );
        return path;
    }
    let cached = PathBuf::from("/var/tmp/ldp-tools/bin/rustberg");
    if cached.is_file() {
        return cached;
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("rustberg"))
        .find(|path| path.is_file())
        .unwrap_or_else(|| {
            panic!(
                "the third-party Iceberg REST catalog the tests run, rustberg, is not installed \
                 (looked at $LDP_TEST_RUSTBERG, /var/tmp/ldp-tools/bin, PATH); install it with: {INSTALL}"
            )
        })
}

/// A running server; dropping it stops the server and removes its folder.
pub struct Rustberg {
    /// `http://127.0.0.1:<port>`.
    pub uri: String,
    /// Where the server keeps its tables (`file://` of it is the warehouse).
    pub warehouse: PathBuf,
    server: Watched,
    _dir: tempfile::TempDir,
}

impl Rustberg {
    /// Starts a server (on another free port if the first one is taken meanwhile).
    pub fn start() -> Rustberg {
        let mut failures = Vec::new();
        for _ in 0..3 {
            match Rustberg::try_start() {
                Ok(server) => return server,
                Err(failure) => failures.push(failure),
            }
        }
        panic!("rustberg did not start:\n{}", failures.join("\n---\n"));
    }

    fn try_start() -> Result<Rustberg, String> {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let port = free_port();
        let warehouse = dir.path().join("warehouse");
        std::fs::create_dir_all(&warehouse).expect("the warehouse folder");
        std::fs::create_dir_all(dir.path().join("catalog")).expect("the catalog folder");
        let config = dir.path().join("rustberg.toml");
        std::fs::write(&config, config_file(dir.path(), port)).expect("the config file");
        let mut command = Command::new(binary());
        command
            .arg("--config")
            .arg(&config)
            .arg("--insecure-http")
            .env(KEY_ENV, TOKEN)
            .env("RUST_LOG", "warn");
        let server = Rustberg {
            uri: format!("http://127.0.0.1:{port}"),
            warehouse,
            server: Watched::spawn(&command, &dir.path().join("rustberg.log")),
            _dir: dir,
        };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            match config_status(port) {
                Ok(200) => return Ok(server),
                Ok(status) if Instant::now() > deadline => {
                    return Err(format!(
                        "GET /v1/config answered {status}\nserver log:\n{}",
                        server.log()
                    ));
                }
                Err(error) if Instant::now() > deadline => {
                    return Err(format!("{error}\nserver log:\n{}", server.log()));
                }
                _ => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        self.server.log()
    }
}

/// The status of `GET /v1/config` with the admin token, over plain HTTP/1.1.
fn config_status(port: u16) -> std::io::Result<u16> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(
        stream,
        "GET /v1/config HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
    )?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head)?;
    let text = String::from_utf8_lossy(&head);
    text.get(9..12)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("not an HTTP answer: {text:?}")))
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

/// The server's configuration: loopback, one admin API key from [`KEY_ENV`], a redb catalog
/// and a folder warehouse under `dir`, no rate limit, no audit trail.
fn config_file(dir: &Path, port: u16) -> String {
    let dir = dir.display();
    format!(
        r#"[server]
host = "127.0.0.1"
port = {port}

[server.auth]
api_key_enabled = true

[[server.auth.api_keys]]
name = "ldp-test"
tenant = "default"
roles = ["admin"]
key_env = "{KEY_ENV}"

[storage]
catalog_url = "file://{dir}/catalog"
warehouse_location = "file://{dir}/warehouse"

[rate_limit]
enabled = false
track_auth_failures = false

[audit]
sink = "none"

[logging]
level = "warn"
"#
    )
}
