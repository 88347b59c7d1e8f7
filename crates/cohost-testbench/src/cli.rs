//! The agent CLIs the bench knows: their install names, launcher names and
//! which fake-server endpoint a plain prompt reaches.

use std::fmt;
use std::str::FromStr;

/// A real agent CLI installed by `tests/agents/install.sh`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum AgentCli {
    /// Claude Code (`claude`).
    Claude,
    /// OpenAI Codex CLI (`codex`).
    Codex,
    /// Gemini CLI (`gemini`).
    Gemini,
    /// Qwen Code (`qwen`).
    Qwen,
    /// OpenCode (`opencode`).
    OpenCode,
    /// Kilo Code's CLI (`kilo`), an OpenCode fork.
    Kilo,
    /// GitHub Copilot CLI (`copilot`).
    Copilot,
    /// Aider (`aider`, a Python venv).
    Aider,
    /// Zed's ACP bridge around Claude Code (`claude-code-acp`).
    ClaudeCodeAcp,
    /// Zed's ACP bridge around Codex (`codex-acp`).
    CodexAcp,
    /// Continue's CLI (`cn`).
    Continue,
    /// Cline's CLI (`cline`), driven over ACP.
    Cline,
    /// Mistral Vibe (`vibe-acp`, a Python venv), driven over ACP.
    Vibe,
}

/// The model API a CLI speaks to its base URL, as the fake server routes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModelApi {
    /// `POST /v1/messages`.
    AnthropicMessages,
    /// `POST /v1/responses`.
    OpenAiResponses,
    /// `POST /v1/chat/completions`.
    OpenAiChat,
    /// `POST /v1beta/models/{model}:streamGenerateContent`.
    GeminiStream,
}

impl ModelApi {
    /// Whether a logged request path is this API's model call.
    pub fn matches_path(self, path: &str) -> bool {
        match self {
            ModelApi::AnthropicMessages => path.ends_with("/v1/messages"),
            ModelApi::OpenAiResponses => path.ends_with("/v1/responses"),
            ModelApi::OpenAiChat => path.ends_with("/v1/chat/completions"),
            ModelApi::GeminiStream => {
                path.contains("/models/") && path.ends_with(":streamGenerateContent")
            }
        }
    }
}

impl AgentCli {
    /// Every bench CLI, in install-script order.
    pub const ALL: [AgentCli; 13] = [
        AgentCli::Claude,
        AgentCli::Codex,
        AgentCli::Gemini,
        AgentCli::Qwen,
        AgentCli::OpenCode,
        AgentCli::Kilo,
        AgentCli::Copilot,
        AgentCli::ClaudeCodeAcp,
        AgentCli::CodexAcp,
        AgentCli::Cline,
        AgentCli::Vibe,
        AgentCli::Continue,
        AgentCli::Aider,
    ];

    /// The agent's name in `install.sh --only NAME` and `versions.env`.
    pub fn name(self) -> &'static str {
        match self {
            AgentCli::Claude => "claude",
            AgentCli::Codex => "codex",
            AgentCli::Gemini => "gemini",
            AgentCli::Qwen => "qwen",
            AgentCli::OpenCode => "opencode",
            AgentCli::Kilo => "kilo",
            AgentCli::Copilot => "copilot",
            AgentCli::Aider => "aider",
            AgentCli::ClaudeCodeAcp => "claude-code-acp",
            AgentCli::CodexAcp => "codex-acp",
            AgentCli::Continue => "continue",
            AgentCli::Cline => "cline",
            AgentCli::Vibe => "vibe",
        }
    }

    /// The launcher's file name in the install dir's `bin/`.
    pub fn binary(self) -> &'static str {
        match self {
            AgentCli::Continue => "cn",
            AgentCli::Vibe => "vibe-acp",
            other => other.name(),
        }
    }

    /// The shell command that installs this CLI, for skip and failure messages.
    pub fn install_command(self) -> String {
        format!("bash tests/agents/install.sh --only {}", self.name())
    }

    /// Whether the bench drives it over ACP (JSON-RPC on stdio) rather than a
    /// one-shot headless command.
    pub fn is_acp_bridge(self) -> bool {
        matches!(
            self,
            AgentCli::ClaudeCodeAcp | AgentCli::CodexAcp | AgentCli::Cline | AgentCli::Vibe
        )
    }

    /// The API the bench's offline configuration points it at.
    pub fn model_api(self) -> ModelApi {
        match self {
            AgentCli::Claude | AgentCli::ClaudeCodeAcp => ModelApi::AnthropicMessages,
            AgentCli::Codex | AgentCli::CodexAcp => ModelApi::OpenAiResponses,
            AgentCli::Gemini => ModelApi::GeminiStream,
            AgentCli::Qwen
            | AgentCli::OpenCode
            | AgentCli::Kilo
            | AgentCli::Copilot
            | AgentCli::Aider
            | AgentCli::Continue
            | AgentCli::Cline
            | AgentCli::Vibe => ModelApi::OpenAiChat,
        }
    }
}

impl fmt::Display for AgentCli {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name matched no bench CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCli(pub String);

impl fmt::Display for UnknownCli {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = AgentCli::ALL.iter().map(|c| c.name()).collect();
        write!(
            f,
            "unknown agent CLI `{}`; expected one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownCli {}

impl FromStr for AgentCli {
    type Err = UnknownCli;

    /// Accepts the install name or the launcher name (`cn`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AgentCli::ALL
            .into_iter()
            .find(|c| c.name() == s || c.binary() == s)
            .ok_or_else(|| UnknownCli(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for cli in AgentCli::ALL {
            assert!(seen.insert(cli.name()), "duplicate name {cli}");
            assert_eq!(cli.name().parse::<AgentCli>(), Ok(cli));
            assert_eq!(cli.binary().parse::<AgentCli>(), Ok(cli));
        }
        assert_eq!(AgentCli::Continue.binary(), "cn");
        assert_eq!(AgentCli::Vibe.binary(), "vibe-acp");
        assert!("cursor".parse::<AgentCli>().is_err());
    }

    #[test]
    fn model_paths_match_only_their_api() {
        assert!(ModelApi::AnthropicMessages.matches_path("/v1/messages"));
        assert!(!ModelApi::AnthropicMessages.matches_path("/v1/messages/count_tokens"));
        assert!(ModelApi::GeminiStream
            .matches_path("/v1beta/models/gemini-2.5-pro:streamGenerateContent"));
        assert!(!ModelApi::GeminiStream.matches_path("/v1beta/models/x:generateContent"));
        assert!(ModelApi::OpenAiChat.matches_path("/v1/chat/completions"));
        assert!(!ModelApi::OpenAiChat.matches_path("/v1/responses"));
    }
}
