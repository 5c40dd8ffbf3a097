//! What a plugin project needs from ldp, carried in the binary so that a project builds with no
//! ldp source tree: the WIT package (`wit/plugin.wit`), the Rust SDK as a vendored copy of its
//! two crates (`vendor/ldp-plugin-sdk`, `vendor/ldp-plugin-ipc`) and Python's Arrow IPC codec
//! (`ldp_arrow/`). `ldp plugin wit DIR` writes the WIT package alone.
//!
//! The vendored crates keep their sources as they are. The SDK's bindings read the WIT package
//! two folders above the crate (`../../wit`): the repository's `wit/` for `sdk/rust`, the
//! project's `wit/` for `vendor/ldp-plugin-sdk`. Their manifests are the repository's with every
//! `workspace = true` resolved against the root `Cargo.toml` (versions, dependencies) and the
//! SDK's path dependency on `sdk/ipc` pointed at its vendored sibling.
//!
//! The file lists below are checked against the source tree by a test, so a file added to the
//! SDK cannot be left out of the projects.

use std::path::Path;

use anyhow::{Context, bail};

macro_rules! python_file {
    ($name:literal, $path:literal) => {
        (
            concat!("ldp_arrow/", $name),
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../", $path)),
        )
    };
}

macro_rules! repo_file {
    ($path:literal) => {
        (
            $path,
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../", $path)),
        )
    };
}

/// The WIT package, as the host implements it.
pub const WIT: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../wit/plugin.wit"));

/// The root manifest, for the workspace values the SDK's manifests inherit.
const ROOT_MANIFEST: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml"));

/// One crate of the SDK: its folder in the repository, its folder in a project, its files (path
/// in the repository, text).
struct Crate {
    repo_dir: &'static str,
    vendor_dir: &'static str,
    manifest: &'static str,
    files: &'static [(&'static str, &'static str)],
}

const RUST_SDK: [Crate; 2] = [
    Crate {
        repo_dir: "sdk/rust",
        vendor_dir: "vendor/ldp-plugin-sdk",
        manifest: include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../sdk/rust/Cargo.toml"
        )),
        files: &[
            repo_file!("sdk/rust/README.md"),
            repo_file!("sdk/rust/src/append.rs"),
            repo_file!("sdk/rust/src/bindings.rs"),
            repo_file!("sdk/rust/src/check.rs"),
            repo_file!("sdk/rust/src/config.rs"),
            repo_file!("sdk/rust/src/config/tests.rs"),
            repo_file!("sdk/rust/src/error.rs"),
            repo_file!("sdk/rust/src/info.rs"),
            repo_file!("sdk/rust/src/lib.rs"),
            repo_file!("sdk/rust/src/log.rs"),
            repo_file!("sdk/rust/src/sink.rs"),
            repo_file!("sdk/rust/src/source.rs"),
            repo_file!("sdk/rust/src/testing.rs"),
            repo_file!("sdk/rust/src/transform.rs"),
        ],
    },
    Crate {
        repo_dir: "sdk/ipc",
        vendor_dir: "vendor/ldp-plugin-ipc",
        manifest: include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../sdk/ipc/Cargo.toml"
        )),
        files: &[repo_file!("sdk/ipc/src/lib.rs")],
    },
];

/// Python's codec, the package `ldp_arrow` (pure Python): (path in a project, text).
const PYTHON_SDK: [(&str, &str); 5] = [
    python_file!("README.md", "sdk/python/README.md"),
    python_file!("__init__.py", "sdk/python/ldp_arrow/__init__.py"),
    python_file!("flatbuf.py", "sdk/python/ldp_arrow/flatbuf.py"),
    python_file!("ipc.py", "sdk/python/ldp_arrow/ipc.py"),
    python_file!("types.py", "sdk/python/ldp_arrow/types.py"),
];

/// Writes `dir/plugin.wit`, creating `dir`.
pub fn write_wit(dir: &Path) -> anyhow::Result<()> {
    write(&dir.join("plugin.wit"), WIT)
}

/// Writes the Rust SDK's crates under `project/vendor/`, and the WIT package they read into
/// `project/wit/`.
pub fn write_rust_sdk(project: &Path) -> anyhow::Result<Vec<String>> {
    write_wit(&project.join("wit"))?;
    let mut written = vec!["wit/plugin.wit".to_string()];
    for krate in &RUST_SDK {
        let manifest = vendored_manifest(krate.manifest)?;
        let path = format!("{}/Cargo.toml", krate.vendor_dir);
        write(&project.join(&path), &manifest)?;
        written.push(path);
        for (repo_path, text) in krate.files {
            let path = repo_path.replacen(krate.repo_dir, krate.vendor_dir, 1);
            write(&project.join(&path), text)?;
        }
        written.push(format!("{}/…", krate.vendor_dir));
    }
    Ok(written)
}

