//! The MCP server: rmcp's [`ServerHandler`] over the tools. Each call runs on a blocking thread
//! (queries have their own runtime), is audited once it ends, and comes back as structured
//! JSON plus one text block; an error is `isError: true` with `{"error": {"type", "message"}}`.
//! Every call ends, so every call is audited: a query past the nesting limits is refused before
//! it plans, one past its time limit is stopped inside execution, a value past the memory limit
//! is refused before it is built, and a panic is caught.

use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Map;

use crate::audit::{AuditLog, AuditRecord, scalar_arguments};
use crate::error::{ToolError, ToolErrorKind, error_document};
use crate::tools::{self, Context, Noted};

/// The server's name, as the Python tool's.
pub const SERVER_NAME: &str = "local-data-platform";
/// Its title.
pub const SERVER_TITLE: &str = "Local Data Platform (read-only)";

/// The MCP server of a lake.
#[derive(Clone)]
pub struct LakeServer {
    context: Arc<Context>,
    tools: Arc<Vec<Tool>>,
    audit: AuditLog,
}

impl LakeServer {
    /// A server over `context`, auditing to `audit`.
    pub fn new(context: Context, audit: AuditLog) -> LakeServer {
        let tools = tools::definitions(&context);
        LakeServer {
            context: Arc::new(context),
            tools: Arc::new(tools),
            audit,
        }
    }

    /// Runs one call and audits it.
    pub fn handle(&self, name: &str, arguments: &Map<String, serde_json::Value>) -> CallToolResult {
        let started = Instant::now();
        let mut noted = Noted::default();
        // A call that panics is audited too, as a failed call.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tools::call(&self.context, name, arguments, &mut noted)
        }))
        .unwrap_or_else(|_| {
            Err(ToolError::new(
                ToolErrorKind::QueryFailed,
                "the call failed with an internal error of the server; it is still serving",
            ))
        });
        let (status, error) = match &outcome {
            Ok(_) => ("ok", None),
            Err(e) => (e.kind.audit_status(), Some(e.message.clone())),
        };
        self.audit.record(AuditRecord {
            tool: name.to_owned(),
            status: status.to_owned(),
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            sql: noted.sql,
            table: noted.table,
            arguments: scalar_arguments(arguments),
            rows: if outcome.is_ok() { noted.rows } else { None },
            truncated: if outcome.is_ok() {
                noted.truncated
            } else {
                None
            },
            error,
            event_id: uuid::Uuid::new_v4().simple().to_string(),
            ts: jiff::Timestamp::now(),
        });
        match outcome {
            Ok(value) => CallToolResult::structured(value),
            Err(error) => CallToolResult::structured_error(error_document(&error)),
        }
    }
}

impl ServerHandler for LakeServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION"))
                    .with_title(SERVER_TITLE),
            )
            .with_instructions(
                "Read-only access to Iceberg tables. list_tables first; query runs one SELECT or \
                 WITH (DataFusion SQL) over tables named ns.table; every call is audited.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let server = self.clone();
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        let result = tokio::task::spawn_blocking(move || server.handle(&name, &arguments))
            .await
            .unwrap_or_else(|e| {
                CallToolResult::structured_error(error_document(&ToolError::new(
                    ToolErrorKind::QueryFailed,
                    format!("the call failed: {e}"),
                )))
            });
        Ok(result.into())
    }
}
