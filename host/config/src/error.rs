//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong reading a config. Every variant is a config error: exit code 1.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file does not exist.
    #[error("config file not found: {}", path.display())]
    NotFound {
        /// The file.
        path: PathBuf,
    },
    /// The file could not be read.
    #[error("could not read config file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid JSON.
    #[error("config file {} is not valid JSON: {message}: line {line} column {column}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// Line of the error, from 1.
        line: usize,
        /// Column of the error, from 1.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// The strict loader of `ldp run` stopped at a problem (e.g. `config is missing required
    /// key 'identifier'`).
    #[error("{}", with_file(file.as_ref(), message))]
    Invalid {
        /// The config file, when the document was read from one.
        file: Option<PathBuf>,
        /// The problem, worded as the Python tool words it.
        message: String,
    },
    /// Validation as `ldp plan` does it found problems (each prefixed by its JSON path).
    #[error("{}", render_problems(file.as_ref(), problems))]
    Validation {
        /// The config file, when the document was read from one.
        file: Option<PathBuf>,
        /// Every problem, in the Python tool's order.
        problems: Vec<String>,
    },
    /// A window that cannot be read or computed (`window end 2026-08-01T00:00:00+00:00 must be
    /// after its start 2026-08-02T00:00:00+00:00`), worded as the Python tool words it.
    #[error("{message}")]
    Window {
        /// What is wrong.
        message: String,
    },
    /// A spec that cannot give a hash, a target identity or a key (`the target needs a 'path'
    /// or a 'name'`), worded as the Python tool words it.
    #[error("{message}")]
    Spec {
        /// What is wrong.
        message: String,
    },
    /// A workflow file (or a dataset config read as a workflow) that cannot be used, in the
    /// Python tool's lines: `nightly.json has 2 problems:` then `  - tasks[1].id: …`, or one line
    /// such as `workflow file not found: <path>`.
    #[error("{}", lines.join("\n"))]
    Workflow {
        /// The lines of the message, as `ldp workflow plan --json` lists them in `errors`.
        lines: Vec<String>,
    },
    /// A scheduler recipe (`ldp schedule install --print`) that cannot be written: an unknown
    /// recipe, or a path it cannot hold.
    #[error("{message}")]
    Recipe {
        /// What is wrong.
        message: String,
    },
    /// A catalog block cannot give what was asked (e.g. a local layout for a `rest` catalog).
    #[error("{message}")]
    Catalog {
        /// What is wrong.
        message: String,
    },
}

impl ConfigError {
    /// The process exit code for this error: 1 (a bad config) for every variant.
    pub fn exit_code(&self) -> i32 {
        1
    }

    /// The problems: the validation list, or the one problem of any other error.
    pub fn problems(&self) -> Vec<String> {
        match self {
            ConfigError::Validation { problems, .. } => problems.clone(),
            ConfigError::Invalid { message, .. } => vec![message.clone()],
            ConfigError::Workflow { lines } => lines.clone(),
            other => vec![other.to_string()],
        }
    }

    pub(crate) fn in_file(self, path: &std::path::Path) -> Self {
        match self {
            ConfigError::Invalid { message, .. } => ConfigError::Invalid {
                file: Some(path.to_path_buf()),
                message,
            },
            ConfigError::Validation { problems, .. } => ConfigError::Validation {
                file: Some(path.to_path_buf()),
                problems,
            },
            other => other,
        }
    }
}

fn with_file(file: Option<&PathBuf>, message: &str) -> String {
    match file {
        Some(file) => format!("{}: {message}", file.display()),
        None => message.to_owned(),
    }
}

fn render_problems(file: Option<&PathBuf>, problems: &[String]) -> String {
    let mut text = with_file(file, &format!("{} problem(s):", problems.len()));
    for problem in problems {
        text.push_str("\n  - ");
        text.push_str(problem);
    }
    text
}
