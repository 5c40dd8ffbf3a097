use super::*;

fn temp_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ldp-events-jsonl-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let path = dir.join("events.jsonl");
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn events_are_appended_one_line_each() {
    let path = temp_file("append");
    let config = format!(r#"{{"path": {:?}}}"#, path.display().to_string());
    let mut sink = EventsJsonl::open_events(&config).expect("opens");
    sink.write_event(r#"{"a":1}"#).expect("writes");
    sink.write_event("{\"b\":\"é\"}\n").expect("writes");
    let summary = sink.close().expect("closes");
    assert_eq!((summary.records, summary.bytes), (2, 8 + 11));
    let mut again = EventsJsonl::open_events(&config).expect("opens again");
    again.write_event(r#"{"c":3}"#).expect("writes");
    again.close().expect("closes");
    assert_eq!(
        std::fs::read_to_string(&path).expect("the file"),
        "{\"a\":1}\n{\"b\":\"é\"}\n{\"c\":3}\n"
    );
}

#[test]
fn config_errors_name_the_key() {
    let error = |text: &str| Config::parse(text).expect_err("invalid").message;
    assert_eq!(
        error(r#"{"path": "/x", "mode": 1}"#),
        "config.mode: unknown key; the only key is path"
    );
    assert!(error("{}").starts_with("config.path: required"));
    assert_eq!(
        error(r#"{"path": "rel.jsonl"}"#),
        "config.path: \"rel.jsonl\" is not the absolute path of a file; give the absolute path \
         of the events file"
    );
    assert!(error(r#"{"path": 3}"#).contains("expected a non-empty string"));
    assert!(error("[]").starts_with("config must be a JSON object"));
}

#[test]
fn a_missing_folder_is_an_io_error() {
    let Err(error) =
        EventsJsonl::open_events(r#"{"path": "/nonexistent-ldp-folder/events.jsonl"}"#)
    else {
        panic!("opened a file in a missing folder");
    };
    assert_eq!(error.kind, ErrorKind::Io);
    assert!(
        error
            .message
            .contains("/nonexistent-ldp-folder/events.jsonl")
    );
}

#[test]
fn describes_itself() {
    let info = EventsJsonl::describe();
    assert_eq!(info.name, "events-jsonl");
    let schema: serde_json::Value = serde_json::from_str(&info.config_schema).expect("JSON");
    assert_eq!(schema["required"][0], "path");
}
