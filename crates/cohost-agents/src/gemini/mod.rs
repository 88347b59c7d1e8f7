//! Gemini CLI driver (provider id `gemini`): `gemini -p PROMPT
//! --output-format stream-json` per turn, `--resume <session id>` after the
//! first.
//!
//! Headless gemini has no blocking approvals: tools run only when the
//! launch policy lets them (`--approval-mode yolo` under
//! [`cohost_core::ApprovalMode::AutoApprove`], gemini's own default
//! otherwise), so approvals are `advisory`. Blocking approvals come through
//! gemini's ACP mode (`gemini --acp`), the separate `gemini-acp` provider.
//! Interrupts are SIGINT to the process group, then the usual escalation.

pub(crate) mod auth;
pub(crate) mod engine;
pub(crate) mod normalize;
pub(crate) mod wire;

use cohost_core::{Capabilities, ResumeSupport, StreamingGranularity, SupportTier};

use crate::acp::providers::spec as acp_spec;
use crate::acp::spec::AcpSpec;
use crate::catalog::{
    self, AcpMode, AuthSpec, CliEntry, FlagTable, MakeFactory, Preflight, PromptArg,
};
use crate::process::oneshot::{oneshot_factory, parser_of};
use crate::process::{Version, VersionRange};

/// Gemini CLI's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "gemini",
    label: "Gemini CLI",
    mode: "headless stream-json",
    binaries: &["gemini"],
    pin_key: Some("GEMINI_CLI_VERSION"),
    auth: AuthSpec {
        env_vars: &[
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
            "GOOGLE_GENAI_USE_VERTEXAI",
            "GOOGLE_GENAI_USE_GCA",
        ],
        credential_files: &[".gemini/oauth_creds.json"],
        status_args: None,
    },
    // Gemini signs in from its own TUI ("Login with Google").
    login_args: Some(&[]),
    install_hint: "npm install -g @google/gemini-cli",
    env_prefixes: &["GEMINI_", "GOOGLE_"],
    relevant_env: &[
        "GEMINI_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
        "GEMINI_CLI_HOME",
    ],
    flags: FlagTable {
        // `--prompt=TEXT`: a prompt starting with `-` stays a prompt.
        query_prompt: PromptArg::Joined("--prompt"),
        terminal_prompt: PromptArg::InitialInput,
        // 0.61 `--resume` takes `latest` or an index; ids need `--session-id`.
        resume: Some(&["--resume", "{id}"]),
        continue_latest: Some(&["--resume", "latest"]),
        // The driver's spelling; `--yolo` is the older alias.
        skip_permissions: Some(&["--approval-mode", "yolo"]),
        model: Some("--model"),
        json_output: Some(&["--output-format", "json"]),
        stream_json: Some(&["--output-format", "stream-json"]),
        ..catalog::NO_FLAGS
    },
    token_streaming: true,
    api_provider: Some("gemini-api"),
    capabilities: Capabilities {
        streaming: StreamingGranularity::TokenDeltas,
        resume: ResumeSupport::NativeId,
        usage: true,
        context_files: true,
        tier: SupportTier::Structured,
        ..Capabilities::BASELINE
    },
    // 0.61.0 is pinned in `tests/agents/versions.env`; the stream-json
    // format is checked at start-up, so later 0.x releases are accepted.
    accepted: Some(VersionRange {
        min: Version::new(0, 61, 0),
        max_exclusive: Version::new(1, 0, 0),
    }),
    factory: Some(MakeFactory::of::<GeminiFactory>()),
    preflight: Some(Preflight(auth::preflight)),
    acp: Some(AcpMode {
        id: "gemini-acp",
        spec: acp_launch,
    }),
    parser: Some(parser_of::<engine::Driver>()),
    ..catalog::BASE
};
/// Gemini CLI in ACP mode (`gemini --acp`, provider `gemini-acp`).
fn acp_launch() -> AcpSpec {
    let mut s = acp_spec(
        "gemini-acp",
        "Gemini CLI (ACP)",
        &SPEC,
        &["--acp"],
        &["--model", "{model}"],
        // One process instead of a re-spawned child: signals reach the agent.
        &[("GEMINI_CLI_NO_RELAUNCH", "true")],
        ResumeSupport::NativeId,
    );
    s.usage = true;
    s
}

oneshot_factory!(
    /// Makes gemini adapters (the shared one-shot runner over [`engine`]'s
    /// driver).
    pub GeminiFactory => engine::Driver
);
