//! Provider descriptors: what a provider is and what it can honestly do.

use serde::{Deserialize, Serialize};

/// The four provider kinds of seed 002.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// A coding-agent CLI run as a child process.
    AgentCli,
    /// A model server on this machine (Ollama, LM Studio).
    LocalModelServer,
    /// A gateway in front of many models (LiteLLM, OpenRouter).
    ApiGateway,
    /// A vendor API called directly.
    ApiDirect,
}

/// How finely text arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamingGranularity {
    /// Token-level deltas.
    TokenDeltas,
    /// Whole messages (each arrives as one chunk).
    WholeMessages,
}

/// How tool approvals work with this provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalSupport {
    /// The agent blocks until cohost answers.
    Blocking,
    /// The agent reports what it did; cohost cannot stop it (policy applies at launch).
    Advisory,
    /// No tools or no approval channel.
    None,
}

/// How a running turn can be interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptSupport {
    /// A protocol message; the session survives.
    Protocol,
    /// A signal to the process group.
    Signal,
    /// Dropping the connection (HTTP providers).
    Disconnect,
    /// Not interruptible.
    None,
}

/// How a conversation is resumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResumeSupport {
    /// By the agent's native session id.
    NativeId,
    /// cohost keeps and replays the transcript (HTTP providers).
    Transcript,
    /// No resume.
    None,
}

/// How well a driver is proven on this platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SupportTier {
    /// A structured channel, proven against the real tool.
    Structured,
    /// Terminal scraping through a PTY: degraded.
    Pty,
    /// Built from public docs and hand-written fixtures; never run here.
    FixtureOnly,
    /// Built in for demos and tests.
    Builtin,
}

/// What this provider can do, stated honestly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// Text granularity.
    pub streaming: StreamingGranularity,
    /// Reasoning arrives as `reasoning_chunk`.
    pub reasoning: bool,
    /// Tool approvals.
    pub approvals: ApprovalSupport,
    /// Interrupts.
    pub interrupt: InterruptSupport,
    /// Resume.
    pub resume: ResumeSupport,
    /// Reports token usage.
    pub usage: bool,
    /// Accepts context files with a prompt.
    pub context_files: bool,
    /// Accepts images with a prompt (`--image`).
    #[serde(default)]
    pub images: bool,
    /// Can fork a session into a new branch (`--fork`).
    #[serde(default)]
    pub fork: bool,
    /// Takes an appended system prompt (`--system-prompt`,
    /// [`crate::AdapterConfig::system_prompt`]).
    #[serde(default)]
    pub system_prompt: bool,
    /// Takes MCP servers from cohost ([`crate::AdapterConfig::mcp_servers`]:
    /// a room's bridge, so members can ask each other).
    #[serde(default)]
    pub mcp_servers: bool,
    /// Asks cohost (its approval channel) before it runs a tool of an MCP
    /// server cohost gave it, as it asks for its other tools; checked per
    /// agent on its pinned version. Where false, the room bridge asks for
    /// each call itself, so no member's bridge call goes unapproved.
    #[serde(default)]
    pub mcp_approvals: bool,
    /// Takes text while a turn runs and gives it to the agent during that
    /// turn ([`crate::AgentAdapter::steer`]: Codex's `turn/steer`); for
    /// the others a steer is queued as the next turn.
    #[serde(default)]
    pub steer: bool,
    /// Runs tools itself (false for API providers, which only surface calls).
    pub executes_tools: bool,
    /// Support tier.
    pub tier: SupportTier,
}

impl Capabilities {
    /// What every provider starts from before it claims more (a spec says
    /// only where it differs: `Capabilities { usage: true, ..BASELINE }`):
    /// whole messages, advisory approvals, signal interrupts, no resume,
    /// usage, files, images, fork or system prompt, runs its own tools,
    /// fixture-only tier.
    pub const BASELINE: Capabilities = Capabilities {
        streaming: StreamingGranularity::WholeMessages,
        reasoning: false,
        approvals: ApprovalSupport::Advisory,
        interrupt: InterruptSupport::Signal,
        resume: ResumeSupport::None,
        usage: false,
        context_files: false,
        images: false,
        fork: false,
        system_prompt: false,
        mcp_servers: false,
        mcp_approvals: false,
        steer: false,
        executes_tools: true,
        tier: SupportTier::FixtureOnly,
    };

    /// A long-lived agent driven over a control protocol (Claude Code's
    /// stream-json, Codex's app-server, the mock): token deltas and
    /// reasoning, approvals that block, interrupts and resume by the
    /// protocol's own means, token usage.
    pub const CONTROL_PROTOCOL: Capabilities = Capabilities {
        streaming: StreamingGranularity::TokenDeltas,
        reasoning: true,
        approvals: ApprovalSupport::Blocking,
        interrupt: InterruptSupport::Protocol,
        resume: ResumeSupport::NativeId,
        usage: true,
        ..Capabilities::BASELINE
    };
}

/// The static description of a provider, shown by `cohost agents`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderDescriptor {
    /// Short stable id users type (`claude`, `codex`, `mock`...).
    pub id: String,
    /// Human label.
    pub label: String,
    /// Kind.
    pub kind: ProviderKind,
    /// Capabilities.
    pub capabilities: Capabilities,
    /// How to install it, for PROVIDER_NOT_FOUND messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install_hint: Option<String>,
}

impl ProviderKind {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::AgentCli => "agent_cli",
            ProviderKind::LocalModelServer => "local_model_server",
            ProviderKind::ApiGateway => "api_gateway",
            ProviderKind::ApiDirect => "api_direct",
        }
    }
}

impl Capabilities {
    /// A short human summary, e.g. `deltas reasoning approvals:blocking interrupt:protocol resume`.
    pub fn summary(&self) -> String {
        let mut parts = vec![match self.streaming {
            StreamingGranularity::TokenDeltas => "deltas",
            StreamingGranularity::WholeMessages => "messages",
        }
        .to_string()];
        if self.reasoning {
            parts.push("reasoning".into());
        }
        parts.push(format!(
            "approvals:{}",
            match self.approvals {
                ApprovalSupport::Blocking => "blocking",
                ApprovalSupport::Advisory => "advisory",
                ApprovalSupport::None => "none",
            }
        ));
        parts.push(format!(
            "interrupt:{}",
            match self.interrupt {
                InterruptSupport::Protocol => "protocol",
                InterruptSupport::Signal => "signal",
                InterruptSupport::Disconnect => "disconnect",
                InterruptSupport::None => "none",
            }
        ));
        match self.resume {
            ResumeSupport::NativeId => parts.push("resume".into()),
            ResumeSupport::Transcript => parts.push("resume:transcript".into()),
            ResumeSupport::None => {}
        }
        if self.usage {
            parts.push("usage".into());
        }
        if self.steer {
            parts.push("steer".into());
        }
        if !self.executes_tools {
            parts.push("no-tool-exec".into());
        }
        parts.join(" ")
    }
}
