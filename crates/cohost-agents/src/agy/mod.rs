//! Antigravity driver (provider id `agy`), **fixture-only**: built from
//! seed 003 (`/work/shared/seeds/003_*`) and hand-written fixtures; never run
//! here (no registry ships `agy`).
//!
//! Seed 003 drives one long-lived `agy --input-format stream-json
//! --output-format stream-json` process, but does not document the shape
//! of an input line; cohost uses the documented one-shot form instead,
//! `agy -p PROMPT --output-format stream-json [--conversation ID]` per turn,
//! with the same NDJSON events (`init` binds the conversation, later turns
//! pass `--conversation`). Text arrives as `text_delta`s with live usage.
//! Approvals are agy's own (advisory); interrupts are SIGINT.

pub mod normalize;

use cohost_core::{
    AdapterConfig, ApprovalSupport, Capabilities, InterruptSupport, ProviderDescriptor,
    ProviderKind, ResumeSupport, StreamingGranularity, SupportTier,
};
use std::ffi::OsString;

pub use normalize::AgyNormalizer;

use crate::process::oneshot::{oneshot_factory, CliDriver, SessionArg};
use crate::process::EnvPolicy;

/// Where to get it.
pub const INSTALL_HINT: &str =
    "install Google Antigravity and put its `agy` CLI on PATH (antigravity.google)";

/// The descriptor.
pub fn descriptor() -> ProviderDescriptor {
    ProviderDescriptor {
        id: "agy".into(),
        label: "Antigravity agy (stream-json; fixture-only)".into(),
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities {
            streaming: StreamingGranularity::TokenDeltas,
            reasoning: true,
            approvals: ApprovalSupport::Advisory,
            interrupt: InterruptSupport::Signal,
            resume: ResumeSupport::NativeId,
            usage: true,
            context_files: false,
            executes_tools: true,
            tier: SupportTier::FixtureOnly,
        },
        install_hint: Some(INSTALL_HINT.into()),
    }
}

/// The arguments of one turn (pure).
pub fn turn_args(prompt: &str, config: &AdapterConfig, session: Option<&str>) -> Vec<OsString> {
    let flags = crate::catalog::flags("agy");
    let mut args: Vec<OsString> = flags
        .prompt_args(prompt)
        .into_iter()
        .map(OsString::from)
        .collect();
    args.extend(flags.stream_json_args().into_iter().map(OsString::from));
    if let Some(s) = session {
        args.extend(flags.resume_args(s).into_iter().map(OsString::from));
    }
    if let Some(m) = &config.model {
        args.extend(flags.model_args(m).into_iter().map(OsString::from));
    }
    args.extend(config.extra_args.iter().map(OsString::from));
    args
}

#[derive(Debug, Default, Clone, Copy)]
struct Driver;

impl CliDriver for Driver {
    type Normalizer = AgyNormalizer;
    const COMMAND: &'static str = "agy";
    const INSTALL_HINT: &'static str = INSTALL_HINT;

    fn descriptor(&self) -> ProviderDescriptor {
        descriptor()
    }
    fn env(&self) -> EnvPolicy {
        EnvPolicy::with_prefixes(["AGY_", "ANTIGRAVITY_"])
    }
    fn turn_args(
        &self,
        prompt: &str,
        config: &AdapterConfig,
        session: Option<&SessionArg>,
    ) -> Vec<OsString> {
        turn_args(prompt, config, session.map(|s| s.id.as_str()))
    }
    fn normalizer(&self, _config: &AdapterConfig, _session: Option<&str>) -> AgyNormalizer {
        AgyNormalizer::new()
    }
    const APPROVAL_FIX: &'static str =
        "configure agy's own permissions before starting the session";
}

oneshot_factory!(
    /// Makes agy adapters.
    AgyFactory => Driver
);
