//! `cohost mcp`: cohost's agents as MCP tools (stdio, or streamable HTTP
//! on 127.0.0.1 with `--http`).

use clap::Args;
use std::net::SocketAddr;

use cohost_servers::mcp::{serve_http, serve_stdio, McpState};

use crate::exit::CmdResult;
use crate::hostctx;

/// Limits shared by `cohost mcp` and `cohost acp`.
#[derive(Debug, Args)]
pub struct ServerLimits {
    /// Sessions open at once.
    #[arg(long, default_value_t = 8)]
    pub max_sessions: usize,
    /// Seconds an approval waits for the person before it is denied.
    #[arg(long, default_value_t = 120)]
    pub approval_timeout: u64,
    /// Seconds one turn may run before it is interrupted.
    #[arg(long, default_value_t = 1800)]
    pub turn_timeout: u64,
}

impl ServerLimits {
    /// As the hub's limits.
    pub fn hub(&self) -> cohost_servers::HubLimits {
        cohost_servers::HubLimits {
            max_sessions: self.max_sessions.max(1),
            approval_deadline: std::time::Duration::from_secs(self.approval_timeout),
            turn_timeout: std::time::Duration::from_secs(self.turn_timeout.max(1)),
        }
    }
}

/// Arguments of `cohost mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (loopback only, e.g. 127.0.0.1:8765).
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Provider used when ask_agent names none (default: the first installed agent, else the mock).
    #[arg(long, short = 'a')]
    agent: Option<String>,
    #[command(flatten)]
    limits: ServerLimits,
}

/// Serve until the client disconnects (stdio) or Ctrl+C (HTTP).
pub async fn run(args: McpArgs) -> CmdResult {
    if let Err(e) = crate::signals::listen_terminations() {
        tracing::warn!(error = %e, "cannot listen for signals");
    }
    let host = hostctx::host()?;
    let token_paths = host.paths.clone();
    let hub = cohost_servers::Hub::new(host, args.limits.hub(), args.agent);
    let state = McpState::new(hub);
    match args.http {
        None => serve_stdio(state).await?,
        Some(addr) => {
            let (bound, task) = serve_http(state, addr).await?;
            // stdout is free here (no stdio transport): say where it listens.
            crate::say!("cohost MCP server on http://{bound}/mcp; Ctrl+C to stop");
            // The path, never the token: stdout may be logged.
            crate::say!(
                "every request needs the bearer token in {} (owner-only)",
                cohost_api::api_token_file(&token_paths).display()
            );
            tokio::select! {
                _ = task => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
    }
    Ok(0)
}
