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
        let mut list = serde_json::to_value(&statuses)
            .map_err(|e| internal(format!("cannot encode the agent list: {e}")))?;
        // What the OS sandbox does for each agent on this machine.
        let report = cohost_agents::process::sandbox::report();
        for entry in list.as_array_mut().into_iter().flatten() {
            let id = entry["provider_id"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let kind = host.registry.get(&id).ok().map(|f| f.descriptor().kind);
            entry["sandbox"] = sandbox_entry(&id, kind, &report);
        }
        let text = serde_json::to_string_pretty(&list)
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

/// Providers whose real CLI the sandbox tests run confined, end to end.
const SANDBOX_TESTED: &[&str] = &["claude", "codex"];

/// The `sandbox` field of one agent in `cohost agents --json`: whether
/// cohost confines its processes (agent CLIs, not API providers, whose
/// requests cohost makes itself) and what the kernel enforces here.
fn sandbox_entry(
    id: &str,
    kind: Option<cohost_core::ProviderKind>,
    report: &cohost_agents::process::sandbox::SandboxReport,
) -> serde_json::Value {
    let applies = kind == Some(cohost_core::ProviderKind::AgentCli) && id != "mock";
    serde_json::json!({
        "applies": applies,
        "tested_with_real_cli": SANDBOX_TESTED.contains(&id),
        "landlock_abi": report.landlock_abi,
        "enforces": if applies { report.enforces.clone() } else { Vec::new() },
    })
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
