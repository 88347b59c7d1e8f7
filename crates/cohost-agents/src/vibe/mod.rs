//! Mistral Vibe (provider id `vibe`, PyPI `mistral-vibe`), driven only over
//! ACP: its `vibe-acp` executable answers `initialize` with `loadSession`
//! and image prompts, asks `session/request_permission` before tools,
//! takes `session/cancel` (the process stays up for the next prompt) and
//! `session/load`, and streams answers in pieces (checked on the pinned
//! 3.0.3 against cohost-fakellm). Its headless mode (`vibe -p PROMPT
//! --output streaming`) prints each message whole, and answers its own
//! approval callback: under its default agent it denies the shell call
//! nobody can be asked about, `--auto-approve` runs everything; approvals
//! there could only be launch policy. That mode is not driven (its
//! captures are kept in `tests/research/vibe/` as evidence).
//!
//! Its default session mode, `accept-edits`, writes files without asking
//! (only shell calls ask), so the launch spec names the session modes that
//! put it under cohost's approvals: `ask` (every tool asks) unless the
//! policy is auto-approve (`auto-approve`). The client switches every new
//! or loaded session with `session/set_mode`, since a loaded one comes back
//! in the default mode.

use cohost_core::{Capabilities, ResumeSupport};

use crate::acp::providers::{spec, ACP_CAPABILITIES, ACP_FLAGS};
use crate::acp::spec::{AcpSpec, ApprovalModes};
use crate::catalog::{self, AcpMode, AuthSpec, CliEntry};
use crate::process::{Version, VersionRange};

/// Mistral Vibe's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "vibe",
    label: "Mistral Vibe",
    binaries: &["vibe-acp"],
    pin_key: Some("MISTRAL_VIBE_VERSION"),
    auth: AuthSpec {
        env_vars: &["MISTRAL_API_KEY"],
        // `vibe-acp --setup` stores the key here when the system keyring
        // (which cohost cannot read) is unavailable.
        credential_files: &[".vibe/.env"],
        status_args: None,
    },
    login_args: Some(&["--setup"]),
    install_hint: "pip install mistral-vibe (Python 3.12 or newer; provides vibe-acp)",
    // `VIBE_<FIELD>` overrides any field of its config.toml.
    env_prefixes: &["VIBE_", "MISTRAL_"],
    relevant_env: &["VIBE_HOME", "VIBE_ACTIVE_MODEL", "VIBE_DEFAULT_AGENT"],
    flags: ACP_FLAGS,
    token_streaming: true,
    // Every turn's `session/prompt` answer carries its token usage.
    capabilities: Capabilities {
        usage: true,
        ..ACP_CAPABILITIES
    },
    // 3.0.3 is pinned in `tests/agents/versions.env`.
    accepted: Some(VersionRange {
        min: Version::new(3, 0, 0),
        max_exclusive: Version::new(4, 0, 0),
    }),
    acp: Some(AcpMode {
        id: "vibe",
        spec: launch,
    }),
    ..catalog::BASE
};

/// What every Vibe process gets: no update check and no self-update
/// replacing the package under a running session (config fields
/// `enable_update_checks` and `enable_auto_update`, set through their
/// `VIBE_` variables; the user's env wins).
const FIXED_ENV: &[(&str, &str)] = &[
    ("VIBE_ENABLE_UPDATE_CHECKS", "false"),
    ("VIBE_ENABLE_AUTO_UPDATE", "false"),
];

fn launch() -> AcpSpec {
    let mut s = spec(
        SPEC.id,
        SPEC.label,
        &SPEC,
        &[],
        &[],
        FIXED_ENV,
        ResumeSupport::NativeId,
    );
    // `vibe-acp` takes no model argument; the config field `active_model`
    // (a model's alias) is also read from this variable.
    s.model_env = Some("VIBE_ACTIVE_MODEL".into());
    s.approval_modes = Some(ApprovalModes {
        ask: "ask".into(),
        auto_approve: "auto-approve".into(),
    });
    s.usage = true;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_core::ApprovalMode;

    #[test]
    fn vibe_acp_asks_unless_all_is_approved_and_takes_its_model_from_the_env() {
        let s = launch();
        assert_eq!(s.binaries, ["vibe-acp"]);
        assert!(s.args.is_empty(), "{:?}", s.args);
        assert_eq!(s.model_env.as_deref(), Some("VIBE_ACTIVE_MODEL"));
        let modes = s.approval_modes.expect("vibe's default mode edits unasked");
        assert_eq!(modes.for_approval(ApprovalMode::Ask), "ask");
        assert_eq!(modes.for_approval(ApprovalMode::DenyAll), "ask");
        assert_eq!(
            modes.for_approval(ApprovalMode::AutoApprove),
            "auto-approve"
        );
        assert!(s
            .env
            .iter()
            .any(|(k, v)| k == "VIBE_ENABLE_AUTO_UPDATE" && v == "false"));
        assert_eq!(s.usage, SPEC.capabilities.usage);
    }
}
