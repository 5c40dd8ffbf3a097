//! The statement guard: only one read-only `SELECT` or `WITH` query gets through.
//!
//! Two checks:
//!
//! 1. **Lexical** ([`ldp_sql_guard::check_text`], shared with `ldp query`): length and first
//!    keyword.
//! 2. **Parsed** (in [`crate::Query::open`]): DuckDB's own `extract_statements` must give
//!    exactly one statement, and it must prepare as a SELECT. This refuses several statements
//!    however they are hidden in comments or strings, and `WITH x AS (...) INSERT ...`.
//!
//! The database is also opened read-only with external access off, so even a statement that
//! got through could not write, read other files, attach databases or load extensions.

pub use ldp_sql_guard::{MAX_SQL_CHARS, first_keyword};

use crate::error::{Error, Result};

/// Checks the text of `sql` before DuckDB parses it.
///
/// # Errors
///
/// [`Error::Rejected`] with the guard's message.
pub fn check_text(sql: &str) -> Result<()> {
    ldp_sql_guard::check_text(sql).map_err(|e| Error::Rejected { message: e.message })
}

/// The name of a `duckdb_statement_type`, as Python's `duckdb.StatementType` names it.
pub(crate) fn statement_type_name(code: u32) -> &'static str {
    const NAMES: [&str; 28] = [
        "INVALID",
        "SELECT",
        "INSERT",
        "UPDATE",
        "EXPLAIN",
        "DELETE",
        "PREPARE",
        "CREATE",
        "EXECUTE",
        "ALTER",
        "TRANSACTION",
        "COPY",
        "ANALYZE",
        "VARIABLE_SET",
        "CREATE_FUNC",
        "DROP",
        "EXPORT",
        "PRAGMA",
        "VACUUM",
        "CALL",
        "SET",
        "LOAD",
        "RELATION",
        "EXTENSION",
        "LOGICAL_PLAN",
        "ATTACH",
        "DETACH",
        "MULTI",
    ];
    NAMES.get(code as usize).copied().unwrap_or("UNKNOWN")
}
