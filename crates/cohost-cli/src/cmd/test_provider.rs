//! `cohost test ID`: a smoke test ("Reply exactly: OK", tools off, timeout),
//! cached by provider and configuration fingerprint.

use clap::Args;

use crate::exit::{self, CmdResult};
use crate::hostctx;

/// Arguments of `cohost test`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// Provider id.
    id: String,
    /// Run even when a cached result for this configuration exists.
    #[arg(long)]
    force: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Run the smoke test.
pub async fn run(args: TestArgs) -> CmdResult {
    let host = hostctx::host()?;
    let result = cohost_host::test_provider(&host, &args.id, args.force).await?;
    if args.json {
        crate::say!("{}", serde_json::to_string(&result).unwrap_or_default());
    } else {
        crate::say!(
            "{} {}: {} ({} ms{})",
            if result.ok { "✔" } else { "✖" },
            result.provider_id,
            result.message,
            result.duration_ms,
            if result.cached {
                ", cached; --force to rerun"
            } else {
                ""
            }
        );
        if let Some(fix) = result.error.as_ref().and_then(|e| e.suggested_fix.as_ref()) {
            crate::say!("  fix: {fix}");
        }
    }
    // The failure is already shown as the test's result.
    Ok(match (&result.error, result.ok) {
        (_, true) => 0,
        (Some(e), false) => exit::for_error(e),
        (None, false) => exit::INTERNAL,
    })
}
