//! The rules of table and namespace names, checked before anything is created.
//!
//! A table lives in the folder `<warehouse>/<namespace>/<table>`, and a `local` catalog's
//! `identifier` (its namespace) also names its file `<warehouse_path>/<identifier>_catalog.db`;
//! a name that is a path would put the table or the catalog elsewhere (`/tmp/x`, `../x`) or
//! inside another table's folder (`a/b` inside `a`, whose orphan sweep would delete it). So:
//!
//! * a **table name** (an Iceberg block's `name`) is one folder: not empty, no `/` or `\`, no
//!   control character, no `.` (which also rules out `.` and `..`: pyiceberg reads `ns.t` as a
//!   namespace and a table);
//! * a **namespace** (a catalog's `identifier` and `namespace`, the `iceberg` event sink's
//!   `namespace`) is one folder too, whose `.`s separate levels (`a.b`, as the catalogs read
//!   it): not empty, no `/` or `\`, no control character, no empty level (so not `.`, `..`,
//!   `.a`, `a.` or `a..b`).
//!
//! Everything else is kept, as the Python tool keeps it: letters of any script, digits, `_`,
//! `-`, spaces (`rides`, `rides_2024`, `nyc-raw`, `café`).

use crate::problems::Problems;
use crate::repr::repr_str;

/// Why a name cannot be a table name or a namespace.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// Empty or only whitespace.
    #[error("is empty")]
    Empty,
    /// Holds a control character (NUL, a newline, ...).
    #[error("holds the control character {}", escape(*.0))]
    Control(char),
    /// An absolute path (`/…`, `\…`, `C:\…`).
    #[error("is an absolute path")]
    Absolute,
    /// Holds `/` or `\`.
    #[error("holds the path separator '{0}'")]
    Separator(char),
    /// `.` or `..`.
    #[error("is the path segment '{0}'")]
    DotSegment(&'static str),
    /// A namespace with a leading, trailing or doubled `.`.
    #[error("has an empty level (a leading, trailing or doubled '.')")]
    EmptyLevel,
    /// A table name holding `.`.
    #[error("holds '.'")]
    Dot,
}

/// What a name names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    /// An Iceberg table's name (`metadata.target.name`, `metadata.source.name`).
    Table,
    /// A namespace (a catalog's `identifier` or `namespace`).
    Namespace,
}

impl NameKind {
    /// Checks `name` against the rules of this kind (see the module's documentation).
    ///
    /// # Errors
    ///
    /// The first rule `name` breaks.
    pub fn check(self, name: &str) -> Result<(), NameError> {
        if name.trim().is_empty() {
            return Err(NameError::Empty);
        }
        if let Some(control) = name.chars().find(|c| c.is_control()) {
            return Err(NameError::Control(control));
        }
        if is_absolute(name) {
            return Err(NameError::Absolute);
        }
        if let Some(separator) = name.chars().find(|c| matches!(c, '/' | '\\')) {
            return Err(NameError::Separator(separator));
        }
        match name {
            "." => return Err(NameError::DotSegment(".")),
            ".." => return Err(NameError::DotSegment("..")),
            _ => {}
        }
        match self {
            NameKind::Table if name.contains('.') => Err(NameError::Dot),
            NameKind::Namespace if name.split('.').any(str::is_empty) => Err(NameError::EmptyLevel),
            _ => Ok(()),
        }
    }

    /// The problem a config reports after the key (`metadata.target.name: <this>`): the value,
    /// the rule it breaks and what to write instead; `None` for a valid name. A table name with
    /// a `.` keeps the Python tool's words.
    pub fn problem(self, name: &str) -> Option<String> {
        let error = self.check(name).err()?;
        if self == NameKind::Table && error == NameError::Dot {
            return Some("must not contain '.'; set the namespace in the catalog".to_owned());
        }
        Some(format!(
            "{} {error}; {}, and set where tables go with the catalog's 'warehouse_path' \
             (or 'warehouse')",
            repr_str(name),
            self.rule()
        ))
    }

