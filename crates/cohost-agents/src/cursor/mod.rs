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

pub(crate) mod normalize;

use cohost_core::{AdapterConfig, Capabilities, ResumeSupport};

pub(crate) use normalize::CursorNormalizer;

use crate::catalog::{self, AuthSpec, CliEntry, Evidence, FlagTable, MakeFactory};
use crate::process::oneshot::{oneshot_factory, parser_of, CliDriver};

/// Cursor Agent's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "cursor",
    label: "Cursor Agent",
    mode: "stream-json; fixture-only",
    binaries: &["cursor-agent"],
    auth: AuthSpec {
        env_vars: &["CURSOR_API_KEY"],
        credential_files: &[],
        status_args: Some(&["status"]),
    },
    login_args: Some(&["login"]),
    install_hint: "curl https://cursor.com/install -fsS | bash  (then `cursor-agent login`)",
    env_prefixes: &["CURSOR_"],
    flags: FlagTable {
        non_interactive: &["-p"],
        resume: Some(&["--resume", "{id}"]),
        continue_latest: Some(&["resume"]),
        skip_permissions: Some(&["--force"]),
        model: Some("--model"),
        json_output: Some(&["--output-format", "json"]),
        // The driver does not pass `--stream-partial-output`.
        stream_json: Some(&["--output-format", "stream-json"]),
        ..catalog::NO_FLAGS
    },
    token_streaming: true,
    evidence: Evidence::FixtureOnly,
    capabilities: Capabilities {
        resume: ResumeSupport::NativeId,
        context_files: true,
        ..Capabilities::BASELINE
    },
    factory: Some(MakeFactory::of::<CursorFactory>()),
    parser: Some(parser_of::<Driver>()),
    ..catalog::BASE
};

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Driver;

impl CliDriver for Driver {
    type Normalizer = CursorNormalizer;
    const SPEC: &'static CliEntry = &SPEC;
    const STREAM: bool = true;
    const END_OF_OPTIONS: bool = true;

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
