//! Reading config files: missing files, JSON syntax errors, the config folder.

use std::path::Path;

use ldp_config::{ConfigError, Document, load_file};

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

#[test]
fn missing_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let error = Document::read(&dir.path().join("nope.json")).unwrap_err();
    assert!(matches!(error, ConfigError::NotFound { .. }));
    assert!(error.to_string().starts_with("config file not found: "));
}

#[test]
fn syntax_errors_name_the_file_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        "bad.json",
        "{\n  \"identifier\": \"x\",\n  \"metadata\": {,}\n}\n",
    );
    let error = Document::read(&path).unwrap_err();
    let ConfigError::Syntax {
        line,
        column,
        ref message,
        ..
    } = error
    else {
        panic!("{error:?}")
    };
    assert_eq!((line, column), (3, 16));
    assert!(!message.contains("line"), "{message}");
    let text = error.to_string();
    assert!(
        text.starts_with(&format!(
            "config file {} is not valid JSON: ",
            path.display()
        )),
        "{text}"
    );
    assert!(text.ends_with(": line 3 column 16"), "{text}");
}

#[test]
fn load_sets_the_config_folder_and_names_the_file_in_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = write(
        dir.path(),
        "good.json",
        r#"{"identifier": "x", "metadata": {"source": {"name": "s", "format": "CSV", "path": "a.csv"},
            "target": {"name": "t", "format": "CSV", "path": "b.csv"}}}"#,
    );
    let config = load_file(&good).expect("loads");
    assert_eq!(config.base_dir.as_deref(), Some(dir.path()));
    let bad = write(dir.path(), "bad.json", r#"{"metadata": {}}"#);
    let error = load_file(&bad).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: config is missing required key 'identifier'",
            bad.display()
        )
    );
    assert_eq!(
        error.problems(),
        ["config is missing required key 'identifier'"]
    );
    let document = Document::read(&bad).expect("json");
    let error = document.plan_config().unwrap_err();
    assert_eq!(
        error.problems(),
        [
            "identifier: is required",
            "metadata.source: is required and must be an object",
            "metadata.target: is required and must be an object"
        ]
    );
    assert!(error.to_string().starts_with(&format!(
        "{}: 3 problem(s):\n  - identifier: is required",
        bad.display()
    )));
}
