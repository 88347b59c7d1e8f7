//! `cohost agents`: every provider cohost knows, with where it was found,
//! its version, status and capabilities; for WebAssembly adapter plugins
//! also the component's sha256 (and whether the manifest pins it), the
//! world it implements and its limits.

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
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let wasm = cohost_agents::drivers::plugin::wasm_plugins(
        &cohost_agents::drivers::plugin::default_plugin_dirs(&cwd),
    );
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
            if let Some(w) = wasm.iter().find(|w| w.id == id) {
                entry["wasm"] = wasm_entry(w);
            }
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
    if !wasm.is_empty() {
        crate::say!("\nWASM ADAPTERS");
        for w in &wasm {
            crate::say!(
                "{:<14} {} sha256:{}{} ({} KiB)\n{:<14} limits: {}",
                w.id,
                w.world,
                w.sha256,
                if w.pinned { " (pinned)" } else { "" },
                w.size.div_ceil(1024),
                "",
                w.limits
            );
        }
    }
    Ok(0)
}

/// The `wasm` field of a WebAssembly adapter plugin in `cohost agents --json`.
fn wasm_entry(w: &cohost_agents::drivers::plugin::WasmPluginInfo) -> serde_json::Value {
    serde_json::json!({
        "component": w.component.display().to_string(),
        "sha256": w.sha256,
        "pinned": w.pinned,
        "world": w.world,
        "size": w.size,
        "limits": {
            "call_time_ms": w.limits.call_time.as_millis(),
            "memory_bytes": w.limits.memory_bytes,
            "events_per_call": w.limits.events_per_call,
            "output_bytes_per_call": w.limits.output_bytes_per_call,
        },
    })
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
