//! Three languages, proven: the same `email_mask` transform written in Rust
//! (the SDK), Python (componentize-py and `sdk/python`'s `ldp_arrow`) and JavaScript
//! (componentize-js and apache-arrow), built here by their own `build.sh`, each named in a
//! config's `metadata.transforms`, produce identical Iceberg tables from the same CSV.
//!
//! Needs `python3` (with venv) and `node`/`npm` (≥ 20): the test fails, naming the install
//! command, when one is missing; it never skips.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::{ldp, stderr, stdout};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/plugins")
}

fn require(tool: &str, install: &str) {
    let found = Command::new(tool).arg("--version").output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "{tool} is needed to build the example plugins: {install}"
    );
}

/// Runs `<lang>/build.sh`; the Rust one reuses the built-in plugins' dependencies.
fn build(lang: &str) -> PathBuf {
    let script = examples().join(lang).join("build.sh");
    let wasm_target = super::scaffold::wasm_target();
    let started = Instant::now();
    let out = Command::new("bash")
        .arg(&script)
        .env("CARGO_TARGET_DIR", &wasm_target)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{} failed:\n{}\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{lang}: built in {:.1}s", started.elapsed().as_secs_f64());
    examples().join(lang).join("email_mask.wasm")
}

#[test]
fn the_same_transform_in_rust_python_and_javascript_makes_identical_tables() {
    require("python3", "apt-get install python3 python3-venv");
    require("node", "apt-get install nodejs npm (node 20 or later)");
    require("npm", "apt-get install npm");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        examples().join("data/users.csv"),
        dir.path().join("users.csv"),
    )
    .unwrap();
    let mut tables = Vec::new();
    for lang in ["rust", "python", "js"] {
        let wasm = build(lang);
        let config = dir.path().join(format!("users_{lang}.json"));
        std::fs::write(
            &config,
            format!(
                r#"{{"identifier": "users_{lang}", "metadata": {{
  "source": {{"name": "users", "format": "CSV", "path": "users.csv"}},
  "transforms": [{{"plugin": "{}", "config": {{"column": "email"}}}}],
  "target": {{"name": "users_{lang}", "format": "ICEBERG",
             "catalog": {{"identifier": "lang", "warehouse_path": "warehouse"}}}}}}}}"#,
                wasm.display()
            ),
        )
        .unwrap();
        let out = ldp(&["run", config.to_str().unwrap(), "--mode", "overwrite"]);
        assert_eq!(out.status.code(), Some(0), "{lang}: {}", stderr(&out));
        let query = ldp(&[
            "query",
            config.to_str().unwrap(),
            &format!("SELECT * FROM users_{lang} ORDER BY user_id"),
            "--json",
        ]);
        assert_eq!(query.status.code(), Some(0), "{lang}: {}", stderr(&query));
        let result: serde_json::Value = serde_json::from_slice(&query.stdout).unwrap();
        tables.push((lang, result["rows"].clone(), stdout(&query)));
    }
    let (_, rust_rows, _) = &tables[0];
    assert_eq!(rust_rows.as_array().map(Vec::len), Some(15), "{rust_rows}");
    assert_eq!(rust_rows[0]["email"], "a***@example.com");
    assert_eq!(rust_rows[0]["email_domain"], "example.com");
    for (lang, rows, text) in &tables[1..] {
        assert_eq!(rows, rust_rows, "{lang} differs from rust:\n{text}");
    }
}
