//! The file's text encoding: UTF-8 (the default, read as it is), UTF-16 and the single-byte
//! Latin-1 and Windows-1252, decoded to UTF-8 as the file streams, so both decoders and every
//! error message see UTF-8.

use std::io::{self, Read};

pub use ldp_source_options::Encoding;

/// `reader` decoded from `encoding` to UTF-8.
pub fn decode(encoding: Encoding, reader: Box<dyn Read>) -> Box<dyn Read> {
    match encoding {
        Encoding::Utf8 => reader,
        other => Box::new(Decoder {
            inner: reader,
            encoding: other,
            raw: Vec::new(),
            out: Vec::new(),
            out_at: 0,
            started: false,
            eof: false,
        }),
    }
}

/// Windows-1252's characters for 0x80–0x9F (the five bytes it leaves undefined map to the C1
/// control of the same number, as Python's and WHATWG's decoders do).
const CP1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{81}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{8D}', '\u{017D}', '\u{8F}',
    '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}', '\u{9D}', '\u{017E}', '\u{0178}',
];

/// How much is read and decoded at a time.
const CHUNK: usize = 1 << 16;

struct Decoder {
    inner: Box<dyn Read>,
    encoding: Encoding,
    /// Bytes read and not decoded yet (half a UTF-16 unit or pair).
    raw: Vec<u8>,
    out: Vec<u8>,
    out_at: usize,
    /// Whether the byte order mark was looked for.
    started: bool,
    eof: bool,
}

impl Decoder {
    /// Decodes the next chunk into `out`; false at the end.
    fn refill(&mut self) -> io::Result<bool> {
        self.out.clear();
        self.out_at = 0;
        while self.out.is_empty() {
            if self.eof {
                if !self.raw.is_empty() {
                    return Err(invalid("the file ends inside a UTF-16 character"));
                }
                return Ok(false);
            }
            let start = self.raw.len();
            self.raw.resize(start + CHUNK, 0);
            let n = self.inner.read(&mut self.raw[start..])?;
            self.raw.truncate(start + n);
            self.eof = n == 0;
            self.decode_raw()?;
        }
        Ok(true)
    }

    fn decode_raw(&mut self) -> io::Result<()> {
        match self.encoding {
            Encoding::Latin1 => {
                self.out
                    .extend(self.raw.drain(..).flat_map(|b| utf8(b as char)));
            }
            Encoding::Windows1252 => {
                self.out.extend(self.raw.drain(..).flat_map(|b| match b {
                    0x80..=0x9F => utf8(CP1252_HIGH[usize::from(b - 0x80)]),
                    _ => utf8(b as char),
                }));
            }
            _ => self.decode_utf16()?,
        }
        Ok(())
    }

    fn decode_utf16(&mut self) -> io::Result<()> {
        if !self.started {
            if self.raw.len() < 2 && !self.eof {
                return Ok(());
            }
            self.started = true;
            match (self.encoding, self.raw.get(..2)) {
                (Encoding::Utf16 | Encoding::Utf16Le, Some([0xFF, 0xFE])) => {
                    self.encoding = Encoding::Utf16Le;
                    self.raw.drain(..2);
                }
                (Encoding::Utf16 | Encoding::Utf16Be, Some([0xFE, 0xFF])) => {
                    self.encoding = Encoding::Utf16Be;
                    self.raw.drain(..2);
                }
                (Encoding::Utf16, _) => self.encoding = Encoding::Utf16Le,
                _ => {}
            }
        }
        let big = self.encoding == Encoding::Utf16Be;
        let units: Vec<u16> = self
            .raw
            .chunks_exact(2)
            .map(|p| {
                if big {
                    u16::from_be_bytes([p[0], p[1]])
                } else {
                    u16::from_le_bytes([p[0], p[1]])
                }
            })
            .collect();
        // A high surrogate at the end waits for its pair.
        let mut whole = units.len();
        if !self.eof && units.last().is_some_and(|u| (0xD800..0xDC00).contains(u)) {
            whole -= 1;
        }
        for c in char::decode_utf16(units[..whole].iter().copied()) {
            let c = c.map_err(|_| invalid("a UTF-16 surrogate without its pair"))?;
            self.out.extend(utf8(c));
        }
        self.raw.drain(..whole * 2);
        Ok(())
    }
}

impl Read for Decoder {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.out_at == self.out.len() && !self.refill()? {
            return Ok(0);
        }
        let n = buf.len().min(self.out.len() - self.out_at);
        buf[..n].copy_from_slice(&self.out[self.out_at..self.out_at + n]);
        self.out_at += n;
        Ok(n)
    }
}

fn utf8(c: char) -> impl Iterator<Item = u8> {
    let mut buf = [0; 4];
    let len = c.encode_utf8(&mut buf).len();
    buf.into_iter().take(len)
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{what}; check the config's \"encoding\""),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(encoding: Encoding, bytes: &[u8]) -> io::Result<String> {
        let mut out = String::new();
        super::decode(encoding, Box::new(io::Cursor::new(bytes.to_vec())))
            .read_to_string(&mut out)?;
        Ok(out)
    }

    #[test]
    fn decodes_each_encoding() {
        assert_eq!(
            decode(Encoding::Latin1, b"caf\xe9,\x80").unwrap(),
            "café,\u{80}"
        );
        assert_eq!(
            decode(Encoding::Windows1252, b"caf\xe9,\x80").unwrap(),
            "café,€"
        );
        let text = "a,é\n𝄞,1\n";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let with_bom = [&[0xFF, 0xFE][..], &le].concat();
        assert_eq!(decode(Encoding::Utf16, &with_bom).unwrap(), text);
        assert_eq!(decode(Encoding::Utf16, &le).unwrap(), text);
        assert_eq!(decode(Encoding::Utf16Be, &be).unwrap(), text);
        let be_bom = [&[0xFE, 0xFF][..], &be].concat();
        assert_eq!(decode(Encoding::Utf16, &be_bom).unwrap(), text);
        assert!(decode(Encoding::Utf16Le, &le[..le.len() - 1]).is_err());
    }

    #[test]
    fn a_pair_split_across_reads_is_kept() {
        let text = "𝄞".repeat(CHUNK);
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        // One byte less than a chunk in the first read splits a pair.
        struct Slow(Vec<u8>, usize);
        impl Read for Slow {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(self.0.len() - self.1).min(CHUNK - 1);
                buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
                self.1 += n;
                Ok(n)
            }
        }
        let mut out = String::new();
        super::decode(Encoding::Utf16Le, Box::new(Slow(le, 0)))
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, text);
    }
}
