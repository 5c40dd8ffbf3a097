//! The typed `ldp/v1` Pipeline config: [`Config`], its [`Metadata`] and the source/target
//! [`Block`]s. Built by [`crate::load`] (the strict loader of `ldp run`) or
//! [`crate::plan_config`] (after the full validation of `ldp plan`); never by hand-rolled
//! parsing elsewhere.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::catalog::CatalogSpec;
use crate::observability::SinkSpec;
use crate::partition::PartitionField;
use crate::quality::Quality;
use crate::retries::Retries;
use crate::schedule::Schedule;
use crate::window::WindowSpec;

/// The only `apiVersion` this crate reads.
pub const API_VERSION: &str = "ldp/v1";

/// A dataset config (kind `Pipeline`).
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The pipeline's id (used in keys, events and the ledger).
    pub identifier: String,
    /// `apiVersion` as written; `None` when absent (it then means `ldp/v1`).
    pub api_version: Option<String>,
    /// Descriptive owner (`who`); not hashed.
    pub who: Option<String>,
    /// What the dataset holds (`what`); not hashed.
    pub what: Option<String>,
    /// Where the data comes from (`where`); not hashed.
    pub where_: Option<String>,
    /// How often it runs (`when`): `hourly`, `daily`, `weekly`, `monthly` mean a schedule when
    /// `metadata.schedule` is absent; any other text is a label.
    pub when: Option<String>,
    /// How it runs (`how`).
    pub how: Option<String>,
    /// The `metadata` block.
    pub metadata: Metadata,
    /// The whole document as read (key order kept), for the spec hash.
    pub raw: Value,
    /// The folder of the config file, when it was read from one; relative paths resolve
    /// against it (see [`crate::paths`]).
    pub base_dir: Option<PathBuf>,
}

impl Config {
    /// `apiVersion`, defaulting to `ldp/v1`.
    pub fn api_version(&self) -> &str {
        self.api_version.as_deref().unwrap_or(API_VERSION)
    }

    /// The schedule: `metadata.schedule`, else the alias a `when` of `hourly`/`daily`/`weekly`/
    /// `monthly` means.
    pub fn schedule(&self) -> Option<&Schedule> {
        self.metadata.schedule.as_ref()
    }

    /// The source block.
    pub fn source(&self) -> &Block {
        &self.metadata.source
    }

    /// The target block.
    pub fn target(&self) -> &Block {
        &self.metadata.target
    }
}

/// The `metadata` block of a Pipeline config: `source` and `target` (required), `quality`,
/// `observability`, `schedule`, `retries`, `window`; other keys are kept (and hashed).
#[derive(Clone, Debug, PartialEq)]
pub struct Metadata {
    /// `metadata.source`.
    pub source: Block,
    /// `metadata.target`.
    pub target: Block,
    /// `metadata.quality`, normalised to `{on_failure, checks}` (no checks when absent).
    pub quality: Quality,
    /// `metadata.observability`, as a list of sink specs (empty when absent).
    pub sinks: Vec<SinkSpec>,
    /// The schedule (`metadata.schedule`, else from `when`).
    pub schedule: Option<Schedule>,
    /// `metadata.retries` with its defaults.
    pub retries: Retries,
    /// `metadata.window`; `None` when absent or `"none"`.
    pub window: Option<WindowSpec>,
    /// `metadata.transforms` (an ldp extension), in config order (empty when absent).
    pub transforms: Vec<crate::transforms::TransformSpec>,
    /// `metadata.docs`: the table's contract (an ldp extension of the Python tool's 0.1.3).
    pub docs: Option<crate::docs::Contract>,
    /// `metadata.monitors`: what `ldp status` checks (an ldp extension; none when absent).
    pub monitors: crate::monitors::Monitors,
    /// Metadata keys this crate does not know (e.g. `lineage`), kept as written: they are
    /// accepted silently and hashed.
    pub extra: Map<String, Value>,
}

/// A table format (`format`, case-insensitive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `CSV`.
    Csv,
    /// `PARQUET`.
    Parquet,
    /// `JSON` (with engine `BIGQUERY`).
    Json,
    /// `ICEBERG`.
    Iceberg,
    /// `DUCKDB` (source only).
    DuckDb,
    /// `XLSX`.
    Xlsx,
}

impl Format {
    /// The formats in the Python tool's order (used in messages).
    pub const ALL: [Format; 6] = [
        Format::Csv,
        Format::Parquet,
        Format::Json,
        Format::Iceberg,
        Format::DuckDb,
        Format::Xlsx,
    ];

