//! `cohost mcp`: cohost's agents as MCP tools, on the official Rust SDK
//! (`rmcp`), over stdio or streamable HTTP on 127.0.0.1.
//!
//! Tools: `list_agents`, `ask_agent`, `ask_room`, `continue_session`, `session_status`,
//! `wait`, `steer`, `interrupt`, `session_changes`, `undo_turn`, `list_approvals`,
//! `resolve_approval`
//! ([`params::tools`]). Sessions are the [`Hub`](crate::hub::Hub)'s (the
//! one session path, recorded in the store); each has a
//! [`turn::TurnTracker`]. Approvals go to the person through MCP elicitation
//! where the client supports it, and stay pending for `list_approvals` /
//! `resolve_approval` otherwise; the engine's deadline denies what nobody
//! answers. Errors are tool errors whose structured content is cohost's
//! error (`code`, `message`, `suggested_fix`).

mod body_limit;
mod changes;
mod elicit;
pub mod params;
mod run;
mod state;
pub mod turn;

#[cfg(test)]
mod sanitizer_tests;

pub use state::McpState;

use std::net::SocketAddr;
use std::sync::Arc;

use cohost_core::{CohostError, ErrorCode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

/// The MCP server handler (one per connection; the state is shared).
#[derive(Clone)]
pub struct CohostMcp {
    state: Arc<McpState>,
}

impl CohostMcp {
    /// A handler on `state`.
    pub fn new(state: Arc<McpState>) -> CohostMcp {
        CohostMcp { state }
    }
}

/// A tool's result: cohost's error becomes a tool error (not a protocol
/// error), so the calling model sees the code and the fix; it passes
/// `sanitizer` (the host's, or the bridge's).
pub(crate) fn tool_result(
    sanitizer: &cohost_core::Sanitizer,
    out: Result<Value, CohostError>,
) -> CallToolResult {
    match out {
        Ok(v) => CallToolResult::structured(v),
        Err(e) => {
            let mut v = serde_json::to_value(&e).unwrap_or_default();
            sanitizer.sanitize_json(&mut v);
            CallToolResult::structured_error(v)
        }
    }
}

/// Arguments of `name`, or a `CONFIG_INVALID` tool error naming the problem.
fn args<T: serde::de::DeserializeOwned>(name: &str, v: Value) -> Result<T, CohostError> {
    serde_json::from_value(v).map_err(|e| {
        CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("bad arguments for `{name}`: {e}"),
        )
        .with_fix("see the tool's input schema in tools/list")
    })
}

impl ServerHandler for CohostMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("cohost", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "cohost drives coding agents (Claude Code, Codex, Gemini CLI, Qwen, OpenCode, \
                 Copilot, aider, HTTP model APIs, the mock). Call list_agents, then ask_agent; \
                 answer the agent's tool approvals when asked (or with resolve_approval).",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(params::tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let a = Value::Object(request.arguments.unwrap_or_default());
        let name = request.name.as_ref();
        let st = &self.state;
        let out = match name {
            "list_agents" => run::list_agents(st).await,
            "ask_agent" => match args(name, a) {
                Ok(p) => run::ask_agent(st, p, context).await,
                Err(e) => Err(e),
            },
            "ask_room" => match args(name, a) {
                Ok(p) => run::ask_room(st, p, context).await,
                Err(e) => Err(e),
            },
            "continue_session" => match args(name, a) {
                Ok(p) => run::continue_session(st, p, context).await,
                Err(e) => Err(e),
            },
            "session_status" => match args::<params::Status>(name, a) {
                Ok(p) => run::status(st, p.session_id.as_deref()),
                Err(e) => Err(e),
            },
            "wait" => match args(name, a) {
                Ok(p) => run::wait(st, p, context).await,
                Err(e) => Err(e),
            },
            "steer" => match args(name, a) {
                Ok(p) => run::steer(st, p).await,
                Err(e) => Err(e),
            },
            "interrupt" => match args::<params::SessionId>(name, a) {
                Ok(p) => run::interrupt(st, &p.session_id),
                Err(e) => Err(e),
            },
            "session_changes" => match args(name, a) {
                Ok(p) => changes::session_changes(st, p).await,
                Err(e) => Err(e),
            },
            "undo_turn" => match args(name, a) {
                Ok(p) => changes::undo_turn(st, p).await,
                Err(e) => Err(e),
            },
            "list_approvals" => match args(name, a) {
                Ok(p) => run::list_approvals(st, p),
                Err(e) => Err(e),
            },
            "resolve_approval" => match args(name, a) {
                Ok(p) => run::resolve_approval(st, p),
                Err(e) => Err(e),
            },
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown tool `{other}`"),
                    None,
                ))
            }
        };
        Ok(tool_result(&self.state.hub().host().sanitizer, out).into())
    }
}

