//! The path normalisation of the spec hash and the target identity, on text, as
//! Python's `posixpath` does it (no file system access, no symlinks resolved):
//!
//! * a value holding `://` that does not start with `file://` (an object-store or remote URI)
//!   is kept verbatim; a `file://` prefix is stripped;
//! * a value starting with `~` is only `normpath`-ed (`~` is not expanded);
//! * otherwise it is `normpath`-ed (`//` collapsed, `.` and `a/..` removed, no trailing `/`),
//!   and an absolute result inside the config folder is made relative to that folder.
//!
//! Window placeholders are text like any other: `./drops/{window_start:%Y}.csv` becomes
//! `drops/{window_start:%Y}.csv`.

use std::path::Path;

/// Normalises a path of a spec for hashing (see the module docs). `config_dir` is the config
/// file's folder; a relative one is taken from the current directory, and `None` leaves
/// absolute paths absolute.
pub fn normalise_spec_path(text: &str, config_dir: Option<&Path>) -> String {
    if text.contains("://") && !text.starts_with("file://") {
        return text.to_owned();
    }
    let text = text.strip_prefix("file://").unwrap_or(text);
    if text.starts_with('~') {
        return normpath(text);
    }
    let normalised = normpath(text);
    if normalised.starts_with('/')
        && let Some(root) = config_dir.and_then(absolute_root)
        && commonpath(&root, &normalised) == root
    {
        return relpath(&normalised, &root);
    }
    normalised
}

/// `os.path.normpath(os.path.abspath(dir))`; `None` when a relative folder meets an unknown
/// current directory.
fn absolute_root(dir: &Path) -> Option<String> {
    let text = dir.to_string_lossy();
    if text.starts_with('/') {
        return Some(normpath(&text));
    }
    let cwd = std::env::current_dir().ok()?;
    Some(normpath(&format!("{}/{text}", cwd.to_string_lossy())))
}

/// Python's `posixpath.normpath`.
pub(crate) fn normpath(path: &str) -> String {
    if path.is_empty() {
        return ".".to_owned();
    }
    let initial_slashes = if path.starts_with("//") && !path.starts_with("///") {
        2
    } else if path.starts_with('/') {
        1
    } else {
        0
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        if part.is_empty() || part == "." {
            continue;
        }
        if part != ".." || (initial_slashes == 0 && parts.is_empty()) || parts.last() == Some(&"..")
        {
            parts.push(part);
        } else if !parts.is_empty() {
            parts.pop();
        }
    }
    let joined = format!("{}{}", "/".repeat(initial_slashes), parts.join("/"));
    if joined.is_empty() {
        ".".to_owned()
    } else {
        joined
    }
}

fn components(path: &str) -> Vec<&str> {
    path.split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect()
}

/// Python's `posixpath.commonpath([a, b])` for two absolute paths.
fn commonpath(a: &str, b: &str) -> String {
    let (a, b) = (components(a), components(b));
    let common: Vec<&str> = a
        .iter()
        .zip(&b)
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| *x)
        .collect();
    format!("/{}", common.join("/"))
}

/// Python's `posixpath.relpath(path, start)` for two normalised absolute paths.
fn relpath(path: &str, start: &str) -> String {
    let (path, start) = (components(path), components(start));
    let shared = path.iter().zip(&start).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<&str> = vec![".."; start.len() - shared];
    parts.extend(&path[shared..]);
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normpath_is_pythons() {
        for (path, expected) in [
            ("", "."),
            (".", "."),
            ("./", "."),
            ("a/./b/", "a/b"),
            ("a//b", "a/b"),
            ("./data/../data/rides.csv", "data/rides.csv"),
            ("../a/../../b", "../../b"),
            ("/../a", "/a"),
            ("//a//b/", "//a/b"),
            ("///a", "/a"),
            ("/", "/"),
            ("//", "//"),
            ("a/..", "."),
            ("~/x/../y", "~/y"),
        ] {
            assert_eq!(normpath(path), expected, "{path:?}");
        }
    }

    #[test]
    fn spec_paths() {
        let dir = Some(Path::new("/proj/cfg"));
        for (path, expected) in [
            ("data/rides.csv", "data/rides.csv"),
            ("./data/../data/rides.csv", "data/rides.csv"),
            ("/proj/cfg/data/rides.csv", "data/rides.csv"),
            ("/proj/cfg/./data//rides.csv", "data/rides.csv"),
            ("/proj/cfg", "."),
            ("/proj/cfg/", "."),
            ("/proj/cfgx/a.csv", "/proj/cfgx/a.csv"),
            ("/proj/other/a.csv", "/proj/other/a.csv"),
            ("/proj/cfg/../other/a.csv", "/proj/other/a.csv"),
            ("file:///proj/cfg/warehouse", "warehouse"),
            ("file://warehouse/", "warehouse"),
            ("s3://bucket/a/../b", "s3://bucket/a/../b"),
            ("gs://b/x", "gs://b/x"),
            ("~/data/./x.csv", "~/data/x.csv"),
            ("~", "~"),
            ("../up.csv", "../up.csv"),
            (
                "drops/./orders_{window_start:%Y-%m-%d}.csv",
                "drops/orders_{window_start:%Y-%m-%d}.csv",
            ),
            ("", "."),
        ] {
            assert_eq!(normalise_spec_path(path, dir), expected, "{path:?}");
        }
        assert_eq!(normalise_spec_path("/proj/cfg/a", None), "/proj/cfg/a");
        assert_eq!(
            normalise_spec_path("/proj/cfg/a", Some(Path::new("/proj/./cfg/"))),
            "a"
        );
        assert_eq!(normalise_spec_path("/a/b", Some(Path::new("/"))), "a/b");
    }
}
