//! `cohost doctor`: everything cohost can check about this machine, with fixes.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command's own terminal output"
)]

use clap::Args;
use cohost_core::CohostError;
use cohost_discovery::hooks::{self, HookAgent};
use cohost_discovery::{provider_status, slots, HostConfig, StatusValue};
use std::io::{IsTerminal, Write};

use crate::cmd::agents::enum_name;
use crate::exit::{CmdResult, DOCTOR_PROBLEMS};
use crate::hostctx;

/// Arguments of `cohost doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print JSON instead of a report.
    #[arg(long)]
    pub json: bool,
}

/// Whether a provider's status is something to fix rather than a note: an
/// agent that is not installed or not logged in, or an API key that is not
/// set, only matters for the providers someone uses.
fn is_problem(status: &StatusValue) -> bool {
    matches!(status, StatusValue::Failed | StatusValue::Blocked)
}

/// Run the checks; exit 0 when cohost can do its job (notes do not count),
/// [`DOCTOR_PROBLEMS`] when something needs fixing.
pub async fn run(args: DoctorArgs) -> CmdResult {
    let host = hostctx::host()?;
    // A broken config is a finding, not a reason to check nothing else.
    // Reported as users see errors (code, message, fix), in text and JSON.
    let (cfg, config_check) = match host.config() {
        Ok(cfg) => {
            let check = slots::validate_config(&host, &cfg).map_err(CohostError::from);
            (cfg, check)
        }
        Err(e) => (HostConfig::empty(&host.paths.config_file), Err(e.into())),
    };
    let mut problems = 0;
    let ids = host.known_ids(&cfg);
    let mut statuses = Vec::new();
    let progress = !args.json && std::io::stderr().is_terminal();
    for (i, id) in ids.iter().enumerate() {
        if progress {
            eprint!("\rprobing {:<16} ({}/{})", id, i + 1, ids.len());
            let _ = std::io::stderr().flush();
        }
        if let Ok(s) = provider_status(&host, &cfg, id).await {
            statuses.push(s);
        }
    }
    if progress {
        eprint!("\r{:<40}\r", "");
    }
    let exe = hostctx::current_exe();
    let hook_states: Vec<_> = HookAgent::all()
        .into_iter()
        .map(|a| (a, hooks::status(&host, a, &exe).map_err(CohostError::from)))
        .collect();

    let sandbox = cohost_agents::process::sandbox::report();
    let sandbox_mode = cfg.sandbox().ok().flatten().unwrap_or_default();
    if args.json {
        let v = serde_json::json!({
            "sandbox": {
                "mode": sandbox_mode.as_str(),
                "landlock_abi": sandbox.landlock_abi,
                "available": sandbox.available,
                "enforces": sandbox.enforces,
                "not_enforced": sandbox.not_enforced,
            },
            "config": match &config_check { Ok(()) => serde_json::json!({"ok": true}), Err(e) => serde_json::json!({"ok": false, "error": e}) },
            "providers": statuses,
            "hooks": hook_states.iter().map(|(a, s)| match s {
                Ok(s) => serde_json::to_value(s).unwrap_or_default(),
                Err(e) => serde_json::json!({"agent": a.id(), "error": e}),
            }).collect::<Vec<_>>(),
        });
        crate::say!("{v}");
        let failed = config_check.is_err()
            || statuses.iter().any(|s| is_problem(&s.status))
            || hook_states.iter().any(|(_, s)| s.is_err());
        return Ok(if failed { DOCTOR_PROBLEMS } else { 0 });
    }

    crate::say!("config: {}", host.paths.config_file.display());
    match &config_check {
        Ok(()) => crate::say!("  ok"),
        Err(e) => {
            problems += 1;
            crate::say!("  ✖ {}: {}", e.code, e.message);
            if let Some(f) = &e.suggested_fix {
                crate::say!("    fix: {f}");
            }
        }
    }
    crate::say!("\nproviders:");
    let mut notes = 0;
    for s in &statuses {
        let mark = match s.status {
            StatusValue::Ready => "✔",
            _ if is_problem(&s.status) => "✖",
            _ => "·",
        };
        if is_problem(&s.status) {
            problems += 1;
        } else if s.status == StatusValue::NeedsAuth {
            notes += 1;
        }
        crate::say!(
            "  {mark} {:<14} {:<10} {}",
            s.provider_id,
            enum_name(&s.status),
            s.message
        );
        if let Some(f) = &s.suggested_fix {
            // A missing CLI's fix is how to install it.
            let label = if s.status == StatusValue::Missing {
                "install"
            } else {
                "fix"
            };
            crate::say!("      {label}: {f}");
        }
    }
    crate::say!(
        "\nsandbox: {} (config `sandbox`; `share` defaults to on)",
        sandbox_mode.as_str()
    );
    if sandbox.available {
        crate::say!(
            "  Landlock ABI {}: agents can be confined",
            sandbox.landlock_abi
        );
        for rule in &sandbox.enforces {
            crate::say!("  ✔ {rule}");
        }
        for rule in &sandbox.not_enforced {
            crate::say!("  · not on this kernel: {rule}");
        }
    } else {
        crate::say!("  · no Landlock in this kernel: --sandbox=on runs agents unconfined, --sandbox=required refuses");
    }
    crate::say!("\nhooks:");
    for (a, s) in &hook_states {
        match s {
            Ok(s) => crate::say!(
                "  {:<8} {} ({})",
                a.id(),
                if s.installed {
                    "installed"
                } else {
                    "not installed"
                },
                s.settings_file
            ),
            Err(e) => {
                problems += 1;
                crate::say!("  {:<8} ✖ {}", a.id(), e.message);
            }
        }
    }
    let notes = if notes == 0 {
        String::new()
    } else {
        format!(" ({notes} provider(s) need a key or a login before you can use them)")
    };
    crate::say!(
        "\n{}{notes}",
        if problems == 0 {
            "No problems found: cohost can run.".to_string()
        } else {
            format!("{problems} problem(s) found; see the fixes above.")
        }
    );
    Ok(if problems == 0 { 0 } else { DOCTOR_PROBLEMS })
}