    /// The upper-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::Parquet => "PARQUET",
            Format::Json => "JSON",
            Format::Iceberg => "ICEBERG",
            Format::DuckDb => "DUCKDB",
            Format::Xlsx => "XLSX",
        }
    }

    /// Parses a format the way the Python tool does: trimmed, case-insensitive.
    pub fn parse(text: &str) -> Option<Format> {
        let wanted = text.trim().to_uppercase();
        Format::ALL
            .into_iter()
            .find(|format| format.as_str() == wanted)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an Iceberg target is written (`write_mode`, case-insensitive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WriteMode {
    /// `append` (the default for Iceberg).
    Append,
    /// `overwrite`.
    Overwrite,
    /// `upsert` (needs `join_cols`).
    Upsert,
}

impl WriteMode {
    /// The modes in the Python tool's order.
    pub const ALL: [WriteMode; 3] = [WriteMode::Append, WriteMode::Overwrite, WriteMode::Upsert];

    /// The lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            WriteMode::Append => "append",
            WriteMode::Overwrite => "overwrite",
            WriteMode::Upsert => "upsert",
        }
    }

    /// Parses a mode: trimmed, case-insensitive.
    pub fn parse(text: &str) -> Option<WriteMode> {
        let wanted = text.trim().to_lowercase();
        WriteMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == wanted)
    }
}

impl std::fmt::Display for WriteMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which sheet of an XLSX source to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sheet {
    /// By name.
    Name(String),
    /// By position, from 0.
    Index(u64),
}

/// BigQuery credentials (`credentials: {name, path}`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Credentials {
    /// `name`.
    pub name: Option<String>,
    /// `path`: a key file.
    pub path: Option<String>,
}

/// Which side of the pipeline a block is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Section {
    /// `metadata.source`.
    Source,
    /// `metadata.target`.
    Target,
}

impl Section {
    /// `source` or `target`.
    pub fn as_str(self) -> &'static str {
        match self {
            Section::Source => "source",
            Section::Target => "target",
        }
    }
}

/// A source or target block: `name`, `format`, `path` (not for Iceberg), `engine`, and the
/// keys of its format.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// `name` (for Iceberg, the table name; it holds no `.`).
    pub name: String,
    /// `format`.
    pub format: Format,
    /// `path` as written (may hold window placeholders in `metadata.source.path`). Ignored for
    /// Iceberg blocks (a legacy key).
    pub path: Option<String>,
    /// `engine`, trimmed and upper-cased (only `BIGQUERY` means something).
    pub engine: Option<String>,
    /// `catalog` (Iceberg blocks).
    pub catalog: Option<CatalogSpec>,
    /// `write_mode` as written and parsed (Iceberg targets); see [`Block::write_mode`].
    pub write_mode: Option<WriteMode>,
    /// `join_cols` (a string becomes a one-item list).
    pub join_cols: Vec<String>,
    /// `partition_by`.
    pub partition_by: Vec<PartitionField>,
    /// `schema_evolution` (default `true`).
    pub schema_evolution: bool,
    /// DuckDB source: `relation` (`t`, `s.t` or `c.s.t`).
    pub relation: Option<String>,
    /// DuckDB source: `sql` (one SELECT or WITH query).
    pub sql: Option<String>,
    /// DuckDB source: `query_file` (a file holding the query).
    pub query_file: Option<String>,
    /// DuckDB source: `inputs`, the dataset configs (paths relative to the config, as written)
    /// whose Iceberg tables the query reads, in place of `path`; empty when absent.
    pub inputs: Vec<String>,
    /// XLSX source: `sheet` (the first sheet when absent).
    pub sheet: Option<Sheet>,
    /// XLSX source: `header_row`, counted from 1 (default 1).
    pub header_row: u64,
    /// BigQuery source: `credentials`.
    pub credentials: Option<Credentials>,
    /// Keys no builder uses; the runtime logs them as ignored.
    pub extra: Map<String, Value>,
}

impl Block {
    /// The keys a block may have; others are logged as ignored.
    pub const KNOWN_KEYS: [&'static str; 16] = [
        "name",
        "format",
        "path",
        "engine",
        "catalog",
        "write_mode",
        "join_cols",
        "partition_by",
        "schema_evolution",
        "relation",
        "sql",
        "query_file",
        "inputs",
        "sheet",
        "header_row",
        "credentials",
    ];

    /// The write mode a run uses: for Iceberg and DuckDB tables the given mode, `append` by
    /// default; file targets are always replaced whole (`overwrite`).
    pub fn write_mode(&self) -> WriteMode {
        if matches!(self.format, Format::Iceberg | Format::DuckDb) {
            self.write_mode.unwrap_or(WriteMode::Append)
        } else {
            WriteMode::Overwrite
        }
    }

    /// Whether this block is an Iceberg table.
    pub fn is_iceberg(&self) -> bool {
        self.format == Format::Iceberg
    }
}
