//! The six built-in ACP providers: how to launch each and what it honestly
//! supports (checked on the pinned versions in `tests/agents/versions.env`).

use cohost_core::{
    ApprovalMode, ApprovalSupport, Capabilities, InterruptSupport, ResumeSupport,
    StreamingGranularity, SupportTier,
};
use std::path::Path;

use crate::catalog::{self, CliEntry, PromptArg};

/// What every built-in ACP agent does (see [`super::descriptor`]).
const ACP_CAPABILITIES: Capabilities = Capabilities {
    streaming: StreamingGranularity::TokenDeltas,
    reasoning: true,
    approvals: ApprovalSupport::Blocking,
    interrupt: InterruptSupport::Protocol,
    resume: ResumeSupport::NativeId,
    usage: false,
    context_files: true,
    images: true,
    fork: false,
    executes_tools: true,
    tier: SupportTier::Structured,
};

/// ACP wrappers take everything over JSON-RPC on stdin.
const ACP_FLAGS: catalog::FlagTable = catalog::FlagTable {
    query_prompt: PromptArg::Stdin,
    terminal_prompt: PromptArg::Stdin,
    ..catalog::NO_FLAGS
};

/// Zed's ACP bridge around Claude Code: its provider spec. Registered by
/// [`super::register`] with the other ACP providers.
pub(crate) const CLAUDE_ACP_SPEC: CliEntry = CliEntry {
    id: "claude-acp",
    label: "Claude Code (ACP)",
    binaries: &["claude-code-acp"],
    // No `--version`; ACP `initialize` reports it.
    version_args: &[],
    pin_key: Some("CLAUDE_CODE_ACP_VERSION"),
    auth: crate::claude::CLAUDE_AUTH,
    login_args: Some(&["auth", "login"]),
    login_binary: Some("claude"),
    install_hint: "npm install -g @zed-industries/claude-code-acp",
    env_prefixes: crate::claude::CLAUDE_ENV,
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
        ..ACP_CAPABILITIES
    },
    ..catalog::BASE
};

/// Zed's ACP bridge around Codex: its provider spec. Registered by
/// [`super::register`] with the other ACP providers.
pub(crate) const CODEX_ACP_SPEC: CliEntry = CliEntry {
    id: "codex-acp",
    label: "Codex (ACP)",
    binaries: &["codex-acp"],
    version_args: &[],
    pin_key: Some("CODEX_ACP_VERSION"),
    auth: crate::codex::CODEX_AUTH,
    login_args: Some(&["login"]),
    login_binary: Some("codex"),
    install_hint: "npm install -g @zed-industries/codex-acp",
    env_prefixes: &["OPENAI_", "CODEX_"],
    relevant_env: &["OPENAI_BASE_URL", "OPENAI_API_KEY", "CODEX_HOME"],
    flags: ACP_FLAGS,
    token_streaming: true,
    capabilities: ACP_CAPABILITIES,
    ..catalog::BASE
};

/// Agents not offered cohost's `fs/*` client methods. Gemini CLI 0.61
/// reads a file through the client before writing it and only treats a
/// Node `ENOENT` as "new file": a JSON-RPC error for a missing file (the
/// SDK rejects with the plain error object) fails every new-file write
/// ("Error checking existing file"). Without the capability it uses its own
/// file system, inside the same working directory, and still asks
/// (`session/request_permission`) before it writes.
pub(crate) const NO_CLIENT_FS: &[&str] = &["gemini-acp"];

/// How an agent reports provider failures that it does not send as errors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TextErrors {
    /// Failures arrive as errors (or not at all).
    #[default]
    None,
    /// Copilot CLI: the turn's answer text is `Error: … (HTTP 401).` followed
    /// by what to check, and the turn ends `end_turn`.
    Copilot,
}

