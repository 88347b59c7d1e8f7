//! `cohost doctor`: everything cohost can check about this machine, with fixes.

use clap::Args;
use cohost_host::hooks::{self, HookAgent};
use cohost_host::{provider_status, slots, StatusValue};
use std::io::Write;

use crate::cmd::agents::enum_name;
use crate::exit::CmdResult;
use crate::hostctx;

/// Arguments of `cohost doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print JSON instead of a report.
    #[arg(long)]
    pub json: bool,
}

/// Run the checks; exit 0 when nothing needs fixing, 1 otherwise.
pub async fn run(args: DoctorArgs) -> CmdResult {
    let (host, cfg) = hostctx::host_and_config()?;
    let mut problems = 0;
    let config_check = slots::validate_config(&host, &cfg);
    let ids = host.known_ids(&cfg);
    let mut statuses = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        if !args.json {
            eprint!("\rprobing {:<16} ({}/{})", id, i + 1, ids.len());
            let _ = std::io::stderr().flush();
        }
        if let Ok(s) = provider_status(&host, &cfg, id).await {
            statuses.push(s);
        }
    }
    if !args.json {
        eprint!("\r{:<40}\r", "");
    }
    let exe = hostctx::current_exe();
    let hook_states: Vec<_> = [HookAgent::Claude, HookAgent::Codex, HookAgent::Gemini]
        .into_iter()
        .map(|a| (a, hooks::status(&host, a, &exe)))
        .collect();

    if args.json {
        let v = serde_json::json!({
            "config": match &config_check { Ok(()) => serde_json::json!({"ok": true}), Err(e) => serde_json::json!({"ok": false, "error": e}) },
            "providers": statuses,
            "hooks": hook_states.iter().map(|(a, s)| match s {
                Ok(s) => serde_json::to_value(s).unwrap_or_default(),
                Err(e) => serde_json::json!({"agent": a.id(), "error": e}),
            }).collect::<Vec<_>>(),
        });
        crate::say!("{v}");
        return Ok(u8::from(config_check.is_err()));
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
    for s in &statuses {
        let mark = match s.status {
            StatusValue::Ready => "✔",
            StatusValue::Missing | StatusValue::Unknown | StatusValue::Installed => "·",
            _ => "✖",
        };
        if matches!(
            s.status,
            StatusValue::NeedsAuth | StatusValue::Failed | StatusValue::Blocked
        ) {
            problems += 1;
        }
        crate::say!(
            "  {mark} {:<14} {:<10} {}",
            s.provider_id,
            enum_name(&s.status),
            s.message
        );
        if let Some(f) = &s.suggested_fix {
            if s.status != StatusValue::Missing {
                crate::say!("      fix: {f}");
            }
        }
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
    crate::say!(
        "\n{}",
        if problems == 0 {
            "No problems found.".to_string()
        } else {
            format!("{problems} problem(s) found; see the fixes above.")
        }
    );
    Ok(u8::from(problems > 0))
}
