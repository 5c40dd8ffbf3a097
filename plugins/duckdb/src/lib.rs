//! The DUCKDB source: every row of a table (`relation`), or the result of one query (`sql`, or
//! `query_file`), of a DuckDB database file.
//!
//! DuckDB is C++ and cannot run in the sandbox, so this component asks the host through the
//! narrow `ldp:plugin/duckdb` interface (open the file read-only, run one SELECT, stream Arrow
//! back) and passes the host's Arrow IPC messages on untouched. What stays here is the source's
//! contract: its config, the SQL for a relation (every part quoted, as the Python tool), reading a
//! `query_file` from a granted folder, and the Python tool's messages. The host holds DuckDB,
//! checks the SQL again with DuckDB's parser, and runs it read-only with external access off.
//!
//! The bindings are generated here rather than through the SDK: the SDK's source world does not
//! import `duckdb`, and the batches need no decoding on the way through.

pub mod config;

use config::{Config, Rows, is_duckdb_error};

mod bindings {
    wit_bindgen::generate!({
        world: "duckdb-source-plugin",
        path: "../../wit",
    });
}

use bindings::exports::ldp::plugin::source::Guest;
use bindings::ldp::plugin::duckdb as host;
use bindings::ldp::plugin::types::{ErrorKind, PluginError, PluginInfo, PluginKind};

fn error(kind: ErrorKind, message: String) -> PluginError {
    PluginError { kind, message }
}

/// The plugin.
struct DuckdbSource;

impl Guest for DuckdbSource {
    fn describe() -> PluginInfo {
        PluginInfo {
            name: "duckdb".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            kind: PluginKind::Source,
            description:
                "Reads a table or one SELECT query of a DuckDB file, run read-only by the host"
                    .to_string(),
            config_schema: config::SCHEMA.to_string(),
        }
    }

    fn open(config: String) -> Result<Vec<u8>, PluginError> {
        let config = Config::parse(&config).map_err(|m| error(ErrorKind::Config, m))?;
        let sql = match &config.rows {
            Rows::Relation(relation) => {
                config::relation_sql(relation).map_err(|m| error(ErrorKind::Config, m))?
            }
            Rows::Sql(sql) => sql.clone(),
            Rows::QueryFile(file) => std::fs::read_to_string(file).map_err(|e| {
                error(
                    ErrorKind::Io,
                    format!(
                        "DuckDB source '{}': cannot read query_file {file}: {e}",
                        config.name
                    ),
                )
            })?,
        };
        host::query(&config.path, &sql).map_err(|e| explain(&config, e))
    }

    fn next() -> Result<Option<Vec<u8>>, PluginError> {
        host::next()
    }
}

/// The Python tool's messages for what the host reports.
fn explain(config: &Config, e: PluginError) -> PluginError {
    if e.kind != ErrorKind::Config {
        return e;
    }
    let message = match &config.rows {
        Rows::Relation(relation) if e.message.starts_with("Catalog Error") => format!(
            "DuckDB relation {relation} does not exist in {}",
            config.path
        ),
        _ if is_duckdb_error(&e.message) => format!(
            "DuckDB source '{}': the query failed on {}: {}",
            config.name, config.path, e.message
        ),
        _ => format!("DuckDB source '{}': {}", config.name, e.message),
    };
    error(ErrorKind::Config, message)
}

bindings::export!(DuckdbSource with_types_in bindings);
