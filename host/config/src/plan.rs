//! `ldp plan` for one Pipeline config file: validate it and describe what a run would do,
//! without running anything. [`plan_file`] builds the document ([`Plan`], its keys in the
//! Python tool's order, which is the field order of [`Plan`]); [`Plan::to_json_text`] and
//! [`Plan::render_text`] print it as `--json` and as `name  value` lines.
//!
//! An invalid config gives `valid: false`, its problems in `errors` and the later fields
//! empty. A valid one gets its spec hash, route and pipeline class, target, write mode, catalog
//! type, quality, sinks, schedule, window declaration, source path (filled in for the window
//! when it is templated) and, with a window, the window and its idempotency key. The plan adds
//! its own errors to a valid config: a route no pipeline is registered for, a missing DuckDB
//! or Excel file, a schedule that appends the same rows in every window, a bad `--window`.
//!
//! Workflow files, and planning a folder of files, come with workflows (orchestration): here a
//! Workflow file is refused with [`ConfigError::Invalid`].

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde::Serialize;
use serde_json::Value;

use crate::error::ConfigError;
use crate::identity::target_identity;
use crate::keys::idempotency_key;
use crate::kind::{Kind, kind_of};
use crate::model::{API_VERSION, Config, Format};
use crate::parse::Document;
use crate::paths::PathContext;
use crate::placeholders::{fill_placeholders, find_placeholders};
use crate::python::{get_truthy, py_strip, truthy};
use crate::repr::{py_str, repr};
use crate::routes::{find_route, route_label};
use crate::run_window::Window;
use crate::spec_hash::{normalise_quality, spec_hash};
use crate::validate::{plan_config, validate};

/// The `ldp plan` document of one config, serialised with the Python tool's keys in its order
/// (the order of the fields below).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    /// The config file, absolute (`None` when planned from a document).
    pub config: Option<String>,
    /// `identifier` as written (`null` when absent or unreadable).
    pub identifier: Value,
    /// `Pipeline`; `None` when the kind is wrong or the file unreadable.
    pub kind: Option<String>,
    /// Whether there are no errors.
    pub valid: bool,
    /// Every problem, each prefixed by its JSON path.
    pub errors: Vec<String>,
    /// Things worth knowing that are not errors.
    pub notes: Vec<String>,
    /// `apiVersion` as written when truthy, else `ldp/v1`.
    pub api_version: Value,
    /// The spec hash.
    pub spec_hash: Option<String>,
    /// `CSV -> ICEBERG`.
    pub route: Option<String>,
    /// The Python tool's pipeline class (`CSVToIceberg`).
    pub pipeline: Option<String>,
    /// `namespace.table` for Iceberg (namespace first, else the catalog identifier), else the
    /// target path as written.
    pub target: Option<String>,
    /// Iceberg: the write mode lower-cased (`append` by default); file targets: `overwrite`.
    pub write_mode: Option<String>,
    /// The catalog `type` as written (`local` by default); `None` for file targets.
    pub catalog_type: Option<String>,
    /// How many quality checks.
    pub checks: usize,
    /// `fail` or `warn`.
    pub on_failure: Option<String>,
    /// The event sink types.
    pub sinks: Vec<String>,
    /// The schedule, blanks collapsed (`5 2 * * *`, or `@daily` from `when`).
    pub schedule: Option<String>,
    /// `metadata.schedule` or `when`.
    pub schedule_from: Option<String>,
    /// `metadata.window.size`.
    pub window_size: Option<String>,
    /// `metadata.window.column`.
    pub window_column: Option<String>,
    /// `metadata.window.timezone` (`UTC` by default when a window is declared).
    pub timezone: Option<String>,
    /// The source path: as written, or filled in for the window when it is templated.
    pub source_path: Value,
    /// The source path as written, when it has window placeholders.
    pub source_path_template: Option<String>,
    /// The window, `START/END` in UTC-Z.
    pub window: Option<String>,
    /// The idempotency key of a run over the window.
    pub idempotency_key: Option<String>,
    /// The plugin files and JavaScript transforms the config names, with their hashes and
    /// grants (an ldp extension; absent from the JSON when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plugins: Vec<crate::plan_plugins::PlanPlugin>,
    /// The keys ldp ignores, each with its JSON path and a "did you mean" (an ldp extension;
    /// absent from the JSON when there are none). See [`crate::stray_keys`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl Plan {
    fn empty(config: Option<String>) -> Plan {
        Plan {
            config,
            identifier: Value::Null,
            kind: None,
            valid: false,
            errors: Vec::new(),
            notes: Vec::new(),
            api_version: Value::from(API_VERSION),
            spec_hash: None,
            route: None,
            pipeline: None,
            target: None,
            write_mode: None,
            catalog_type: None,
            checks: 0,
            on_failure: None,
            sinks: Vec::new(),
            schedule: None,
            schedule_from: None,
            window_size: None,
            window_column: None,
            timezone: None,
            source_path: Value::Null,
            source_path_template: None,
            window: None,
            idempotency_key: None,
            plugins: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The plan under `--strict`: a key ldp ignores is an error, so the plan is invalid.
    pub fn strict(mut self) -> Plan {
        if !self.warnings.is_empty() {
            self.errors.append(&mut self.warnings);
            self.valid = false;
        }
        self
    }
}

/// Plans a config file as `ldp plan FILE [--window W]` does. `now` is the clock a window
/// shortcut (`yesterday`) is counted from. A missing or unreadable file is a plan with one
/// error (`config file not found: <path>`).
///
/// # Errors
///
/// [`ConfigError::Invalid`] for a Workflow file (planned with workflows, not here).
pub fn plan_file(path: &Path, window: Option<&str>, now: Timestamp) -> Result<Plan, ConfigError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let path = PathContext::new(None, &cwd)
        .resolve(&path.to_string_lossy())
        .path;
    let label = path.display().to_string();
    if !path.is_file() {
        let mut plan = Plan::empty(Some(label));
        plan.errors
            .push(ConfigError::NotFound { path: path.clone() }.to_string());
        return Ok(plan);
    }
    let document = match std::fs::read_to_string(&path) {
        Ok(text) => Document::parse(&text, path.clone()),
        Err(source) => Err(ConfigError::Read {
            path: path.clone(),
            source,
        }),
    };
    match document {
        Ok(document) => plan_document(&document.value, Some(&path), window, now),
        Err(error) => {
            let mut plan = Plan::empty(Some(label));
            plan.errors.push(error.to_string());
            Ok(plan)
        }
    }
}

