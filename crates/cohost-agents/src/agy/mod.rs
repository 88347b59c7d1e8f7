//! Antigravity driver (provider id `agy`), **fixture-only**: no registry
//! ships `agy`, so it was never run here. Built from seed 003
//! (`/work/shared/seeds/003_*`) and the public sources that drive agy the
//! same way (EstebanForge/pi-antigravity-bridge, seed 003's own project:
//! `src/driver.ts`, `src/stream-events.ts`), with transcripts written by
//! hand from them (`tests/fixtures/agy/`).
//!
//! The engine seed 003 describes: ONE long-lived `agy --input-format
//! stream-json --output-format stream-json` process per session. Each turn
//! is one stdin line, `{"event":"user","message":{"role":"user","content":…}}`;
//! stdout is NDJSON `init` / `step_update` / `result`. `init` binds the
//! conversation; a process that had to go is replaced by one started with
//! `--conversation ID`. Usage is reported as each step carries it.
//! Approvals are agy's own (advisory: `--dangerously-skip-permissions`
//! only under auto-approve). agy has no documented in-band cancel, so an
//! interrupt ends the turn and stops the process group, as the sources do;
//! the next turn resumes the conversation in a new process.
//!
//! - [`wire`]: agy's messages, tolerant readers, the one writer.
//! - [`normalize`]: the pure state machine ([`normalize::AgyCore`]).
//! - `engine`: command line, environment, spawn on the shared supervisor,
//!   the session actor's core and effects.
//! - `adapter`: the port ([`AgyFactory`]).

mod adapter;
pub(crate) mod engine;
pub(crate) mod normalize;
pub(crate) mod wire;

use cohost_core::{Capabilities, CohostError, ErrorCode, ResumeSupport, StreamingGranularity};

pub use adapter::AgyFactory;

use crate::catalog::{self, CliEntry, Evidence, FlagTable, MakeFactory, PromptArg};

/// UNSUPPORTED_MODE for an approval decision: agy's stream-json mode never
/// waits for one (its own permission checks fail the tool instead).
pub(crate) fn approval_unsupported(tool_id: &str) -> CohostError {
    CohostError::new(
        ErrorCode::UnsupportedMode,
        format!("agy cannot wait for an approval over stream-json (tool call `{tool_id}`)"),
    )
    .with_fix(
        "configure agy's own permissions before starting the session, or run with `--approve all`",
    )
}

/// Antigravity's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "agy",
    label: "Antigravity agy",
    mode: "stream-json session; fixture-only",
    binaries: &["agy"],
    // Signs in with a Google account from its own TUI.
    login_args: Some(&[]),
    install_hint: "install Google Antigravity and put its `agy` CLI on PATH (antigravity.google)",
    env_prefixes: &["AGY_", "ANTIGRAVITY_"],
    flags: FlagTable {
        // The one-shot form the sources also use (not driven by cohost).
        query_prompt: PromptArg::Flag("-p"),
        terminal_prompt: PromptArg::InitialInput,
        resume: Some(&["--conversation", "{id}"]),
        skip_permissions: Some(&["--dangerously-skip-permissions"]),
        model: Some("--model"),
        stream_json: Some(&["--output-format", "stream-json"]),
        // agy insists on stream-json output when its input is stream-json.
        stream_session: Some(&[
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
        ]),
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
    ..catalog::BASE
};
