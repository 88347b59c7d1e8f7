//! The local settings and sessions API (`cohost serve`), on 127.0.0.1 only
//! (default port [`DEFAULT_PORT`]). Every response body is sanitized data:
//! status cards, smoke results, login commands, cohost events.

mod body;
mod changes;
mod state;
mod steer;
// guard.rs is issue 14's file: its `localhost_only` should become
// `pub(super)` there; until then the lint is allowed for that module only.
#[allow(unreachable_pub)]
mod guard;
mod hook_feed;
mod openapi;
mod serve_budget;
mod token;

pub use guard::{allowed_hosts, check as check_local, require_token, Credential};
pub use hook_feed::{FeedEvent, HookFeed};
pub use openapi::openapi_document;
pub use serve_budget::ServeBudget;
pub use token::{api_token_file, read_api_token, ApiToken};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use cohost_core::sync::lock;
use cohost_core::{ApprovalMode, ApprovalOption, CohostError, Decision, DecisionOrigin, ErrorCode};
use futures::StreamExt;
use serde::Deserialize;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use body::{ApiJson, ApiPath, ApiQuery};
pub use state::AppState;
use state::{live, ApiError, ApiResult};

use cohost_discovery::host::Host;
use cohost_host::session::{Approvals, ProviderChoice, Recording, SessionRequest, Tools};
use cohost_host::store::SessionStore;

/// The user's API credential (the token, first written if missing, and its
/// owner-only file): what `cohost serve` and `cohost mcp --http` require.
pub fn api_credential(host: &Host) -> Result<Credential, CohostError> {
    let file = api_token_file(&host.paths);
    let token = token::load_or_create(&file)?;
    Ok(Credential { token, file })
}

/// The default port of `cohost serve`.
pub const DEFAULT_PORT: u16 = 4317;

/// Bind `addr` (must be loopback) and serve until the task is dropped.
/// Returns the bound address (port 0 picks one). Every request needs the
/// user's bearer token, read from (or first written to) the owner-only
/// [`api_token_file`].
pub async fn serve(
    addr: SocketAddr,
    host: Host,
) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), CohostError> {
    serve_budgeted(addr, host, None).await
}

/// [`serve`], each session spending from a budget of `budget`'s limits.
pub async fn serve_budgeted(
    addr: SocketAddr,
    host: Host,
    budget: Option<ServeBudget>,
) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), CohostError> {
    if !addr.ip().is_loopback() {
        return Err(CohostError::new(
            ErrorCode::LocalOnlyRequired,
            format!("refusing to serve on {addr}: not a loopback address"),
        )
        .with_fix(format!("use 127.0.0.1:{DEFAULT_PORT}")));
    }
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("cannot listen on {addr}: {e}"),
        )
        .with_fix("pick another port with --port")
    })?;
    let bound = listener
        .local_addr()
        .map_err(|e| CohostError::new(ErrorCode::ConfigInvalid, e.to_string()))?;
    let file = api_token_file(&host.paths);
    let token = token::load_or_create(&file)?;
    let credential = Credential { token, file };
    // Agents' hooks (`cohost hook-event`) report here while the API runs.
    let hooks = Arc::new(HookFeed::new(host.sanitizer.clone()));
    match cohost_discovery::hooks::listen_hook_events(&host.paths.hook_socket()) {
        Ok((mut rx, _)) => {
            let feed = hooks.clone();
            tokio::spawn(async move {
                while let Some(ev) = rx.recv().await {
                    feed.publish(ev);
                }
            });
        }
        Err(e) => {
            tracing::warn!(error = %e, "hook-event socket unavailable; hooks will be ignored");
        }
    }
    let app = router_budgeted(host, bound.port(), credential, hooks, budget);
    let task = tokio::spawn(async move {
        let svc = app.into_make_service_with_connect_info::<SocketAddr>();
        if let Err(e) = axum::serve(listener, svc).await {
            tracing::error!(error = %e, "settings API stopped");
        }
    });
    Ok((bound, task))
}

