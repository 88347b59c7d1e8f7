//! OpenCode driver (provider id `opencode`): `opencode run --format json
//! --thinking PROMPT` per turn, `-s SESSION_ID` after the first.
//!
//! What this channel can do on opencode 1.18 (checked against the pinned
//! binary): finished parts only (one `text` part = one chunk, so streaming
//! is `whole messages`), reasoning parts with `--thinking`, tools reported
//! after they settle, per-step token usage, resume by session id, SIGINT to
//! stop. Run mode cannot wait for a permission answer: a rule set to `ask`
//! is auto-rejected. So approvals are launch policy (`advisory`):
//! [`ApprovalMode::Ask`] sets `OPENCODE_PERMISSION` so edits, shell and web
//! fetches are `ask` (= rejected, reported as `denied`), `DenyAll` sets them
//! to `deny`, and only `AutoApprove` passes `--auto`. Blocking approvals
//! and a protocol cancel come through opencode's ACP mode (`opencode-acp`).

pub(crate) mod normalize;
pub(crate) mod wire;

use cohost_core::{AdapterConfig, ApprovalMode, Capabilities, ResumeSupport, SupportTier};

pub(crate) use normalize::OpenCodeNormalizer;

use crate::acp::providers::{pairs, spec as acp_spec};
use crate::acp::spec::AcpSpec;
use crate::catalog::{self, AcpMode, AuthSpec, CliEntry, FlagTable, MakeFactory, QueryArgs};
use crate::process::oneshot::{oneshot_factory, parser_of, CliDriver};
use crate::process::{Version, VersionRange};

#[cfg(test)]
use crate::process::oneshot::SessionArg;

/// The flags of OpenCode's run mode, which its forks keep (`kilo`).
pub(crate) const RUN_FLAGS: FlagTable = FlagTable {
    non_interactive: &["run"],
    terminal_prompt: catalog::PromptArg::Flag("--prompt"),
    // Short forms, as the driver passes them (opencode_e2e).
    resume: Some(&["-s", "{id}"]),
    continue_latest: Some(&["--continue"]),
    skip_permissions: Some(&["--auto"]),
    model: Some("-m"),
    json_output: Some(&["--format", "json"]),
    stream_json: Some(&["--format", "json"]),
    ..catalog::NO_FLAGS
};

/// What OpenCode's run mode can do (and its forks'): finished parts,
/// reasoning, usage, resume by id, context files; advisory approvals.
pub(crate) const RUN_CAPABILITIES: Capabilities = Capabilities {
    reasoning: true,
    resume: ResumeSupport::NativeId,
    usage: true,
    context_files: true,
    tier: SupportTier::Structured,
    ..Capabilities::BASELINE
};

/// OpenCode's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "opencode",
    label: "OpenCode",
    mode: "run --format json",
    binaries: &["opencode"],
    vendor_dirs: &[".opencode/bin"],
    pin_key: Some("OPENCODE_VERSION"),
    auth: AuthSpec {
        env_vars: &["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"],
        credential_files: &[".local/share/opencode/auth.json"],
        status_args: None,
    },
    login_args: Some(&["auth", "login"]),
    install_hint: "npm install -g opencode-ai",
    env_prefixes: &["OPENCODE_"],
    relevant_env: &["OPENCODE_CONFIG", "OPENCODE_PERMISSION"],
    flags: RUN_FLAGS,
    capabilities: RUN_CAPABILITIES,
    // 1.18.33 is pinned in `tests/agents/versions.env`.
    accepted: Some(VersionRange {
        min: Version::new(1, 18, 0),
        max_exclusive: Version::new(2, 0, 0),
    }),
    factory: Some(MakeFactory::of::<OpenCodeFactory>()),
    acp: Some(AcpMode {
        id: "opencode-acp",
        spec: acp_launch,
    }),
    parser: Some(parser_of::<Driver>()),
    ..catalog::BASE
};
/// OpenCode's ACP server (`opencode acp`, provider `opencode-acp`). Its
/// default permissions allow shell and edits without asking, so cohost asks
/// it to ask.
fn acp_launch() -> AcpSpec {
    let mut s = acp_spec(
        "opencode-acp",
        "OpenCode (ACP)",
        &SPEC,
        &["acp"],
        &[],
        &[],
        ResumeSupport::NativeId,
    );
    s.ask_env = pairs(&[(
        "OPENCODE_PERMISSION",
        r#"{"bash":"ask","edit":"ask","webfetch":"ask"}"#,
    )]);
    s
}

