//! HTTP providers: model servers, gateways and vendor APIs driven directly.
//!
//! | id | wire | base URL (env, default) | key env |
//! |---|---|---|---|
//! | `anthropic` | Anthropic Messages | `ANTHROPIC_BASE_URL`, api.anthropic.com | `ANTHROPIC_API_KEY` |
//! | `openai` | Chat Completions (`COHOST_WIRE_API=responses` for Responses) | `OPENAI_BASE_URL`, api.openai.com/v1 | `OPENAI_API_KEY` |
//! | `gemini-api` | Gemini `streamGenerateContent` | `GOOGLE_GEMINI_BASE_URL` | `GEMINI_API_KEY`, `GOOGLE_API_KEY` |
//! | `ollama` | Ollama `/api/chat` (NDJSON) | `OLLAMA_HOST`, 127.0.0.1:11434 | — |
//! | `lmstudio` | Chat Completions | `LMSTUDIO_BASE_URL`, 127.0.0.1:1234/v1 | — |
//! | `litellm` | Chat Completions | `LITELLM_BASE_URL`, 127.0.0.1:4000 | `LITELLM_API_KEY` (optional) |
//! | `openrouter` | Chat Completions | `OPENROUTER_BASE_URL`, openrouter.ai/api/v1 | `OPENROUTER_API_KEY` |
//!
//! User-defined OpenAI-compatible providers come from [`OpenAiCompatible::new`].
//! Variables are read from `AdapterConfig.env` first, then the process env.
//!
//! Layout (sans-IO cores, thin IO shell):
//! - [`decode`]: SSE / NDJSON framing, bytes in → frames out;
//! - one module per wire ([`anthropic`], [`openai_chat`], [`openai_responses`],
//!   [`gemini`], [`ollama`]): request rendering and a pure normalizer,
//!   frames in → [`cohost_core::AgentEvent`]s out;
//! - [`errors`]: status + vendor body → [`cohost_core::CohostError`];
//! - [`transcript`]: the conversation, saved atomically after every turn;
//! - `engine`: the request/retry/timeout/cancel loop; `adapter`: the port.
//!
//! An API provider never runs tools: calls are surfaced as `tool_call`
//! events (capabilities `executes_tools: false`, approvals `none`), and a
//! call left unanswered gets a "not executed" result before the next prompt.
//! Stop reasons: every normal end is `completed`; hitting the output token
//! limit (or a content filter) adds a `status` event saying so.

mod adapter;
pub mod anthropic;
pub mod decode;
mod engine;
pub mod errors;
pub mod gemini;
pub mod normalize;
pub mod ollama;
pub mod openai_chat;
pub mod openai_responses;
pub mod providers;
mod session;
pub mod transcript;

#[cfg(test)]
mod image_parts_tests;

use std::sync::Arc;
use std::time::Duration;

pub use adapter::{HttpAdapter, HttpFactory, OpenAiCompatible};
pub use normalize::ToolDef;
pub use providers::{ProviderSpec, WireApi};

/// Variable (adapter env or process env) selecting the OpenAI wire:
/// `chat` (default) or `responses`.
pub const WIRE_API_ENV: &str = "COHOST_WIRE_API";

/// Tunables shared by all HTTP providers. Defaults suit interactive use.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Connect + response headers must arrive within this.
    pub first_byte_timeout: Duration,
    /// A stream silent for this long is dropped with `TIMEOUT`.
    pub idle_timeout: Duration,
    /// Retries after 429 / overload before `RATE_LIMITED` is final.
    pub max_retries: u32,
    /// Longest wait honoured from `Retry-After` (longer asks are capped).
    pub max_retry_wait: Duration,
    /// Output token limit sent where the API requires one (Anthropic).
    pub max_tokens: u32,
    /// Ask for reasoning where the API needs asking (Anthropic thinking,
    /// Responses summaries, Gemini thoughts, Ollama `think`).
    pub reasoning: bool,
    /// Tools offered to the model (surfaced, never executed).
    pub tools: Vec<ToolDef>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            first_byte_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(90),
            max_retries: 3,
            max_retry_wait: Duration::from_secs(30),
            max_tokens: 8192,
            reasoning: false,
            tools: Vec::new(),
        }
    }
}

/// An image as a `data:` URL (the OpenAI protocols' image part).
pub(crate) fn data_url(i: &cohost_core::PromptImage) -> String {
    format!("data:{};base64,{}", i.media_type, i.data)
}

/// A reqwest client builder with TLS ready. reqwest is built without a
/// bundled crypto provider (that would pull aws-lc into the tree), so ring is
/// installed as the process default first; an error there only means a
/// provider is installed already.
pub fn client_builder() -> reqwest::ClientBuilder {
    let _already_installed = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
}

/// Factories for every built-in HTTP provider, with default options.
pub fn factories() -> Vec<Arc<HttpFactory>> {
    providers::builtin()
        .into_iter()
        .map(|s| Arc::new(HttpFactory::new(s)))
        .collect()
}

/// Register every built-in HTTP provider.
pub fn register(registry: &mut cohost_core::Registry) -> Result<(), cohost_core::CohostError> {
    for f in factories() {
        registry.register(f)?;
    }
    Ok(())
}
