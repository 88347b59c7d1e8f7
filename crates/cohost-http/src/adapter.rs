//! The adapter and factory every HTTP provider shares.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use cohost_core::{
    AdapterConfig, AdapterFactory, AgentAdapter, AgentEvent, AgentEventStream, CohostError,
    ErrorCode, Health, InitInfo, InterruptStage, PromptRequest, ProviderDescriptor, ProviderKind,
    ToolDecision,
};
use serde_json::Value;
use std::future::Future;
use tokio::sync::{mpsc, watch};

use super::decode::{Decoder, NdjsonDecoder, SseDecoder};
use super::engine::{self, Request};
use super::errors::Ctx;
use super::normalize::{Normalizer, RequestCtx};
use super::providers::{normalize_base, ProviderSpec, WireApi};
use super::session::{
    auth_headers, build_client, finish_turn, list, lock, new_session_id, prompt_text, Resolved,
    Shared,
};
use super::transcript::{self, Transcript};
use super::{anthropic, gemini, ollama, openai_chat, openai_responses, HttpOptions, WIRE_API_ENV};

/// Makes adapters for one HTTP provider.
#[derive(Debug, Clone)]
pub struct HttpFactory {
    spec: ProviderSpec,
    options: HttpOptions,
}

/// User-defined OpenAI-compatible providers (vLLM, a company gateway...).
#[derive(Debug, Clone, Copy)]
pub struct OpenAiCompatible;

impl OpenAiCompatible {
    /// A provider speaking OpenAI Chat Completions at `base_url` (which
    /// includes `/v1` where the server wants it), with its key in `key_env`
    /// (`None`: no key) and `models` (the first is the default; empty: the
    /// first model the server lists).
    #[allow(clippy::new_ret_no_self)] // a named constructor for the config layer, as specified
    pub fn new(
        id: impl Into<String>,
        label: impl Into<String>,
        base_url: impl Into<String>,
        key_env: Option<&str>,
        models: Vec<String>,
    ) -> HttpFactory {
        HttpFactory::new(ProviderSpec {
            id: id.into(),
            label: label.into(),
            kind: ProviderKind::ApiGateway,
            wire: WireApi::OpenAiChat,
            base_url_env: Vec::new(),
            default_base_url: base_url.into(),
            key_env: key_env.map(|k| vec![k.to_string()]).unwrap_or_default(),
            key_required: key_env.is_some(),
            default_model: models.first().cloned(),
            models,
        })
    }
}

impl HttpFactory {
    /// A factory for `spec` with default options.
    pub fn new(spec: ProviderSpec) -> Self {
        HttpFactory {
            spec,
            options: HttpOptions::default(),
        }
    }

    /// Replace the options (timeouts, retries, tools...).
    pub fn with_options(mut self, options: HttpOptions) -> Self {
        self.options = options;
        self
    }

    /// The provider's spec.
    pub fn spec(&self) -> &ProviderSpec {
        &self.spec
    }

    /// A concrete adapter (the trait's `create` boxes one of these).
    pub fn adapter(&self) -> HttpAdapter {
        HttpAdapter {
            spec: self.spec.clone(),
            descriptor: self.spec.descriptor(),
            options: self.options.clone(),
            state: None,
            shared: Arc::default(),
            turn: None,
        }
    }

    /// Models the provider offers, for config validation.
    pub async fn list_models(&self, config: &AdapterConfig) -> Result<Vec<String>, CohostError> {
        let mut a = self.adapter();
        let resolved = a.resolve(config)?;
        list(&resolved, &self.options).await
    }
}

impl AdapterFactory for HttpFactory {
    fn descriptor(&self) -> ProviderDescriptor {
        self.spec.descriptor()
    }

    fn create(&self) -> Box<dyn AgentAdapter> {
        Box::new(self.adapter())
    }

    /// API providers: the key variable is set. Local servers and keyless
    /// gateways: always (a default base URL exists). Never touches the network.
    fn is_available(&self) -> bool {
        let none = BTreeMap::new();
        let key = || lookup(&none, &self.spec.key_env).is_some();
        if self.spec.key_required {
            key()
        } else if !self.spec.key_env.is_empty() {
            // A keyless gateway (LiteLLM): available once the user configured it.
            key() || lookup(&none, &self.spec.base_url_env).is_some()
        } else {
            true
        }
    }
}

/// A variable from the adapter's env first, then the process env.
fn lookup(env: &BTreeMap<String, String>, names: &[String]) -> Option<(String, String)> {
    names.iter().find_map(|n| {
        env.get(n)
            .cloned()
            .or_else(|| std::env::var(n).ok())
            .filter(|v| !v.trim().is_empty())
            .map(|v| (n.clone(), v))
    })
}