/// The router (with the localhost guard and the token check) for a server
/// bound on `port`.
pub fn router(host: Host, port: u16, credential: Credential) -> Router {
    let hooks = Arc::new(HookFeed::new(host.sanitizer.clone()));
    router_with(host, port, credential, hooks)
}

/// The router, showing hook events from `hooks`.
pub fn router_with(host: Host, port: u16, credential: Credential, hooks: Arc<HookFeed>) -> Router {
    router_budgeted(host, port, credential, hooks, None)
}

/// [`router_with`], each new session spending from a budget of `budget`.
pub fn router_budgeted(
    host: Host,
    port: u16,
    credential: Credential,
    hooks: Arc<HookFeed>,
    budget: Option<ServeBudget>,
) -> Router {
    let store = SessionStore::of(&host);
    let sanitizer = host.sanitizer.clone();
    let state = Arc::new(AppState {
        host,
        store,
        sessions: Mutex::default(),
        hooks,
        budget,
    });
    Router::new()
        .route(
            "/api/openapi.json",
            get(|| async { Json(openapi_document()) }),
        )
        .route("/api/settings/providers", get(list_providers))
        .route("/api/settings/providers/active", post(set_active))
        .route("/api/settings/providers/{id}/status", get(provider_status))
        .route("/api/settings/providers/{id}/test", post(test_provider))
        .route("/api/settings/providers/{id}/login", post(login))
        .route("/api/hooks/events", get(hook_events))
        .route("/api/sessions", post(create_session).get(list_sessions))
        .route("/api/rooms", post(create_room))
        .route("/api/sessions/{id}", delete(end_session))
        .route("/api/sessions/{id}/prompt", post(prompt))
        .route("/api/sessions/{id}/events", get(events))
        .route("/api/sessions/{id}/interrupt", post(interrupt))
        .route("/api/sessions/{id}/steer", post(steer::steer))
        .route("/api/sessions/{id}/queue", get(steer::queue))
        .route("/api/sessions/{id}/queue/{item}", delete(steer::drop_item))
        .route(
            "/api/sessions/{id}/queue/{item}/move",
            post(steer::move_item),
        )
        .route("/api/sessions/{id}/approvals/{tool_id}", post(approve))
        .route("/api/sessions/{id}/changes", get(changes::changes))
        .route("/api/sessions/{id}/undo", post(changes::undo))
        .fallback(body::not_found)
        .method_not_allowed_fallback(body::method_not_allowed)
        .with_state(state)
        // Layers run last-added first: the localhost guard, then the token.
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(credential),
            guard::require_token,
        ))
        .layer(axum::middleware::map_response_with_state(
            sanitizer,
            clean_json_response,
        ))
        .layer(axum::middleware::from_fn_with_state(
            port,
            guard::localhost_only,
        ))
}

/// Every JSON response passes the host's sanitizer: the last gate before a
/// client, whatever a handler put in it (a config value, a status message).
async fn clean_json_response(
    State(sanitizer): State<Arc<cohost_core::Sanitizer>>,
    resp: axum::response::Response,
) -> axum::response::Response {
    use axum::http::header;
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !is_json {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, 64 << 20)
        .await
        .unwrap_or_default();
    let clean = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(mut v) => {
            sanitizer.sanitize_json(&mut v);
            v.to_string().into_bytes()
        }
        Err(_) => sanitizer
            .sanitize(&String::from_utf8_lossy(&bytes))
            .into_owned()
            .into_bytes(),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    axum::response::Response::from_parts(parts, axum::body::Body::from(clean))
}

async fn list_providers(State(s): State<Arc<AppState>>) -> ApiResult<serde_json::Value> {
    let cfg = s.host.config()?;
    let providers = cohost_discovery::status::all_statuses(&s.host, &cfg).await;
    Ok(Json(serde_json::json!({
        "active_provider": cfg.get_str("active_provider"),
        "providers": providers,
    })))
}

