//! GitHub Copilot CLI driver (provider id `copilot`): `copilot
//! --output-format json --prompt=PROMPT` per turn.
//!
//! Checked against the pinned 1.0.102 with bring-your-own-key against the
//! fake server: token deltas (`assistant.message_delta`), reasoning deltas,
//! tool calls and results, `session.error`, `abort` on SIGINT followed by a
//! `result` line, resume by id. cohost names the session itself
//! (`--session-id <uuid>` on the first turn, `--resume <uuid>` after), so
//! the id is known from the first event. No token usage is reported in this
//! mode (the `result` line carries request counts only).
//!
//! Approvals: prompt mode cannot ask. Without `--allow-all-tools` copilot
//! refuses every tool that needs permission ("Permission denied because no
//! interactive user response was available"), reported as `denied`; only
//! [`ApprovalMode::AutoApprove`] passes `--allow-all-tools`. Blocking
//! approvals come through `copilot --acp` (the `copilot-acp` provider).

pub mod normalize;
pub mod wire;

use cohost_core::{
    AdapterConfig, ApprovalMode, ApprovalSupport, Capabilities, InterruptSupport,
    ProviderDescriptor, ProviderKind, ResumeSupport, StreamingGranularity, SupportTier,
};
use std::ffi::OsString;

pub use normalize::CopilotNormalizer;

use crate::process::oneshot::{oneshot_factory, random_uuid, CliDriver, SessionArg};
use crate::process::{EnvPolicy, Version, VersionRange};

/// Where to get it.
pub const INSTALL_HINT: &str = "npm install -g @github/copilot@1.0.102";

/// Tested versions: 1.0.102 is pinned in `tests/agents/versions.env`.
pub const TESTED: VersionRange = VersionRange {
    min: Version::new(1, 0, 100),
    max_exclusive: Version::new(2, 0, 0),
};

/// The descriptor.
pub fn descriptor() -> ProviderDescriptor {
    ProviderDescriptor {
        id: "copilot".into(),
        label: "GitHub Copilot CLI (prompt mode, JSONL)".into(),
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities {
            streaming: StreamingGranularity::TokenDeltas,
            reasoning: true,
            approvals: ApprovalSupport::Advisory,
            interrupt: InterruptSupport::Signal,
            resume: ResumeSupport::NativeId,
            usage: false,
            context_files: true,
            executes_tools: true,
            tier: SupportTier::Structured,
        },
        install_hint: Some(INSTALL_HINT.into()),
    }
}

/// The arguments of one turn (pure, for tests).
pub(crate) fn turn_args(
    prompt: &str,
    config: &AdapterConfig,
    session: Option<&SessionArg>,
) -> Vec<OsString> {
    let flags = crate::catalog::flags("copilot");
    let mut args: Vec<OsString> = flags.json_args().into_iter().map(OsString::from).collect();
    match session {
        Some(s) if s.fresh => {
            args.push("--session-id".into());
            args.push(s.id.as_str().into());
        }
        Some(s) => args.extend(flags.resume_args(&s.id).into_iter().map(OsString::from)),
        None => {}
    }
    if let Some(m) = &config.model {
        args.extend(flags.model_args(m).into_iter().map(OsString::from));
    }
    if config.approval == ApprovalMode::AutoApprove {
        args.extend(flags.bypass_args().into_iter().map(OsString::from));
    }
    args.extend(config.extra_args.iter().map(OsString::from));
    // `--prompt=` keeps a prompt that starts with `-` from parsing as a flag.
    args.extend(flags.prompt_args(prompt).into_iter().map(OsString::from));
    args
}

#[derive(Debug, Default, Clone, Copy)]
struct Driver;

impl CliDriver for Driver {
    type Normalizer = CopilotNormalizer;
    const COMMAND: &'static str = "copilot";
    const INSTALL_HINT: &'static str = INSTALL_HINT;
    const TESTED: Option<VersionRange> = Some(TESTED);

    fn descriptor(&self) -> ProviderDescriptor {
        descriptor()
    }
    fn env(&self) -> EnvPolicy {
        let mut env = EnvPolicy::with_prefixes(["COPILOT_", "GH_", "GITHUB_"]);
        // Otherwise it runs newer versions it finds in its caches.
        env.set("COPILOT_AUTO_UPDATE", "false");
        env
    }
    fn turn_args(
        &self,
        prompt: &str,
        config: &AdapterConfig,
        session: Option<&SessionArg>,
    ) -> Vec<OsString> {
        turn_args(prompt, config, session)
    }
    fn normalizer(&self, _config: &AdapterConfig, session: Option<&str>) -> CopilotNormalizer {
        CopilotNormalizer::new(session.map(str::to_string))
    }
    fn fresh_session_id(&self) -> Option<String> {
        Some(random_uuid())
    }
    const APPROVAL_FIX: &'static str = "use the `copilot-acp` provider for blocking approvals";
}

oneshot_factory!(
    /// Makes Copilot CLI adapters.
    CopilotFactory => Driver
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
    fn session_flags_and_bypass_only_under_auto_approve() {
        let mut cfg = AdapterConfig::default();
        let fresh = SessionArg {
            id: "u1".into(),
            fresh: true,
        };
        let old = SessionArg {
            id: "u1".into(),
            fresh: false,
        };
        let a = strs(turn_args("-x", &cfg, Some(&fresh)));
        assert!(a.windows(2).any(|w| w == ["--session-id", "u1"]));
        assert!(!a.contains(&"--allow-all-tools".to_string()));
        assert_eq!(a.last().unwrap(), "--prompt=-x");
        let b = strs(turn_args("x", &cfg, Some(&old)));
        assert!(b.windows(2).any(|w| w == ["--resume", "u1"]));
        cfg.approval = ApprovalMode::DenyAll;
        assert!(!strs(turn_args("x", &cfg, None)).contains(&"--allow-all-tools".to_string()));
        cfg.approval = ApprovalMode::AutoApprove;
        assert!(strs(turn_args("x", &cfg, None)).contains(&"--allow-all-tools".to_string()));
    }

    #[test]
    fn fresh_ids_are_v4_uuids() {
        let a = random_uuid();
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert_ne!(a, random_uuid());
    }
}
