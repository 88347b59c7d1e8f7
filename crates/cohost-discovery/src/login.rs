//! Login: cohost never runs an interactive login itself (not from the
//! settings API, never with captured stdio). It returns the command; the
//! `cohost login ID` subcommand runs it with inherited stdio.

use cohost_agents::catalog;
use serde::Serialize;
use std::path::PathBuf;

use crate::discovery::discover_cli;
use crate::error::DiscoveryError;
use crate::host::Host;

/// The command that signs a user in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoginCommand {
    /// Provider id.
    pub provider_id: String,
    /// The executable (resolved by discovery).
    #[serde(skip)]
    pub program: PathBuf,
    /// Arguments after the program.
    pub args: Vec<String>,
    /// The command line for display (sanitized, `~` for home).
    pub display: String,
    /// What the user will see.
    pub note: String,
}

/// The login command for `id`. API providers have none: the error says
/// which variable to set.
pub async fn login_command(host: &Host, id: &str) -> Result<LoginCommand, DiscoveryError> {
    let cfg = host.config()?;
    let f = host.facts(&cfg, id)?;
    let Some(entry) = f.cli else {
        let keys = catalog::api_key_env(id);
        let what = match keys.first() {
            Some(k) => format!("set ${k}"),
            None => "no sign-in is needed".to_string(),
        };
        return Err(DiscoveryError::NoLogin {
            id: id.to_owned(),
            instead: what,
        });
    };
    let Some(mut argv) = entry.login_command() else {
        return Err(DiscoveryError::LoginByEnv {
            id: id.to_owned(),
            vars: entry.auth.env_vars.to_vec(),
        });
    };
    // ACP wrappers sign in through the CLI they wrap (`codex-acp` → `codex`).
    let login_entry = entry
        .login_binary
        .and_then(|b| catalog::CLIS.iter().find(|e| e.binaries.contains(&b)))
        .unwrap_or(entry);
    let explicit = cfg.provider(login_entry.id).binary;
    let d = discover_cli(
        login_entry,
        explicit.as_deref(),
        &host.env,
        &host.timeouts,
        &host.sanitizer,
    )
    .await;
    let Some(program) = d.command else {
        return Err(DiscoveryError::NotInstalled {
            program: argv[0].clone(),
            install_hint: login_entry.install_hint,
        });
    };
    let args = argv.split_off(1);
    let display = host
        .sanitizer
        .sanitize(format!("{} {}", program.display(), args.join(" ")).trim())
        .into_owned();
    let note = if args.is_empty() {
        format!(
            "starts {} in the terminal; choose its sign-in option there",
            entry.label
        )
    } else {
        format!("runs {}'s own sign-in in the terminal", entry.label)
    };
    Ok(LoginCommand {
        provider_id: id.into(),
        program,
        args,
        display,
        note,
    })
}
