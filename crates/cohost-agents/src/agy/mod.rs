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

pub(crate) mod normalize;

use cohost_core::{AdapterConfig, Capabilities, ResumeSupport, StreamingGranularity};

pub(crate) use normalize::AgyNormalizer;

use crate::catalog::{self, CliEntry, Evidence, FlagTable, MakeFactory, PromptArg};
use crate::process::oneshot::{oneshot_factory, parser_of, CliDriver};

/// Antigravity's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "agy",
    label: "Antigravity agy",
    mode: "stream-json; fixture-only",
    binaries: &["agy"],
    // Signs in with a Google account from its own TUI.
    login_args: Some(&[]),
    install_hint: "install Google Antigravity and put its `agy` CLI on PATH (antigravity.google)",
    env_prefixes: &["AGY_", "ANTIGRAVITY_"],
    flags: FlagTable {
        query_prompt: PromptArg::Flag("-p"),
        terminal_prompt: PromptArg::InitialInput,
        resume: Some(&["--conversation", "{id}"]),
        model: Some("--model"),
        stream_json: Some(&["--output-format", "stream-json"]),
        ..catalog::NO_FLAGS
    },
    token_streaming: true,
    evidence: Evidence::FixtureOnly,
    capabilities: Capabilities {
        streaming: StreamingGranularity::TokenDeltas,
        reasoning: true,
        resume: ResumeSupport::NativeId,
        usage: true,
        ..Capabilities::BASELINE
    },
    factory: Some(MakeFactory::of::<AgyFactory>()),
    parser: Some(parser_of::<Driver>()),
    ..catalog::BASE
};

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Driver;

impl CliDriver for Driver {
    type Normalizer = AgyNormalizer;
    const SPEC: &'static CliEntry = &SPEC;
    const STREAM: bool = true;
    const PROMPT_FIRST: bool = true;

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
