//! `handover mcp`: an MCP server over standard input and output, for agents that prefer tools
//! to shell commands. Opt-in: a client runs it only where its MCP configuration names it.
//!
//! The protocol is rmcp's (the official Rust SDK); this module only says which tools there are
//! and hands each call to the code of the command it mirrors (`boot`, `write --from -`,
//! `ack`, `search`, `show`), so an answer reads exactly as the command's output. rmcp and its runtime are linked
//! into this binary alone: the hook executables never start a runtime
//! (tests/project/architecture.rs checks the built binaries).

mod schema;
mod stdio;
mod tools;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Serves one client until it closes standard input.
pub fn run(dir: &Path) -> anyhow::Result<ExitCode> {
    // One thread: one client, whose calls are short; the tools' file work runs on tokio's
    // blocking threads, each bounded in time (`tools::call`).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start the MCP server: {e}"))?;
    let server = Server {
        dir: dir.to_path_buf(),
    };
    let result = runtime.block_on(serve(server));
    // A tool call still stuck on a hostile repository, or a read of standard input still
    // pending, must not keep the process alive once the client has gone.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

async fn serve(server: Server) -> anyhow::Result<ExitCode> {
    let (transport, written) = stdio::transport();
    let running = server
        .serve(transport)
        .await
        .map_err(|e| anyhow::anyhow!("the MCP client did not start a session: {e}"))?;
    let _ = running.waiting().await;
    // Everything the server said reaches standard output before the process ends.
    let _ = tokio::time::timeout(Duration::from_secs(1), written).await;
    Ok(ExitCode::SUCCESS)
}

/// The server: the repository it works on (`-C`, else the directory the client started it
/// in), read afresh by every call.
struct Server {
    dir: PathBuf,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("handover", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = tools::Tool::named(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool {:?}: handover's tools are {}",
                    request.name,
                    tools::names().join(", ")
                ),
                None,
            ));
        };
        let answer = tools::call(tool, self.dir.clone(), request.arguments).await;
        Ok(match answer {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(text) => CallToolResult::error(vec![ContentBlock::text(text)]),
        }
        .into())
    }
}
