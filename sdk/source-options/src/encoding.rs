//! The text encodings a CSV file may be in.

/// An encoding `encoding` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    /// UTF-16 with a byte order mark, little-endian without one.
    Utf16,
    Utf16Le,
    Utf16Be,
    /// ISO-8859-1: each byte is the code point of the same number.
    Latin1,
    /// Windows-1252: Latin-1 but for 0x80–0x9F, which hold typographic characters.
    Windows1252,
}

impl Encoding {
    /// The names, for messages.
    pub const NAMES: &'static str = "utf-8, utf-16, utf-16le, utf-16be, latin-1, windows-1252";

    /// The encoding of a name, in any case, with or without `-` or `_` (`utf8`, `UTF-16LE`,
    /// `latin_1`, `iso-8859-1`, `cp1252`).
    pub fn parse(name: &str) -> Option<Self> {
        let key: String = name
            .chars()
            .filter(|c| *c != '-' && *c != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        Some(match key.as_str() {
            "utf8" | "utf8sig" => Encoding::Utf8,
            "utf16" => Encoding::Utf16,
            "utf16le" => Encoding::Utf16Le,
            "utf16be" => Encoding::Utf16Be,
            "latin1" | "iso88591" | "l1" => Encoding::Latin1,
            "windows1252" | "cp1252" => Encoding::Windows1252,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for name in Encoding::NAMES.split(", ") {
            assert!(Encoding::parse(name).is_some(), "{name}");
        }
        assert_eq!(Encoding::parse("UTF-16LE"), Some(Encoding::Utf16Le));
        assert_eq!(Encoding::parse("latin_1"), Some(Encoding::Latin1));
        assert_eq!(Encoding::parse("cp1252"), Some(Encoding::Windows1252));
        assert_eq!(Encoding::parse("ebcdic"), None);
    }
}
