//! The `ldp/v1` config model: dataset configs (kind `Pipeline`) and workflow files (kind
//! `Workflow`): parsing, validation, plans and path resolution.
//!
//! A config is a JSON file (`docs/concepts.md#configs`): `identifier`, the descriptive
//! `who`/`what`/`where`/`when`/`how`, and a `metadata` block with a `source` and a `target`
//! block, optional quality checks, event sinks, a schedule, retries and a window.
//!
//! Two readers, as in the Python tool:
//!
//! * [`validate`] is what `ldp plan` runs: it collects **every** problem, each prefixed by its
//!   JSON path, in the Python tool's order and wording (Python reprs included), e.g.
//!   `metadata.quality.checks[0]: check (range) is invalid: range needs at least one of min or
//!   max`. [`plan_config`] validates, then builds the typed [`Config`].
//! * [`load`] is what `ldp run` runs: a stricter loader that stops at the first problem with its
//!   own messages (`config is missing required key 'identifier'`). Inline secrets are left to
//!   the catalog build ([`secrets::check_catalog_secrets`]).
//!
//! ```
//! let text = r#"{"identifier": "rides", "metadata": {
//!     "source": {"name": "rides", "format": "csv", "path": "data/rides.csv"},
//!     "target": {"name": "rides", "format": "ICEBERG",
//!                "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}},
//!     "quality": [{"check": "not_null", "columns": ["ride_id"]}]}}"#;
//! let document: serde_json::Value = serde_json::from_str(text).unwrap();
//! assert!(ldp_config::validate(&document).is_valid());
//! let config = ldp_config::load(&document).unwrap();
//! assert_eq!(config.target().write_mode(), ldp_config::WriteMode::Append);
//! assert_eq!(config.metadata.quality.checks[0].display_name(), "not_null(ride_id)");
//! ```
//!
//! Table names and namespaces follow [`names`]: each is one folder under the warehouse, never a
//! path, checked by both readers before anything is created.
//!
//! Files are read with [`Document::read`] (JSON syntax errors name the file, line and column);
//! paths in a config resolve against its folder with [`paths::PathContext`], and a
//! `local` catalog's files are laid out by [`paths::local_catalog_layout`].
//!
//! ## Exactly once: spec hash, keys, windows, plan
//!
//! * [`canonical_json`]: sorted keys, no whitespace, raw UTF-8, Python's float `repr`.
//! * [`canonical_spec`] / [`spec_hash`]: the parts of a config that change what a run does,
//!   normalised (formats upper-case, write modes lower-case, quality as `{on_failure, checks}`,
//!   paths relative to the config folder by [`normalise_spec_path`]), and their sha256.
//! * [`target_identity`]: `iceberg:<namespace>.<table>` or `<format>:<path>`.
//! * [`idempotency_key`] (`K`, from the pipeline, the target and the window; never the spec
//!   hash) and [`replace_key`] (`R`, from `K` and the spec hash).
//! * [`Window`]: the `[start, end)` of a run, from `START/END` (Python's `fromisoformat`,
//!   naive = UTC) or a shortcut (`yesterday`, `last-week`, `last-month`) counted in the config's
//!   time zone; [`format_instant`] writes its bounds as UTC-Z. [`fill_placeholders`] names the
//!   source file of a window with Python's `strftime` ([`py_strftime`]).
//! * [`plan_file`]: the `ldp plan` document of one Pipeline config ([`Plan`]), printed by
//!   [`Plan::to_json_text`] and [`Plan::render_text`].
//!
//! ## Workflows
//!
//! [`workflow`] reads workflow files (kind `Workflow`): tasks of kinds `pipeline`, `maintain`,
//! `dbt` (read, not run) and ldp's own `sql`, their dependencies (cycles named), run order and
//! retry policy; a dataset config with a schedule is a workflow of one task
//! ([`read_workflow`]). [`plan_workflow`] builds the `ldp workflow plan` document
//! ([`WorkflowPlan`]), each pipeline task planned as `ldp plan CONFIG --window` plans it.
//!
//! ```
//! let document: serde_json::Value = serde_json::from_str(r#"{"kind": "Workflow", "identifier": "w",
//!     "tasks": [{"id": "a", "pipeline": "a.json", "depends_on": ["b"]},
//!               {"id": "b", "pipeline": "b.json", "depends_on": ["a"]}]}"#).unwrap();
//! assert_eq!(ldp_config::validate_workflow(&document),
//!            ["tasks: depend on each other in a cycle: a -> b -> a"]);
//! ```
//!
//! ```
//! use ldp_config::{Window, idempotency_key, replace_key, spec_hash, target_identity};
//! let document: serde_json::Value = serde_json::from_str(r#"{"identifier": "rides", "metadata": {
//!     "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
//!     "target": {"name": "rides", "format": "ICEBERG", "catalog": {"identifier": "nyc"}}}}"#).unwrap();
//! let dir = std::path::Path::new("/project");
//! let window = Window::parse("2026-08-01/2026-08-02", &jiff::tz::TimeZone::UTC, jiff::Timestamp::UNIX_EPOCH).unwrap();
//! assert_eq!(window.label(), "2026-08-01T00:00:00Z/2026-08-02T00:00:00Z");
//! let target = target_identity(&document, Some(dir)).unwrap();
//! assert_eq!(target, "iceberg:nyc.rides");
//! let key = idempotency_key("rides", &target, Some(&window)).unwrap();
//! assert_eq!(key, "62831bc16852034866a7b4b9869fcdabe016ba9bfdac1f07d73a9d265f3315c6");
//! let replace = replace_key(&key, &spec_hash(&document, Some(dir)).unwrap()).unwrap();
//! assert_eq!(replace.len(), 64);
//! ```
//!
//! The crate does no other I/O than reading config files and, for a
//! plan, checking whether source files exist: no catalog is opened and no data file is read.