async fn provider_status(
    State(s): State<Arc<AppState>>,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<cohost_discovery::status::ProviderStatus> {
    let cfg = s.host.config()?;
    Ok(Json(
        cohost_discovery::status::provider_status(&s.host, &cfg, &id).await?,
    ))
}

#[derive(Deserialize, Default)]
struct TestQuery {
    #[serde(default)]
    force: bool,
}

async fn test_provider(
    State(s): State<Arc<AppState>>,
    ApiPath(id): ApiPath<String>,
    ApiQuery(q): ApiQuery<TestQuery>,
) -> ApiResult<cohost_host::smoke::SmokeTestResult> {
    Ok(Json(
        cohost_host::smoke::test_provider(&s.host, &id, q.force).await?,
    ))
}

async fn login(
    State(s): State<Arc<AppState>>,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<serde_json::Value> {
    // Never run an interactive login server-side: return the command.
    let cmd = match cohost_discovery::login::login_command(&s.host, &id)
        .await
        .map_err(CohostError::from)
    {
        Ok(cmd) => cmd,
        // A known provider with no login (an API key, or nothing needed):
        // the answer is "none", with what to do instead.
        Err(e) if e.code == ErrorCode::UnsupportedMode => {
            return Ok(Json(serde_json::json!({
                "provider_id": id,
                "command": null,
                "args": [],
                "note": e.suggested_fix.unwrap_or(e.message),
            })))
        }
        Err(e) => return Err(e.into()),
    };
    Ok(Json(serde_json::json!({
        "provider_id": cmd.provider_id,
        "command": cmd.display,
        "args": cmd.args.iter().map(|a| s.host.sanitizer.sanitize(a).into_owned()).collect::<Vec<_>>(),
        "note": cmd.note,
    })))
}

#[derive(Deserialize)]
struct ActiveBody {
    provider_id: String,
    #[serde(default)]
    model: Option<String>,
}

async fn set_active(
    State(s): State<Arc<AppState>>,
    ApiJson(b): ApiJson<ActiveBody>,
) -> ApiResult<serde_json::Value> {
    let mut cfg = s.host.config()?;
    s.host.facts(&cfg, &b.provider_id)?;
    cfg.set("active_provider", &format!("\"{}\"", b.provider_id))?;
    match &b.model {
        Some(m) => cfg.set(
            "active_model",
            &toml_edit::Value::from(m.as_str()).to_string(),
        )?,
        None => {
            cfg.unset("active_model");
        }
    }
    cfg.save()?;
    // The ActiveProvider schema, as the request (the OpenAPI document says so).
    Ok(Json(
        serde_json::json!({ "provider_id": b.provider_id, "model": b.model }),
    ))
}

#[derive(Deserialize)]
struct CreateBody {
    provider: String,
    cwd: PathBuf,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    approval: ApprovalMode,
    /// Tools for an API provider's model (same shapes as `cohost run --tools`).
    #[serde(default)]
    tools: Option<serde_json::Value>,
    /// A stored session to resume (as `cohost run --resume`).
    #[serde(default)]
    resume: Option<String>,
    /// A stored session to fork (as `cohost run --fork`).
    #[serde(default)]
    fork: Option<String>,
    /// Run in a git worktree of its own (as `cohost run --worktree`).
    #[serde(default)]
    worktree: Option<bool>,
    /// Record the working tree around each turn (default: the config's
    /// `checkpoints`, on).
    #[serde(default)]
    checkpoints: Option<bool>,
}

async fn create_session(
    State(s): State<Arc<AppState>>,
    ApiJson(b): ApiJson<CreateBody>,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let cfg = s.host.config()?;
    let mut req = SessionRequest::new(
        ProviderChoice::Id(b.provider.clone()),
        Approvals::all_through_handle(b.approval, "the approval was abandoned"),
    );
    // An unknown provider answers 404 whatever else is wrong (the order
    // the setup service checks in); then the client's directory, absolute:
    // a relative one would be resolved against the server's own.
    s.host.registry.get(&b.provider)?;
    req.cwd = Some(cohost_host::session::client_working_dir(b.cwd)?);
    req.budget = s.budget.as_ref().map(|sb| sb.budget().seat(&b.provider));
    req.model = b.model;
    req.fork = b.fork.is_some();
    req.resume = b.fork.or(b.resume);
    req.provider_settings = true;
    req.recording = Recording::WithId(new_session_id());
    req.worktree = b.worktree;
    req.checkpoints = b.checkpoints;
    // The session's events pass the host's sanitizer before the SSE's.
    req.options.sanitizer = s.host.sanitizer.clone();
    if let Some(value) = b.tools {
        req.tools = Tools::Json {
            origin: "request body `tools`".into(),
            value,
        };
    }
    let prepared = cohost_host::session::prepare(&s.host, &cfg, req)
        .await
        .map_err(CohostError::from)?;
    let live = prepared.launch().await?;
    let id = live.record_id().unwrap_or_default().to_string();
    lock(&s.sessions).insert(id.clone(), live);
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({ "id": id, "provider": b.provider })),
    ))
}