/// Writes `ldp_arrow/` and the WIT package (`wit/`) into `project`.
pub fn write_python_sdk(project: &Path) -> anyhow::Result<Vec<String>> {
    write_wit(&project.join("wit"))?;
    for (path, text) in PYTHON_SDK {
        write(&project.join(path), text)?;
    }
    Ok(vec!["wit/plugin.wit".into(), "ldp_arrow/…".into()])
}

/// Writes the WIT package into `project/wit/`.
pub fn write_js_sdk(project: &Path) -> anyhow::Result<Vec<String>> {
    write_wit(&project.join("wit"))?;
    Ok(vec!["wit/plugin.wit".into()])
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// `manifest` with each `KEY.workspace = true` replaced by the root manifest's value of `KEY`
/// (from `[workspace.package]` or `[workspace.dependencies]`), the `[lints]` table (the
/// workspace's lints) dropped, and the path dependency on `ldp-plugin-ipc` made a sibling.
fn vendored_manifest(manifest: &str) -> anyhow::Result<String> {
    let mut out =
        String::from("# Vendored by `ldp plugin new`: the ldp SDK this ldp was built with.\n");
    let mut section = "";
    for line in manifest.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            section = trimmed;
        }
        if section == "[lints]" {
            continue;
        }
        let Some(key) = trimmed.strip_suffix(".workspace = true") else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let table = if section == "[package]" {
            "[workspace.package]"
        } else {
            "[workspace.dependencies]"
        };
        let value = match key {
            "ldp-plugin-ipc" => format!(
                "{{ path = \"../ldp-plugin-ipc\", version = {} }}",
                root_value("[workspace.package]", "version")?
            ),
            _ => root_value(table, key)?,
        };
        out.push_str(&format!("{key} = {value}\n"));
    }
    Ok(out)
}

/// The value of `key` in `table` of the root manifest, as written (one line).
fn root_value(table: &str, key: &str) -> anyhow::Result<String> {
    let mut section = "";
    for line in ROOT_MANIFEST.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            section = trimmed;
            continue;
        }
        if section != table {
            continue;
        }
        if let Some((k, v)) = trimmed.split_once('=')
            && k.trim() == key
        {
            return Ok(v.trim().to_string());
        }
    }
    bail!("the root Cargo.toml has no {key} in {table}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    /// Every file of a folder, as paths relative to the repository, sorted.
    fn files_under(dir: &str, keep: fn(&Path) -> bool) -> Vec<String> {
        let mut found = Vec::new();
        let mut stack = vec![repo().join(dir)];
        while let Some(at) = stack.pop() {
            for entry in std::fs::read_dir(&at).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if keep(&path) {
                    let relative = path.strip_prefix(repo()).unwrap();
                    found.push(relative.to_str().unwrap().to_string());
                }
            }
        }
        found.sort();
        found
    }

    #[test]
    fn the_embedded_sdks_hold_every_source_file_of_the_tree() {
        let rs = |p: &Path| p.extension().is_some_and(|e| e == "rs");
        for krate in &RUST_SDK {
            let src = format!("{}/src", krate.repo_dir);
            let mut embedded: Vec<_> = krate
                .files
                .iter()
                .map(|(p, _)| p.to_string())
                .filter(|p| p.ends_with(".rs"))
                .collect();
            embedded.sort();
            assert_eq!(embedded, files_under(&src, rs), "{}", krate.repo_dir);
        }
        let py = |p: &Path| p.extension().is_some_and(|e| e == "py");
        let embedded: Vec<_> = PYTHON_SDK
            .iter()
            .filter(|(p, _)| p.ends_with(".py"))
            .map(|(p, _)| format!("sdk/python/{p}"))
            .collect();
        assert_eq!(embedded, files_under("sdk/python/ldp_arrow", py));
    }

    #[test]
    fn vendored_manifests_inherit_nothing_from_a_workspace() {
        for krate in &RUST_SDK {
            let manifest = vendored_manifest(krate.manifest).unwrap();
            assert!(!manifest.contains("workspace"), "{manifest}");
            assert!(!manifest.contains("[lints]"), "{manifest}");
            assert!(manifest.contains("\nversion = \"0.1.0\"\n"), "{manifest}");
            assert!(manifest.contains("\narrow-array = \"="), "{manifest}");
        }
        let sdk = vendored_manifest(RUST_SDK[0].manifest).unwrap();
        assert!(
            sdk.contains("ldp-plugin-ipc = { path = \"../ldp-plugin-ipc\", version = \"0.1.0\" }"),
            "{sdk}"
        );
    }
}
