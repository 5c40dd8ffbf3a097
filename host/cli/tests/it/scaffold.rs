//! `ldp plugin new` (issue 8, item 4): each kind of Rust project passes its own test as it is,
//! and the transform builds into a component that `ldp plugins inspect` accepts and
//! `ldp transform test` runs. The component builds in `<target>/examples-wasm`, with the same
//! dependencies and profile as `examples/plugins/rust` (see `languages.rs`), so the two share
//! one build of them.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{ldp, rides_workdir, stderr, stdout};

/// `<target>/examples-wasm`: where the example and scaffolded plugins build.
pub(super) fn wasm_target() -> PathBuf {
    Path::new(ldp_builtin_plugins::WASM_DIR)
        .ancestors()
        .nth(3)
        .unwrap()
        .join("examples-wasm")
}

fn cargo(dir: &Path, args: &[&str], target: &Path) -> std::process::Output {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("cargo runs")
}

#[test]
fn rust_projects_of_every_kind_pass_their_tests_and_the_transform_runs_in_ldp() {
    let dir = tempfile::tempdir().unwrap();
    for kind in ["source", "transform", "check", "sink"] {
        let name = format!("my_{kind}");
        let project = dir.path().join(&name);
        let out = ldp(&[
            "plugin",
            "new",
            "--kind",
            kind,
            "--lang",
            "rust",
            &name,
            "--dir",
            project.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(stdout(&out).contains("src/lib.rs"), "{}", stdout(&out));
        let native = wasm_target().with_file_name("examples-native");
        let test = cargo(&project, &["test", "--quiet"], &native);
        assert!(
            test.status.success(),
            "{kind}: cargo test failed:\n{}",
            String::from_utf8_lossy(&test.stderr)
        );
    }
    let project = dir.path().join("my_transform");
    let build = cargo(
        &project,
        &["build", "--release", "--target", "wasm32-wasip2", "--quiet"],
        &wasm_target(),
    );
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let wasm = wasm_target().join("wasm32-wasip2/release/my_transform.wasm");
    let inspect = ldp(&["plugins", "inspect", wasm.to_str().unwrap()]);
    assert_eq!(inspect.status.code(), Some(0), "{}", stderr(&inspect));
    assert!(
        stdout(&inspect).contains("kind:        transform"),
        "{}",
        stdout(&inspect)
    );

    let rides = rides_workdir(
        r#"{"identifier": "rides", "metadata": {
  "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
  "target": {"name": "rides", "format": "ICEBERG", "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}}}}"#,
    );
    let config = rides.path().join("rides.json");
    let out = ldp(&[
        "transform",
        "test",
        config.to_str().unwrap(),
        "--code",
        wasm.to_str().unwrap(),
        "--rows",
        "3",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sample: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sample["rows"][2]["row_number"], 3);
    assert_eq!(sample["written"], false);

    // A name that cannot be a crate, and a folder that is not empty, are refused.
    let bad = ldp(&["plugin", "new", "--kind", "check", "My-Plugin"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad).contains("use lower-case letters, digits and _"),
        "{}",
        stderr(&bad)
    );
    let taken = ldp(&[
        "plugin",
        "new",
        "--kind",
        "check",
        "x",
        "--dir",
        project.to_str().unwrap(),
    ]);
    assert!(
        stderr(&taken).contains("exists and is not empty"),
        "{}",
        stderr(&taken)
    );
}