/// How to launch one ACP agent. Owned data so plugin manifests can build one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcpSpec {
    /// Provider id (`gemini-acp`).
    pub id: String,
    /// Human label.
    pub label: String,
    /// Executable names to look for on PATH, preferred first.
    pub binaries: Vec<String>,
    /// Arguments that put the binary in ACP mode.
    pub args: Vec<String>,
    /// Arguments that select a model; `{model}` is replaced.
    pub model_args: Vec<String>,
    /// The vendor's own variable prefixes the child inherits.
    pub env_prefixes: Vec<String>,
    /// Non-secret variables the driver sets (the user's `env` wins).
    pub env: Vec<(String, String)>,
    /// Variables set only when cohost runs as root.
    pub root_env: Vec<(String, String)>,
    /// Variables that make the agent ask before running tools, set unless
    /// the policy is auto-approve or the user set them (so approvals are
    /// enforced even when the agent's own default is to allow).
    pub ask_env: Vec<(String, String)>,
    /// Restart the agent (and `session/load` the session) before the turn
    /// after a cancel, for agents whose cancelled answer leaks into the next
    /// turn.
    pub restart_after_cancel: bool,
    /// Variables that must be set (non-empty) for the agent to work.
    pub required_env: Vec<String>,
    /// What resume looks like for this agent.
    pub resume: ResumeSupport,
    /// Whether it streams reasoning.
    pub reasoning: bool,
    /// Whether it reports token usage.
    pub usage: bool,
    /// Support tier.
    pub tier: SupportTier,
    /// Install hint for PROVIDER_NOT_FOUND.
    pub install_hint: String,
    /// How it reports provider failures in answer text, if it does.
    pub text_errors: TextErrors,
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// An ACP provider over the CLI `cli` (its binary, vendor prefixes and
/// install hint).
fn spec(
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
        env_prefixes: strs(cli.env_prefixes),
        env: pairs(env),
        root_env: Vec::new(),
        ask_env: Vec::new(),
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

/// Gemini CLI in ACP mode (`gemini --acp`).
pub fn gemini() -> AcpSpec {
    let mut s = spec(
        "gemini-acp",
        "Gemini CLI (ACP)",
        &crate::gemini::SPEC,
        &["--acp"],
        &["--model", "{model}"],
        // One process instead of a re-spawned child: signals reach the agent.
        &[("GEMINI_CLI_NO_RELAUNCH", "true")],
        ResumeSupport::NativeId,
    );
    s.usage = true;
    s
}

/// Qwen Code in ACP mode (`qwen --acp`).
pub fn qwen() -> AcpSpec {
    spec(
        "qwen-acp",
        "Qwen Code (ACP)",
        &crate::claude::QWEN_SPEC,
        &["--acp"],
        &["--model", "{model}"],
        &[("QWEN_CODE_NO_RELAUNCH", "true")],
        ResumeSupport::NativeId,
    )
}

/// OpenCode's ACP server (`opencode acp`). Its default permissions allow
/// shell and edits without asking, so cohost asks it to ask.
pub fn opencode() -> AcpSpec {
    let mut s = spec(
        "opencode-acp",
        "OpenCode (ACP)",
        &crate::opencode::SPEC,
        &["acp"],
        &[],
        &[],
        ResumeSupport::NativeId,
    );
    s.ask_env = pairs(&[(
        "OPENCODE_PERMISSION",
        r#"{"bash":"ask","edit":"ask","webfetch":"ask"}"#,
    )]);
    s
}

/// GitHub Copilot CLI in ACP mode (`copilot --acp`).
pub fn copilot() -> AcpSpec {
    let mut s = spec(
        "copilot-acp",
        "GitHub Copilot CLI (ACP)",
        &crate::copilot::SPEC,
        &["--acp"],
        &["--model", "{model}"],
        // A self-update in the middle of a session would replace the binary under us.
        &[("COPILOT_AUTO_UPDATE", "false")],
        ResumeSupport::NativeId,
    );
    // 1.0.102 reports a provider 401 as the answer text of a completed turn.
    s.text_errors = TextErrors::Copilot;
    s
}

/// Zed's ACP bridge around Claude Code (`claude-code-acp`).
pub fn claude() -> AcpSpec {
    let mut s = spec(
        CLAUDE_ACP_SPEC.id,
        CLAUDE_ACP_SPEC.label,
        &CLAUDE_ACP_SPEC,
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

/// Zed's ACP bridge around Codex (`codex-acp`). Killed by process group:
/// its native children outlive the npm wrapper otherwise. Its approval
/// policy and sandbox come from [`policy_args`].
pub fn codex() -> AcpSpec {
    spec(
        CODEX_ACP_SPEC.id,
        CODEX_ACP_SPEC.label,
        &CODEX_ACP_SPEC,
        &[],
        &["-c", "model=\"{model}\""],
        &[],
        ResumeSupport::NativeId,
    )
}

/// All six, in registration order.
pub fn all() -> Vec<AcpSpec> {
    vec![gemini(), qwen(), opencode(), copilot(), claude(), codex()]
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
pub(crate) fn policy_args(
    spec_id: &str,
    approval: ApprovalMode,
    sandbox_bwrap: bool,
) -> Vec<String> {
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
    bundled || crate::process::find_on_path("bwrap", path).is_some()
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
    fn other_agents_get_no_policy_args() {
        for spec in all().iter().filter(|s| s.id != "codex-acp") {
            assert!(policy_args(&spec.id, ApprovalMode::Ask, false).is_empty());
        }
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
