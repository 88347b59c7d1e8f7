//! `cohost serve`: the local settings and sessions API on 127.0.0.1.

use clap::Args;
use std::net::SocketAddr;

use crate::exit;
use crate::hostctx;

/// Arguments of `cohost serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1.
    #[arg(long, default_value_t = cohost_host::DEFAULT_PORT)]
    port: u16,
}

/// Serve until Ctrl+C.
pub async fn run(args: ServeArgs) -> u8 {
    // SIGTERM/HUP/QUIT end the sessions' agents first; Ctrl+C stays below.
    if let Err(e) = crate::signals::listen_terminations() {
        tracing::warn!(error = %e, "cannot listen for signals");
    }
    let host = match hostctx::host() {
        Ok(h) => h,
        Err(e) => return exit::report(&e, false),
    };
    let (addr, task) =
        match cohost_host::serve(SocketAddr::from(([127, 0, 0, 1], args.port)), host).await {
            Ok(x) => x,
            Err(e) => return exit::report(&e, false),
        };
    println!(
        "cohost API on http://{addr} (OpenAPI: http://{addr}/api/openapi.json); Ctrl+C to stop"
    );
    tokio::select! {
        _ = task => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    0
}
