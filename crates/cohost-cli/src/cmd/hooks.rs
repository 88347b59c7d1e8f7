//! `cohost hooks install|uninstall|status ID` and `cohost hook-event`.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command's own terminal output"
)]

use clap::{Args, Subcommand};
use cohost_discovery::hooks::{self, HookAgent, HookEventOutcome};

use crate::exit::CmdResult;
use crate::hostctx;

/// Arguments of `cohost hooks`.
#[derive(Debug, Args)]
pub struct HooksArgs {
    #[command(subcommand)]
    action: HooksAction,
}

#[derive(Debug, Subcommand)]
enum HooksAction {
    /// Install cohost's hook into the agent's settings (idempotent; backs up first).
    Install {
        /// `claude`, `codex` or `gemini`.
        id: String,
    },
    /// Remove it, restoring the original file when nothing else changed it.
    Uninstall {
        /// `claude`, `codex` or `gemini`.
        id: String,
    },
    /// Whether it is installed.
    Status {
        /// `claude`, `codex` or `gemini`.
        id: String,
    },
}

/// Run `cohost hooks`.
pub async fn run(args: HooksArgs) -> CmdResult {
    let host = hostctx::host()?;
    let exe = hostctx::current_exe();
    let (id, op): (&str, fn(&cohost_discovery::Host, HookAgent, &str) -> _) = match &args.action {
        HooksAction::Install { id } => (id, hooks::install),
        HooksAction::Uninstall { id } => (id, hooks::uninstall),
        HooksAction::Status { id } => (id, hooks::status),
    };
    let agent = HookAgent::parse(id)?;
    let s = op(&host, agent, &exe)?;
    println!(
        "{}: {} ({}; {}){}",
        agent.id(),
        if s.installed {
            "installed"
        } else {
            "not installed"
        },
        s.settings_file,
        s.action,
        if s.has_backup {
            "; original backed up"
        } else {
            ""
        }
    );
    Ok(0)
}

/// Arguments of `cohost hook-event` (called by the agents' hooks).
#[derive(Debug, Args)]
pub struct HookEventArgs {
    /// The agent whose hook fired.
    agent: String,
    /// The event JSON (Codex passes it as an argument; others use stdin).
    payload: Option<String>,
}

/// Forward the hook's JSON to a running cohost; always exits 0 quickly so
/// the agent is never blocked.
pub async fn hook_event(args: HookEventArgs) -> CmdResult {
    let Ok(host) = hostctx::host() else {
        return Ok(0);
    };
    let outcome = hooks::hook_event(
        &host.paths.hook_socket(),
        &args.agent,
        args.payload.as_deref(),
        tokio::io::stdin(),
    )
    .await;
    if let HookEventOutcome::Dropped(why) = outcome {
        tracing::debug!(%why, "hook event dropped");
    }
    Ok(0)
}
