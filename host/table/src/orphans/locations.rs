//! Table and file locations compared as the Python tool compares them.

use std::path::{Component, Path, PathBuf};

use crate::error::Error;
use crate::table::Table;

/// Where a location points: a local path, or an object in a store.
pub(super) enum Place<'a> {
    Local(&'a str),
    Remote {
        scheme: String,
        netloc: &'a str,
        path: &'a str,
    },
}

/// Splits a location as Python's `urlparse` does (the scheme lower-cased; the path is kept
/// whole, `?` and `#` included). One-letter schemes count as schemes, as on POSIX.
pub(super) fn place(location: &str) -> Place<'_> {
    let scheme = location.split_once(':').filter(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    let Some((scheme, rest)) = scheme else {
        return Place::Local(location);
    };
    let (netloc, path) = match rest.strip_prefix("//") {
        Some(after) => after.split_at(after.find('/').unwrap_or(after.len())),
        None => ("", rest),
    };
    let scheme = scheme.to_ascii_lowercase();
    if scheme == "file" {
        Place::Local(path)
    } else {
        Place::Remote {
            scheme,
            netloc,
            path,
        }
    }
}

/// A comparison key for a file location, so `file:/x`, `file:///x` and `/x` compare equal:
/// `file:` and the real path (symbolic links resolved as far as the path exists) for a local
/// one, `scheme://bucket/key` for an object (`s3a` and `s3n` are `s3`, `gcs` is `gs`).
pub fn normalize_location(location: &str) -> String {
    match place(location) {
        Place::Local(path) => local_key(Path::new(path)),
        Place::Remote {
            scheme,
            netloc,
            path,
        } => {
            let scheme = match scheme.as_str() {
                "s3a" | "s3n" => "s3",
                "gcs" => "gs",
                other => other,
            };
            format!("{scheme}://{netloc}{path}")
        }
    }
}

pub(super) fn local_key(path: &Path) -> String {
    format!("file:{}", realpath(path).to_string_lossy())
}

/// Python's `os.path.realpath`: absolute, symbolic links resolved as far as the path exists,
/// the rest appended (with `.` and `..` applied).
pub(super) fn realpath(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let mut resolved = if path.is_absolute() {
        PathBuf::new()
    } else {
        std::env::current_dir().unwrap_or_default()
    };
    let mut exists = true;
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => resolved.push(component),
            Component::CurDir => {}
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(name) => {
                resolved.push(name);
                if exists {
                    match std::fs::canonicalize(&resolved) {
                        Ok(real) => resolved = real,
                        Err(_) => exists = false,
                    }
                }
            }
        }
    }
    resolved
}

/// Hidden as Iceberg Java's orphan action sees it: `.x`, or `_x` without `=`.
pub(super) fn is_hidden(component: &str) -> bool {
    component.starts_with('.') || (component.starts_with('_') && !component.contains('='))
}

pub(super) fn maintenance(table: &Table, message: String) -> Error {
    Error::Maintenance {
        table: table.identifier().to_string(),
        message,
    }
}
