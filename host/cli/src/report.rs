//! How a failed command is reported: `ldp: error: …` on stderr and the exit code of the error's
//! kind; with `LDP_ERROR_FORMAT=json`, also one JSON line after it that names the kind, so a
//! script (ldp's Python package) can tell a bad config from a data gate or a lost commit race
//! without parsing the message.

use std::io::Write;
use std::process::ExitCode;

use serde::Serialize;

/// The environment variable that asks for the JSON line.
pub const ERROR_FORMAT_ENV: &str = "LDP_ERROR_FORMAT";

/// What went wrong, as scripts see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The config, a workflow or a request is invalid: fix it, do not retry.
    Config,
    /// A command-line argument is invalid.
    Usage,
    /// A quality check or a contract held the data back (exit 3): fix the data, do not retry.
    QualityBlocked,
    /// Another writer moved the table first: another attempt may succeed.
    Conflict,
    /// A config, table, snapshot, dataset or release does not exist.
    NotFound,
    /// The source could not be read, or a plugin failed.
    Source,
    /// The SQL does not parse or plan, or is not one read-only query.
    Query,
    /// The query ran past its time limit.
    Timeout,
    /// Ctrl-C (exit 130).
    Interrupted,
    /// Anything else (writing, storage, I/O).
    Error,
}

/// The JSON line: `{"ldp_error": {...}}`.
#[derive(Serialize)]
struct Line<'a> {
    ldp_error: Body<'a>,
}

#[derive(Serialize)]
struct Body<'a> {
    kind: Kind,
    /// The Python tool's exception name, when the error has one (`DataQualityError`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    python_type: Option<&'static str>,
    message: &'a str,
    exit_code: u8,
    retryable: bool,
}

/// Prints the error and gives its exit code (`ldp: interrupted` and 130 for Ctrl-C).
pub fn report(e: &anyhow::Error) -> ExitCode {
    let kind = kind(e);
    let (text, code) = if kind == Kind::Interrupted {
        ("interrupted".to_owned(), 130)
    } else {
        (format!("error: {}", message(e)), exit_code(e))
    };
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "ldp: {text}");
    if std::env::var(ERROR_FORMAT_ENV).is_ok_and(|v| v == "json") {
        let pipeline = pipeline_error(e);
        let line = Line {
            ldp_error: Body {
                kind,
                python_type: pipeline.map(ldp_pipeline::Error::type_name),
                message: text.strip_prefix("error: ").unwrap_or(&text),
                exit_code: code,
                retryable: pipeline.is_some_and(ldp_pipeline::Error::may_pass_on_retry)
                    || kind == Kind::Conflict,
            },
        };
        if let Ok(json) = serde_json::to_string(&line) {
            let _ = writeln!(stderr, "{json}");
        }
    }
    ExitCode::from(code)
}

/// The JSON line of an argument clap refused (its own message is already printed).
pub fn usage_line(message: &str) {
    if std::env::var(ERROR_FORMAT_ENV).is_ok_and(|v| v == "json") {
        let line = Line {
            ldp_error: Body {
                kind: Kind::Usage,
                python_type: None,
                message,
                exit_code: 1,
                retryable: false,
            },
        };
        if let Ok(json) = serde_json::to_string(&line) {
            let _ = writeln!(std::io::stderr(), "{json}");
        }
    }
}

/// The error and its causes, `outer: inner`, without repeating a cause that an outer error's
/// message already quotes (error types that print their source in their own message).
pub fn message(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

fn pipeline_error(e: &anyhow::Error) -> Option<&ldp_pipeline::Error> {
    e.chain()
        .find_map(|c| c.downcast_ref::<ldp_pipeline::Error>())
}

/// The exit code of the first cause that has one; 1 otherwise.
fn exit_code(e: &anyhow::Error) -> u8 {
    let code = e
        .chain()
        .find_map(|cause| {
            cause
                .downcast_ref::<ldp_plugin_runtime::RuntimeError>()
                .map(|r| r.exit_code())
                .or_else(|| {
                    cause
                        .downcast_ref::<ldp_pipeline::Error>()
                        .map(|p| p.exit_code())
                })
                .or_else(|| {
                    cause
                        .downcast_ref::<ldp_dbt::Error>()
                        .map(|e| e.exit_code())
                })
                .or_else(|| {
                    cause
                        .downcast_ref::<ldp_gold::Error>()
                        .map(|e| e.exit_code())
                })
        })
        .unwrap_or(1);
    u8::try_from(code).unwrap_or(1)
}

/// The kind of the first cause that tells one.
fn kind(e: &anyhow::Error) -> Kind {
    e.chain().find_map(kind_of).unwrap_or(Kind::Error)
}

fn kind_of(cause: &(dyn std::error::Error + 'static)) -> Option<Kind> {
    if let Some(e) = cause.downcast_ref::<ldp_pipeline::Error>() {
        use ldp_pipeline::ErrorKind as K;
        return Some(match e.kind() {
            K::Config => Kind::Config,
            K::Quality => Kind::QualityBlocked,
            K::NotFound => Kind::NotFound,
            K::Interrupted => Kind::Interrupted,
            K::Source => Kind::Source,
            K::Write if e.is_retryable() => Kind::Conflict,
            K::Write => return None,
        });
    }
    if cause.is::<ldp_config::ConfigError>() {
        return Some(Kind::Config);
    }
    if cause.is::<crate::settings::SettingsError>() {
        return Some(Kind::Usage);
    }
    if let Some(e) = cause.downcast_ref::<ldp_sql::Error>() {
        return match e {
            ldp_sql::Error::Sql { .. } | ldp_sql::Error::Rejected { .. } => Some(Kind::Query),
            ldp_sql::Error::Timeout { .. } => Some(Kind::Timeout),
            _ => None,
        };
    }
    if let Some(e) = cause.downcast_ref::<ldp_table::Error>() {
        use ldp_table::ErrorKind as K;
        return match e.kind() {
            K::NotFound => Some(Kind::NotFound),
            K::CommitConflict => Some(Kind::Conflict),
            K::Config => Some(Kind::Config),
            _ => None,
        };
    }
    if let Some(e) = cause.downcast_ref::<ldp_catalog::Error>() {
        use ldp_catalog::ErrorKind as K;
        return match e.kind() {
            K::NotFound => Some(Kind::NotFound),
            K::CommitConflict | K::Busy => Some(Kind::Conflict),
            K::InvalidName => Some(Kind::Config),
            _ => None,
        };
    }
    if let Some(e) = cause.downcast_ref::<ldp_datasets::Error>() {
        use ldp_datasets::ErrorKind as K;
        return match e.kind() {
            K::Config => Some(Kind::Config),
            K::Dataset => Some(Kind::NotFound),
            _ => None,
        };
    }
    if let Some(e) = cause.downcast_ref::<ldp_orchestrate::Error>() {
        return (e.kind() == ldp_orchestrate::ErrorKind::Config).then_some(Kind::Config);
    }
    if let Some(e) = cause.downcast_ref::<ldp_gold::Error>() {
        return (e.exit_code() == 3).then_some(Kind::QualityBlocked);
    }
    None
}
