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
    /// Provider every session runs (default: the first installed agent, else the mock).
    #[arg(long, short = 'a')]
    agent: Option<String>,
    #[command(flatten)]
    limits: ServerLimits,
}

/// Serve until the client closes stdin.
pub async fn run(args: AcpArgs) -> CmdResult {
    if let Err(e) = crate::signals::listen_terminations() {
        tracing::warn!(error = %e, "cannot listen for signals");
    }
    let host = hostctx::host()?;
    let hub = cohost_servers::Hub::new(host, args.limits.hub(), args.agent);
    serve_stdio(AcpState::new(hub)).await?;
    Ok(0)
}
