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

pub mod normalize;
pub mod wire;

use cohost_core::{
    AdapterConfig, ApprovalMode, ApprovalSupport, Capabilities, InterruptSupport,
    ProviderDescriptor, ProviderKind, ResumeSupport, StreamingGranularity, SupportTier,
};
use std::ffi::OsString;

pub use normalize::OpenCodeNormalizer;

use crate::process::oneshot::{oneshot_factory, CliDriver, SessionArg};
use crate::process::{EnvPolicy, Version, VersionRange};

/// Where to get it.
pub const INSTALL_HINT: &str = "npm install -g opencode-ai@1.18.33";

/// Tested versions: 1.18.33 is pinned in `tests/agents/versions.env`.
pub const TESTED: VersionRange = VersionRange {
    min: Version::new(1, 18, 0),
    max_exclusive: Version::new(2, 0, 0),
};

/// The descriptor.
pub fn descriptor() -> ProviderDescriptor {
    ProviderDescriptor {
        id: "opencode".into(),
        label: "OpenCode (run --format json)".into(),
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities {
            streaming: StreamingGranularity::WholeMessages,
            reasoning: true,
            approvals: ApprovalSupport::Advisory,
            interrupt: InterruptSupport::Signal,
            resume: ResumeSupport::NativeId,
            usage: true,
            context_files: true,
            executes_tools: true,
            tier: SupportTier::Structured,
        },
        install_hint: Some(INSTALL_HINT.into()),
    }
}

/// `OPENCODE_PERMISSION` for a policy: the permissions that can change the
/// machine. `None` under `AutoApprove` (opencode's own config applies, and
/// `--auto` lifts its `ask` rules).
pub fn permission_env(mode: ApprovalMode) -> Option<&'static str> {
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

/// The arguments of one turn (pure, for tests).
pub(crate) fn turn_args(
    prompt: &str,
    config: &AdapterConfig,
    session: Option<&SessionArg>,
) -> Vec<OsString> {
    let flags = crate::catalog::flags("opencode");
    let mut args: Vec<OsString> = flags
        .non_interactive_args()
        .into_iter()
        .map(OsString::from)
        .collect();
    args.extend(flags.json_args().into_iter().map(OsString::from));
    args.push("--thinking".into());
    if let Some(s) = session {
        args.extend(flags.resume_args(&s.id).into_iter().map(OsString::from));
    }
    if let Some(m) = &config.model {
        args.extend(flags.model_args(m).into_iter().map(OsString::from));
    }
    if config.approval == ApprovalMode::AutoApprove {
        args.extend(flags.bypass_args().into_iter().map(OsString::from));
    }
    args.extend(config.extra_args.iter().map(OsString::from));
    // `--` keeps a prompt that starts with `-` from parsing as a flag.
    args.push("--".into());
    args.push(prompt.into());
    args
}

#[derive(Debug, Default, Clone, Copy)]
struct Driver;

impl CliDriver for Driver {
    type Normalizer = OpenCodeNormalizer;
    const COMMAND: &'static str = "opencode";
    const INSTALL_HINT: &'static str = INSTALL_HINT;
    const TESTED: Option<VersionRange> = Some(TESTED);
    const APPROVAL_FIX: &'static str = "use the `opencode-acp` provider for blocking approvals";

    fn descriptor(&self) -> ProviderDescriptor {
        descriptor()
    }
    fn env(&self) -> EnvPolicy {
        EnvPolicy::with_prefixes(["OPENCODE_"])
    }
    fn turn_args(
        &self,
        prompt: &str,
        config: &AdapterConfig,
        session: Option<&SessionArg>,
    ) -> Vec<OsString> {
        turn_args(prompt, config, session)
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
    OpenCodeFactory => Driver
);

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(v: Vec<OsString>) -> Vec<String> {
        v.into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn auto_only_under_auto_approve_and_prompt_after_dashdash() {
        let mut cfg = AdapterConfig::default();
        let s1 = SessionArg {
            id: "ses_1".into(),
            fresh: false,
        };
        let ask = strs(turn_args("-rf hi", &cfg, Some(&s1)));
        assert!(!ask.contains(&"--auto".to_string()), "{ask:?}");
        assert!(ask.windows(2).any(|w| w == ["-s", "ses_1"]));
        assert_eq!(&ask[ask.len() - 2..], ["--", "-rf hi"]);
        cfg.approval = ApprovalMode::AutoApprove;
        let auto = strs(turn_args("x", &cfg, None));
        assert!(auto.contains(&"--auto".to_string()));
        assert!(!auto.contains(&"-s".to_string()));
        cfg.approval = ApprovalMode::DenyAll;
        assert!(!strs(turn_args("x", &cfg, None)).contains(&"--auto".to_string()));
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
