//! The file's bytes, buffered: whole batches of lines for the fast decoder ([`crate::fast`]),
//! and what arrow-csv's push decoder asks for when it decodes a batch instead.

use memchr::memchr_iter;
use std::io::{self, Read};

/// How much is read from the file at a time.
const READ_SIZE: u64 = 1 << 20;

/// A buffered file.
pub struct Input {
    reader: Box<dyn Read>,
    buf: Vec<u8>,
    /// Where the bytes not consumed yet start in `buf`.
    start: usize,
    eof: bool,
}

impl Input {
    pub fn new(reader: Box<dyn Read>) -> Self {
        Self {
            reader,
            buf: Vec::new(),
            start: 0,
            eof: false,
        }
    }

    /// The bytes read and not consumed yet.
    pub fn buffered(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    /// Marks the first `n` buffered bytes as used.
    pub fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.buf.len());
    }

    /// Reads more of the file; false at its end.
    pub fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let n = (&mut self.reader)
            .take(READ_SIZE)
            .read_to_end(&mut self.buf)?;
        self.eof = n == 0;
        Ok(!self.eof)
    }

    /// The length of the first `lines` lines of the buffered bytes (through the `\n` that ends
    /// the last of them), reading more of the file as needed; at the end of the file, fewer
    /// lines, the last one possibly without a line break. 0 when nothing is left.
    pub fn lines(&mut self, lines: usize) -> io::Result<usize> {
        let mut counted = 0;
        let mut scanned = 0;
        loop {
            let buffered = self.buffered();
            for at in memchr_iter(b'\n', &buffered[scanned..]) {
                counted += 1;
                if counted == lines {
                    return Ok(scanned + at + 1);
                }
            }
            scanned = buffered.len();
            if !self.fill()? {
                return Ok(self.buffered().len());
            }
        }
    }
}
