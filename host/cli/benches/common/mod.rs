//! What the benches share: measuring a child process (wall time, CPU time, peak RSS), failing
//! with a message, grouping digits, and a small deterministic PRNG with fast decimal printing
//! for generating CSV files.

#![allow(dead_code, reason = "each bench uses a part")]

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// The bench's name (its executable's stem without cargo's hash), for messages.
pub fn bench_name() -> String {
    let exe = std::env::args().next().unwrap_or_default();
    let stem = Path::new(&exe)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_string(),
        _ => stem,
    }
}

/// One measured child process.
#[derive(Clone, Copy)]
pub struct Measure {
    pub wall_s: f64,
    /// User + system CPU time of the process (less noisy than wall time on a shared machine).
    pub cpu_s: f64,
    pub peak_rss_mb: f64,
}

impl Measure {
    pub const NONE: Measure = Measure {
        wall_s: f64::INFINITY,
        cpu_s: f64::INFINITY,
        peak_rss_mb: 0.0,
    };

    /// The best wall and CPU times and the largest peak RSS of the two.
    pub fn best(self, m: Measure) -> Measure {
        Measure {
            wall_s: self.wall_s.min(m.wall_s),
            cpu_s: self.cpu_s.min(m.cpu_s),
            peak_rss_mb: self.peak_rss_mb.max(m.peak_rss_mb),
        }
    }
}

pub fn fail(msg: &str) -> ! {
    eprintln!("{}: {msg}", bench_name());
    std::process::exit(1)
}

pub fn temp_dir(target: &Path) -> tempfile::TempDir {
    std::fs::create_dir_all(target).unwrap_or_else(|e| fail(&format!("{}: {e}", target.display())));
    tempfile::Builder::new()
        .prefix(&format!("bench-{}-", bench_name()))
        .tempdir_in(target)
        .unwrap_or_else(|e| fail(&format!("temp dir in {}: {e}", target.display())))
}

/// Runs `cmd` (stdout and stderr kept in `dir/stdout.txt` and `dir/stderr.txt`) and measures its wall time and peak RSS.
/// Exits 1 with the child's stderr when it fails.
pub fn measure(what: &str, mut cmd: Command, dir: &Path) -> Measure {
    let err_path = dir.join("stderr.txt");
    let err =
        File::create(&err_path).unwrap_or_else(|e| fail(&format!("{}: {e}", err_path.display())));
    let out_path = dir.join("stdout.txt");
    let out =
        File::create(&out_path).unwrap_or_else(|e| fail(&format!("{}: {e}", out_path.display())));
    cmd.stdin(Stdio::null()).stdout(out).stderr(err);
    let start = Instant::now();
    let child = cmd
        .spawn()
        .unwrap_or_else(|e| fail(&format!("starting {what} ({cmd:?}): {e}")));
    let pid = libc::pid_t::try_from(child.id()).unwrap_or_else(|_| fail("pid out of range"));
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value (plain integers and timevals).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our un-reaped child (std's `Child` never waited for it); `status` and
        // `usage` are valid for writes for the duration of the call.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            fail(&format!("wait4 for {what}: {e}"));
        }
    }
    let wall_s = start.elapsed().as_secs_f64();
    drop(child); // already reaped by wait4; dropping a `Child` neither waits nor kills
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
        let _ = std::fs::remove_dir_all(dir); // `fail` exits without dropping the `TempDir`
        fail(&format!(
            "{what} failed (wait status {status:#x}): {cmd:?}\n{stderr}"
        ));
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    // ru_maxrss is in KiB on Linux.
    Measure {
        wall_s,
        cpu_s: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        peak_rss_mb: usage.ru_maxrss as f64 / 1024.0,
    }
}

/// 1234567.8 → "1,234,568".
pub fn group(x: f64) -> String {
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// splitmix64: a fast, deterministic PRNG (no `rand`).
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform enough in `0..n` for a benchmark (n is tiny next to 2^64).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Appends `v`'s decimal digits.
pub fn push_u64(buf: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

pub fn push_2(buf: &mut Vec<u8>, v: u64) {
    buf.extend_from_slice(&[b'0' + (v / 10) as u8, b'0' + (v % 10) as u8]);
}

/// Hundredths as a decimal with 2 places: 1617 → "16.17".
pub fn push_cents(buf: &mut Vec<u8>, cents: u64) {
    push_u64(buf, cents / 100);
    buf.push(b'.');
    push_2(buf, cents % 100);
}
