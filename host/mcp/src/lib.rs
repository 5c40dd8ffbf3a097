//! `ldp mcp`: safe, audited, read-only access to a lake's Iceberg tables for agents, as an MCP
//! server over stdio built on the official Rust SDK (`rmcp`).
//!
//! * [`Lake`]: the tables the configs name, narrowed by an allowlist; a table is
//!   `namespace.table` or a unique bare name, and an unknown table and one not allowed give the
//!   same error.
//! * The tools ([`tools`]): `list_tables`, `describe_table`, `query`, `sample_rows`,
//!   `table_history`, `get_dataset` (the Python tool's), and `run_transform`, which runs an
//!   agent's JavaScript on a sample of a table in ldp's sandbox and writes nothing.
//! * The guardrails are construction, not string checks: the SQL must parse (DataFusion's
//!   parser) as exactly one query ([`ldp_sql::check_read_only`]); its session has only the
//!   served tables registered, no file or URL table functions, no DDL, DML or `SET`; it runs
//!   under a memory limit and a time limit; its rows are capped and `truncated` says so.
//! * [`AuditLog`]: every call to a JSONL file at once, and to `_ldp.audit` in batches.

mod audit;
mod error;
mod lake;
mod server;
pub mod tools;
pub mod values;

use std::path::PathBuf;
use std::time::Duration;

use ldp_plugin_runtime::Runtime;
use rmcp::ServiceExt;

pub use audit::{AuditLog, AuditRecord, ICEBERG_BATCH};
pub use error::{ToolError, ToolErrorKind};
pub use lake::{Lake, Served};
pub use server::{LakeServer, SERVER_NAME, SERVER_TITLE};

/// How `ldp mcp` serves.
#[derive(Debug, Clone)]
pub struct McpSettings {
    /// Dataset configs, or folders of them.
    pub configs: Vec<PathBuf>,
    /// Catalog spec files: every table of each catalog is served.
    pub catalogs: Vec<PathBuf>,
    /// Allowlist patterns (empty: every table).
    pub allow: Vec<String>,
    /// The most rows a result holds.
    pub max_rows: usize,
    /// The longest a query may run.
    pub timeout: Duration,
    /// The JSONL audit file (default `<first warehouse>/.ldp/audit/mcp_audit.jsonl`).
    pub audit: Option<PathBuf>,
    /// Also audit to `_ldp.audit` in the first served table's catalog.
    pub iceberg_audit: bool,
    /// The most memory one query may hold (bytes).
    pub memory_limit: Option<usize>,
    /// Where queries run: `None` in this process (under `memory_limit`), else the engine
    /// the factory makes (a cluster: `--cluster`, `LDP_CLUSTER`).
    pub engine: Option<ldp_sql::EngineFactory>,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The configs could not be read.
    #[error(transparent)]
    Lake(#[from] ldp_pipeline::Error),
    /// No table to serve.
    #[error(
        "no Iceberg table to serve in {configs}: the configs name none that exists, the catalogs hold none, or --allow lets none through"
    )]
    NoTables {
        /// The configs, listed.
        configs: String,
    },
    /// The stdio transport failed.
    #[error("the MCP session failed: {0}")]
    Session(String),
    /// The async runtime could not start.
    #[error("cannot start the server's runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

/// Discovers the lake, prints the start-up line on stderr and serves over stdio until the
/// client goes away; then the audit's last batch goes to `_ldp.audit`.
///
/// # Errors
///
/// [`McpError`]: no table to serve, a config that cannot be read, a failed session.
pub fn serve(settings: &McpSettings, runtime: Runtime) -> Result<(), McpError> {
    let lake = Lake::discover(&settings.configs, &settings.catalogs, &settings.allow)?;
    let Some(first) = lake.tables.first() else {
        return Err(McpError::NoTables {
            configs: settings
                .configs
                .iter()
                .chain(&settings.catalogs)
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    let audit_path = settings
        .audit
        .clone()
        .unwrap_or_else(|| first.target.warehouse.join(".ldp/audit/mcp_audit.jsonl"));
    let iceberg = settings.iceberg_audit.then(|| first.target.clone());
    let audit = AuditLog::new(&audit_path, iceberg);
    eprintln!(
        "ldp mcp: serving {} table{} over stdio (max {} rows, {} s per query); audit log {}",
        lake.tables.len(),
        if lake.tables.len() == 1 { "" } else { "s" },
        settings.max_rows,
        settings.timeout.as_secs_f64(),
        audit_path.display()
    );
    let context = tools::Context {
        lake,
        max_rows: settings.max_rows,
        timeout: settings.timeout,
        memory_limit: settings.memory_limit,
        engine: settings.engine.clone(),
        runtime,
    };
    let server = LakeServer::new(context, audit.clone());
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(McpError::Runtime)?;
    let outcome = tokio.block_on(async {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| McpError::Session(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| McpError::Session(e.to_string()))?;
        Ok(())
    });
    audit.close();
    outcome
}
