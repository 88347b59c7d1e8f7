//! Zed's ACP bridge around Codex (`codex-acp`): a CLI cohost drives only
//! over ACP, found by its own binary and signed in through Codex. Killed by
//! process group: its native children outlive the npm wrapper otherwise.
//! Its approval policy and sandbox come from
//! [`crate::acp::providers::policy_args`].

use cohost_core::{Capabilities, ResumeSupport};

use super::CODEX_AUTH;
use crate::acp::providers::{spec, ACP_CAPABILITIES, ACP_FLAGS};
use crate::acp::spec::AcpSpec;
use crate::catalog::{self, AcpMode, CliEntry};

/// The bridge's provider spec.
pub(crate) const ACP_SPEC: CliEntry = CliEntry {
    id: "codex-acp",
    label: "Codex (ACP)",
    binaries: &["codex-acp"],
    version_args: &[],
    pin_key: Some("CODEX_ACP_VERSION"),
    auth: CODEX_AUTH,
    login_args: Some(&["login"]),
    login_binary: Some("codex"),
    install_hint: "npm install -g @zed-industries/codex-acp",
    env_prefixes: &["OPENAI_", "CODEX_"],
    relevant_env: &["OPENAI_BASE_URL", "OPENAI_API_KEY", "CODEX_HOME"],
    flags: ACP_FLAGS,
    token_streaming: true,
    // Its `mcpServers` (see `acp::providers::MCP_SERVERS`).
    capabilities: Capabilities {
        mcp_servers: true,
        // It asks before running their tools (`acp::providers::MCP_APPROVALS`).
        mcp_approvals: true,
        ..ACP_CAPABILITIES
    },
    acp: Some(AcpMode {
        id: "codex-acp",
        spec: launch,
    }),
    ..catalog::BASE
};

fn launch() -> AcpSpec {
    spec(
        ACP_SPEC.id,
        ACP_SPEC.label,
        &ACP_SPEC,
        &[],
        &["-c", "model=\"{model}\""],
        &[],
        ResumeSupport::NativeId,
    )
}
