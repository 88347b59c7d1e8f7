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

pub(crate) mod normalize;
pub(crate) mod wire;

use cohost_core::{AdapterConfig, Capabilities, ResumeSupport, StreamingGranularity, SupportTier};

pub(crate) use normalize::CopilotNormalizer;

use crate::acp::providers::spec as acp_spec;
use crate::acp::spec::{AcpSpec, TextErrors};
use crate::catalog::{self, AcpMode, AuthSpec, CliEntry, FlagTable, MakeFactory, PromptArg};
use crate::process::oneshot::{oneshot_factory, parser_of, random_uuid, CliDriver};
use crate::process::{Version, VersionRange};

#[cfg(test)]
use crate::process::oneshot::SessionArg;

/// GitHub Copilot CLI's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "copilot",
    label: "GitHub Copilot CLI",
    mode: "prompt mode, JSONL",
    binaries: &["copilot"],
    pin_key: Some("COPILOT_VERSION"),
    auth: AuthSpec {
        env_vars: &[
            "COPILOT_GITHUB_TOKEN",
            "GH_TOKEN",
            "GITHUB_TOKEN",
            "COPILOT_PROVIDER_API_KEY",
        ],
        credential_files: &[],
        status_args: None,
    },
    login_args: Some(&["login"]),
    install_hint: "npm install -g @github/copilot",
    env_prefixes: &["COPILOT_", "GH_", "GITHUB_"],
    relevant_env: &["COPILOT_PROVIDER_BASE_URL", "COPILOT_MODEL", "COPILOT_HOME"],
    flags: FlagTable {
        // `--prompt=` keeps a prompt that starts with `-` from parsing as a flag.
        query_prompt: PromptArg::Joined("--prompt"),
        terminal_prompt: PromptArg::InitialInput,
        resume: Some(&["--resume", "{id}"]),
        continue_latest: Some(&["--continue"]),
        skip_permissions: Some(&["--allow-all-tools"]),
        model: Some("--model"),
        json_output: Some(&["--output-format", "json"]),
        stream_json: Some(&["--output-format", "json"]),
        fresh_session: Some(&["--session-id", "{id}"]),
        ..catalog::NO_FLAGS
    },
    token_streaming: true,
    capabilities: Capabilities {
        streaming: StreamingGranularity::TokenDeltas,
        reasoning: true,
        resume: ResumeSupport::NativeId,
        context_files: true,
        tier: SupportTier::Structured,
        ..Capabilities::BASELINE
    },
    // 1.0.102 is pinned in `tests/agents/versions.env`.
    accepted: Some(VersionRange {
        min: Version::new(1, 0, 100),
        max_exclusive: Version::new(2, 0, 0),
    }),
    factory: Some(MakeFactory::of::<CopilotFactory>()),
    acp: Some(AcpMode {
        id: "copilot-acp",
        spec: acp_launch,
    }),
    parser: Some(parser_of::<Driver>()),
    ..catalog::BASE
};
/// GitHub Copilot CLI in ACP mode (`copilot --acp`, provider `copilot-acp`).
fn acp_launch() -> AcpSpec {
    let mut s = acp_spec(
        "copilot-acp",
        "GitHub Copilot CLI (ACP)",
        &SPEC,
        &["--acp"],
        &["--model", "{model}"],
        // A self-update in the middle of a session would replace the binary under us.
        &[("COPILOT_AUTO_UPDATE", "false")],
        ResumeSupport::NativeId,
    );
    // 1.0.102 reports a provider 401 as the answer text of a completed turn.
    s.text_errors = TextErrors::Copilot;
    s
}

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Driver;

impl CliDriver for Driver {
    type Normalizer = CopilotNormalizer;
    const SPEC: &'static CliEntry = &SPEC;

    fn fixed_env(&self) -> &'static [(&'static str, &'static str)] {
        // Otherwise it runs newer versions it finds in its caches.
        &[("COPILOT_AUTO_UPDATE", "false")]
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
    pub CopilotFactory => Driver
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::oneshot::strs;
    use cohost_core::ApprovalMode;

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
        let a = strs(Driver.turn_args("-x", &cfg, Some(&fresh), false));
        assert!(a.windows(2).any(|w| w == ["--session-id", "u1"]));
        assert!(!a.contains(&"--allow-all-tools".to_string()));
        assert_eq!(a.last().unwrap(), "--prompt=-x");
        let b = strs(Driver.turn_args("x", &cfg, Some(&old), false));
        assert!(b.windows(2).any(|w| w == ["--resume", "u1"]));
        cfg.approval = ApprovalMode::DenyAll;
        assert!(!strs(Driver.turn_args("x", &cfg, None, false))
            .contains(&"--allow-all-tools".to_string()));
        cfg.approval = ApprovalMode::AutoApprove;
        assert!(strs(Driver.turn_args("x", &cfg, None, false))
            .contains(&"--allow-all-tools".to_string()));
    }

    #[test]
    fn fresh_ids_are_v4_uuids() {
        let a = random_uuid();
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert_ne!(a, random_uuid());
    }
}
