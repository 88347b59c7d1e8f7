//! How each pinned CLI is driven through cohost, from the README support
//! matrix and the E2E tests in `crates/cohost-agents/tests/*_e2e.rs`.

use cohost_testbench::AgentCli;

/// What cohost can do with the CLI's tool calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tools {
    /// The CLI asks cohost (`can_use_tool`, `requestApproval`, ACP): deny and
    /// allow go through the policy.
    Blocking,
    /// Decided at launch: Ask denies (or excludes) tools, `--approve all`
    /// runs them; the policy is never consulted.
    Advisory,
    /// No tool approvals at all (aider).
    None,
}

/// When the interrupt scenario presses interrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Interrupt {
    /// At the second streamed chunk of a slow answer.
    Chunk,
    /// Shortly after the fake server saw the model request of this fake
    /// scenario (`stall`, `slow`): for CLIs that print whole messages.
    AfterRequest(&'static str),
}

/// How a conversation is continued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resume {
    /// A new session started with the native id of the first one.
    NewSession,
    /// The next prompt of the same session (the driver restores history
    /// itself; the CLI has no id to resume by).
    FollowUp,
}

/// One CLI as the drift check drives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Profile {
    /// The bench CLI.
    pub cli: AgentCli,
    /// The cohost provider id (`claude-acp` for `claude-code-acp`).
    pub provider: &'static str,
    /// Tool approvals.
    pub tools: Tools,
    /// Interrupt style.
    pub interrupt: Interrupt,
    /// Resume style.
    pub resume: Resume,
    /// `AdapterConfig.model`, when the driver needs one.
    pub model: Option<&'static str>,
    /// ACP agents get the tool prompt with the workspace path in it.
    pub acp: bool,
    /// The `--help` commands whose flags the flag table may use.
    pub help: &'static [&'static [&'static str]],
}

const HELP: &[&[&str]] = &[&["--help"]];

const BASE: Profile = Profile {
    cli: AgentCli::Claude,
    provider: "",
    tools: Tools::Blocking,
    interrupt: Interrupt::Chunk,
    resume: Resume::NewSession,
    model: None,
    acp: false,
    help: HELP,
};

/// The profile of `cli`.
pub(crate) fn profile(cli: AgentCli) -> Profile {
    match cli {
        AgentCli::Claude => Profile {
            cli,
            provider: "claude",
            model: Some("fake-model"),
            ..BASE
        },
        AgentCli::Qwen => Profile {
            cli,
            provider: "qwen",
            model: Some("fake-model"),
            ..BASE
        },
        AgentCli::Codex => Profile {
            cli,
            provider: "codex",
            help: &[
                &["--help"],
                &["exec", "--help"],
                &["exec", "resume", "--help"],
            ],
            ..BASE
        },
        AgentCli::Gemini => Profile {
            cli,
            provider: "gemini",
            tools: Tools::Advisory,
            ..BASE
        },
        AgentCli::OpenCode => Profile {
            cli,
            provider: "opencode",
            tools: Tools::Advisory,
            interrupt: Interrupt::AfterRequest("stall"),
            help: &[&["--help"], &["run", "--help"]],
            ..BASE
        },
        AgentCli::Copilot => Profile {
            cli,
            provider: "copilot",
            tools: Tools::Advisory,
            interrupt: Interrupt::AfterRequest("slow"),
            ..BASE
        },
        AgentCli::Aider => Profile {
            cli,
            provider: "aider",
            tools: Tools::None,
            interrupt: Interrupt::AfterRequest("stall"),
            resume: Resume::FollowUp,
            model: Some("openai/fake-model"),
            ..BASE
        },
        AgentCli::Continue => Profile {
            cli,
            provider: "continue",
            tools: Tools::Advisory,
            interrupt: Interrupt::AfterRequest("stall"),
            resume: Resume::FollowUp,
            ..BASE
        },
        AgentCli::ClaudeCodeAcp => Profile {
            cli,
            provider: "claude-acp",
            acp: true,
            ..BASE
        },
        AgentCli::CodexAcp => Profile {
            cli,
            provider: "codex-acp",
            acp: true,
            ..BASE
        },
        // AgentCli is non_exhaustive: a CLI added to the bench later runs
        // under its own name until it gets a profile here.
        _ => Profile {
            cli,
            provider: cli.name(),
            ..BASE
        },
    }
}
