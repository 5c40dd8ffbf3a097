//! Validation as `ldp plan` does it: every problem, each prefixed by its JSON path, in the
//! order the Python tool's `ldp plan` reports them: unknown top-level keys → `apiVersion` →
//! `identifier` → who…how types → source block → target block → quality → schedule → window →
//! source-path placeholders → placeholders elsewhere → retries → observability → secrets.

use serde_json::Value;

use crate::error::ConfigError;
use crate::kind::{Kind, kind_of};
use crate::model::{API_VERSION, Config};
use crate::parse::{DESCRIPTIVE_KEYS, TOP_LEVEL_KEYS, assemble, check_sections};
use crate::problems::{Mode, Problems, check_string, unknown_keys};
use crate::repr::{repr, repr_list, type_name};
use crate::secrets::find_inline_secrets;

/// The outcome of [`validate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Validation {
    /// The document's kind; `None` when its `kind` is wrong (the only problem then).
    pub kind: Option<Kind>,
    /// Every problem found (for a [`Kind::Workflow`] document, those of
    /// [`crate::validate_workflow`]).
    pub problems: Vec<String>,
}

impl Validation {
    /// Whether no problem was found.
    pub fn is_valid(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Validates a document as `ldp plan` (`validate_spec`) does: every problem of a Pipeline or a
/// Workflow; a wrong `kind` gives one problem, `kind: <message>`.
pub fn validate(document: &Value) -> Validation {
    match kind_of(document) {
        Ok(Kind::Pipeline) => Validation {
            kind: Some(Kind::Pipeline),
            problems: validate_pipeline(document).0,
        },
        Ok(Kind::Workflow) => Validation {
            kind: Some(Kind::Workflow),
            problems: crate::workflow::validate_workflow(document),
        },
        Err(message) => Validation {
            kind: None,
            problems: vec![format!("kind: {message}")],
        },
    }
}

/// Validates a Pipeline document fully and builds its config.
///
/// # Errors
///
/// [`ConfigError::Validation`] with every problem (a Workflow document is one problem).
pub fn plan_config(document: &Value) -> Result<Config, ConfigError> {
    let validation = validate(document);
    if validation.kind == Some(Kind::Workflow) {
        let identifier = document.get("identifier").unwrap_or(&Value::Null);
        return Err(ConfigError::Validation {
            file: None,
            problems: vec![format!(
                "{} is a Workflow, not a dataset config (kind Pipeline)",
                repr(identifier)
            )],
        });
    }
    if !validation.problems.is_empty() {
        return Err(ConfigError::Validation {
            file: None,
            problems: validation.problems,
        });
    }
    let (problems, config) = validate_pipeline(document);
    config.ok_or(ConfigError::Validation {
        file: None,
        problems,
    })
}

/// Every problem of a Pipeline document, and its config when there are none.
fn validate_pipeline(document: &Value) -> (Vec<String>, Option<Config>) {
    let Some(spec) = document.as_object() else {
        return (
            vec![format!(
                "spec must be a JSON object: expected a spec dict or a local_data_platform.Config, got {}",
                type_name(document)
            )],
            None,
        );
    };
    let mut problems = Problems::default();
    check_header(&mut problems, spec, &TOP_LEVEL_KEYS);
    let sections = match spec.get("metadata") {
        Some(Value::Object(metadata)) => {
            Some(check_sections(&mut problems, spec, metadata, Mode::Plan))
        }
        _ => {
            problems.add(
                "metadata",
                "is required and must be an object with 'source' and 'target'",
            );
            None
        }
    };
    for secret in find_inline_secrets(document) {
        problems.add("", secret);
    }
    if !problems.is_empty() {
        return (problems.into_vec(), None);
    }
    let config = sections.and_then(|sections| assemble(document, sections));
    (problems.into_vec(), config)
}

/// The checks every `ldp/v1` document shares, pipeline or workflow: no top-level key but
/// `keys`, `apiVersion` (when given) `ldp/v1`, a non-empty `identifier`, and the descriptive
/// keys (`who`, `what`, ...) strings.
pub(crate) fn check_header(
    problems: &mut Problems,
    spec: &serde_json::Map<String, Value>,
    keys: &[&str],
) {
    let unknown = unknown_keys(spec, keys);
    if !unknown.is_empty() {
        problems.add(
            "",
            format!(
                "unknown top-level keys {}; allowed: {}",
                repr_list(&unknown),
                repr_list(keys)
            ),
        );
    }
    if let Some(version) = spec.get("apiVersion")
        && version.as_str() != Some(API_VERSION)
    {
        problems.add(
            "apiVersion",
            format!(
                "must be {}, got {}",
                repr(&Value::from(API_VERSION)),
                repr(version)
            ),
        );
    }
    check_string(problems, spec, "identifier", "", true);
    for key in DESCRIPTIVE_KEYS {
        if let Some(value) = spec.get(key)
            && !value.is_string()
        {
            problems.add(key, format!("must be a string, got {}", type_name(value)));
        }
    }
}