#[derive(Deserialize)]
struct CreateRoomBody {
    agents: Vec<String>,
    cwd: PathBuf,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    approval: ApprovalMode,
}

/// A room: every agent a member session of its own (in its own worktree
/// inside git), each driven with the session routes by its id.
async fn create_room(
    State(s): State<Arc<AppState>>,
    ApiJson(b): ApiJson<CreateRoomBody>,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let cfg = s.host.config()?;
    if b.agents.len() < 2 {
        return Err(CohostError::new(
            cohost_core::ErrorCode::ConfigInvalid,
            "a room takes at least two agents",
        )
        .with_fix("name two or more in `agents`, or POST /api/sessions for one")
        .into());
    }
    for a in &b.agents {
        s.host.registry.get(a)?;
    }
    let cwd = cohost_host::session::client_working_dir(b.cwd)?;
    // The room's members spend from one budget.
    let budget = s.budget.as_ref().map(ServeBudget::budget);
    let prepared = cohost_host::session::prepare_room(&s.host, &cfg, &b.agents, |name, id| {
        let mut req = SessionRequest::new(
            ProviderChoice::Id(id.to_owned()),
            Approvals::all_through_handle(b.approval, "the approval was abandoned"),
        );
        req.cwd = Some(cwd.clone());
        req.model = b.model.clone();
        req.provider_settings = true;
        req.recording = Recording::WithId(new_session_id());
        req.budget = budget.as_ref().map(|b| b.seat(name));
        req.options.sanitizer = s.host.sanitizer.clone();
        req
    })
    .await
    .map_err(CohostError::from)?;
    let room_id = prepared.id.clone();
    let room = prepared.launch(&s.host).await?;
    let mut members = Vec::new();
    let mut sessions = lock(&s.sessions);
    for m in room.members() {
        let id = m.session.record_id().unwrap_or_default().to_string();
        members.push(serde_json::json!({
            "name": m.name,
            "id": id,
            "provider": m.session.descriptor().id,
        }));
        sessions.insert(id, m.session.clone());
    }
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({ "room": room_id, "members": members })),
    ))
}

fn new_session_id() -> String {
    use sha2::Digest;
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let d = sha2::Sha256::digest(format!("{}-{nanos}-{seq}", std::process::id()));
    format!(
        "s-{}",
        d.iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    )
}

async fn list_sessions(
    State(s): State<Arc<AppState>>,
) -> ApiResult<Vec<cohost_host::store::SessionRecord>> {
    Ok(Json(s.store.list()?))
}

#[derive(Deserialize)]
struct PromptBody {
    text: String,
    /// `PATH[:A-B]` specs, as `cohost run --file`.
    #[serde(default)]
    files: Vec<String>,
    /// Image paths, as `cohost run --image`.
    #[serde(default)]
    images: Vec<PathBuf>,
}

