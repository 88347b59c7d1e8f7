//! `cohost agents`: every provider cohost knows, with where it was found,
//! its version, status and capabilities.

use clap::Args;
use cohost_discovery::all_statuses;

use crate::exit::{internal, CmdResult};
use crate::hostctx;

/// Arguments of `cohost agents`.
#[derive(Debug, Args)]
pub struct AgentsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Run the command.
pub async fn run(args: AgentsArgs) -> CmdResult {
    let (host, cfg) = hostctx::host_and_config()?;
    let statuses = all_statuses(&host, &cfg).await;
    if args.json {
        let text = serde_json::to_string_pretty(&statuses)
            .map_err(|e| internal(format!("cannot encode the agent list: {e}")))?;
        crate::say!("{text}");
        return Ok(0);
    }
    crate::say!(
        "{:<14} {:<19} {:<12} {:<11} {:<10} {:<12} CAPABILITIES",
        "ID",
        "KIND",
        "VERSION",
        "SOURCE",
        "STATUS",
        "TIER"
    );
    for s in &statuses {
        let kind = host
            .registry
            .get(&s.provider_id)
            .map(|f| f.descriptor().kind.as_str())
            .unwrap_or("-");
        let version = s
            .discovery
            .as_ref()
            .and_then(|d| {
                d.version
                    .map(|v| v.to_string())
                    .or_else(|| d.version_display.clone())
            })
            .map(|v| {
                v.split_whitespace()
                    .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
                    .unwrap_or(&v)
                    .to_string()
            })
            .unwrap_or_else(|| "-".into());
        let source = s
            .discovery
            .as_ref()
            .map(|d| enum_name(&d.command_source))
            .unwrap_or_else(|| "-".into());
        let (tier, caps) = match &s.driver {
            Some(c) => (enum_name(&c.tier), c.summary()),
            None => ("no driver".into(), s.capabilities.join(" ")),
        };
        crate::say!(
            "{:<14} {:<19} {:<12} {:<11} {:<10} {:<12} {}",
            s.provider_id,
            kind,
            truncate(&version, 12),
            source,
            enum_name(&s.status),
            tier,
            caps
        );
    }
    Ok(0)
}

/// The serde name of a unit enum value.
pub fn enum_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_else(|| "?".into())
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).chain(['…']).collect()
    }
}