/// The running turn's cancel switch. The turn itself has no task: the
/// event stream drives the request when the engine polls it, so events reach
/// the engine without a cross-thread hand-off per event (which cost ~0.25 ms
/// each on a loaded machine), and dropping the stream drops the connection.
struct TurnCtl {
    cancel: watch::Sender<bool>,
}

/// The adapter for one HTTP provider session.
pub struct HttpAdapter {
    spec: ProviderSpec,
    descriptor: ProviderDescriptor,
    options: HttpOptions,
    state: Option<Resolved>,
    shared: Arc<Mutex<Shared>>,
    turn: Option<TurnCtl>,
}

impl HttpAdapter {
    fn resolve(&mut self, config: &AdapterConfig) -> Result<Resolved, CohostError> {
        let spec = &self.spec;
        let env = &config.env;
        let wire = match env
            .get(WIRE_API_ENV)
            .or(std::env::var(WIRE_API_ENV).ok().as_ref())
        {
            Some(w) if matches!(spec.wire, WireApi::OpenAiChat | WireApi::OpenAiResponses) => {
                match WireApi::parse(w) {
                    Some(x @ (WireApi::OpenAiChat | WireApi::OpenAiResponses)) => x,
                    _ => {
                        return Err(CohostError::new(
                            ErrorCode::ConfigInvalid,
                            format!("{WIRE_API_ENV}=`{w}` is not a wire `{}` speaks", spec.id),
                        )
                        .with_fix(format!("set {WIRE_API_ENV} to `chat` or `responses`")))
                    }
                }
            }
            _ => spec.wire,
        };
        let base = lookup(env, &spec.base_url_env)
            .map(|(_, v)| v)
            .unwrap_or_else(|| spec.default_base_url.clone());
        let base = normalize_base(wire, &base);
        let key = lookup(env, &spec.key_env).map(|(_, v)| v);
        if key.is_none() && spec.key_required {
            let names = spec.key_env.join(" or ");
            return Err(CohostError::new(
                ErrorCode::AuthRequired,
                format!("`{}` needs an API key and {names} is not set", spec.id),
            )
            .with_fix(format!(
                "export {}=<your key>",
                spec.key_env.first().cloned().unwrap_or_default()
            )));
        }
        let ctx = Ctx {
            provider: spec.id.clone(),
            key_env: spec.key_env.first().cloned(),
            base_env: spec.base_url_env.first().cloned(),
            model: config
                .model
                .clone()
                .or(spec.default_model.clone())
                .unwrap_or_default(),
            key: key.clone(),
        };
        Ok(Resolved {
            client: build_client(&self.options, &base)?,
            base,
            key,
            wire,
            model: ctx.model.clone(),
            dir: transcript::transcripts_dir(env)?,
            ctx,
            system: config.system_prompt.clone(),
            cwd: config.cwd.clone(),
        })
    }

    /// Models the provider offers (needs `initialize` first).
    pub async fn list_models(&self) -> Result<Vec<String>, CohostError> {
        match &self.state {
            Some(r) => list(r, &self.options).await,
            None => Err(not_initialized(&self.spec.id)),
        }
    }

    /// The native session id (the transcript's file stem).
    pub fn session_id(&self) -> String {
        lock(&self.shared).transcript.id.clone()
    }
}

fn not_initialized(id: &str) -> CohostError {
    CohostError::new(
        ErrorCode::IllegalTransition,
        format!("provider `{id}` was used before initialize"),
    )
}

