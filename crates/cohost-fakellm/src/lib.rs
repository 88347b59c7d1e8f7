//! cohost-fakellm: a deterministic fake model server so real agent CLIs
//! (Claude Code, Codex, Gemini CLI, Qwen Code, OpenCode, Copilot, Aider...)
//! can be driven fully offline by tests, benches and demos.
//!
//! It speaks, on 127.0.0.1 only:
//! - Anthropic Messages: `POST /v1/messages` (also `?beta=true`), `POST /v1/messages/count_tokens`;
//! - OpenAI Chat Completions `POST /v1/chat/completions` and Responses `POST /v1/responses`;
//! - `GET /v1/models` (one body that satisfies both Anthropic and OpenAI readers);
//! - Gemini `POST /v1beta/models/{model}:{generateContent|streamGenerateContent|countTokens}`, `GET /v1beta/models`;
//! - Ollama `POST /api/chat`, `GET /api/tags`, `POST /api/show`, `GET /api/version`;
//! - anything else: `200 {}` (telemetry, update checks), logged like every request.
//!
//! What each request gets is a [`Scenario`], chosen by a marker in the last user
//! message (`[[scenario:tool]]`), else by the script, else by the default; see
//! [`scenario`] for the marker syntax and [`script`] for the script format.
//!
//! ```no_run
//! # async fn demo() -> Result<(), cohost_fakellm::FakeLlmError> {
//! use cohost_fakellm::{FakeLlm, FakeLlmConfig};
//! let server = FakeLlm::start(FakeLlmConfig::default()).await?;
//! println!("ANTHROPIC_BASE_URL={}", server.base_url());
//! server.shutdown().await;
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]

mod anthropic;
mod gemini;
mod log;
mod ollama;
mod openai_chat;
mod openai_responses;
mod reply;
pub mod scenario;
pub mod script;
mod server;
mod state;
mod stream;
pub mod tools;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub use log::{LoggedRequest, REDACTED};
pub use scenario::Scenario;
pub use script::{load_script, parse_script, Script, ScriptStep};
pub use server::{FakeLlm, FakeLlmHandle};

/// Server settings. `Default` gives a text-replying server with no script and no log file.
#[derive(Debug, Clone)]
pub struct FakeLlmConfig {
    /// Ordered scenarios and a default; `None` means markers and `default_scenario` only.
    pub script: Option<Script>,
    /// Append every request as one JSON line here (secrets redacted).
    pub log_path: Option<PathBuf>,
    /// Delay between deltas in the `slow` scenario.
    pub slow_delay: Duration,
    /// Number of deltas in the `slow` scenario.
    pub slow_deltas: usize,
    /// Number of deltas a text (or reasoning) reply is split into.
    pub text_deltas: usize,
    /// Scenario when neither a marker nor the script decides.
    pub default_scenario: Scenario,
    /// Model ids listed by the models endpoints (the first is the "default").
    pub models: Vec<String>,
}

impl Default for FakeLlmConfig {
    fn default() -> Self {
        FakeLlmConfig {
            script: None,
            log_path: None,
            slow_delay: Duration::from_millis(50),
            slow_deltas: 40,
            text_deltas: 4,
            default_scenario: Scenario::Text,
            models: vec!["fake-model".to_string()],
        }
    }
}

/// Why the server could not start or a script could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum FakeLlmError {
    /// The listen address was taken or not allowed.
    #[error("fake-llm could not listen on {addr}: {source}; choose another port (or port 0 for any free one)")]
    Bind {
        /// Address that was asked for.
        addr: SocketAddr,
        /// Underlying IO error.
        source: std::io::Error,
    },
    /// The listen address was not a loopback address.
    #[error("fake-llm only listens on loopback, not on {addr}; use 127.0.0.1:PORT")]
    NotLoopback {
        /// Address that was asked for.
        addr: SocketAddr,
    },
    /// The script file could not be read.
    #[error("could not read fake-llm script {}: {source}; check the path and its permissions", path.display())]
    ScriptRead {
        /// Script path.
        path: PathBuf,
        /// Underlying IO error.
        source: std::io::Error,
    },
    /// The script file is not valid JSON of the expected shape.
    #[error("fake-llm script {} is not valid: {message}; expected JSON like {{\"default\":\"text\",\"steps\":[\"tool\",\"text\"]}}", path.display())]
    ScriptParse {
        /// Script path.
        path: PathBuf,
        /// Parser message with line and column.
        message: String,
    },
    /// The script names something that is not a scenario.
    #[error("fake-llm script {}: {message}", path.display())]
    ScriptInvalid {
        /// Script path.
        path: PathBuf,
        /// Which entry and what was wrong.
        message: String,
    },
    /// The request log file could not be opened for appending.
    #[error("could not open fake-llm request log {}: {source}; check that its directory exists and is writable", path.display())]
    LogOpen {
        /// Log path.
        path: PathBuf,
        /// Underlying IO error.
        source: std::io::Error,
    },
}

impl FakeLlmError {
    /// A one-line hint of what to do next, for CLIs that show it apart from the message.
    pub fn suggested_fix(&self) -> String {
        match self {
            FakeLlmError::Bind { .. } => "choose another --port, or 0 for any free port".into(),
            FakeLlmError::NotLoopback { .. } => "listen on 127.0.0.1".into(),
            FakeLlmError::ScriptRead { .. } => "check the --script path".into(),
            FakeLlmError::ScriptParse { .. } => {
                "write JSON like {\"default\":\"text\",\"steps\":[\"tool\",\"text\"]}".into()
            }
            FakeLlmError::ScriptInvalid { .. } => {
                format!(
                    "use one of the scenario names: {}",
                    scenario::scenario_names()
                )
            }
            FakeLlmError::LogOpen { .. } => {
                "create the log's directory or choose another path".into()
            }
        }
    }
}
