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

pub(crate) mod normalize;

use cohost_core::{AdapterConfig, ApprovalMode, Capabilities, ResumeSupport};

pub(crate) use normalize::GooseNormalizer;

use crate::catalog::{self, AuthSpec, CliEntry, Evidence, FlagTable, MakeFactory, PromptArg};
use crate::process::oneshot::{oneshot_factory, parser_of, random_uuid, CliDriver};

#[cfg(test)]
use crate::process::oneshot::SessionArg;

/// Goose's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "goose",
    label: "Goose",
    mode: "run stream-json; fixture-only",
    binaries: &["goose"],
    auth: AuthSpec {
        env_vars: &["GOOSE_PROVIDER"],
        credential_files: &[".config/goose/config.yaml"],
        status_args: None,
    },
    login_args: Some(&["configure"]),
    install_hint:
        "curl -fsSL https://github.com/block/goose/releases/download/stable/download_cli.sh | bash",
    env_prefixes: &["GOOSE_"],
    relevant_env: &["GOOSE_PROVIDER", "GOOSE_MODEL", "GOOSE_MODE"],
    flags: FlagTable {
        non_interactive: &["run"],
        query_prompt: PromptArg::Flag("--text"),
        terminal_prompt: PromptArg::InitialInput,
        resume: Some(&["--name", "{id}", "--resume"]),
        continue_latest: Some(&["--resume"]),
        model: Some("--model"),
        json_output: Some(&["--output-format", "json"]),
        stream_json: Some(&["--output-format", "stream-json"]),
        // A new session cohost named: `--name` alone starts it.
        fresh_session: Some(&["--name", "{id}"]),
        ..catalog::NO_FLAGS
    },
    token_streaming: true,
    evidence: Evidence::FixtureOnly,
    capabilities: Capabilities {
        reasoning: true,
        resume: ResumeSupport::NativeId,
        usage: true,
        ..Capabilities::BASELINE
    },
    factory: Some(MakeFactory::of::<GooseFactory>()),
    parser: Some(parser_of::<Driver>()),
    ..catalog::BASE
};

/// `GOOSE_MODE` for a policy.
pub(crate) fn goose_mode(mode: ApprovalMode) -> &'static str {
    match mode {
        ApprovalMode::AutoApprove => "auto",
        ApprovalMode::Ask | ApprovalMode::DenyAll => "chat",
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Driver;

impl CliDriver for Driver {
    type Normalizer = GooseNormalizer;
    const SPEC: &'static CliEntry = &SPEC;
    const STREAM: bool = true;

    fn policy_env(&self, config: &AdapterConfig) -> Vec<(&'static str, String)> {
        vec![("GOOSE_MODE", goose_mode(config.approval).to_string())]
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
#[cfg(test)]
#[cfg(feature = "wasm-plugins")]
mod wasm_tests;
