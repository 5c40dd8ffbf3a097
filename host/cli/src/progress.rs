//! A one-line progress display on stderr, only when stderr is a terminal.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Redraw at most this often.
const EVERY: Duration = Duration::from_millis(200);

/// A row counter line (`rides: 1,234,567 rows, 1.2M rows/s`), or nothing off a terminal.
pub struct Progress {
    state: Mutex<State>,
    label: String,
}

struct State {
    started: Instant,
    last: Option<Instant>,
    drawn: bool,
}

impl Progress {
    /// A display for `label`, `None` when stderr is not a terminal.
    pub fn rows(label: &str) -> Option<Arc<Progress>> {
        std::io::stderr().is_terminal().then(|| {
            Arc::new(Progress {
                state: Mutex::new(State {
                    started: Instant::now(),
                    last: None,
                    drawn: false,
                }),
                label: label.to_string(),
            })
        })
    }

    /// Shows `rows` written so far (throttled).
    pub fn update(&self, rows: u64) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let now = Instant::now();
        if state.last.is_some_and(|l| now - l < EVERY) {
            return;
        }
        state.last = Some(now);
        state.drawn = true;
        let seconds = (now - state.started).as_secs_f64().max(1e-3);
        let rate = rows as f64 / seconds;
        let _ = write!(
            std::io::stderr(),
            "\r\x1b[2K{}: {} rows, {}/s",
            self.label,
            grouped(rows),
            compact(rate)
        );
    }

    /// Clears the line.
    pub fn finish(&self) {
        if self.state.lock().is_ok_and(|s| s.drawn) {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
        }
    }
}

fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn compact(rate: f64) -> String {
    if rate >= 1e6 {
        format!("{:.1}M rows", rate / 1e6)
    } else if rate >= 1e3 {
        format!("{:.0}k rows", rate / 1e3)
    } else {
        format!("{rate:.0} rows")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn groups_thousands() {
        assert_eq!(super::grouped(1_234_567), "1,234,567");
        assert_eq!(super::grouped(999), "999");
    }
}
