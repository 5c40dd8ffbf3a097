//! Reading configs: files into JSON [`Document`]s, the strict loader `ldp run` uses ([`load`]),
//! and the metadata sections shared with the validator.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::block::check_block;
use crate::error::ConfigError;
use crate::kind::{Kind, kind_of};
use crate::model::{API_VERSION, Block, Config, Metadata, Section};
use crate::observability::{SinkSpec, sink_specs};
use crate::placeholders;
use crate::problems::{Mode, Problems, get, unknown_keys};
use crate::quality::{Quality, check_quality};
use crate::repr::{repr, repr_list, type_name};
use crate::retries::{Retries, check_retries};
use crate::schedule::{Schedule, ScheduleFrom, alias_for_when, parse_schedule};
use crate::transforms::{TransformSpec, check_transforms};
use crate::validate::Validation;
use crate::window::{WindowSpec, check_window};

/// The top-level keys of a Pipeline config, in the Python tool's order.
pub const TOP_LEVEL_KEYS: [&str; 9] = [
    "apiVersion",
    "kind",
    "identifier",
    "who",
    "what",
    "where",
    "when",
    "how",
    "metadata",
];

/// The descriptive top-level strings.
pub(crate) const DESCRIPTIVE_KEYS: [&str; 5] = ["who", "what", "where", "when", "how"];

/// A JSON document read from a config file.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// The file, absolute.
    pub path: PathBuf,
    /// Its content (key order kept).
    pub value: Value,
}

impl Document {
    /// Reads and parses a config file.
    ///
    /// # Errors
    ///
    /// [`ConfigError::NotFound`], [`ConfigError::Read`], or [`ConfigError::Syntax`] with the
    /// line and column of a JSON error.
    pub fn read(path: &Path) -> Result<Document, ConfigError> {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        if !path.is_file() {
            return Err(ConfigError::NotFound { path });
        }
        let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
            path: path.clone(),
            source,
        })?;
        Document::parse(&text, path)
    }

    /// Parses the text of a config file named `path`.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Syntax`] with the line and column of a JSON error.
    pub fn parse(text: &str, path: PathBuf) -> Result<Document, ConfigError> {
        match serde_json::from_str(text) {
            Ok(value) => Ok(Document { path, value }),
            Err(error) => {
                let full = error.to_string();
                let suffix = format!(" at line {} column {}", error.line(), error.column());
                let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
                Err(ConfigError::Syntax {
                    path,
                    line: error.line(),
                    column: error.column(),
                    message,
                })
            }
        }
    }

    /// The folder of the file: relative paths in the config resolve against it.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("/"))
    }

    /// The document's kind (see [`kind_of`]).
    ///
    /// # Errors
    ///
    /// The kind message, as in [`kind_of`].
    pub fn kind(&self) -> Result<Kind, String> {
        kind_of(&self.value)
    }

    /// Validates the document as `ldp plan` does (see [`crate::validate`]).
    pub fn validate(&self) -> Validation {
        crate::validate::validate(&self.value)
    }

    /// Loads the config as `ldp run` does (see [`load`]), with `base_dir` set to the file's folder.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Invalid`] naming this file.
    pub fn load(&self) -> Result<Config, ConfigError> {
        let mut config = load(&self.value).map_err(|error| error.in_file(&self.path))?;
        config.base_dir = Some(self.dir().to_path_buf());
        Ok(config)
    }

    /// Validates fully, then builds the config (see [`crate::plan_config`]).
    ///
    /// # Errors
    ///
    /// [`ConfigError::Validation`] naming this file.
    pub fn plan_config(&self) -> Result<Config, ConfigError> {
        let mut config =
            crate::validate::plan_config(&self.value).map_err(|error| error.in_file(&self.path))?;
        config.base_dir = Some(self.dir().to_path_buf());
        Ok(config)
    }
}