fn io_error(what: &str, e: impl std::fmt::Display) -> CohostError {
    CohostError::new(ErrorCode::NetworkError, format!("{what}: {e}"))
}

/// Serve MCP on stdin/stdout until the client closes it; then every session
/// is ended.
pub async fn serve_stdio(state: Arc<McpState>) -> Result<(), CohostError> {
    let service = CohostMcp::new(state.clone())
        .serve(crate::stdio_guard::stdio_bytes())
        .await
        .map_err(|e| io_error("the MCP client did not initialize", e))?;
    let ended = service.waiting().await;
    state.hub.close_all();
    ended
        .map(|_| ())
        .map_err(|e| io_error("the MCP connection failed", e))
}

/// Serve streamable HTTP at `http://ADDR/mcp` (loopback only, with the
/// user's bearer token from [`cohost_api::api_token_file`]).
/// Returns the bound address and the server task.
pub async fn serve_http(
    state: Arc<McpState>,
    addr: SocketAddr,
) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), CohostError> {
    use rmcp::transport::streamable_http_server::{
        session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
    };
    if !addr.ip().is_loopback() {
        return Err(CohostError::new(
            ErrorCode::LocalOnlyRequired,
            format!("refusing to serve MCP on {addr}: not a loopback address"),
        )
        .with_fix("use --http 127.0.0.1:PORT"));
    }
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("cannot listen on {addr}: {e}"),
        )
        .with_fix("pick another port")
    })?;
    let bound = listener
        .local_addr()
        .map_err(|e| io_error("no local address", e))?;
    let shared = state.clone();
    let service = StreamableHttpService::new(
        move || Ok(CohostMcp::new(shared.clone())),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let port = bound.port();
    // Every local user is a loopback peer: like `cohost serve`, the tools
    // need the user's bearer token (checked after the loopback guard).
    let credential = Arc::new(cohost_api::api_credential(state.hub.host())?);
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(body_limit::limit_body))
        .layer(axum::middleware::from_fn_with_state(
            credential,
            cohost_api::require_token,
        ))
        .layer(axum::middleware::from_fn_with_state(port, guard_host));
    let task = tokio::spawn(async move {
        let svc = app.into_make_service_with_connect_info::<SocketAddr>();
        if let Err(e) = axum::serve(listener, svc).await {
            tracing::error!(error = %e, "MCP HTTP server stopped");
        }
        state.hub.close_all();
    });
    Ok((bound, task))
}

/// Only this machine, a loopback `Host` and no foreign `Origin` (DNS
/// rebinding) reach the tools: `cohost serve`'s check.
async fn guard_host(
    axum::extract::State(port): axum::extract::State<u16>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let peer = req
        .extensions()
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    let h = req.headers();
    let verdict = cohost_api::check_local(
        peer,
        h.get(axum::http::header::HOST)
            .and_then(|v| v.to_str().ok()),
        h.get(axum::http::header::ORIGIN)
            .and_then(|v| v.to_str().ok()),
        port,
    );
    match verdict {
        Ok(()) => next.run(req).await,
        Err(why) => (axum::http::StatusCode::FORBIDDEN, why).into_response(),
    }
}