/// `OPENCODE_PERMISSION` for a policy: the permissions that can change the
/// machine. `None` under `AutoApprove` (opencode's own config applies, and
/// `--auto` lifts its `ask` rules).
pub(crate) fn permission_env(mode: ApprovalMode) -> Option<&'static str> {
    match mode {
        ApprovalMode::AutoApprove => None,
        // Run mode rejects `ask` at once; the rejection shows up as a denied tool.
        ApprovalMode::Ask => Some(
            r#"{"edit":"ask","bash":"ask","webfetch":"ask","external_directory":"ask","doom_loop":"ask"}"#,
        ),
        ApprovalMode::DenyAll => Some(
            r#"{"edit":"deny","bash":"deny","webfetch":"deny","external_directory":"deny","doom_loop":"deny"}"#,
        ),
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Driver;

impl CliDriver for Driver {
    type Normalizer = OpenCodeNormalizer;
    const SPEC: &'static CliEntry = &SPEC;
    const END_OF_OPTIONS: bool = true;
    const APPROVAL_FIX: &'static str = "use the `opencode-acp` provider for blocking approvals";

    fn adjust(&self, q: &mut QueryArgs, _config: &AdapterConfig) {
        q.driver_args = vec!["--thinking".into()];
    }
    fn normalizer(&self, _config: &AdapterConfig, _session: Option<&str>) -> OpenCodeNormalizer {
        OpenCodeNormalizer::new()
    }
    fn policy_env(&self, config: &AdapterConfig) -> Vec<(&'static str, String)> {
        permission_env(config.approval)
            .map(|p| vec![("OPENCODE_PERMISSION", p.to_string())])
            .unwrap_or_default()
    }
}

oneshot_factory!(
    /// Makes OpenCode adapters.
    pub OpenCodeFactory => Driver
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::oneshot::strs;

    #[test]
    fn auto_only_under_auto_approve_and_prompt_after_dashdash() {
        let mut cfg = AdapterConfig::default();
        let s1 = SessionArg {
            id: "ses_1".into(),
            fresh: false,
        };
        let ask = strs(Driver.turn_args("-rf hi", &cfg, Some(&s1), false));
        assert!(!ask.contains(&"--auto".to_string()), "{ask:?}");
        assert!(ask.windows(2).any(|w| w == ["-s", "ses_1"]));
        assert_eq!(&ask[ask.len() - 2..], ["--", "-rf hi"]);
        cfg.approval = ApprovalMode::AutoApprove;
        let auto = strs(Driver.turn_args("x", &cfg, None, false));
        assert!(auto.contains(&"--auto".to_string()));
        assert!(!auto.contains(&"-s".to_string()));
        cfg.approval = ApprovalMode::DenyAll;
        assert!(!strs(Driver.turn_args("x", &cfg, None, false)).contains(&"--auto".to_string()));
    }

    #[test]
    fn permission_env_never_allows_outside_auto_approve() {
        assert!(permission_env(ApprovalMode::AutoApprove).is_none());
        for (mode, word) in [(ApprovalMode::Ask, "ask"), (ApprovalMode::DenyAll, "deny")] {
            let v: serde_json::Value = serde_json::from_str(permission_env(mode).unwrap()).unwrap();
            for key in ["edit", "bash", "webfetch"] {
                assert_eq!(v[key], word, "{mode:?} {key}");
            }
        }
    }
}