/// The typed metadata sections, each `None` when it had a problem.
pub(crate) struct Sections {
    source: Option<Block>,
    target: Option<Block>,
    quality: Option<Quality>,
    schedule: Option<Option<Schedule>>,
    window: Option<Option<WindowSpec>>,
    retries: Option<Retries>,
    sinks: Option<Vec<SinkSpec>>,
    transforms: Option<Vec<TransformSpec>>,
    docs: Option<Option<crate::docs::Contract>>,
    monitors: Option<crate::monitors::Monitors>,
}

/// Checks the metadata sections in the order of `mode` (the validator's order for `Plan`;
/// schedule, window and retries first for `Run`).
pub(crate) fn check_sections(
    problems: &mut Problems,
    spec: &Map<String, Value>,
    metadata: &Map<String, Value>,
    mode: Mode,
) -> Sections {
    let mut sections = Sections {
        source: None,
        target: None,
        quality: None,
        schedule: None,
        window: None,
        retries: None,
        sinks: None,
        transforms: None,
        docs: None,
        monitors: None,
    };
    let source = |problems: &mut Problems| {
        check_block(problems, metadata.get("source"), Section::Source, mode)
    };
    let target = |problems: &mut Problems| {
        check_block(problems, metadata.get("target"), Section::Target, mode)
    };
    let retries = |problems: &mut Problems| {
        check_retries(problems, metadata.get("retries"), "metadata.retries")
    };
    if mode == Mode::Run {
        sections.schedule = check_schedule(problems, spec, metadata);
        sections.window = check_window(problems, metadata.get("window"));
        sections.retries = retries(problems);
    }
    sections.source = source(problems);
    sections.target = target(problems);
    sections.transforms = check_transforms(problems, metadata.get("transforms"));
    sections.quality = check_quality(problems, metadata.get("quality"), mode);
    if mode == Mode::Plan {
        sections.schedule = check_schedule(problems, spec, metadata);
        sections.window = check_window(problems, metadata.get("window"));
    }
    let source_path = metadata
        .get("source")
        .and_then(Value::as_object)
        .and_then(|source| source.get("path"));
    placeholders::check_source_path(problems, source_path);
    placeholders::check_elsewhere(problems, &Value::Object(metadata.clone()));
    if mode == Mode::Plan {
        sections.retries = retries(problems);
    }
    match sink_specs(metadata) {
        Ok(sinks) => sections.sinks = Some(sinks),
        Err(message) => problems.add("", message),
    }
    let text = |key: &str| spec.get(key).and_then(Value::as_str);
    sections.docs =
        crate::docs::check_docs(problems, metadata.get("docs"), text("who"), text("when"));
    sections.monitors = crate::monitors::check_monitors(problems, metadata.get("monitors"));
    sections
}

fn check_schedule(
    problems: &mut Problems,
    spec: &Map<String, Value>,
    metadata: &Map<String, Value>,
) -> Option<Option<Schedule>> {
    if let Some(raw) = get(metadata, "schedule") {
        return match parse_schedule(raw, ScheduleFrom::Metadata) {
            Ok(schedule) => Some(Some(schedule)),
            Err(message) => {
                problems.add("metadata.schedule", message);
                None
            }
        };
    }
    let alias = spec
        .get("when")
        .and_then(Value::as_str)
        .and_then(alias_for_when);
    match alias {
        Some(alias) => parse_schedule(&Value::from(alias), ScheduleFrom::When)
            .ok()
            .map(Some),
        None => Some(None),
    }
}

pub(crate) const METADATA_KEYS: [&str; 10] = [
    "docs",
    "monitors",
    "transforms",
    "source",
    "target",
    "quality",
    "observability",
    "schedule",
    "window",
    "retries",
];

/// Builds the config from checked sections; `None` if one of them had a problem.
pub(crate) fn assemble(document: &Value, sections: Sections) -> Option<Config> {
    let spec = document.as_object()?;
    let metadata = spec.get("metadata").and_then(Value::as_object)?;
    let text = |key: &str| spec.get(key).and_then(Value::as_str).map(str::to_owned);
    Some(Config {
        identifier: text("identifier")?,
        api_version: text("apiVersion"),
        who: text("who"),
        what: text("what"),
        where_: text("where"),
        when: text("when"),
        how: text("how"),
        metadata: Metadata {
            source: sections.source?,
            target: sections.target?,
            quality: sections.quality?,
            sinks: sections.sinks?,
            schedule: sections.schedule?,
            retries: sections.retries?,
            window: sections.window?,
            transforms: sections.transforms?,
            docs: sections.docs?,
            monitors: sections.monitors?,
            extra: metadata
                .iter()
                .filter(|(key, _)| !METADATA_KEYS.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        },
        raw: document.clone(),
        base_dir: None,
    })
}

fn invalid(message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        file: None,
        message: message.into(),
    }
}

