//! The HTTP shell: binding, routing by path, logging, shutdown.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use serde_json::{json, Value};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::log::{body_value, redact_headers, redact_query, LoggedRequest, RequestLog};
use crate::state::Shared;
use crate::stream::json;
use crate::{
    anthropic, gemini, ollama, openai_chat, openai_responses, FakeLlmConfig, FakeLlmError,
};

/// Entry point; see [`FakeLlm::start`].
#[derive(Debug)]
pub struct FakeLlm;

/// A running server. Dropping it also stops the server (streams end, the listener closes).
pub struct FakeLlmHandle {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown_tx: watch::Sender<bool>,
    task: JoinHandle<std::io::Result<()>>,
}

impl std::fmt::Debug for FakeLlmHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeLlmHandle")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl FakeLlm {
    /// Starts a server on `127.0.0.1` with a free port chosen by the OS.
    pub async fn start(config: FakeLlmConfig) -> Result<FakeLlmHandle, FakeLlmError> {
        Self::start_on(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), config).await
    }

    /// Starts a server on `addr`, which must be a loopback address.
    pub async fn start_on(
        addr: SocketAddr,
        config: FakeLlmConfig,
    ) -> Result<FakeLlmHandle, FakeLlmError> {
        if !addr.ip().is_loopback() {
            return Err(FakeLlmError::NotLoopback { addr });
        }
        let log = RequestLog::open(config.log_path.as_deref())?;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| FakeLlmError::Bind { addr, source })?;
        let local = listener
            .local_addr()
            .map_err(|source| FakeLlmError::Bind { addr, source })?;
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        let shared = Arc::new(Shared::new(config, log, shutdown_rx.clone()));
        let app = Router::new()
            .fallback(handle)
            .with_state(shared.clone())
            // Agent CLIs send whole conversations plus tool schemas: megabytes are normal.
            .layer(DefaultBodyLimit::disable());
        let mut rx = shutdown_rx;
        let task = tokio::spawn(async move {
            use axum::serve::ListenerExt;
            // Streams are many small writes: without NODELAY a reused
            // loopback connection can stall ~40 ms on Nagle + delayed ACK.
            let listener = listener.tap_io(|tcp| {
                if let Err(e) = tcp.set_nodelay(true) {
                    tracing::debug!(error = %e, "could not set TCP_NODELAY");
                }
            });
            axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _closed_or_set = rx.wait_for(|down| *down).await;
                })
                .await
        });
        tracing::info!(addr = %local, "fake-llm listening");
        Ok(FakeLlmHandle {
            addr: local,
            shared,
            shutdown_tx,
            task,
        })
    }
}

impl FakeLlmHandle {
    /// The bound address (the real port when started with port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash or `/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        self.shared.requests()
    }

    /// Stops accepting, ends open streams (stalled ones included) and waits for
    /// the server to finish, at most a few seconds.
    pub async fn shutdown(self) {
        self.shutdown_tx.send_replace(true);
        let mut task = self.task;
        match tokio::time::timeout(Duration::from_secs(5), &mut task).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(e))) => tracing::warn!(error = %e, "fake-llm server ended with an error"),
            Ok(Err(e)) => tracing::warn!(error = %e, "fake-llm server task failed"),
            Err(_) => {
                tracing::warn!("fake-llm did not stop within 5s; aborting it");
                task.abort();
            }
        }
    }

    /// Serves until Ctrl-C (for `cohost fake-llm`), then shuts down.
    pub async fn wait(self) {
        let mut task = self.task;
        tokio::select! {
            res = tokio::signal::ctrl_c() => {
                if let Err(e) = res {
                    tracing::warn!(error = %e, "fake-llm cannot listen for Ctrl-C; serving until killed");
                    std::future::pending::<()>().await;
                }
            }
            res = &mut task => {
                if let Ok(Err(e)) = res {
                    tracing::warn!(error = %e, "fake-llm server ended with an error");
                }
                return;
            }
        }
        FakeLlmHandle {
            addr: self.addr,
            shared: self.shared,
            shutdown_tx: self.shutdown_tx,
            task,
        }
        .shutdown()
        .await;
    }
}

/// One handler for everything: the paths vendors use overlap (`/v1/models`),
/// and Gemini's `{model}:{method}` segment is easier to split by hand.
async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().trim_end_matches('/').to_string();
    let value = body_value(&body);
    let post = method == Method::POST;
    let (route, response, scenario) = match (post, path.as_str()) {
        (true, "/v1/messages" | "/messages") => {
            named("anthropic.messages", anthropic::messages(&shared, &value))
        }
        (true, "/v1/messages/count_tokens" | "/messages/count_tokens") => (
            "anthropic.count_tokens",
            anthropic::count_tokens(&value),
            None,
        ),
        (true, "/v1/chat/completions" | "/chat/completions") => {
            named("openai.chat", openai_chat::completions(&shared, &value))
        }
        (true, "/v1/responses" | "/responses") => named(
            "openai.responses",
            openai_responses::responses(&shared, &value),
        ),
        (false, "/v1/models" | "/models") => ("models.list", models_list(&shared), None),
        (true, "/api/chat") => named("ollama.chat", ollama::chat(&shared, &value)),
        (false, "/api/tags") => ("ollama.tags", ollama::tags(&shared), None),
        (true, "/api/show") => ("ollama.show", ollama::show(&shared, &value), None),
        (false, "/api/version") => ("ollama.version", ollama::version(), None),
        (_, p) if p.starts_with("/v1beta/") || p.contains(':') => {
            match gemini::route(&shared, post, p, &value) {
                Some((route, resp, scenario)) => (route, resp, scenario),
                None => ("other", json(StatusCode::OK, &json!({})), None),
            }
        }
        (false, p) if p.starts_with("/v1/models/") => {
            ("models.get", model_get(&p["/v1/models/".len()..]), None)
        }
        _ => ("other", json(StatusCode::OK, &json!({})), None),
    };
    if route == "other" {
        tracing::debug!(%method, %path, "fake-llm: unknown path answered with {{}}");
    }
    shared.record(LoggedRequest {
        seq: 0, // numbered by `record`, in arrival order
        method: method.to_string(),
        path,
        query: redact_query(uri.query()),
        headers: redact_headers(&headers),
        body: value,
        route: route.to_string(),
        scenario,
    });
    response
}

fn named(
    route: &'static str,
    (resp, scenario): (Response, String),
) -> (&'static str, Response, Option<String>) {
    (route, resp, Some(scenario))
}

/// One model object readable as both an OpenAI and an Anthropic model.
fn model_object(id: &str) -> Value {
    json!({
        "id": id,
        "object": "model",
        "created": 1_700_000_000,
        "owned_by": "cohost-fakellm",
        "type": "model",
        "display_name": id,
        "created_at": "2025-01-01T00:00:00Z",
    })
}

/// `GET /v1/models` is shared by OpenAI and Anthropic clients, so the list
/// carries both vendors' fields.
fn models_list(shared: &Shared) -> Response {
    let data: Vec<Value> = shared.models.iter().map(|m| model_object(m)).collect();
    json(
        StatusCode::OK,
        &json!({
            "object": "list",
            "data": data,
            "has_more": false,
            "first_id": shared.models.first(),
            "last_id": shared.models.last(),
        }),
    )
}

fn model_get(id: &str) -> Response {
    json(StatusCode::OK, &model_object(id))
}
