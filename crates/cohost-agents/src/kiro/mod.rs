//! Kiro CLI driver (provider id `kiro`), **fixture-only**: built from the
//! public Kiro CLI docs (kiro.dev/docs/cli/chat, `kiro-cli chat
//! --no-interactive`) and hand-written fixtures; never run here.
//!
//! `kiro-cli chat --no-interactive [--resume] [--trust-all-tools] PROMPT`
//! per turn. The output is plain terminal text, so each line becomes a
//! chunk after escape stripping (no tool events, no usage); the turn ends
//! with the process. `--trust-all-tools` only under
//! [`ApprovalMode::AutoApprove`]; otherwise Kiro's non-interactive mode
//! refuses tools that would need a confirmation. Follow-up turns pass
//! `--resume` (the last conversation in this directory: no id to resume by).

pub mod normalize;

use cohost_core::{
    AdapterConfig, ApprovalMode, ApprovalSupport, Capabilities, InterruptSupport,
    ProviderDescriptor, ProviderKind, ResumeSupport, StreamingGranularity, SupportTier,
};
use std::ffi::OsString;
use std::sync::atomic::{AtomicBool, Ordering};

pub use normalize::KiroNormalizer;

use crate::process::oneshot::{oneshot_factory, CliDriver, SessionArg};
use crate::process::EnvPolicy;

/// Where to get it.
pub const INSTALL_HINT: &str = "curl -fsSL https://cli.kiro.dev/install | bash";

/// The descriptor.
pub fn descriptor() -> ProviderDescriptor {
    ProviderDescriptor {
        id: "kiro".into(),
        label: "Kiro CLI (chat --no-interactive; fixture-only)".into(),
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities {
            streaming: StreamingGranularity::TokenDeltas,
            reasoning: false,
            approvals: ApprovalSupport::Advisory,
            interrupt: InterruptSupport::Signal,
            resume: ResumeSupport::None,
            usage: false,
            context_files: false,
            executes_tools: true,
            tier: SupportTier::FixtureOnly,
        },
        install_hint: Some(INSTALL_HINT.into()),
    }
}

/// The arguments of one turn (pure).
pub fn turn_args(prompt: &str, config: &AdapterConfig, follow_up: bool) -> Vec<OsString> {
    let flags = crate::catalog::flags("kiro");
    let mut args: Vec<OsString> = flags
        .non_interactive_args()
        .into_iter()
        .map(OsString::from)
        .collect();
    if follow_up || config.resume.is_some() {
        args.extend(flags.continue_args().into_iter().map(OsString::from));
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
    args.extend(flags.prompt_args(prompt).into_iter().map(OsString::from));
    args
}

#[derive(Debug, Default)]
struct Driver {
    turns: AtomicBool,
}

impl CliDriver for Driver {
    type Normalizer = KiroNormalizer;
    const COMMAND: &'static str = "kiro-cli";
    const INSTALL_HINT: &'static str = INSTALL_HINT;

    fn descriptor(&self) -> ProviderDescriptor {
        descriptor()
    }
    fn env(&self) -> EnvPolicy {
        let mut env = EnvPolicy::with_prefixes(["KIRO_", "AWS_"]);
        // Plain text: no colours to strip in the first place.
        env.set("NO_COLOR", "1");
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
    fn normalizer(&self, _config: &AdapterConfig, _session: Option<&str>) -> KiroNormalizer {
        KiroNormalizer::new()
    }
    const APPROVAL_FIX: &'static str = "set the approval policy at launch (auto-approve passes --trust-all-tools), or --trust-tools in extra_args";
}

oneshot_factory!(
    /// Makes Kiro CLI adapters.
    KiroFactory => Driver
);
