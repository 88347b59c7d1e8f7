//! What the built-in ACP providers share: the capabilities and flags of an
//! ACP wrapper, the builder each driver folder's ACP mode starts from, and
//! the launch policy some agents take on the command line. The list of them
//! is derived from the provider list (each entry's [`CliEntry::acp`]) in
//! `cohost_agents::acp::providers`. Each provider's own facts (checked on the pinned
//! versions in `tests/agents/versions.env`) live in its driver folder.

use cohost_core::{
    ApprovalMode, ApprovalSupport, Capabilities, InterruptSupport, ResumeSupport,
    StreamingGranularity, SupportTier,
};
use std::path::Path;

use cohost_process::provider::acp::{AcpSpec, TextErrors};
use cohost_process::provider::{self as catalog, CliEntry, PromptArg};

/// What every built-in ACP agent does (see [`super::descriptor`]).
pub const ACP_CAPABILITIES: Capabilities = Capabilities {
    streaming: StreamingGranularity::TokenDeltas,
    reasoning: true,
    approvals: ApprovalSupport::Blocking,
    interrupt: InterruptSupport::Protocol,
    resume: ResumeSupport::NativeId,
    usage: false,
    context_files: true,
    images: true,
    fork: false,
    system_prompt: false,
    // Per agent: [`MCP_SERVERS`].
    mcp_servers: false,
    // Per agent: [`MCP_APPROVALS`].
    mcp_approvals: false,
    steer: false,
    executes_tools: true,
    tier: SupportTier::Structured,
};

/// ACP wrappers take everything over JSON-RPC on stdin.
pub const ACP_FLAGS: catalog::FlagTable = catalog::FlagTable {
    query_prompt: PromptArg::Stdin,
    terminal_prompt: PromptArg::Stdin,
    ..catalog::NO_FLAGS
};

/// Agents not offered cohost's `fs/*` client methods. Gemini CLI 0.61
/// reads a file through the client before writing it and only treats a
/// Node `ENOENT` as "new file": a JSON-RPC error for a missing file (the
/// SDK rejects with the plain error object) fails every new-file write
/// ("Error checking existing file"). Without the capability it uses its own
/// file system, inside the same working directory, and still asks
/// (`session/request_permission`) before it writes.
pub(crate) const NO_CLIENT_FS: &[&str] = &["gemini-acp"];

/// The built-in ACP agents that take cohost's MCP servers (the
/// `mcpServers` of `session/new`) as a room needs them: on the pinned
/// versions, driven against the fake model, each started the server and
/// offered its tool to the model. ACP says every agent must support stdio
/// servers, but of the others `cline` 3.0.65 and `copilot --acp` 1.0.102
/// never started it, and `qwen --acp` 0.24.4 and `vibe-acp` 3.0.3 started
/// it but kept its tools behind their own tool search, so the model is not
/// offered them by name. A plugin's ACP agent is not claimed either.
pub const MCP_SERVERS: &[&str] = &[
    "gemini-acp",
    "claude-acp",
    "codex-acp",
    "opencode-acp",
    "kilo-acp",
];

/// Of [`MCP_SERVERS`], the agents that ask cohost
/// (`session/request_permission`) before they run a tool of cohost's MCP
/// server, as seen on the pinned versions against the fake model
/// (`cohost-agents` `acp_e2e`, `McpCall::AskedThenRan`; `codex-acp` 0.16.0
/// asks "Approve MCP tool call" for codex's `mcp_tool_call` elicitation).
/// `opencode-acp` and `kilo-acp` ran it without asking: for those the room
/// bridge asks itself.
pub const MCP_APPROVALS: &[&str] = &["gemini-acp", "claude-acp", "codex-acp"];

