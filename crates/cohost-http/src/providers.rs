//! The HTTP providers cohost knows, as data: which wire they speak, where
//! their base URL and key come from, their default model.

use cohost_core::{
    ApprovalSupport, Capabilities, InterruptSupport, ProviderDescriptor, ProviderKind,
    ResumeSupport, StreamingGranularity, SupportTier,
};
use serde::{Deserialize, Serialize};

/// The wire protocol a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireApi {
    /// Anthropic Messages (`/v1/messages`).
    AnthropicMessages,
    /// OpenAI Chat Completions (`/chat/completions`).
    OpenAiChat,
    /// OpenAI Responses (`/responses`).
    OpenAiResponses,
    /// Gemini API (`/v1beta/models/{m}:streamGenerateContent`).
    Gemini,
    /// Ollama (`/api/chat`).
    Ollama,
}

impl WireApi {
    /// Parse the names users type (`chat`, `responses`...).
    pub fn parse(s: &str) -> Option<WireApi> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "anthropic" | "messages" | "anthropic_messages" => WireApi::AnthropicMessages,
            "chat" | "chat_completions" | "openai_chat" | "openai" => WireApi::OpenAiChat,
            "responses" | "openai_responses" => WireApi::OpenAiResponses,
            "gemini" => WireApi::Gemini,
            "ollama" => WireApi::Ollama,
            _ => return None,
        })
    }

    /// The request path below the base URL (Gemini's includes the model).
    pub fn chat_path(self, model: &str) -> String {
        match self {
            WireApi::AnthropicMessages => "/v1/messages".into(),
            WireApi::OpenAiChat => "/chat/completions".into(),
            WireApi::OpenAiResponses => "/responses".into(),
            WireApi::Gemini => format!("/v1beta/models/{model}:streamGenerateContent?alt=sse"),
            WireApi::Ollama => "/api/chat".into(),
        }
    }

    /// The model-listing path below the base URL.
    pub fn models_path(self) -> &'static str {
        match self {
            WireApi::AnthropicMessages => "/v1/models",
            WireApi::OpenAiChat | WireApi::OpenAiResponses => "/models",
            WireApi::Gemini => "/v1beta/models",
            WireApi::Ollama => "/api/tags",
        }
    }
}

/// Everything that distinguishes one HTTP provider from another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderSpec {
    /// Provider id.
    pub id: String,
    /// Human label.
    pub label: String,
    /// Kind (direct API, gateway, local server).
    pub kind: ProviderKind,
    /// Wire protocol.
    pub wire: WireApi,
    /// Variables that may hold the base URL, first set wins.
    pub base_url_env: Vec<String>,
    /// Base URL when no variable is set.
    pub default_base_url: String,
    /// Variables that may hold the key, first set wins (empty: no key).
    pub key_env: Vec<String>,
    /// Whether a request without a key is pointless (direct APIs).
    pub key_required: bool,
    /// Model when the user names none; `None`: the first listed model.
    pub default_model: Option<String>,
    /// Models known up front (user-defined providers).
    pub models: Vec<String>,
}

impl ProviderSpec {
    /// The provider's descriptor (the same honest capabilities for all).
    pub fn descriptor(&self) -> ProviderDescriptor {
        ProviderDescriptor {
            id: self.id.clone(),
            label: self.label.clone(),
            kind: self.kind,
            capabilities: Capabilities {
                streaming: StreamingGranularity::TokenDeltas,
                reasoning: true,
                approvals: ApprovalSupport::None,
                interrupt: InterruptSupport::Disconnect,
                resume: ResumeSupport::Transcript,
                usage: true,
                context_files: true,
                // Every HTTP protocol has image parts (the model may still refuse).
                images: true,
                // Each protocol's system field.
                system_prompt: true,
                executes_tools: false,
                tier: SupportTier::Structured,
                ..Capabilities::BASELINE
            },
            install_hint: Some(self.hint()),
        }
    }

    fn hint(&self) -> String {
        match (self.key_env.first(), self.base_url_env.first()) {
            (Some(k), _) if self.key_required => format!("set {k}"),
            (_, Some(b)) => format!(
                "start the server or set {b} (default {})",
                self.default_base_url
            ),
            _ => format!("serve the API at {}", self.default_base_url),
        }
    }
}

fn s(v: &str) -> String {
    v.to_string()
}

/// Anthropic Messages API.
pub fn anthropic() -> ProviderSpec {
    ProviderSpec {
        id: s("anthropic"),
        label: s("Anthropic API (Messages)"),
        kind: ProviderKind::ApiDirect,
        wire: WireApi::AnthropicMessages,
        base_url_env: vec![s("ANTHROPIC_BASE_URL")],
        default_base_url: s("https://api.anthropic.com"),
        key_env: vec![s("ANTHROPIC_API_KEY")],
        key_required: true,
        default_model: Some(s("claude-sonnet-4-5")),
        models: Vec::new(),
    }
}

/// OpenAI API (Chat Completions by default; Responses selectable).
pub fn openai() -> ProviderSpec {
    ProviderSpec {
        id: s("openai"),
        label: s("OpenAI API"),
        kind: ProviderKind::ApiDirect,
        wire: WireApi::OpenAiChat,
        base_url_env: vec![s("OPENAI_BASE_URL")],
        default_base_url: s("https://api.openai.com/v1"),
        key_env: vec![s("OPENAI_API_KEY")],
        key_required: true,
        default_model: Some(s("gpt-5")),
        models: Vec::new(),
    }
}

