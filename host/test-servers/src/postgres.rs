//! A throwaway PostgreSQL server for the tests: one per test binary, one database per test.
//!
//! It runs Debian's (or any) PostgreSQL server programs: `initdb` into a temporary folder, then
//! `postgres` listening on 127.0.0.1 on a free port, with its unix socket in that folder. As root
//! (PostgreSQL refuses to run as root) both run as the `postgres` system user, which then owns
//! the folder. The role [`ROLE`] logs in with [`PASSWORD`], stored as SCRAM-SHA-256.
//!
//! A small shell runs the server and stops it (then removes the folder) when its standard input
//! closes: when the [`PgServer`] is dropped, or when the test process ends in any way, since the
//! kernel closes the pipe then. The shared server lives in a `static`, which is never dropped.

use postgres::{Client, NoTls};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The role the catalogs connect as.
pub const ROLE: &str = "ldp";
/// Its password.
pub const PASSWORD: &str = "ldp-test-Secret-42";
/// The superuser `initdb` makes; it creates the role and the databases.
const ADMIN: &str = "ldp_admin";
const ADMIN_PASSWORD: &str = "ldp-admin-Secret-42";
/// How long the server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `initdb` may take.
const INITDB_TIMEOUT: Duration = Duration::from_secs(120);
/// Where to look for the server programs first.
const BIN_ENV: &str = "LDP_TEST_PG_BIN";

/// Runs the server, stops it when its standard input closes, then removes the folder.
const WATCHDOG: &str = r#"
"$@" </dev/null >"$LDP_PG_DIR/server.log" 2>&1 &
pg=$!
echo "$pg" >"$LDP_PG_DIR/server.pid"
cat >/dev/null
kill -INT "$pg" 2>/dev/null
wait "$pg"
rm -rf "$LDP_PG_DIR"
"#;

/// The shared server, started on first use.
pub fn server() -> &'static PgServer {
    static SERVER: OnceLock<PgServer> = OnceLock::new();
    SERVER.get_or_init(PgServer::start)
}

/// A running server; dropping it stops the server and removes its folder.
pub struct PgServer {
    dir: PathBuf,
    port: u16,
    watchdog: Mutex<Option<(Child, ChildStdin)>>,
    admin: Mutex<Client>,
}

/// The server programs' folder: `$LDP_TEST_PG_BIN`, the newest `/usr/lib/postgresql/*/bin`, or
/// the folder of the `initdb` found on `PATH`.
fn bin_dir() -> PathBuf {
    let has_programs = |dir: &Path| dir.join("initdb").is_file() && dir.join("postgres").is_file();
    if let Some(dir) = std::env::var_os(BIN_ENV).map(PathBuf::from) {
        assert!(
            has_programs(&dir),
            "{BIN_ENV}={} holds no initdb and postgres",
            dir.display()
        );
        return dir;
    }
    let mut debian: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, dir)| has_programs(dir))
        .collect();
    debian.sort();
    if let Some((_, dir)) = debian.pop() {
        return dir;
    }
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("initdb"))
            .find(|initdb| initdb.is_file())
            .and_then(|initdb| std::fs::canonicalize(initdb).ok())
            .and_then(|initdb| initdb.parent().map(Path::to_path_buf))
            .filter(|dir| has_programs(dir))
    });
    on_path.unwrap_or_else(|| {
        panic!(
            "the PostgreSQL tests need PostgreSQL's server programs (initdb, postgres) and found \
             none in ${BIN_ENV}, /usr/lib/postgresql/*/bin or PATH: apt-get install postgresql"
        )
    })
}

/// The effective user id of this process.
fn euid() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .and_then(|id| id.parse().ok())
        .expect("an effective uid in /proc/self/status")
}

/// The uid and gid of the `postgres` system user.
fn postgres_user() -> (u32, u32) {
    let passwd = std::fs::read_to_string("/etc/passwd").expect("read /etc/passwd");
    passwd
        .lines()
        .find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            (fields.first() == Some(&"postgres"))
                .then(|| Some((fields.get(2)?.parse().ok()?, fields.get(3)?.parse().ok()?)))
                .flatten()
        })
        .expect(
            "running as root, the PostgreSQL tests run the server as the postgres user, and \
             there is none: apt-get install postgresql",
        )
}