    /// The rule in words, with an example of a good name.
    pub fn rule(self) -> &'static str {
        match self {
            NameKind::Table => {
                "a table name is one folder under its namespace in the warehouse: not empty, \
                 no '/', '\\', '.' or control character; write a plain name such as 'rides'"
            }
            NameKind::Namespace => {
                "a namespace is one folder in the warehouse (and a local catalog's identifier \
                 names its file <identifier>_catalog.db): not empty, no '/', '\\' or control \
                 character, and a '.' only between levels (a.b); write a plain name such as 'nyc'"
            }
        }
    }
}

/// Adds the problem of `name` at the JSON path `at` when it breaks the rules of `kind`.
pub(crate) fn check_name(problems: &mut Problems, at: &str, kind: NameKind, name: &str) {
    if let Some(problem) = kind.problem(name) {
        problems.add(at, problem);
    }
}

/// `/…`, `\…` or a drive (`C:\…`, `C:/…`).
fn is_absolute(name: &str) -> bool {
    let bytes = name.as_bytes();
    matches!(bytes.first(), Some(b'/' | b'\\'))
        || (bytes.len() > 2
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && matches!(bytes[2], b'/' | b'\\'))
}

/// `U+0000`, as a message names an invisible character.
fn escape(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_python_tool_accepts_and_that_are_safe_are_kept() {
        for name in [
            "rides",
            "rides_2024",
            "nyc-raw",
            "café",
            "Rides 2024",
            "_ldp",
            "-x",
        ] {
            assert_eq!(NameKind::Table.check(name), Ok(()), "{name:?}");
            assert_eq!(NameKind::Namespace.check(name), Ok(()), "{name:?}");
        }
        assert_eq!(NameKind::Namespace.check("a.b.c"), Ok(()));
    }

    /// The bug "table names and catalog identifiers escape the warehouse": every name that is a
    /// path, or that reaches into another folder, is refused.
    #[test]
    fn a_name_that_is_a_path_is_refused() {
        use NameError::*;
        let cases = [
            ("", Empty),
            ("  ", Empty),
            ("a\0b", Control('\0')),
            ("a\nb", Control('\n')),
            ("/tmp/x", Absolute),
            ("\\x", Absolute),
            ("C:\\x", Absolute),
            ("c:/x", Absolute),
            ("a/b", Separator('/')),
            ("a\\b", Separator('\\')),
            ("../x", Separator('/')),
            ("..", DotSegment("..")),
            (".", DotSegment(".")),
        ];
        for (name, error) in cases {
            assert_eq!(NameKind::Table.check(name), Err(error.clone()), "{name:?}");
            assert_eq!(NameKind::Namespace.check(name), Err(error), "{name:?}");
        }
        for name in ["a.b", ".a", "a."] {
            assert_eq!(NameKind::Table.check(name), Err(Dot), "{name:?}");
        }
        for name in [".a", "a.", "a..b", "..."] {
            assert_eq!(NameKind::Namespace.check(name), Err(EmptyLevel), "{name:?}");
        }
    }

    #[test]
    fn problems_name_the_value_the_rule_and_what_to_do() {
        assert_eq!(NameKind::Table.problem("rides"), None);
        assert_eq!(
            NameKind::Table.problem("a.b").unwrap(),
            "must not contain '.'; set the namespace in the catalog"
        );
        let text = NameKind::Table.problem("/tmp/x").unwrap();
        assert!(
            text.starts_with("'/tmp/x' is an absolute path; a table name is one folder"),
            "{text}"
        );
        assert!(text.contains("such as 'rides'"), "{text}");
        let text = NameKind::Namespace.problem("a/b").unwrap();
        assert!(
            text.starts_with("'a/b' holds the path separator '/'; a namespace is one folder"),
            "{text}"
        );
        assert!(text.contains("'warehouse_path'"), "{text}");
        let text = NameKind::Namespace.problem("a\u{1}").unwrap();
        assert!(
            text.contains("holds the control character U+0001"),
            "{text}"
        );
    }
}
