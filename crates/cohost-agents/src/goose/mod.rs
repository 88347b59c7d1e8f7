//! Goose driver (provider id `goose`), **fixture-only**: built from goose's
//! public CLI docs (block.github.io/goose/docs/guides/goose-cli-commands)
//! and hand-written fixtures; never run here (no registry ships the real
//! binary).
//!
//! `goose run --output-format stream-json --name NAME [--resume] --text
//! PROMPT` per turn: cohost names the session (`cohost-<uuid>`) so later
//! turns resume it by name. Approvals follow `GOOSE_MODE`, because `run`
//! cannot ask: `auto` only under [`ApprovalMode::AutoApprove`], otherwise
//! `chat` (no tools at all). SIGINT interrupts.

pub mod normalize;

use cohost_core::{
    AdapterConfig, ApprovalMode, ApprovalSupport, Capabilities, InterruptSupport,
    ProviderDescriptor, ProviderKind, ResumeSupport, StreamingGranularity, SupportTier,
};
use std::ffi::OsString;

pub use normalize::GooseNormalizer;

use crate::process::oneshot::{oneshot_factory, random_uuid, CliDriver, SessionArg};
use crate::process::EnvPolicy;

/// Where to get it.
pub const INSTALL_HINT: &str =
    "curl -fsSL https://github.com/block/goose/releases/download/stable/download_cli.sh | bash";

/// The descriptor.
pub fn descriptor() -> ProviderDescriptor {
    ProviderDescriptor {
        id: "goose".into(),
        label: "Goose (run stream-json; fixture-only)".into(),
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities {
            streaming: StreamingGranularity::WholeMessages,
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

/// `GOOSE_MODE` for a policy.
pub fn goose_mode(mode: ApprovalMode) -> &'static str {
    match mode {
        ApprovalMode::AutoApprove => "auto",
        ApprovalMode::Ask | ApprovalMode::DenyAll => "chat",
    }
}

/// The arguments of one turn (pure).
pub(crate) fn turn_args(
    prompt: &str,
    config: &AdapterConfig,
    session: Option<&SessionArg>,
) -> Vec<OsString> {
    let flags = crate::catalog::flags("goose");
    let mut args: Vec<OsString> = flags
        .non_interactive_args()
        .into_iter()
        .map(OsString::from)
        .collect();
    args.extend(flags.stream_json_args().into_iter().map(OsString::from));
    match session {
        Some(s) if s.fresh => {
            // A new session cohost named: `--name` alone starts it.
            args.push("--name".into());
            args.push(s.id.as_str().into());
        }
        Some(s) => args.extend(flags.resume_args(&s.id).into_iter().map(OsString::from)),
        None => {}
    }
    if let Some(m) = &config.model {
        args.extend(flags.model_args(m).into_iter().map(OsString::from));
    }
    args.extend(config.extra_args.iter().map(OsString::from));
    args.extend(flags.prompt_args(prompt).into_iter().map(OsString::from));
    args
}

#[derive(Debug, Default, Clone, Copy)]
struct Driver;

impl CliDriver for Driver {
    type Normalizer = GooseNormalizer;
    const COMMAND: &'static str = "goose";
    const INSTALL_HINT: &'static str = INSTALL_HINT;

    fn descriptor(&self) -> ProviderDescriptor {
        descriptor()
    }
    fn env(&self) -> EnvPolicy {
        EnvPolicy::with_prefixes(["GOOSE_"])
    }
    fn policy_env(&self, config: &AdapterConfig) -> Vec<(&'static str, String)> {
        vec![("GOOSE_MODE", goose_mode(config.approval).to_string())]
    }
    fn turn_args(
        &self,
        prompt: &str,
        config: &AdapterConfig,
        session: Option<&SessionArg>,
    ) -> Vec<OsString> {
        turn_args(prompt, config, session)
    }
    fn normalizer(&self, _config: &AdapterConfig, session: Option<&str>) -> GooseNormalizer {
        GooseNormalizer::new(session.map(str::to_string))
    }
    fn fresh_session_id(&self) -> Option<String> {
        Some(format!("cohost-{}", random_uuid()))
    }
    const APPROVAL_FIX: &'static str =
        "set the approval policy at launch (auto-approve sets GOOSE_MODE=auto)";
}

oneshot_factory!(
    /// Makes Goose adapters.
    GooseFactory => Driver
);

#[cfg(test)]
mod tests;