/// Plans a config document; `file` is the file it was read from (its folder is the config
/// folder), `None` for a document with no file (paths then resolve against the current
/// directory and are not made relative in the hash).
///
/// # Errors
///
/// [`ConfigError::Invalid`] for a Workflow document.
pub fn plan_document(
    document: &Value,
    file: Option<&Path>,
    window: Option<&str>,
    now: Timestamp,
) -> Result<Plan, ConfigError> {
    let mut plan = Plan::empty(file.map(|file| file.display().to_string()));
    let validation = validate(document);
    if validation.kind == Some(Kind::Workflow) {
        return Err(ConfigError::Invalid {
            file: file.map(Path::to_path_buf),
            message: format!(
                "{} is a Workflow, not a dataset config (kind Pipeline); workflow files are planned with workflows",
                repr(document.get("identifier").unwrap_or(&Value::Null))
            ),
        });
    }
    if document.is_object() {
        plan.identifier = document.get("identifier").cloned().unwrap_or(Value::Null);
        plan.api_version = get_truthy(document, "apiVersion")
            .cloned()
            .unwrap_or_else(|| Value::from(API_VERSION));
        plan.kind = kind_of(document).ok().map(|kind| kind.as_str().to_owned());
    }
    plan.warnings = crate::stray_keys(document)
        .iter()
        .map(ToString::to_string)
        .collect();
    let mut errors = validation.problems;
    if errors.is_empty() {
        let config_dir = file.and_then(Path::parent);
        match plan_config(document) {
            Ok(mut config) => {
                config.base_dir = config_dir.map(Path::to_path_buf);
                errors = describe(&mut plan, &config, window, now);
            }
            Err(error) => errors = error.problems(),
        }
    }
    plan.valid = errors.is_empty();
    plan.errors = errors;
    Ok(plan)
}