/// `program` as a command that runs as the `postgres` user when this process is root.
fn as_server_user(program: &Path) -> Command {
    if euid() == 0 {
        let mut command = Command::new("setpriv");
        command
            .args([
                "--reuid=postgres",
                "--regid=postgres",
                "--init-groups",
                "--",
            ])
            .arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// Waits for `child` at most `timeout`; kills it past that.
fn wait_bounded(child: &mut Child, timeout: Duration, what: &str) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if started.elapsed() > timeout {
            let _ = child.kill();
            panic!("{what} took longer than {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// Makes the folder and runs `initdb` in it; returns the folder.
fn init(bin: &Path) -> PathBuf {
    let dir = tempfile::Builder::new()
        .prefix("ldp-pg-")
        .tempdir()
        .expect("temp dir")
        .keep();
    let pwfile = dir.join("pwfile");
    std::fs::write(&pwfile, ADMIN_PASSWORD).expect("write the password file");
    if euid() == 0 {
        let (uid, gid) = postgres_user();
        for path in [&dir, &pwfile] {
            std::os::unix::fs::chown(path, Some(uid), Some(gid)).expect("chown to postgres");
        }
    }
    let mut initdb = as_server_user(&bin.join("initdb"))
        .arg("--pgdata")
        .arg(dir.join("data"))
        .args([
            "--username",
            ADMIN,
            "--auth=scram-sha-256",
            "--encoding=UTF8",
            "--no-locale",
            "--no-sync",
        ])
        .arg(format!("--pwfile={}", pwfile.display()))
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run initdb");
    let status = wait_bounded(&mut initdb, INITDB_TIMEOUT, "initdb");
    if !status.success() {
        let mut err = String::new();
        use std::io::Read;
        let _ = initdb.stderr.take().map(|mut e| e.read_to_string(&mut err));
        panic!("initdb failed ({status}): {err}");
    }
    dir
}

impl PgServer {
    /// Starts a new server; panics (naming the log) when it does not accept connections within
    /// [`START_TIMEOUT`].
    pub fn start() -> PgServer {
        let bin = bin_dir();
        // A port found free may be taken before the server binds it: try a few times, each in a
        // new folder (the watchdog of a failed try removes its folder).
        let mut last_log = String::new();
        for _ in 0..3 {
            let dir = init(&bin);
            let port = free_port();
            let (child, stdin) = spawn_server(&bin, &dir, port);
            match wait_until_ready(&dir, port) {
                Ok(admin) => {
                    let server = PgServer {
                        dir,
                        port,
                        watchdog: Mutex::new(Some((child, stdin))),
                        admin: Mutex::new(admin),
                    };
                    server.create_role();
                    return server;
                }
                Err(log) => {
                    drop(stdin);
                    let mut child = child;
                    wait_bounded(&mut child, START_TIMEOUT, "stopping PostgreSQL");
                    last_log = log;
                }
            }
        }
        panic!("PostgreSQL did not start; its log:\n{last_log}");
    }

    /// The folder of the data, the socket and the log.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URI of `database` for [`ROLE`], without password.
    pub fn uri(&self, database: &str) -> String {
        format!("postgresql://{ROLE}@127.0.0.1:{}/{database}", self.port)
    }

    /// A new empty database owned by [`ROLE`]; `label` names it for whoever reads the log.
    pub fn new_database(&self, label: &str) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let label: String = label
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        let mut name = format!("t{n:03}_{label}");
        name.truncate(63);
        self.admin
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .batch_execute(&format!("CREATE DATABASE {name} OWNER {ROLE}"))
            .unwrap_or_else(|e| panic!("create database {name}: {e}"));
        name
    }

    /// A new connection to `database` as [`ROLE`].
    pub fn client(&self, database: &str) -> Client {
        postgres::Config::new()
            .host("127.0.0.1")
            .port(self.port)
            .user(ROLE)
            .password(PASSWORD)
            .dbname(database)
            .connect(NoTls)
            .unwrap_or_else(|e| panic!("connect to {database}: {e}"))
    }

    /// Runs `sql` as the superuser on the `postgres` database.
    pub fn admin_query(&self, sql: &str) -> Vec<postgres::Row> {
        self.admin
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .query(sql, &[])
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    fn create_role(&self) {
        self.admin
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .batch_execute(&format!(
                "SET password_encryption = 'scram-sha-256'; \
                 CREATE ROLE {ROLE} LOGIN PASSWORD '{PASSWORD}'"
            ))
            .expect("create the role");
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let taken = self
            .watchdog
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        if let Some((mut child, stdin)) = taken {
            drop(stdin);
            wait_bounded(&mut child, START_TIMEOUT, "stopping PostgreSQL");
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts the watchdog shell, which starts the server.
fn spawn_server(bin: &Path, dir: &Path, port: u16) -> (Child, ChildStdin) {
    let _ = std::fs::remove_file(dir.join("server.pid"));
    let mut server = as_server_user(&bin.join("postgres"));
    server
        .arg("-D")
        .arg(dir.join("data"))
        .arg("-k")
        .arg(dir)
        .args(["-p", &port.to_string()])
        .args(["-c", "listen_addresses=127.0.0.1"])
        .args(["-c", "password_encryption=scram-sha-256"])
        .args(["-c", "fsync=off", "-c", "synchronous_commit=off"])
        .args(["-c", "full_page_writes=off", "-c", "max_connections=200"]);
    let mut child = Command::new("sh")
        .args(["-c", WATCHDOG, "ldp-pg-watchdog"])
        .arg(server.get_program())
        .args(server.get_args())
        .env("LDP_PG_DIR", dir)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run sh");
    let mut stdin = child.stdin.take().expect("the watchdog's stdin");
    // Nothing is ever written; a failed write would only mean the watchdog is gone.
    let _ = stdin.flush();
    (child, stdin)
}

/// Connects as the superuser once the server accepts connections; `Err(log)` when it stopped.
fn wait_until_ready(dir: &Path, port: u16) -> Result<Client, String> {
    let started = Instant::now();
    let log = || std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
    loop {
        let connected = postgres::Config::new()
            .host("127.0.0.1")
            .port(port)
            .user(ADMIN)
            .password(ADMIN_PASSWORD)
            .dbname("postgres")
            .connect_timeout(Duration::from_secs(2))
            .connect(NoTls);
        match connected {
            Ok(client) => return Ok(client),
            Err(_) if server_died(dir) => return Err(log()),
            Err(e) if started.elapsed() > START_TIMEOUT => panic!(
                "PostgreSQL did not accept connections within {START_TIMEOUT:?} ({e}); its log:\n{}",
                log()
            ),
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

/// Whether the server process started and has exited (gone, or a zombie its shell has not
/// reaped yet).
fn server_died(dir: &Path) -> bool {
    let Some(pid) = std::fs::read_to_string(dir.join("server.pid"))
        .ok()
        .and_then(|pid| pid.trim().parse::<u32>().ok())
    else {
        return false;
    };
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name, which is in parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => true,
    }
}
