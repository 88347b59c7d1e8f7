//! `cohost serve`: the local settings and sessions API on 127.0.0.1.

use clap::Args;
use std::net::SocketAddr;

use crate::exit::CmdResult;
use crate::hostctx;

/// Arguments of `cohost serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1.
    #[arg(long, default_value_t = cohost_api::DEFAULT_PORT)]
    port: u16,
    /// Each session's budget (a room's members share one).
    #[command(flatten)]
    budget: crate::spend::BudgetArgs,
}

/// Serve until Ctrl+C.
pub async fn run(args: ServeArgs) -> CmdResult {
    // SIGTERM/HUP/QUIT end the sessions' agents first; Ctrl+C stays below.
    if let Err(e) = crate::signals::listen_terminations() {
        tracing::warn!(error = %e, "cannot listen for signals");
    }
    let host = hostctx::host()?;
    let cfg = host.config()?;
    let limits = args.budget.limits(&cfg)?;
    let budget = if limits.is_set() {
        Some(cohost_api::ServeBudget {
            limits,
            prices: std::sync::Arc::new(cohost_discovery::prices::PriceTable::load(&cfg)?),
        })
    } else {
        None
    };
    let token_file = cohost_api::api_token_file(&host.paths);
    let (addr, task) =
        cohost_api::serve_budgeted(SocketAddr::from(([127, 0, 0, 1], args.port)), host, budget)
            .await?;
    crate::say!(
        "cohost API on http://{addr} (OpenAPI: http://{addr}/api/openapi.json); Ctrl+C to stop"
    );
    // The path, never the token: stdout may be logged.
    crate::say!(
        "every request needs the bearer token in {} (owner-only)",
        token_file.display()
    );
    tokio::select! {
        _ = task => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    Ok(0)
}
