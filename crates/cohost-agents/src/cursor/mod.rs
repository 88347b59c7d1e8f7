//! Cursor Agent driver (provider id `cursor`), **fixture-only**: built from
//! Cursor's public CLI docs (cursor.com/docs/cli/reference/output-format,
//! …/cli/reference/parameters) and hand-written fixtures, never run here (no
//! registry ships the binary; the npm name `cursor-agent` is unrelated).
//!
//! `cursor-agent -p --output-format stream-json [--resume ID] [--model M]
//! [--force] PROMPT` per turn. Whole assistant messages (no
//! `--stream-partial-output`), tool calls started/completed, a terminal
//! `result`. Print mode cannot ask: only
//! [`ApprovalMode::AutoApprove`] passes `--force`; otherwise Cursor's
//! configured permissions apply (advisory). SIGINT interrupts.

pub mod normalize;

use cohost_core::{
    AdapterConfig, ApprovalMode, ApprovalSupport, Capabilities, InterruptSupport,
    ProviderDescriptor, ProviderKind, ResumeSupport, StreamingGranularity, SupportTier,
};
use std::ffi::OsString;

pub use normalize::CursorNormalizer;

use crate::process::oneshot::{oneshot_factory, CliDriver, SessionArg};
use crate::process::EnvPolicy;

/// Where to get it.
pub const INSTALL_HINT: &str =
    "curl https://cursor.com/install -fsS | bash  (then `cursor-agent login`)";

/// The descriptor.
pub fn descriptor() -> ProviderDescriptor {
    ProviderDescriptor {
        id: "cursor".into(),
        label: "Cursor Agent (stream-json; fixture-only)".into(),
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities {
            streaming: StreamingGranularity::WholeMessages,
            reasoning: false,
            approvals: ApprovalSupport::Advisory,
            interrupt: InterruptSupport::Signal,
            resume: ResumeSupport::NativeId,
            usage: false,
            context_files: true,
            executes_tools: true,
            tier: SupportTier::FixtureOnly,
        },
        install_hint: Some(INSTALL_HINT.into()),
    }
}

/// The arguments of one turn (pure).
pub fn turn_args(prompt: &str, config: &AdapterConfig, session: Option<&str>) -> Vec<OsString> {
    let flags = crate::catalog::flags("cursor");
    let mut args: Vec<OsString> = flags
        .non_interactive_args()
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
    if config.approval == ApprovalMode::AutoApprove {
        args.extend(flags.bypass_args().into_iter().map(OsString::from));
    }
    args.extend(config.extra_args.iter().map(OsString::from));
    // `--` keeps a prompt that starts with `-` from parsing as a flag.
    args.push("--".into());
    args.extend(flags.prompt_args(prompt).into_iter().map(OsString::from));
    args
}

#[derive(Debug, Default, Clone, Copy)]
struct Driver;

impl CliDriver for Driver {
    type Normalizer = CursorNormalizer;
    const COMMAND: &'static str = "cursor-agent";
    const INSTALL_HINT: &'static str = INSTALL_HINT;

    fn descriptor(&self) -> ProviderDescriptor {
        descriptor()
    }
    fn env(&self) -> EnvPolicy {
        EnvPolicy::with_prefixes(["CURSOR_"])
    }
    fn turn_args(
        &self,
        prompt: &str,
        config: &AdapterConfig,
        session: Option<&SessionArg>,
    ) -> Vec<OsString> {
        turn_args(prompt, config, session.map(|s| s.id.as_str()))
    }
    fn normalizer(&self, _config: &AdapterConfig, _session: Option<&str>) -> CursorNormalizer {
        CursorNormalizer::new()
    }
    const APPROVAL_FIX: &'static str =
        "set Cursor's permissions in ~/.cursor/cli-config.json, or auto-approve (passes --force)";
}

oneshot_factory!(
    /// Makes Cursor Agent adapters.
    CursorFactory => Driver
);

#[cfg(test)]
mod tests;
