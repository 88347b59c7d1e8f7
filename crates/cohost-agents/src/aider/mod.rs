//! Aider driver (provider id `aider`): `aider --message PROMPT --no-pretty
//! --stream …` per turn, plain text (aider has no structured output).
//!
//! Checked against the pinned aider-chat 0.86.2 offline. What it can do:
//! answer text line by line, edits and commits reported after the fact
//! (advisory tool events), token counts, continuation of the conversation
//! with `--restore-chat-history` (same cwd; no id, so resume is `none`
//! across cohost sessions), SIGINT to stop.
//!
//! Approvals: aider asks its own yes/no questions on stdin and, without a
//! terminal, takes the default answer. So cohost decides at launch:
//! [`ApprovalMode::AutoApprove`] passes `--yes-always` and lets it edit and
//! commit; `Ask` and `DenyAll` pass `--dry-run --no-auto-commits` (edits
//! are proposed and reported as denied, nothing is written) and
//! `--no-git` when the directory is not a git repository (otherwise aider
//! would create one unasked).

pub mod normalize;

use cohost_core::{
    AdapterConfig, ApprovalMode, ApprovalSupport, Capabilities, InterruptSupport,
    ProviderDescriptor, ProviderKind, ResumeSupport, StreamingGranularity, SupportTier,
};
use std::ffi::OsString;
use std::sync::atomic::{AtomicBool, Ordering};

pub use normalize::AiderNormalizer;

use crate::process::oneshot::{oneshot_factory, CliDriver, SessionArg};
use crate::process::{EnvPolicy, Version, VersionRange};

/// Where to get it.
pub const INSTALL_HINT: &str = "python -m pip install aider-chat==0.86.2";

/// Tested versions: 0.86.2 is pinned in `tests/agents/versions.env`.
pub const TESTED: VersionRange = VersionRange {
    min: Version::new(0, 86, 0),
    max_exclusive: Version::new(0, 87, 0),
};

/// The descriptor.
pub fn descriptor() -> ProviderDescriptor {
    ProviderDescriptor {
        id: "aider".into(),
        label: "Aider (plain text, --message per turn)".into(),
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities {
            // Line by line as aider streams; not token deltas.
            streaming: StreamingGranularity::TokenDeltas,
            reasoning: false,
            approvals: ApprovalSupport::Advisory,
            interrupt: InterruptSupport::Signal,
            resume: ResumeSupport::None,
            usage: true,
            context_files: false,
            executes_tools: true,
            tier: SupportTier::Structured,
        },
        install_hint: Some(INSTALL_HINT.into()),
    }
}

/// The arguments of one turn (pure apart from the `.git` check).
pub fn turn_args(prompt: &str, config: &AdapterConfig, follow_up: bool) -> Vec<OsString> {
    let flags = crate::catalog::flags("aider");
    let mut args: Vec<OsString> = [
        "--no-pretty",
        "--stream",
        "--no-fancy-input",
        "--no-check-update",
        "--no-show-model-warnings",
        "--no-show-release-notes",
        "--analytics-disable",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    if let Some(m) = &config.model {
        args.extend(flags.model_args(m).into_iter().map(OsString::from));
    }
    if follow_up || config.resume.is_some() {
        args.extend(flags.continue_args().into_iter().map(OsString::from));
    }
    if config.approval == ApprovalMode::AutoApprove {
        args.extend(flags.bypass_args().into_iter().map(OsString::from));
    } else {
        args.push("--dry-run".into());
        args.push("--no-auto-commits".into());
        if !config.cwd.join(".git").exists() {
            args.push("--no-git".into());
        }
    }
    args.extend(config.extra_args.iter().map(OsString::from));
    args.extend(flags.prompt_args(prompt).into_iter().map(OsString::from));
    args
}

#[derive(Debug, Default)]
struct Driver {
    turns: AtomicBool,
}

impl CliDriver for Driver {
    type Normalizer = AiderNormalizer;
    const COMMAND: &'static str = "aider";
    const INSTALL_HINT: &'static str = INSTALL_HINT;
    const TESTED: Option<VersionRange> = Some(TESTED);
    const APPROVAL_FIX: &'static str =
        "set the approval policy at launch: auto-approve lets aider apply edits (--yes-always)";

    fn descriptor(&self) -> ProviderDescriptor {
        descriptor()
    }
    fn env(&self) -> EnvPolicy {
        let mut env = EnvPolicy::with_prefixes([
            "AIDER_",
            "OPENAI_",
            "ANTHROPIC_",
            "GEMINI_",
            "OPENROUTER_",
            "OLLAMA_",
            "LITELLM_",
        ]);
        env.set("AIDER_ANALYTICS", "false");
        env.set("AIDER_CHECK_UPDATE", "false");
        env
    }
    fn turn_args(
        &self,
        prompt: &str,
        config: &AdapterConfig,
        _session: Option<&SessionArg>,
    ) -> Vec<OsString> {
        let follow_up = self.turns.swap(true, Ordering::SeqCst);
        turn_args(prompt, config, follow_up)
    }
    fn normalizer(&self, _config: &AdapterConfig, _session: Option<&str>) -> AiderNormalizer {
        AiderNormalizer::new()
    }
    fn cancel_sigints(&self) -> u32 {
        2
    }
}

oneshot_factory!(
    /// Makes Aider adapters.
    AiderFactory => Driver
);