/// The strict loader `ldp run` uses: it stops at the first problem, with its own messages
/// (`config is missing required key 'identifier'`, `config has unknown top-level keys: ['x']`,
/// `config apiVersion must be 'ldp/v1', got 'v2'`, `config metadata is missing required key
/// 'source'`, `config metadata 'source' is missing 'format'`, then the sections' messages:
/// `metadata.schedule: ...`, `metadata.window.size: ...`, `metadata.retries....`, `quality
/// check #N ...`). It does not look for inline secrets: the catalog build does
/// ([`crate::secrets::check_catalog_secrets`]).
///
/// # Errors
///
/// [`ConfigError::Invalid`] with the first problem.
pub fn load(document: &Value) -> Result<Config, ConfigError> {
    let Some(spec) = document.as_object() else {
        return Err(invalid(format!(
            "config must be a JSON object, got {}",
            type_name(document)
        )));
    };
    match kind_of(document) {
        Ok(Kind::Pipeline) => {}
        Ok(Kind::Workflow) => {
            let identifier = spec.get("identifier").unwrap_or(&Value::Null);
            return Err(invalid(format!(
                "{} is a Workflow, not a dataset config (kind Pipeline)",
                repr(identifier)
            )));
        }
        Err(message) => return Err(invalid(message)),
    }
    if !spec.contains_key("identifier") {
        return Err(invalid("config is missing required key 'identifier'"));
    }
    let unknown = unknown_keys(spec, &TOP_LEVEL_KEYS);
    if !unknown.is_empty() {
        return Err(invalid(format!(
            "config has unknown top-level keys: {}",
            repr_list(&unknown)
        )));
    }
    if let Some(version) = spec.get("apiVersion")
        && version.as_str() != Some(API_VERSION)
    {
        return Err(invalid(format!(
            "config apiVersion must be 'ldp/v1', got {}",
            repr(version)
        )));
    }
    let identifier = spec.get("identifier").unwrap_or(&Value::Null);
    if identifier
        .as_str()
        .is_none_or(|text| text.trim().is_empty())
    {
        return Err(invalid(format!(
            "config identifier must be a non-empty string, got {}",
            repr(identifier)
        )));
    }
    for key in DESCRIPTIVE_KEYS {
        if let Some(value) = spec.get(key)
            && !value.is_string()
        {
            return Err(invalid(format!(
                "config '{key}' must be a string, got {}",
                type_name(value)
            )));
        }
    }
    let empty = Map::new();
    let metadata = match spec.get("metadata") {
        None => &empty,
        Some(Value::Object(metadata)) => metadata,
        Some(_) => return Err(invalid("config 'metadata' must be an object")),
    };
    for key in ["source", "target"] {
        match metadata.get(key) {
            None => {
                return Err(invalid(format!(
                    "config metadata is missing required key '{key}'"
                )));
            }
            Some(Value::Object(_)) => {}
            Some(_) => {
                return Err(invalid(format!(
                    "config metadata '{key}' must be an object"
                )));
            }
        }
    }
    for key in ["source", "target"] {
        if metadata
            .get(key)
            .and_then(Value::as_object)
            .is_some_and(|block| !block.contains_key("format"))
        {
            return Err(invalid(format!(
                "config metadata '{key}' is missing 'format'"
            )));
        }
    }
    let mut problems = Problems::default();
    let sections = check_sections(&mut problems, spec, metadata, Mode::Run);
    if let Some(first) = problems.first() {
        return Err(invalid(first.clone()));
    }
    assemble(document, sections).ok_or_else(|| invalid("config could not be read"))
}