/// Fills in a valid config's plan and returns the errors the plan adds.
fn describe(plan: &mut Plan, config: &Config, window: Option<&str>, now: Timestamp) -> Vec<String> {
    let raw = &config.raw;
    let base = config.base_dir.as_deref();
    let metadata = &raw["metadata"];
    let (source, target) = (config.source(), config.target());
    let mut errors = Vec::new();
    match spec_hash(raw, base) {
        Ok(hash) => plan.spec_hash = Some(hash),
        Err(error) => errors.push(error.to_string()),
    }
    let engine = source.engine.as_deref();
    plan.route = Some(route_label(
        source.format.as_str(),
        target.format.as_str(),
        engine,
    ));
    match find_route(source.format, target.format, engine) {
        Ok(route) => plan.pipeline = Some(route.pipeline.to_owned()),
        Err(message) => errors.push(message),
    }
    for (role, block) in [("source", source), ("target", target)] {
        if let Some(spec) = block.catalog.as_ref().filter(|_| block.is_iceberg()) {
            errors.extend(crate::paths::object_warehouse(role, spec));
        }
    }
    let time_zone = config
        .metadata
        .window
        .as_ref()
        .map_or(TimeZone::UTC, |window| window.time_zone());
    let bounds = window.map(|text| Window::parse(text, &time_zone, now));
    let window_ok = bounds.as_ref().and_then(|bounds| bounds.as_ref().ok());
    let checked = describe_source_path(plan, config, window_ok, &time_zone, &mut errors);
    if let Some(location) = checked {
        let what = match source.format {
            Format::DuckDb => Some("DuckDB"),
            Format::Xlsx => Some("Excel"),
            _ => None,
        };
        if let Some(what) = what
            && !location.is_file()
        {
            errors.push(format!(
                "metadata.source.path: the {what} file {} does not exist",
                location.display()
            ));
        }
    }
    errors.extend(missing_inputs(config));
    let raw_target = &metadata["target"];
    if target.is_iceberg() {
        let catalog = &raw_target["catalog"];
        let namespace = get_truthy(catalog, "namespace")
            .or_else(|| get_truthy(catalog, "identifier"))
            .unwrap_or(&Value::Null);
        let name = raw_target.get("name").unwrap_or(&Value::Null);
        plan.target = Some(format!("{}.{}", py_str(namespace), py_str(name)));
        let mode = get_truthy(raw_target, "write_mode").map_or("append".to_owned(), py_str);
        plan.write_mode = Some(mode.to_lowercase());
        plan.catalog_type = Some(get_truthy(catalog, "type").map_or("local".to_owned(), py_str));
    } else {
        plan.target = raw_target
            .get("path")
            .and_then(Value::as_str)
            .map(str::to_owned);
        plan.write_mode = Some(target.write_mode().as_str().to_owned());
    }
    let quality = metadata
        .get("quality")
        .and_then(normalise_quality)
        .unwrap_or_else(|| serde_json::json!({"on_failure": "fail", "checks": []}));
    plan.checks = quality["checks"].as_array().map_or(0, Vec::len);
    plan.on_failure = Some(py_str(&quality["on_failure"]));
    plan.sinks = config
        .metadata
        .sinks
        .iter()
        .map(|sink| sink.kind.as_str().to_owned())
        .collect();
    errors.extend(describe_schedule(plan, config));
    let (plugins, problems) = crate::plan_plugins::plan_plugins(config);
    plan.plugins = plugins;
    errors.extend(problems);
    match bounds {
        Some(Err(error)) => errors.push(error.to_string()),
        Some(Ok(window)) => {
            plan.window = Some(window.label());
            let key = target_identity(raw, base)
                .and_then(|target| idempotency_key(&config.identifier, &target, Some(&window)));
            match key {
                Ok(key) => plan.idempotency_key = Some(key),
                Err(error) => errors.push(error.to_string()),
            }
        }
        None => {}
    }
    errors
}

/// The `inputs` of a DuckDB source whose config file is not there.
fn missing_inputs(config: &Config) -> Vec<String> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let context = PathContext::new(config.base_dir.as_deref(), &cwd);
    config
        .source()
        .inputs
        .iter()
        .enumerate()
        .filter_map(|(i, input)| {
            let path = context.resolve(input).path;
            (!path.is_file()).then(|| {
                format!(
                    "metadata.source.inputs[{i}]: the dataset config {} does not exist",
                    path.display()
                )
            })
        })
        .collect()
}

