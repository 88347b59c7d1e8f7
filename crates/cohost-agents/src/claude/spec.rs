//! The members of the Claude stream-json family, Claude Code and Qwen
//! Code: their provider specs and their dialects ([`CLAUDE`], [`QWEN`]).
//! What a dialect holds is in [`super::dialect`]. A spec and its dialect
//! name each other (through the spec's factory), so they live together.

use cohost_core::{AdapterFactory, Capabilities, ResumeSupport, SupportTier};
use std::sync::Arc;

use super::adapter::StreamJsonFactory;
use super::dialect::Dialect;
use crate::acp::providers::spec as acp_spec;
use crate::acp::spec::AcpSpec;
use crate::catalog::{
    self, AcpMode, AuthSpec, CliEntry, FlagTable, HookKind, HookSpec, MakeFactory, PromptArg,
};
use crate::process::{Version, VersionRange};

/// Claude Code's credentials, shared with the `claude-acp` wrapper.
pub(crate) const CLAUDE_AUTH: AuthSpec = AuthSpec {
    env_vars: &[
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
    ],
    credential_files: &[".claude/.credentials.json"],
    // Prints JSON `{"loggedIn":…}`, exits 1 when logged out; no model call.
    status_args: Some(&["auth", "status"]),
};

/// What Claude Code can do with its tested versions (Qwen: less, see
/// [`QWEN_SPEC`]); `initialize`
/// refuses versions outside the accepted range or lacking the flags, so the
/// descriptor stays honest.
const CAPABILITIES: Capabilities = Capabilities {
    context_files: true,
    images: true,
    fork: true,
    // `--append-system-prompt`.
    system_prompt: true,
    // `--mcp-config JSON` (Claude Code 2.1.332 and Qwen Code 0.24.4 both
    // take inline JSON, on top of the user's own servers).
    mcp_servers: true,
    // Both ask cohost (`can_use_tool`) before a tool of those servers, as
    // for their own tools (`tests/claude_support/scenarios.rs`,
    // `mcp_server_tool`).
    mcp_approvals: true,
    // A user message written while a turn runs, tracked by its
    // `command_lifecycle` (2.1.332 advertises `msg_lifecycle_v1`): the
    // driver folds what it causes into the running turn (`normalize::steering`).
    steer: true,
    tier: SupportTier::Structured,
    ..Capabilities::CONTROL_PROTOCOL
};

/// Claude Code's provider spec (`@anthropic-ai/claude-code`).
/// What passes from the user's environment to Claude Code (and its ACP
/// adapter): its vendor prefixes, and the switches it documents that carry
/// no prefix. Without the latter a user's `DISABLE_TELEMETRY=1` or
/// `DISABLE_AUTOUPDATER=1` was silently dropped under cohost, turning
/// telemetry, error reports and update checks back on. Names act as
/// prefixes (`DISABLE_PROMPT_CACHING` also passes its `_HAIKU`... forms);
/// none of them is a secret.
pub(crate) const CLAUDE_ENV: &[&str] = &[
    "ANTHROPIC_",
    "CLAUDE_",
    "DISABLE_AUTOUPDATER",
    "DISABLE_BUG_COMMAND",
    "DISABLE_COST_WARNINGS",
    "DISABLE_ERROR_REPORTING",
    "DISABLE_NON_ESSENTIAL_MODEL_CALLS",
    "DISABLE_PROMPT_CACHING",
    "DISABLE_TELEMETRY",
    "MAX_THINKING_TOKENS",
    "MAX_MCP_OUTPUT_TOKENS",
    "MCP_TIMEOUT",
    "MCP_TOOL_TIMEOUT",
    "BASH_DEFAULT_TIMEOUT_MS",
    "BASH_MAX_TIMEOUT_MS",
    "BASH_MAX_OUTPUT_LENGTH",
    "USE_BUILTIN_RIPGREP",
];

pub(crate) const SPEC: CliEntry = CliEntry {
    id: "claude",
    label: "Claude Code",
    binaries: &["claude"],
    vendor_dirs: &[".claude/local"],
    pin_key: Some("CLAUDE_CODE_VERSION"),
    auth: CLAUDE_AUTH,
    login_args: Some(&["auth", "login"]),
    install_hint: "npm install -g @anthropic-ai/claude-code",
    env_prefixes: CLAUDE_ENV,
    relevant_env: &[
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_MODEL",
        "CLAUDE_CONFIG_DIR",
    ],
    flags: FlagTable {
        non_interactive: &["-p"],
        resume: Some(&["--resume", "{id}"]),
        continue_latest: Some(&["--continue"]),
        skip_permissions: Some(&["--dangerously-skip-permissions"]),
        model: Some("--model"),
        json_output: Some(&["--output-format", "json"]),
        stream_json: Some(&[
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
        ]),
        stream_session: Some(&[
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
        ]),
        ..catalog::NO_FLAGS
    },
    token_streaming: true,
    api_provider: Some("anthropic"),
    capabilities: CAPABILITIES,
    // Same major as the pinned version: the stream-json and control
    // protocol have been stable across 2.x; a 3.0 may change them.
    accepted: Some(VersionRange {
        min: Version::new(2, 0, 0),
        max_exclusive: Version::new(3, 0, 0),
    }),
    factory: Some(MakeFactory(|| {
        Arc::new(StreamJsonFactory::claude()) as Arc<dyn AdapterFactory>
    })),
    hooks: Some(HookSpec {
        kind: HookKind::JsonEvents(&["PostToolUse", "Stop"]),
        dir_env: Some("CLAUDE_CONFIG_DIR"),
        home_dir: ".claude",
        file: "settings.json",
    }),
    ..catalog::BASE
};

