use super::*;
use ldp_plugin_sdk::testing::{TempDir, path_config, read_text, write_events};

#[test]
fn events_are_appended_one_line_each() {
    let dir = TempDir::new();
    let path = dir.path("events.jsonl");
    let config = path_config(&path, "");
    let summary = write_events::<EventsJsonl>(&config, &[r#"{"a":1}"#, "{\"b\":\"é\"}\n"]);
    assert_eq!((summary.records, summary.bytes), (2, 8 + 11));
    write_events::<EventsJsonl>(&config, &[r#"{"c":3}"#]);
    assert_eq!(read_text(&path), "{\"a\":1}\n{\"b\":\"é\"}\n{\"c\":3}\n");
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