mod block;
mod canonical;
mod catalog;
pub mod docs;
mod error;
mod identity;
mod isoformat;
mod json_schema;
mod keys;
mod kind;
mod model;
pub mod monitors;
mod observability;
mod parse;
mod partition;
mod placeholders;
mod plan;
mod plan_plugins;
mod plan_text;
mod problems;
mod python;
mod quality;
mod repr;
mod retries;
mod routes;
mod run_window;
mod schedule;
pub mod source_options;
mod spec_hash;
mod spec_path;
mod stray_keys;
mod strftime;
pub mod target_options;
mod transforms;
mod validate;
mod window;

pub mod names;
pub mod paths;
pub mod secrets;
pub mod workflow;

pub use block::DUCKDB_QUERY_KEYS;
pub use canonical::{
    canonical_json, canonical_sha256, python_json_pretty, python_json_sorted, sha256_hex,
};
pub use catalog::{CATALOG_TYPES, CatalogSpec, CatalogType};
pub use error::ConfigError;
pub use identity::target_identity;
pub use isoformat::{IsoDateTime, fromisoformat};
pub use json_schema::{kind_schema, parse_kind};
pub use keys::{idempotency_key, replace_key};
pub use kind::{KINDS, Kind, RESERVED_KINDS, kind_of};
/// The built-in checks' parameters, as the config's [`Check::Builtin`] holds them.
pub use ldp_check_params as check_params;
pub use model::{
    API_VERSION, Block, Config, Credentials, Format, Metadata, Section, Sheet, WriteMode,
};
pub use observability::{
    DEFAULT_JSONL_PATH, DEFAULT_OPENLINEAGE_PATH, SINK_TYPES, SinkKind, SinkSpec, sink_specs,
};
pub use parse::{Document, TOP_LEVEL_KEYS, load};
pub use partition::{PartitionField, Transform};
pub use placeholders::{
    PLACEHOLDERS, Placeholder, fill_placeholders, find_placeholders, mentions_placeholder,
};
pub use plan::{Plan, plan_document, plan_file};
pub use plan_plugins::PlanPlugin;
pub use plan_text::PlanText;
pub use python::py_strip;
pub use quality::{
    CHECK_NAMES, Check, CheckParams, CheckSpec, OnFailure, Quality, RowCountEquals, TimeUnit,
    is_arrow_type, parse_check,
};
pub use repr::{py_float, py_str, repr, repr_list, repr_str, type_name};
pub use retries::{MAX_DELAY_S, RETRY_KEYS, Retries};
pub use routes::{LDP_ROUTES, PIPELINE_ROUTES, PipelineRoute, find_route, route_label};
pub use run_window::{SHORTCUTS, Window, format_instant, is_shortcut, isoformat_utc};
pub use schedule::{
    ALIASES as SCHEDULE_ALIASES, Cron, Schedule, ScheduleFrom, alias_for_when, parse_schedule,
};
pub use spec_hash::{HASH_EXCLUDED_METADATA, canonical_spec, sorted as sort_keys, spec_hash};
pub use spec_path::normalise_spec_path;
pub use stray_keys::{StrayKey, did_you_mean, stray_keys};
pub use strftime::py_strftime;
pub use transforms::{
    GRANT_KEYS, LIMIT_KEYS, PLUGIN_FILE_KEYS, PluginFileSpec, PluginGrants, PluginLimits,
    TRANSFORM_KEYS, TransformCode, TransformSpec, parse_grants, parse_limits, parse_transform,
    source_plugin, target_plugin,
};
pub use validate::{Validation, plan_config, validate};
pub use window::{WINDOW_KEYS, WindowSize, WindowSpec, lookup_time_zone};
pub use workflow::{
    TaskPlan, Workflow, WorkflowPlan, load_workflow, plan_loaded_workflow, plan_workflow,
    read_workflow, validate_workflow,
};

/// Reads a config file and loads it as `ldp run` does ([`Document::read`] then [`load`]).
///
/// # Errors
///
/// Any [`ConfigError`]: the file is missing or not JSON, or the config is invalid.
pub fn load_file(path: &std::path::Path) -> Result<Config, ConfigError> {
    Document::read(path)?.load()
}
