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
    AdapterConfig, AdapterFactory, ApprovalSupport, Capabilities, InterruptSupport, ResumeSupport,
    StreamingGranularity, SupportTier,
};
use std::ffi::OsString;
use std::sync::Arc;

pub use normalize::KiroNormalizer;

use crate::catalog::{self, AuthSpec, CliEntry, Evidence, FlagTable, MakeFactory, PromptArg};
use crate::process::oneshot::{oneshot_factory, CliDriver};

/// Kiro CLI's provider spec.
pub const SPEC: CliEntry = CliEntry {
    id: "kiro",
    label: "Kiro CLI",
    mode: "chat --no-interactive; fixture-only",
    binaries: &["kiro-cli"],
    auth: AuthSpec {
        status_args: Some(&["whoami"]),
        ..catalog::NO_AUTH
    },
    login_args: Some(&["login"]),
    install_hint: "curl -fsSL https://cli.kiro.dev/install | bash",
    env_prefixes: &["KIRO_", "AWS_"],
    flags: FlagTable {
        non_interactive: &["chat", "--no-interactive"],
        terminal_prompt: PromptArg::InitialInput,
        continue_latest: Some(&["--resume"]),
        skip_permissions: Some(&["--trust-all-tools"]),
        model: Some("--model"),
        ..catalog::NO_FLAGS
    },
    evidence: Evidence::FixtureOnly,
    capabilities: Capabilities {
        streaming: StreamingGranularity::TokenDeltas,
        reasoning: false,
        approvals: ApprovalSupport::Advisory,
        interrupt: InterruptSupport::Signal,
        resume: ResumeSupport::None,
        usage: false,
        context_files: false,
        images: false,
        fork: false,
        executes_tools: true,
        tier: SupportTier::FixtureOnly,
    },
    factory: Some(MakeFactory(|| {
        Arc::new(KiroFactory) as Arc<dyn AdapterFactory>
    })),
    ..catalog::BASE
};

/// The arguments of one turn (pure).
pub fn turn_args(prompt: &str, config: &AdapterConfig, follow_up: bool) -> Vec<OsString> {
    Driver.turn_args(prompt, config, None, follow_up)
}

#[derive(Debug, Default, Clone, Copy)]
struct Driver;

impl CliDriver for Driver {
    type Normalizer = KiroNormalizer;
    const SPEC: &'static CliEntry = &SPEC;
    const CONTINUE_LATEST: bool = true;
    const END_OF_OPTIONS: bool = true;

    fn fixed_env(&self) -> &'static [(&'static str, &'static str)] {
        // Plain text: no colours to strip in the first place.
        &[("NO_COLOR", "1")]
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