#[async_trait]
impl AgentAdapter for HttpAdapter {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }

    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError> {
        for t in &config.tools {
            if !self.options.tools.iter().any(|d| d.name == t.name) {
                self.options.tools.push(crate::normalize::ToolDef {
                    name: t.name.clone(),
                    description: t.description.clone(),
                    parameters: t.input_schema.clone(),
                });
            }
        }
        let mut r = self.resolve(config)?;
        let transcript = match &config.resume {
            Some(id) => transcript::load(&r.dir, id)?,
            None => Transcript::new(new_session_id(&self.spec.id), &self.spec.id),
        };
        if r.model.is_empty() {
            // No default for local servers and gateways: take what they serve.
            let models = list(&r, &self.options).await?;
            r.model = models.into_iter().next().ok_or_else(|| {
                CohostError::new(
                    ErrorCode::ModelNotAvailable,
                    format!("`{}` at {} serves no models", self.spec.id, r.base),
                )
                .with_fix("load or pull a model on the server, or pass --model")
            })?;
            r.ctx.model = r.model.clone();
        }
        let id = transcript.id.clone();
        lock(&self.shared).transcript = transcript;
        self.state = Some(r);
        Ok(InitInfo {
            version: None,
            session_id: Some(id),
        })
    }

    async fn send_prompt(
        &mut self,
        prompt: PromptRequest,
    ) -> Result<AgentEventStream, CohostError> {
        let r = self
            .state
            .clone()
            .ok_or_else(|| not_initialized(&self.spec.id))?;
        if let Some(t) = self.turn.take() {
            // The engine starts a turn only after the previous one ended;
            // should a stale stream still be around, it stops here.
            t.cancel.send_replace(true);
        }
        let mut transcript = lock(&self.shared).transcript.clone();
        transcript.push_user_with(&prompt_text(&prompt, &r.cwd), prompt.images.clone());
        transcript.model = Some(r.model.clone());
        let rctx = RequestCtx {
            model: &r.model,
            system: r.system.as_deref(),
            tools: &self.options.tools,
            max_tokens: self.options.max_tokens,
            reasoning: self.options.reasoning,
        };
        let (body, normalizer, decoder): (Value, Box<dyn Normalizer>, Decoder) = match r.wire {
            WireApi::AnthropicMessages => (
                anthropic::request_body(&transcript, &rctx),
                Box::new(anthropic::AnthropicNormalizer::new(r.ctx.clone())),
                Decoder::Sse(SseDecoder::new()),
            ),
            WireApi::OpenAiChat => (
                openai_chat::request_body(&transcript, &rctx),
                Box::new(openai_chat::ChatNormalizer::new(r.ctx.clone())),
                Decoder::Sse(SseDecoder::new()),
            ),
            WireApi::OpenAiResponses => (
                openai_responses::request_body(&transcript, &rctx),
                Box::new(openai_responses::ResponsesNormalizer::new(r.ctx.clone())),
                Decoder::Sse(SseDecoder::new()),
            ),
            WireApi::Gemini => (
                gemini::request_body(&transcript, &rctx),
                Box::new(gemini::GeminiNormalizer::new(r.ctx.clone())),
                Decoder::Sse(SseDecoder::new()),
            ),
            WireApi::Ollama => (
                ollama::request_body(&transcript, &rctx),
                Box::new(ollama::OllamaNormalizer::new(r.ctx.clone())),
                Decoder::Ndjson(NdjsonDecoder::new()),
            ),
        };
        let mut headers = auth_headers(r.wire, r.key.as_deref());
        headers.push(("content-type", "application/json".into()));
        headers.push((
            "accept",
            if r.wire == WireApi::Ollama {
                "application/x-ndjson"
            } else {
                "text/event-stream"
            }
            .into(),
        ));
        let req = Request {
            client: r.client.clone(),
            url: format!("{}{}", r.base, r.wire.chat_path(&r.model)),
            headers,
            body: body.to_string().into_bytes(),
        };
        let (cancel_tx, cancel_rx) = watch::channel(false);
        let (tx, mut rx) = mpsc::channel::<AgentEvent>(256);
        let shared = self.shared.clone();
        let options = self.options.clone();
        let started = AgentEvent::Started {
            session_id: Some(transcript.id.clone()),
            model: Some(r.model.clone()),
        };
        let driver = async move {
            if tx.send(started).await.is_err() {
                return;
            }
            let outcome = engine::run(
                req,
                decoder,
                normalizer,
                r.ctx.clone(),
                options,
                cancel_rx,
                tx.clone(),
            )
            .await;
            finish_turn(outcome, transcript, &r, &shared, &tx).await;
        };
        self.turn = Some(TurnCtl { cancel: cancel_tx });
        let mut driver = Some(Box::pin(driver));
        let stream = futures::stream::poll_fn(move |cx| {
            // Drive the request first (it fills the channel), then hand out
            // the next event. The channel closes when the driver is done and
            // its sender dropped, which ends the stream.
            if let Some(d) = driver.as_mut() {
                if d.as_mut().poll(cx).is_ready() {
                    driver = None;
                }
            }
            rx.poll_recv(cx)
        });
        Ok(Box::pin(stream))
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        if let Some(t) = &self.turn {
            // Every stage cancels; the gentlest already drops the connection
            // (there is no process to signal).
            let _stage = stage;
            t.cancel.send_replace(true);
        }
        Ok(())
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        Err(CohostError::new(
            ErrorCode::UnsupportedMode,
            format!(
                "`{}` does not run tools, so call `{}` cannot be approved",
                self.spec.id, decision.tool_id
            ),
        ))
    }

    async fn health(&mut self) -> Health {
        Health {
            alive: self.state.is_some(),
            binary: None,
            version: None,
            last_error: lock(&self.shared).last_error.clone(),
        }
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        if let Some(t) = self.turn.take() {
            t.cancel.send_replace(true);
        }
        self.state = None;
        Ok(())
    }
}

impl Drop for HttpAdapter {
    fn drop(&mut self) {
        if let Some(t) = self.turn.take() {
            t.cancel.send_replace(true);
        }
    }
}
