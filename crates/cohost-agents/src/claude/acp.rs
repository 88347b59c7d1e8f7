//! Zed's ACP bridge around Claude Code (`claude-code-acp`, provider
//! `claude-acp`): a CLI cohost drives only over ACP, found by its own binary
//! and signed in through Claude Code.

use cohost_core::{Capabilities, ResumeSupport};

use super::spec::{CLAUDE_AUTH, CLAUDE_ENV};
use crate::acp::providers::{pairs, spec, ACP_CAPABILITIES, ACP_FLAGS};
use crate::acp::spec::AcpSpec;
use crate::catalog::{self, AcpMode, CliEntry};

/// The bridge's provider spec.
pub(crate) const ACP_SPEC: CliEntry = CliEntry {
    id: "claude-acp",
    label: "Claude Code (ACP)",
    binaries: &["claude-code-acp"],
    // No `--version`; ACP `initialize` reports it.
    version_args: &[],
    pin_key: Some("CLAUDE_CODE_ACP_VERSION"),
    auth: CLAUDE_AUTH,
    login_args: Some(&["auth", "login"]),
    login_binary: Some("claude"),
    install_hint: "npm install -g @zed-industries/claude-code-acp",
    env_prefixes: CLAUDE_ENV,
    relevant_env: &[
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_API_KEY",
        "CLAUDE_CODE_EXECUTABLE",
    ],
    flags: ACP_FLAGS,
    token_streaming: true,
    // claude-code-acp offers `sessionCapabilities.fork` (unstable
    // `session/fork`, Claude's fork-session underneath).
    capabilities: Capabilities {
        fork: true,
        // Its `mcpServers` (see `acp::providers::MCP_SERVERS`).
        mcp_servers: true,
        // It asks before running their tools (`acp::providers::MCP_APPROVALS`).
        mcp_approvals: true,
        ..ACP_CAPABILITIES
    },
    acp: Some(AcpMode {
        id: "claude-acp",
        spec: launch,
    }),
    ..catalog::BASE
};

fn launch() -> AcpSpec {
    let mut s = spec(
        ACP_SPEC.id,
        ACP_SPEC.label,
        &ACP_SPEC,
        &[],
        &[],
        &[],
        ResumeSupport::NativeId,
    );
    // Its bundled Claude Code refuses to start as root without it.
    s.root_env = pairs(&[("IS_SANDBOX", "1")]);
    // 0.16.2 answers `cancelled` at once, but its Claude Code keeps the old
    // answer queued and streams it as the reply to the next prompt.
    s.restart_after_cancel = true;
    s
}
