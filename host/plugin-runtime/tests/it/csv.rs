//! The built-in CSV source, run through the runtime as `ldp` runs it.

use crate::common::builtin;
use arrow_schema::{DataType, TimeUnit};
use ldp_plugin_runtime::{ErrorKind, Grants, RuntimeError, Sandbox};
use std::path::{Path, PathBuf};

fn rides() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data/rides.csv")
        .canonicalize()
        .unwrap()
}

fn granting(dir: &Path) -> Sandbox {
    Sandbox {
        grants: Grants {
            read_dirs: vec![dir.to_path_buf()],
            write_dir: None,
            ..Grants::default()
        },
        ..Sandbox::default()
    }
}

fn config(path: &Path, extra: &str) -> String {
    let mut config = serde_json::json!({ "path": path });
    if !extra.is_empty() {
        let extra: serde_json::Value = serde_json::from_str(extra).unwrap();
        config
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
    }
    config.to_string()
}

#[test]
fn rides_are_read_with_the_reference_types_in_batches() {
    let path = rides();
    let mut source = builtin("csv")
        .open_source(
            &config(&path, r#"{"batch_size": 7}"#),
            &granting(path.parent().unwrap()),
        )
        .unwrap();
    let types: Vec<(String, DataType)> = source
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    assert_eq!(
        types,
        vec![
            ("ride_id".into(), DataType::Int64),
            (
                "pickup_ts".into(),
                DataType::Timestamp(TimeUnit::Microsecond, None)
            ),
            ("city".into(), DataType::Utf8),
            ("distance_km".into(), DataType::Float64),
            ("fare".into(), DataType::Float64),
        ]
    );
    assert!(source.schema().fields().iter().all(|f| f.is_nullable()));
    let sizes: Vec<usize> = source.by_ref().map(|b| b.unwrap().num_rows()).collect();
    assert_eq!(sizes, vec![7, 7, 6]);
}

#[test]
fn a_ragged_row_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.csv");
    std::fs::write(&path, "a,b\n1,2\n3\n").unwrap();
    let err = builtin("csv")
        .open_source(&config(&path, ""), &granting(dir.path()))
        .and_then(|mut s| s.next_batch().map(|_| ()))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Data);
    let message = err.to_string();
    assert!(
        message.starts_with(&format!(
            "plugin 'csv' failed (data): {}: line 3: ",
            path.display()
        )),
        "{message}"
    );
}

#[test]
fn a_file_outside_the_grant_cannot_be_read() {
    let granted = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let path = elsewhere.path().join("secret.csv");
    std::fs::write(&path, "a\n1\n").unwrap();
    let err = builtin("csv")
        .open_source(&config(&path, ""), &granting(granted.path()))
        .unwrap_err();
    assert!(
        matches!(
            err,
            RuntimeError::Plugin {
                kind: ErrorKind::Io,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
}

#[test]
fn a_bad_config_names_the_key() {
    let path = rides();
    let err = builtin("csv")
        .open_source(
            &config(&path, r#"{"delimiter": ";;"}"#),
            &granting(path.parent().unwrap()),
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
    assert!(err.to_string().contains("config.delimiter"), "{err}");
}