/// Fills in `source_path` (and `source_path_template`) and returns the local file to check:
/// a plain path only for DuckDB and Excel sources, a templated one when there is a window.
fn describe_source_path(
    plan: &mut Plan,
    config: &Config,
    window: Option<&Window>,
    time_zone: &TimeZone,
    errors: &mut Vec<String>,
) -> Option<PathBuf> {
    let path = config.raw["metadata"]["source"].get("path");
    plan.source_path = path.cloned().unwrap_or(Value::Null);
    let path = path?.as_str()?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let context = PathContext::new(config.base_dir.as_deref(), &cwd);
    if find_placeholders(path).is_empty() {
        // An object (s3://…) is checked when the run downloads it.
        let must_exist = matches!(config.source().format, Format::DuckDb | Format::Xlsx)
            && !path.contains("://");
        return must_exist.then(|| context.resolve(path).path);
    }
    plan.source_path_template = Some(path.to_owned());
    let Some(window) = window else {
        plan.notes.push(
            "the source path has a window placeholder, so it is shown as written; \
             pass --window to see the path of one window"
                .to_owned(),
        );
        return None;
    };
    let filled = match fill_placeholders(path, window, time_zone) {
        Ok(filled) => filled,
        Err(error) => {
            errors.push(format!("metadata.source.path: {error}"));
            return None;
        }
    };
    plan.source_path = Value::from(filled.as_str());
    if filled.contains("://") {
        return None;
    }
    let location = context.resolve(&filled).path;
    if !location.exists() {
        plan.notes.push(format!(
            "the source file {} does not exist yet",
            location.display()
        ));
    }
    Some(location)
}

/// Fills in the schedule and the window declaration; returns the error a schedule can cause.
fn describe_schedule(plan: &mut Plan, config: &Config) -> Option<String> {
    let raw = &config.raw;
    let metadata = &raw["metadata"];
    let schedule = config.schedule();
    if let Some(schedule) = schedule {
        plan.schedule = Some(schedule.text.clone());
        plan.schedule_from = Some(schedule.from.as_str().to_owned());
    }
    if let Some(note) = ignored_when(metadata, raw.get("when")) {
        plan.notes.push(note);
    }
    let declared = metadata.get("window").filter(|window| window.is_object());
    if let Some(window) = declared {
        plan.window_size = window.get("size").map(py_str);
        plan.window_column = window
            .get("column")
            .and_then(Value::as_str)
            .map(str::to_owned);
        plan.timezone = Some(get_truthy(window, "timezone").map_or("UTC".to_owned(), py_str));
    }
    let source_path = metadata["source"].get("path").and_then(Value::as_str);
    let templated = source_path.is_some_and(|path| !find_placeholders(path).is_empty());
    let target = &metadata["target"];
    let target_format = target.get("format").map(py_str).unwrap_or_default();
    let appends = get_truthy(target, "write_mode").map_or("append".to_owned(), py_str);
    let has_column_value = declared.and_then(|window| window.get("column"));
    if schedule.is_some()
        && py_strip(&target_format).to_uppercase() == "ICEBERG"
        && py_strip(&appends).to_lowercase() == "append"
        && !templated
        && !has_column_value.is_some_and(truthy)
    {
        return Some(
            "metadata: this config has a schedule and appends, but nothing selects the rows of a \
             window, so every window would load the same rows again. Put {window_start:FORMAT} in \
             metadata.source.path, set metadata.window.column, or change write_mode"
                .to_owned(),
        );
    }
    let has_column = has_column_value.is_some_and(|column| !column.is_null());
    if schedule.is_some()
        && templated
        && !has_column
        && plan.write_mode.as_deref() == Some("overwrite")
    {
        plan.notes.push(
            "write_mode overwrite replaces the whole table with the rows of each window; \
             set metadata.window.column to replace only the rows of the window"
                .to_owned(),
        );
    }
    None
}

/// The note for a `when` that no schedule is read from.
fn ignored_when(metadata: &Value, when: Option<&Value>) -> Option<String> {
    if metadata
        .get("schedule")
        .is_some_and(|schedule| !schedule.is_null())
    {
        return None;
    }
    let when = when?.as_str()?;
    let word = py_strip(when).to_lowercase();
    if word.is_empty() || ["hourly", "daily", "weekly", "monthly"].contains(&word.as_str()) {
        return None;
    }
    Some(format!(
        "when {} is a label, so no schedule is read from it; set metadata.schedule, or write \
         'hourly' / 'daily' / 'weekly' / 'monthly' in when",
        repr(&Value::from(when))
    ))
}