async fn prompt(
    State(s): State<Arc<AppState>>,
    ApiPath(id): ApiPath<String>,
    ApiJson(b): ApiJson<PromptBody>,
) -> Result<StatusCode, ApiError> {
    let live = live(&s, &id)?;
    let input = cohost_host::session::attach::prompt_input(
        live.descriptor(),
        live.cwd(),
        b.text,
        &b.files,
        &b.images,
    )?;
    live.prompt(input)?;
    Ok(StatusCode::ACCEPTED)
}

/// Ends a session: its turn is interrupted, waiting approvals denied, and
/// its agent stopped in the background; SSE subscribers see their stream
/// close.
async fn end_session(
    State(s): State<Arc<AppState>>,
    ApiPath(id): ApiPath<String>,
) -> Result<StatusCode, ApiError> {
    let live = live(&s, &id)?;
    lock(&s.sessions).remove(&id);
    tokio::spawn(async move {
        if let Err(e) = live.terminate().await {
            tracing::warn!(error = %e, "ending the session's agent failed");
        }
    });
    Ok(StatusCode::NO_CONTENT)
}

async fn interrupt(
    State(s): State<Arc<AppState>>,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<serde_json::Value> {
    let sent = live(&s, &id)?.interrupt();
    Ok(Json(serde_json::json!({ "interrupt_sent": sent })))
}

#[derive(Deserialize)]
struct ApprovalBody {
    decision: ApprovalOption,
    #[serde(default)]
    message: Option<String>,
}

async fn approve(
    State(s): State<Arc<AppState>>,
    ApiPath((id, tool_id)): ApiPath<(String, String)>,
    ApiJson(b): ApiJson<ApprovalBody>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let decision = Decision {
        option: b.decision,
        message: b.message,
        origin: DecisionOrigin::User,
        deciders: Vec::new(),
    };
    if live(&s, &id)?.decide(Some(&tool_id), decision) {
        Ok(Json(
            serde_json::json!({ "tool_id": tool_id, "decision": b.decision }),
        ))
    } else {
        Err(CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("no approval is pending for tool `{tool_id}`"),
        )
        .with_fix("it may have been decided already or hit its deadline")
        .into())
    }
}

async fn events(
    State(s): State<Arc<AppState>>,
    ApiPath(id): ApiPath<String>,
) -> Result<impl IntoResponse, ApiError> {
    // A subscriber cut off for falling behind sees its stream end (chunk
    // indexes say what it missed; it can subscribe again for the replay).
    let events = live(&s, &id)?
        .subscribe()
        .take_while(|ev| std::future::ready(ev.is_ok()))
        .filter_map(|ev| std::future::ready(ev.ok()));
    let sanitizer = s.host.sanitizer.clone();
    let stream = events.map(move |ev| {
        let data = clean_json(&sanitizer, &ev);
        let kind = serde_json::to_value(&ev.body)
            .ok()
            .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
            .unwrap_or_else(|| "unknown".into());
        Ok::<_, std::convert::Infallible>(SseEvent::default().event(kind).id(ev.id).data(data))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// SSE of agents' hook events: the recent ones, then live.
async fn hook_events(State(s): State<Arc<AppState>>) -> impl IntoResponse {
    let (past, rx) = s.hooks.subscribe();
    let live = futures::stream::unfold(rx, |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(ev) => return Some((ev, rx)),
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    let sanitizer = s.host.sanitizer.clone();
    let stream = futures::stream::iter(past).chain(live).map(move |ev| {
        Ok::<_, std::convert::Infallible>(
            SseEvent::default()
                .event(ev.kind.clone())
                .id(ev.seq.to_string())
                .data(clean_json(&sanitizer, &ev)),
        )
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// JSON for an SSE `data:` line with every string in it sanitized: the last
/// gate before a subscriber, whatever the event carries (a prompt, a hook's
/// payload).
fn clean_json<T: serde::Serialize>(sanitizer: &cohost_core::Sanitizer, value: &T) -> String {
    let mut v = serde_json::to_value(value).unwrap_or_default();
    sanitizer.sanitize_json(&mut v);
    v.to_string()
}