/// Owned strings.
pub fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Owned `(name, value)` pairs.
pub fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// An ACP provider over the CLI `cli` (its binary, vendor prefixes and
/// install hint): what a driver folder's ACP mode starts from.
pub fn spec(
    id: &str,
    label: &str,
    cli: &CliEntry,
    args: &[&str],
    model_args: &[&str],
    env: &[(&str, &str)],
    resume: ResumeSupport,
) -> AcpSpec {
    AcpSpec {
        id: id.into(),
        label: label.into(),
        binaries: vec![cli.command().into()],
        args: strs(args),
        model_args: strs(model_args),
        model_env: None,
        env_prefixes: strs(cli.env_prefixes),
        env: pairs(env),
        root_env: Vec::new(),
        ask_env: Vec::new(),
        approval_modes: None,
        restart_after_cancel: false,
        required_env: Vec::new(),
        resume,
        reasoning: true,
        usage: false,
        tier: SupportTier::Structured,
        install_hint: cli.install_hint.into(),
        text_errors: TextErrors::None,
    }
}

/// Arguments that put a built-in agent under cohost's approval policy, for
/// agents that take it on the command line rather than from `ask_env`.
/// Placed before the user's extra arguments, so a user can override them.
///
/// codex-acp 0.16.0 starts in its `read-only` preset (approval
/// `on-request`): commands run inside its sandbox without asking, so Ask
/// was not enforced. `untrusted` makes it ask before every command outside
/// its known-safe read-only list (`ls`, `cat`, `rg`, ...) and before every
/// patch; `never` is auto-approve. None of its session modes (`read-only`,
/// `auto`, `full-access`) asks for everything, hence `-c` overrides.
///
/// The sandbox: codex confines commands with bubblewrap. When `bwrap` is
/// missing (`sandbox_bwrap` false) every sandboxed command fails, approved
/// or not, so cohost then runs approved commands unconfined
/// (`danger-full-access`): cohost's approval is the only gate, and the
/// known-safe read-only commands run without asking, unconfined.
/// With bubblewrap, approved commands stay confined to the workspace
/// (`workspace-write`).
pub fn policy_args(spec_id: &str, approval: ApprovalMode, sandbox_bwrap: bool) -> Vec<String> {
    if spec_id != "codex-acp" {
        return Vec::new();
    }
    let approval_policy = match approval {
        ApprovalMode::AutoApprove => "never",
        ApprovalMode::Ask | ApprovalMode::DenyAll => "untrusted",
    };
    let sandbox = if sandbox_bwrap {
        "workspace-write"
    } else {
        "danger-full-access"
    };
    vec![
        "-c".into(),
        format!("approval_policy=\"{approval_policy}\""),
        "-c".into(),
        format!("sandbox_mode=\"{sandbox}\""),
    ]
}

/// Whether codex's Linux sandbox can start: a `bwrap` on the child's PATH or
/// the bundled `codex-resources/bwrap` next to the agent binary.
pub(crate) fn bwrap_available(binary: &Path, path: Option<&std::ffi::OsStr>) -> bool {
    let bundled = binary
        .parent()
        .map(|d| d.join("codex-resources/bwrap").is_file())
        .unwrap_or(false);
    bundled || cohost_process::find_on_path("bwrap", path).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_asks_unless_auto_approve() {
        for mode in [ApprovalMode::Ask, ApprovalMode::DenyAll] {
            let a = policy_args("codex-acp", mode, false);
            assert_eq!(
                a,
                [
                    "-c",
                    "approval_policy=\"untrusted\"",
                    "-c",
                    "sandbox_mode=\"danger-full-access\""
                ]
            );
        }
        let a = policy_args("codex-acp", ApprovalMode::AutoApprove, true);
        assert_eq!(a[1], "approval_policy=\"never\"");
        assert_eq!(a[3], "sandbox_mode=\"workspace-write\"");
        let a = policy_args("codex-acp", ApprovalMode::Ask, true);
        assert_eq!(a[3], "sandbox_mode=\"workspace-write\"");
    }

    #[test]
    fn bwrap_found_on_path_or_next_to_binary() {
        let dir = std::env::temp_dir().join(format!("cohost-bwrap-{}", std::process::id()));
        let res = dir.join("codex-resources");
        std::fs::create_dir_all(&res).unwrap();
        let bin = dir.join("codex-acp");
        assert!(!bwrap_available(
            &bin,
            Some(std::ffi::OsStr::new("/nonexistent"))
        ));
        std::fs::write(res.join("bwrap"), "").unwrap();
        assert!(bwrap_available(
            &bin,
            Some(std::ffi::OsStr::new("/nonexistent"))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
