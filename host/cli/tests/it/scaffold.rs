//! `ldp plugin new`: in each language (Rust, Python, JavaScript), each kind of
//! project passes its own test as it is, and the transform builds into a component that
//! `ldp plugins inspect` accepts and `ldp transform test` runs. Projects stand alone: they are
//! written outside the repository, name no file of it, and their tests and builds run with the
//! repository's `sdk/` and `wit/` hidden (`moved_away`). The Rust component builds in
//! `<target>/examples-wasm`, with the same dependencies and profile as `examples/plugins/rust`
//! (see `languages.rs`), so the two share one build of them. The Python and JavaScript projects
//! run their own `./test.sh` and `./build.sh`, which install their tools (componentize-py into
//! the project's `.venv`, the npm packages of its `package-lock.json`); pip's and npm's caches
//! make that quick after the first time. They need `python3` (with venv) and `node`/`npm`
//! (>= 20): a missing tool fails the test with the command that installs it, never skips it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

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
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    moved_away(Path::new(&cargo))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("cargo runs")
}

/// The ldp repository this test runs in.
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `program`, run where the repository's `sdk/` and `wit/` (all a project could take from the
/// tree ldp was built from) are hidden: in a mount namespace of its own, under empty tmpfs
/// folders. Needs `unshare` (util-linux) and user namespaces, or root.
fn moved_away(program: &Path) -> Command {
    require(
        "unshare",
        "apt-get install util-linux (and, as a user, sysctl kernel.unprivileged_userns_clone=1)",
    );
    let repo = repository();
    let mut command = Command::new("unshare");
    command
        .args(["--map-root-user", "--mount", "--propagation", "private"])
        .args(["sh", "-c", r#"mount -t tmpfs moved-away "$1/sdk" && mount -t tmpfs moved-away "$1/wit" && shift && exec "$@""#, "sh"])
        .arg(&repo)
        .arg(program);
    command
}

/// No file of `project` names the repository.
fn assert_names_no_repository_file(project: &Path) {
    let repo = repository();
    let needle = repo.to_str().unwrap();
    let mut stack = vec![project.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                assert!(!text.contains(needle), "{} names {needle}", path.display());
            }
        }
    }
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
        assert!(
            stdout(&out).contains("vendor/ldp-plugin-sdk"),
            "{}",
            stdout(&out)
        );
        assert_names_no_repository_file(&project);
        let native = wasm_target().with_file_name("examples-native");
        let test = cargo(&project, &["test", "--quiet"], &native);
        assert!(
            test.status.success(),
            "{kind}: cargo test failed:\n{}",
            String::from_utf8_lossy(&test.stderr)
        );
    }
    assert_numbers_rows(&build_component(dir.path(), "my_transform"));
    assert_writes_the_target(&build_component(dir.path(), "my_sink"));

    // A name that cannot be a crate, and a folder that is not empty, are refused.
    let bad = ldp(&["plugin", "new", "--kind", "check", "My-Plugin"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad).contains("use lower-case letters, digits and _"),
        "{}",
        stderr(&bad)
    );
    let project = dir.path().join("my_sink");
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

/// Builds the Rust project `name` in `dir` into its component, in `<target>/examples-wasm`.
fn build_component(dir: &Path, name: &str) -> PathBuf {
    let build = cargo(
        &dir.join(name),
        &["build", "--release", "--target", "wasm32-wasip2", "--quiet"],
        &wasm_target(),
    );
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    wasm_target().join(format!("wasm32-wasip2/release/{name}.wasm"))
}

/// `wasm` is a transform plugin (`ldp plugins inspect`), and `ldp transform test` on the example
/// rides gives each row its number in `row_number`.
fn assert_numbers_rows(wasm: &Path) {
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
}

