//! Shared helpers for the HTTP provider tests (included with `#[path]`).
//! Every test gets its own fake server on 127.0.0.1:0 and its own scratch
//! HOME / XDG_STATE_HOME; keys and base URLs go through `AdapterConfig.env`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use cohost_agents::http::{providers, HttpFactory, HttpOptions, OpenAiCompatible, ToolDef};
use cohost_core::{
    AdapterConfig, Event, EventBody, HostSession, Policy, PromptInput, SessionOptions, TurnOutcome,
};
use cohost_fakellm::{FakeLlm, FakeLlmConfig, FakeLlmHandle};
use serde_json::json;

/// The key every test passes (no vendor shape, so only value redaction hides it).
pub const KEY: &str = "cohost-test-key-4f9a1c77e2";

/// Each wire / provider under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    Anthropic,
    OpenAiChat,
    OpenAiResponses,
    Gemini,
    Ollama,
    LmStudio,
    OpenRouter,
    Custom,
}

impl Case {
    pub fn factory(self, opts: HttpOptions) -> HttpFactory {
        let f = match self {
            Case::Anthropic => HttpFactory::new(providers::anthropic()),
            Case::OpenAiChat | Case::OpenAiResponses => HttpFactory::new(providers::openai()),
            Case::Gemini => HttpFactory::new(providers::gemini_api()),
            Case::Ollama => HttpFactory::new(providers::ollama()),
            Case::LmStudio => HttpFactory::new(providers::lmstudio()),
            Case::OpenRouter => HttpFactory::new(providers::openrouter()),
            // The base URL is fixed at construction, so the test builds it per server.
            Case::Custom => unreachable!("use custom_factory"),
        };
        f.with_options(opts)
    }

    pub fn env(self, base: &str) -> Vec<(&'static str, String)> {
        let v1 = format!("{base}/v1");
        match self {
            Case::Anthropic => vec![
                ("ANTHROPIC_BASE_URL", base.into()),
                ("ANTHROPIC_API_KEY", KEY.into()),
            ],
            Case::OpenAiChat => vec![("OPENAI_BASE_URL", v1), ("OPENAI_API_KEY", KEY.into())],
            Case::OpenAiResponses => vec![
                ("OPENAI_BASE_URL", v1),
                ("OPENAI_API_KEY", KEY.into()),
                ("COHOST_WIRE_API", "responses".into()),
            ],
            Case::Gemini => vec![
                ("GOOGLE_GEMINI_BASE_URL", base.into()),
                ("GEMINI_API_KEY", KEY.into()),
            ],
            // OLLAMA_HOST in its bare host:port form, as users set it.
            Case::Ollama => vec![("OLLAMA_HOST", base.trim_start_matches("http://").into())],
            Case::LmStudio => vec![("LMSTUDIO_BASE_URL", v1)],
            Case::OpenRouter => vec![
                ("OPENROUTER_BASE_URL", v1),
                ("OPENROUTER_API_KEY", KEY.into()),
            ],
            Case::Custom => vec![("COHOST_TEST_CUSTOM_KEY", KEY.into())],
        }
    }

    /// The fake server's route for this wire's model requests.
    pub fn route(self) -> &'static str {
        match self {
            Case::Anthropic => "anthropic.messages",
            Case::OpenAiResponses => "openai.responses",
            Case::Gemini => "gemini.stream_generate",
            Case::Ollama => "ollama.chat",
            _ => "openai.chat",
        }
    }
}

/// One test's world: a fake server, a scratch home, the provider.
pub struct World {
    pub server: FakeLlmHandle,
    pub home: tempfile::TempDir,
    pub case: Case,
    pub opts: HttpOptions,
}

pub fn shell_tool() -> ToolDef {
    ToolDef {
        name: "run_shell_command".into(),
        description: "Run a shell command".into(),
        parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
    }
}

/// Options with short timeouts so failure tests take milliseconds.
pub fn test_options() -> HttpOptions {
    HttpOptions {
        first_byte_timeout: Duration::from_secs(10),
        idle_timeout: Duration::from_secs(10),
        max_retries: 3,
        max_retry_wait: Duration::from_secs(2),
        tools: vec![shell_tool()],
        ..HttpOptions::default()
    }
}

impl World {
    pub async fn new(case: Case) -> World {
        Self::with(case, FakeLlmConfig::default(), test_options()).await
    }

    pub async fn with(case: Case, config: FakeLlmConfig, opts: HttpOptions) -> World {
        let server = FakeLlm::start(config).await.expect("fake server starts");
        World {
            server,
            home: tempfile::tempdir().expect("temp dir"),
            case,
            opts,
        }
    }

    pub fn factory(&self) -> Arc<HttpFactory> {
        Arc::new(match self.case {
            Case::Custom => OpenAiCompatible::new(
                "acme",
                "ACME gateway",
                format!("{}/v1", self.server.base_url()),
                Some("COHOST_TEST_CUSTOM_KEY"),
                vec!["fake-model".into()],
            )
            .with_options(self.opts.clone()),
            c => c.factory(self.opts.clone()),
        })
    }

    pub fn config(&self) -> AdapterConfig {
        let mut c = AdapterConfig {
            cwd: self.home.path().to_path_buf(),
            ..AdapterConfig::default()
        };
        c.env
            .insert("HOME".into(), self.home.path().display().to_string());
        c.env.insert(
            "XDG_STATE_HOME".into(),
            self.home.path().join("state").display().to_string(),
        );
        for (k, v) in self.case.env(&self.server.base_url()) {
            c.env.insert(k.into(), v);
        }
        c
    }

    pub async fn session(&self, config: AdapterConfig) -> HostSession {
        let mut s = HostSession::new(
            self.factory(),
            config,
            Arc::new(Policy::DenyAll),
            SessionOptions::default(),
        );
        s.start().await.expect("session starts");
        s
    }

    /// Model requests the fake server saw, in order.
    pub fn model_requests(&self) -> Vec<cohost_fakellm::LoggedRequest> {
        self.server
            .requests()
            .into_iter()
            .filter(|r| r.route == self.case.route())
            .collect()
    }
}

/// Run one prompt, collecting every event.
pub async fn prompt(s: &mut HostSession, text: &str) -> (Vec<Event>, TurnOutcome) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink_events = events.clone();
    let mut sink = move |e: Event| sink_events.lock().unwrap().push(e);
    let outcome = s.prompt(PromptInput::text(text), &mut sink).await;
    let events = events.lock().unwrap().clone();
    (events, outcome)
}

pub fn texts(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { delta, .. } => Some(delta.clone()),
            _ => None,
        })
        .collect()
}

pub fn reasoning(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ReasoningChunk { delta, .. } => Some(delta.clone()),
            _ => None,
        })
        .collect()
}

pub fn errors(events: &[Event]) -> Vec<cohost_core::CohostError> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Error(err) => Some(err.clone()),
            _ => None,
        })
        .collect()
}

pub fn session_id(events: &[Event]) -> Option<String> {
    events.iter().find_map(|e| match &e.body {
        EventBody::StreamStart { session_id, .. } => session_id.clone(),
        _ => None,
    })
}