/// Gemini API.
pub fn gemini_api() -> ProviderSpec {
    ProviderSpec {
        id: s("gemini-api"),
        label: s("Gemini API"),
        kind: ProviderKind::ApiDirect,
        wire: WireApi::Gemini,
        base_url_env: vec![s("GOOGLE_GEMINI_BASE_URL")],
        default_base_url: s("https://generativelanguage.googleapis.com"),
        key_env: vec![s("GEMINI_API_KEY"), s("GOOGLE_API_KEY")],
        key_required: true,
        default_model: Some(s("gemini-2.5-flash")),
        models: Vec::new(),
    }
}

/// Ollama on this machine (or wherever `OLLAMA_HOST` points).
pub fn ollama() -> ProviderSpec {
    ProviderSpec {
        id: s("ollama"),
        label: s("Ollama"),
        kind: ProviderKind::LocalModelServer,
        wire: WireApi::Ollama,
        base_url_env: vec![s("OLLAMA_HOST")],
        default_base_url: s("http://127.0.0.1:11434"),
        key_env: Vec::new(),
        key_required: false,
        default_model: None,
        models: Vec::new(),
    }
}

/// LM Studio's OpenAI-compatible server.
pub fn lmstudio() -> ProviderSpec {
    ProviderSpec {
        id: s("lmstudio"),
        label: s("LM Studio"),
        kind: ProviderKind::LocalModelServer,
        wire: WireApi::OpenAiChat,
        base_url_env: vec![s("LMSTUDIO_BASE_URL")],
        default_base_url: s("http://127.0.0.1:1234/v1"),
        key_env: Vec::new(),
        key_required: false,
        default_model: None,
        models: Vec::new(),
    }
}

/// A LiteLLM proxy (the key is optional: a proxy without a master key takes any).
pub fn litellm() -> ProviderSpec {
    ProviderSpec {
        id: s("litellm"),
        label: s("LiteLLM proxy"),
        kind: ProviderKind::ApiGateway,
        wire: WireApi::OpenAiChat,
        base_url_env: vec![s("LITELLM_BASE_URL")],
        default_base_url: s("http://127.0.0.1:4000"),
        key_env: vec![s("LITELLM_API_KEY")],
        key_required: false,
        default_model: None,
        models: Vec::new(),
    }
}

/// OpenRouter.
pub fn openrouter() -> ProviderSpec {
    ProviderSpec {
        id: s("openrouter"),
        label: s("OpenRouter"),
        kind: ProviderKind::ApiGateway,
        wire: WireApi::OpenAiChat,
        base_url_env: vec![s("OPENROUTER_BASE_URL")],
        default_base_url: s("https://openrouter.ai/api/v1"),
        key_env: vec![s("OPENROUTER_API_KEY")],
        key_required: true,
        default_model: Some(s("openrouter/auto")),
        models: Vec::new(),
    }
}

/// Every built-in HTTP provider.
pub fn builtin() -> Vec<ProviderSpec> {
    vec![
        anthropic(),
        openai(),
        gemini_api(),
        ollama(),
        lmstudio(),
        litellm(),
        openrouter(),
    ]
}

/// `OLLAMA_HOST` comes in many shapes (`0.0.0.0`, `host:port`, a URL):
/// make it a URL a client can use.
pub fn normalize_base(wire: WireApi, raw: &str) -> String {
    let mut url = raw.trim().trim_end_matches('/').to_string();
    if wire == WireApi::Ollama {
        if !url.contains("://") {
            url = format!("http://{url}");
        }
        url = url.replace("://0.0.0.0", "://127.0.0.1");
        let after_scheme = url.split_once("://").map(|(_, r)| r).unwrap_or("");
        let host_port = after_scheme.split('/').next().unwrap_or("");
        // No port and plain http: Ollama's default port.
        if !host_port.contains(':') && !host_port.starts_with('[') && url.starts_with("http://") {
            url = url.replacen(host_port, &format!("{host_port}:11434"), 1);
        }
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ollama_host_shapes() {
        let n = |s| normalize_base(WireApi::Ollama, s);
        assert_eq!(n("0.0.0.0"), "http://127.0.0.1:11434");
        assert_eq!(n("localhost:8080"), "http://localhost:8080");
        assert_eq!(n("http://10.0.0.2:11434/"), "http://10.0.0.2:11434");
        assert_eq!(n("https://ollama.example"), "https://ollama.example");
        assert_eq!(
            normalize_base(WireApi::OpenAiChat, "http://x/v1/"),
            "http://x/v1"
        );
    }

    #[test]
    fn descriptors_are_honest() {
        for spec in builtin() {
            let d = spec.descriptor();
            assert!(!d.capabilities.executes_tools, "{}", d.id);
            assert_eq!(d.capabilities.approvals, ApprovalSupport::None);
            assert_eq!(d.capabilities.interrupt, InterruptSupport::Disconnect);
            assert_eq!(d.capabilities.resume, ResumeSupport::Transcript);
        }
    }
}