/// `wasm`, a sink scaffolded by `ldp plugin new --kind sink`, named in a config's target and
/// pinned by its sha256, writes the rides as tab-separated lines to the target's path, and
/// nothing else lands next to it.
fn assert_writes_the_target(wasm: &Path) {
    let bytes = std::fs::read(wasm).unwrap();
    let sha = ldp_plugin_runtime::sha256_hex(&bytes);
    let rides = rides_workdir("{}");
    let d = rides.path();
    std::fs::write(d.join("my_sink.wasm"), &bytes).unwrap();
    let config = format!(
        r#"{{"identifier": "rides", "metadata": {{
  "source": {{"name": "rides", "format": "CSV", "path": "data/rides.csv"}},
  "target": {{"name": "out", "format": "CSV", "path": "out/rides.tsv",
             "plugin": "my_sink.wasm", "sha256": "{sha}"}}}}}}"#
    );
    std::fs::write(d.join("rides.json"), config).unwrap();
    let out = ldp(&["run", d.join("rides.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(d.join("out/rides.tsv")).unwrap();
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("1\t") && first.ends_with("\tLDN\t16.17\t32.28"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 20);
    let listed: Vec<_> = std::fs::read_dir(d.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(listed, ["rides.tsv"]);
}

/// Fails, naming the command that installs it, when `tool` does not run.
fn require(tool: &str, install: &str) {
    let found = Command::new(tool).arg("--version").output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "{tool} is needed to test the scaffolded plugins: {install}"
    );
}

/// Runs a project's own script (`test.sh`, `build.sh`) as its README says, and fails with its
/// output when it fails.
fn run_script(project: &Path, script: &str) {
    let path = project.join(script);
    let started = Instant::now();
    let out = moved_away(&path)
        .current_dir(project)
        .output()
        .unwrap_or_else(|e| panic!("{} does not run: {e}", path.display()));
    assert!(
        out.status.success(),
        "{} failed:\n{}\n{}",
        path.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "{}: {:.1}s",
        path.display(),
        started.elapsed().as_secs_f64()
    );
}

/// Scaffolds a `lang` project of every kind into `dir` (its code in `code`), runs each one's
/// `./test.sh`, and builds the transform with its `./build.sh`: its component.
fn scaffold_every_kind(lang: &str, code: &str, dir: &Path) -> PathBuf {
    for kind in ["source", "transform", "check", "sink"] {
        let name = format!("my_{kind}");
        let project = dir.join(&name);
        let out = ldp(&[
            "plugin",
            "new",
            "--kind",
            kind,
            "--lang",
            lang,
            &name,
            "--dir",
            project.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(stdout(&out).contains(code), "{}", stdout(&out));
        assert!(stdout(&out).contains("wit/plugin.wit"), "{}", stdout(&out));
        assert_names_no_repository_file(&project);
        run_script(&project, "test.sh");
    }
    let project = dir.join("my_transform");
    run_script(&project, "build.sh");
    project.join("my_transform.wasm")
}

#[test]
fn python_projects_of_every_kind_pass_their_tests_and_the_transform_runs_in_ldp() {
    require("python3", "apt-get install python3 python3-venv");
    let dir = tempfile::tempdir().unwrap();
    let wasm = scaffold_every_kind("python", "plugin.py", dir.path());
    assert_numbers_rows(&wasm);
}

#[test]
fn js_projects_of_every_kind_pass_their_tests_and_the_transform_runs_in_ldp() {
    require("node", "apt-get install nodejs npm (node 20 or later)");
    require("npm", "apt-get install npm");
    let dir = tempfile::tempdir().unwrap();
    let wasm = scaffold_every_kind("js", "plugin.js", dir.path());
    assert_numbers_rows(&wasm);
}

#[test]
fn plugin_wit_writes_the_contract_this_ldp_implements() {
    let dir = tempfile::tempdir().unwrap();
    let wit = dir.path().join("contract/wit");
    let out = ldp(&["plugin", "wit", wit.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = std::fs::read_to_string(wit.join("plugin.wit")).unwrap();
    let ours = std::fs::read_to_string(repository().join("wit/plugin.wit")).unwrap();
    assert_eq!(written, ours);
}