/// Qwen Code's provider spec (`@qwen-code/qwen-code`).
pub(crate) const QWEN_SPEC: CliEntry = CliEntry {
    id: "qwen",
    label: "Qwen Code",
    binaries: &["qwen"],
    pin_key: Some("QWEN_CODE_VERSION"),
    auth: AuthSpec {
        env_vars: &["OPENAI_API_KEY", "DASHSCOPE_API_KEY"],
        credential_files: &[".qwen/oauth_creds.json"],
        status_args: None,
    },
    login_args: Some(&[]),
    install_hint: "npm install -g @qwen-code/qwen-code",
    env_prefixes: &["QWEN_", "OPENAI_", "DASHSCOPE_"],
    relevant_env: &["OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"],
    flags: FlagTable {
        terminal_prompt: PromptArg::InitialInput,
        resume: Some(&["--resume", "{id}"]),
        continue_latest: Some(&["--continue"]),
        // The driver's spellings (qwen_e2e); `--yolo`/`--model` are aliases.
        skip_permissions: Some(&["--approval-mode", "yolo"]),
        model: Some("-m"),
        json_output: Some(&["--output-format", "json"]),
        stream_json: Some(&[
            "--output-format",
            "stream-json",
            "--include-partial-messages",
        ]),
        stream_session: Some(&[
            "-o",
            "stream-json",
            "--input-format",
            "stream-json",
            "--include-partial-messages",
        ]),
        ..catalog::NO_FLAGS
    },
    token_streaming: true,
    api_provider: Some("openai"),
    // Qwen has no fork flag, its stream-json input takes text only, and the
    // driver passes it no system prompt.
    // Its `system/init` advertises no `msg_lifecycle_v1`, so a steer could
    // not be tracked to its answer: queued instead.
    capabilities: Capabilities {
        images: false,
        fork: false,
        system_prompt: false,
        steer: false,
        ..CAPABILITIES
    },
    // 0.x: minor versions may break the protocol, so only 0.24.
    accepted: Some(VersionRange {
        min: Version::new(0, 24, 0),
        max_exclusive: Version::new(0, 25, 0),
    }),
    factory: Some(MakeFactory(|| {
        Arc::new(StreamJsonFactory::qwen()) as Arc<dyn AdapterFactory>
    })),
    acp: Some(AcpMode {
        id: "qwen-acp",
        spec: qwen_acp,
    }),
    ..catalog::BASE
};
/// Qwen Code in ACP mode (`qwen --acp`, provider `qwen-acp`).
fn qwen_acp() -> AcpSpec {
    acp_spec(
        "qwen-acp",
        "Qwen Code (ACP)",
        &QWEN_SPEC,
        &["--acp"],
        &["--model", "{model}"],
        &[("QWEN_CODE_NO_RELAUNCH", "true")],
        ResumeSupport::NativeId,
    )
}

/// Claude Code: `@anthropic-ai/claude-code`, tested with 2.1.332.
pub const CLAUDE: Dialect = Dialect {
    spec: &SPEC,
    id: SPEC.id,
    command: SPEC.binaries[0],
    approval_after_message_stop: false,
    // 2.1.332 hides `--permission-prompt-tool` but names it in the help of
    // `--permission-prompts`; older versions list it as a flag.
    required_help: &[
        "--input-format",
        "--include-partial-messages",
        "permission-prompt-tool",
    ],
    // Claude reports API errors in `<synthetic>` messages, never as deltas.
    error_text_prefix: None,
    // 2.1.332's stdio server schema: "When true, all tools from this server
    // are always included in the prompt and never deferred behind tool
    // search" (it also waits up to 5 s for the server before turn 1).
    mcp_always_load: "alwaysLoad",
};

/// Qwen Code: `@qwen-code/qwen-code`, tested with 0.24.4.
pub const QWEN: Dialect = Dialect {
    spec: &QWEN_SPEC,
    id: QWEN_SPEC.id,
    command: QWEN_SPEC.binaries[0],
    approval_after_message_stop: true,
    required_help: &[
        "--input-format",
        "--include-partial-messages",
        "--approval-mode",
    ],
    error_text_prefix: Some("[API Error"),
    // 0.24.4 defers every MCP tool behind `tool_search` unless its server
    // says `alwaysLoadTools` (what its own daemon sets for servers a user
    // connects to a session).
    mcp_always_load: "alwaysLoadTools",
};

// With the specs, not the factory: a spec names its factory, whose dialect
// names the spec back.
impl StreamJsonFactory {
    /// Claude Code.
    pub fn claude() -> Self {
        StreamJsonFactory::new(CLAUDE)
    }

    /// Qwen Code.
    pub fn qwen() -> Self {
        StreamJsonFactory::new(QWEN)
    }
}
