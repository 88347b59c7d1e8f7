//! `cohost acp`: cohost as an ACP agent on stdio, for Zed and other ACP
//! clients.

use clap::Args;

use cohost_servers::acp::{serve_stdio, AcpState};

use super::mcp::ServerLimits;
use crate::exit::CmdResult;
use crate::hostctx;

/// Arguments of `cohost acp`.
#[derive(Debug, Args)]
pub struct AcpArgs {
    /// Provider every session runs (default: the first installed agent, else
    /// the mock). Twice or more: every session is a room of these agents,
    /// the `agent` config option picks the one prompts go to.
    #[arg(long, short = 'a')]
    agent: Vec<String>,
    #[command(flatten)]
    limits: ServerLimits,
}

/// Serve until the client closes stdin.
pub async fn run(args: AcpArgs) -> CmdResult {
    if let Err(e) = crate::signals::listen_terminations() {
        tracing::warn!(error = %e, "cannot listen for signals");
    }
    let host = hostctx::host()?;
    let hub = cohost_servers::Hub::new(host, args.limits.hub(), args.agent.first().cloned());
    serve_stdio(AcpState::with_room(hub, args.agent)).await?;
    Ok(0)
}
