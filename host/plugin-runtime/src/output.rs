//! A plugin's stdout, stderr and log: forwarded line by line to the host's log, capped.

use bytes::Bytes;
use std::sync::{Arc, Mutex, MutexGuard};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamError, StreamResult};

/// Which stream a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Channel {
    Stdout,
    Stderr,
}

/// Lines of stderr kept for a trap's message.
const STDERR_TAIL: usize = 16;

#[derive(Debug)]
struct State {
    plugin: Arc<str>,
    written: u64,
    max: u64,
    exceeded: bool,
    partial: [Vec<u8>; 2],
    /// The last lines written to stderr, oldest first.
    stderr_tail: std::collections::VecDeque<String>,
}

/// The output budget of one plugin instance, shared by its stdout, stderr and log.
#[derive(Debug, Clone)]
pub(crate) struct Output {
    state: Arc<Mutex<State>>,
}

impl Output {
    pub(crate) fn new(plugin: Arc<str>, max: u64) -> Self {
        Self {
            state: Arc::new(Mutex::new(State {
                plugin,
                written: 0,
                max,
                exceeded: false,
                partial: [Vec::new(), Vec::new()],
                stderr_tail: std::collections::VecDeque::new(),
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a logging call panicked; the counters are still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the budget was exceeded.
    pub(crate) fn exceeded(&self) -> bool {
        self.lock().exceeded
    }

    /// What the plugin last said on stderr, for a trap's message: a Rust panic's location and
    /// message when it panicked, else its last line.
    pub(crate) fn last_words(&self) -> Option<String> {
        let state = self.lock();
        let mut lines: Vec<String> = state.stderr_tail.iter().cloned().collect();
        let pending = String::from_utf8_lossy(&state.partial[1])
            .trim()
            .to_string();
        if !pending.is_empty() {
            lines.push(pending);
        }
        if let Some(at) = lines.iter().rposition(|l| l.contains("panicked at")) {
            let location = lines[at]
                .split_once("panicked at ")
                .map_or(lines[at].as_str(), |(_, rest)| rest)
                .trim_end_matches(':');
            let message: Vec<&str> = lines[at + 1..]
                .iter()
                .map(String::as_str)
                .take_while(|l| !l.starts_with("note: "))
                .collect();
            return Some(format!("panicked at {location}: {}", message.join(" ")));
        }
        lines.into_iter().rev().find(|l| !l.starts_with("note: "))
    }

    /// Counts `len` bytes against the budget; false when it is exceeded.
    pub(crate) fn charge(&self, len: usize) -> bool {
        let mut state = self.lock();
        state.written = state.written.saturating_add(len as u64);
        if state.written > state.max {
            state.exceeded = true;
        }
        !state.exceeded
    }

    /// The plugin's name, for log lines.
    pub(crate) fn plugin(&self) -> Arc<str> {
        self.lock().plugin.clone()
    }

    fn write(&self, channel: Channel, bytes: &[u8]) -> StreamResult<()> {
        if !self.charge(bytes.len()) {
            return Err(StreamError::trap("output limit exceeded"));
        }
        let mut state = self.lock();
        let index = channel as usize;
        state.partial[index].extend_from_slice(bytes);
        while let Some(pos) = state.partial[index].iter().position(|b| *b == b'\n') {
            let rest = state.partial[index].split_off(pos + 1);
            let line = std::mem::replace(&mut state.partial[index], rest);
            let line = String::from_utf8_lossy(&line).trim_end().to_string();
            emit(&state.plugin, channel, &line);
            if channel == Channel::Stderr && !line.is_empty() {
                if state.stderr_tail.len() == STDERR_TAIL {
                    state.stderr_tail.pop_front();
                }
                state.stderr_tail.push_back(line);
            }
        }
        Ok(())
    }

    pub(crate) fn stream(&self, channel: Channel) -> OutputPipe {
        OutputPipe {
            output: self.clone(),
            channel,
        }
    }
}

fn emit(plugin: &str, channel: Channel, line: &str) {
    match channel {
        Channel::Stdout => tracing::info!(target: "ldp::plugin", plugin, "{line}"),
        Channel::Stderr => tracing::warn!(target: "ldp::plugin", plugin, "{line}"),
    }
}

/// One of a plugin's stdout or stderr, as WASI sees it.
#[derive(Debug, Clone)]
pub(crate) struct OutputPipe {
    output: Output,
    channel: Channel,
}

impl IsTerminal for OutputPipe {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for OutputPipe {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for OutputPipe {
    async fn ready(&mut self) {}
}

impl OutputStream for OutputPipe {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.output.write(self.channel, &bytes)
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(64 * 1024)
    }
}

impl tokio::io::AsyncWrite for OutputPipe {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::task::Poll::Ready(
            self.output
                .write(self.channel, buf)
                .map(|()| buf.len())
                .map_err(|_| std::io::Error::other("output limit exceeded")),
        )
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}
