//! The `ldp/v1` config model for kind `Pipeline`: parsing, validation and path resolution.
//!
//! A config is a JSON file (behaviour spec §1): `identifier`, the descriptive
//! `who`/`what`/`where`/`when`/`how`, and a `metadata` block with a `source` and a `target`
//! block, optional quality checks, event sinks, a schedule, retries and a window.
//!
//! Two readers, as in the reference:
//!
//! * [`validate`] is what `ldp plan` runs: it collects **every** problem, each prefixed by its
//!   JSON path, in the reference's order and wording (Python reprs included), e.g.
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
//! Files are read with [`Document::read`] (JSON syntax errors name the file, line and column);
//! paths in a config resolve against its folder with [`paths::PathContext`] (§1.6), and a
//! `local` catalog's files are laid out by [`paths::local_catalog_layout`].
//!
//! The crate does no other I/O: no catalog is opened and no data file is read. Workflow files
//! (kind `Workflow`) are recognised ([`kind_of`]) but validated elsewhere.

mod block;
mod catalog;
mod error;
mod kind;
mod model;
mod observability;
mod parse;
mod partition;
mod placeholders;
mod problems;
mod quality;
mod repr;
mod retries;
mod schedule;
mod validate;
mod window;

pub mod paths;
pub mod secrets;

pub use block::DUCKDB_QUERY_KEYS;
pub use catalog::{CATALOG_TYPES, CatalogSpec, CatalogType};
pub use error::ConfigError;
pub use kind::{KINDS, Kind, RESERVED_KINDS, kind_of};
pub use model::{
    API_VERSION, Block, Config, Credentials, Format, Metadata, Section, Sheet, WriteMode,
};
pub use observability::{
    DEFAULT_JSONL_PATH, DEFAULT_OPENLINEAGE_PATH, SINK_TYPES, SinkKind, SinkSpec, sink_specs,
};
pub use parse::{Document, TOP_LEVEL_KEYS, load};
pub use partition::{PartitionField, Transform};
pub use placeholders::{PLACEHOLDERS, Placeholder, find_placeholders, mentions_placeholder};
pub use quality::{
    CHECK_NAMES, Check, CheckSpec, OnFailure, Quality, RowCountEquals, SchemaColumns, TimeUnit,
    is_arrow_type, parse_check,
};
pub use repr::{py_float, repr, repr_list, repr_str, type_name};
pub use retries::{RETRY_KEYS, Retries};
pub use schedule::{
    ALIASES as SCHEDULE_ALIASES, Cron, Schedule, ScheduleFrom, alias_for_when, parse_schedule,
};
pub use validate::{Validation, plan_config, validate};
pub use window::{WINDOW_KEYS, WindowSize, WindowSpec, lookup_time_zone};

/// Reads a config file and loads it as `ldp run` does ([`Document::read`] then [`load`]).
///
/// # Errors
///
/// Any [`ConfigError`]: the file is missing or not JSON, or the config is invalid.
pub fn load_file(path: &std::path::Path) -> Result<Config, ConfigError> {
    Document::read(path)?.load()
}
