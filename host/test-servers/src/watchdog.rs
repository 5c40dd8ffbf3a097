//! A server process that cannot outlive its test: a small shell runs it with its output in a log
//! file and stops it (TERM, then KILL after 5 s) when the shell's standard input closes, which
//! happens when the [`Watched`] is dropped or when the test process ends in any way.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `"$@"` with its output in `$LDP_WATCHED_LOG` and its process id in
/// `$LDP_WATCHED_LOG.pid`, stops it when standard input closes.
const WATCHDOG: &str = r#"
"$@" </dev/null >"$LDP_WATCHED_LOG" 2>&1 &
server=$!
echo "$server" >"$LDP_WATCHED_LOG.pid"
cat >/dev/null
kill -TERM "$server" 2>/dev/null
i=0
while kill -0 "$server" 2>/dev/null && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "$server" 2>/dev/null
wait "$server" 2>/dev/null
exit 0
"#;

/// A running server process; dropping it stops the server.
pub struct Watched {
    log: PathBuf,
    watchdog: Option<(Child, ChildStdin)>,
}

impl Watched {
    /// Starts `server` (its program, arguments, environment and working folder) under the
    /// watchdog; its standard output and error go to `log`.
    pub fn spawn(server: &Command, log: &Path) -> Watched {
        let mut shell = Command::new("sh");
        shell
            .args(["-c", WATCHDOG, "sh"])
            .arg(server.get_program())
            .args(server.get_args())
            .env("LDP_WATCHED_LOG", log)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (key, value) in server.get_envs() {
            match value {
                Some(value) => shell.env(key, value),
                None => shell.env_remove(key),
            };
        }
        if let Some(dir) = server.get_current_dir() {
            shell.current_dir(dir);
        }
        let mut child = shell
            .spawn()
            .unwrap_or_else(|error| panic!("cannot run sh: {error}"));
        let stdin = child.stdin.take().expect("piped stdin");
        Watched {
            log: log.to_path_buf(),
            watchdog: Some((child, stdin)),
        }
    }

    /// The server's output so far.
    pub fn log(&self) -> String {
        let mut text = String::new();
        if let Ok(mut file) = std::fs::File::open(&self.log) {
            let _ = file.read_to_string(&mut text);
        }
        text
    }

    /// Kills the server at once (SIGKILL), as a crash of its host would; its watchdog stays
    /// until dropped.
    pub fn kill(&mut self) {
        let pid_file = PathBuf::from(format!("{}.pid", self.log.display()));
        let deadline = Instant::now() + Duration::from_secs(10);
        let pid = loop {
            let text = std::fs::read_to_string(&pid_file).unwrap_or_default();
            if let Ok(pid) = text.trim().parse::<u32>() {
                break pid;
            }
            assert!(
                Instant::now() < deadline,
                "the server's process id never appeared in {}",
                pid_file.display()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let status = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
            .unwrap_or_else(|error| panic!("cannot run kill: {error}"));
        assert!(status.success(), "kill -KILL {pid} failed");
    }

    /// Whether the server (or its watchdog) has ended.
    pub fn ended(&mut self) -> bool {
        self.watchdog
            .as_mut()
            .is_none_or(|(child, _)| matches!(child.try_wait(), Ok(Some(_))))
    }
}

impl Drop for Watched {
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
