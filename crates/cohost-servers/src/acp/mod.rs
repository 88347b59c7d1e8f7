//! `cohost acp`: cohost as an ACP agent on stdio (the `agent-client-protocol`
//! crate), so an ACP client (Zed, JetBrains, Neovim, Emacs…) can drive any
//! cohost provider.
//!
//! `initialize` answers with capabilities from the provider's descriptor;
//! `session/new` and `session/load` open [`Hub`] sessions (the one session
//! path; `load` resumes a stored cohost session); `session/prompt` streams
//! the engine's events as `session/update` ([`map`]) and asks
//! `session/request_permission` for every approval (option ids are cohost's
//! option names); `session/cancel` interrupts the turn; `session/list`
//! reads the session store; `session/set_mode` picks who answers approvals
//! (`ask` the client, or `auto` / `deny` answered by cohost's policy).

pub mod map;
pub mod model;
pub mod room;
mod state;
mod turn;

#[cfg(test)]
mod sanitizer_tests;

pub use state::{rpc_error, AcpState};

use std::sync::Arc;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, Implementation, InitializeRequest, InitializeResponse,
    ListSessionsRequest, ListSessionsResponse, LoadSessionRequest, LoadSessionResponse,
    NewSessionRequest, NewSessionResponse, PromptCapabilities, PromptRequest, SessionCapabilities,
    SessionInfo, SessionListCapabilities, SessionMode, SessionModeState,
    SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, SetSessionModeRequest,
    SetSessionModeResponse,
};
use agent_client_protocol::{on_receive_notification, on_receive_request, Agent, Lines};
use cohost_core::sync::lock;
use cohost_core::{ApprovalMode, CohostError, ErrorCode, ResumeSupport};

use crate::hub::{Hub, OpenRequest};

/// A `cwd` from the client: ACP requires an absolute path, and the agent
/// needs it to exist. Refused as invalid params, with what to send instead.
fn client_cwd(
    st: &AcpState,
    cwd: std::path::PathBuf,
) -> Result<std::path::PathBuf, agent_client_protocol::Error> {
    cohost_host::session::client_working_dir(cwd).map_err(|e| {
        let e = cohost_core::CohostError::from(e);
        let sanitizer = &st.hub.host().sanitizer;
        let mut data = serde_json::to_value(&e).unwrap_or_default();
        sanitizer.sanitize_json(&mut data);
        agent_client_protocol::Error::new(
            agent_client_protocol::ErrorCode::INVALID_PARAMS,
            sanitizer.sanitize(&e.message).into_owned(),
        )
        .data(data)
    })
}

const MODES: [(&str, &str, &str); 3] = [
    (
        "ask",
        "Ask",
        "Every tool call is asked to you (session/request_permission).",
    ),
    (
        "auto",
        "Auto-approve",
        "cohost allows every tool call without asking.",
    ),
    ("deny", "Deny tools", "cohost denies every tool call."),
];

fn mode_state(current: &str) -> SessionModeState {
    SessionModeState::new(
        current.to_string(),
        MODES
            .iter()
            .map(|(id, name, d)| {
                SessionMode::new(id.to_string(), name.to_string()).description(d.to_string())
            })
            .collect(),
    )
}

fn mode_from_id(id: &str) -> Option<ApprovalMode> {
    match id {
        "ask" => Some(ApprovalMode::Ask),
        "auto" => Some(ApprovalMode::AutoApprove),
        "deny" => Some(ApprovalMode::DenyAll),
        _ => None,
    }
}

/// Capabilities from the default provider's descriptor: `load` where it
/// resumes natively, embedded context where it takes context files (links
/// always work: they become `@path` mentions).
async fn capabilities(hub: &Hub) -> AgentCapabilities {
    let choice = match hub.default_provider() {
        Some(id) => cohost_host::session::ProviderChoice::Id(id.to_string()),
        None => cohost_host::session::ProviderChoice::Default,
    };
    let caps = cohost_host::session::choose(hub.host(), &choice)
        .await
        .ok()
        .map(|(f, _)| f.descriptor().capabilities);
    let resumes = caps
        .as_ref()
        .is_some_and(|c| c.resume != ResumeSupport::None);
    AgentCapabilities::new()
        .load_session(resumes)
        .prompt_capabilities(PromptCapabilities::new().embedded_context(true))
        .session_capabilities(SessionCapabilities::new().list(SessionListCapabilities::new()))
}

/// Serve ACP on stdin/stdout until the client closes it; then every session
/// is ended.
pub async fn serve_stdio(state: Arc<AcpState>) -> Result<(), CohostError> {
    let (s1, s2, s3, s4, s5, s6, s7, s8) = (
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
    );
    let served = Agent
        .v1()
        .name("cohost")
        .on_receive_request(
            async move |req: InitializeRequest, responder, _cx| {
                let version = req.protocol_version.min(ProtocolVersion::V1);
                responder.respond(
                    InitializeResponse::new(version)
                        .agent_capabilities(capabilities(&s1.hub).await)
                        .agent_info(Implementation::new("cohost", env!("CARGO_PKG_VERSION"))),
                )
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: NewSessionRequest, responder, cx| {
                let st = s2.clone();
                let cwd = match client_cwd(&st, req.cwd) {
                    Ok(c) => c,
                    Err(e) => return responder.respond_with_error(e),
                };
                cx.spawn(async move {
                    if !st.room_agents.is_empty() {
                        return match room::open(&st, cwd).await {
                            Ok((id, option)) => responder.respond(
                                NewSessionResponse::new(id)
                                    .modes(mode_state("ask"))
                                    .config_options(vec![option]),
                            ),
                            Err(e) => responder.respond_with_error(st.rpc_error(&e)),
                        };
                    }
                    let opened = st
                        .hub
                        .open(OpenRequest {
                            cwd: Some(cwd),
                            ..OpenRequest::default()
                        })
                        .await;
                    match opened {
                        Ok(s) => responder.respond(
                            NewSessionResponse::new(s.id().to_string()).modes(mode_state("ask")),
                        ),
                        Err(e) => responder.respond_with_error(st.rpc_error(&e)),
                    }
                })
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: LoadSessionRequest, responder, cx| {
                let st = s3.clone();
                cx.spawn(async move {
                    let id = req.session_id.to_string();
                    // The same rule as session/new: a relative `cwd` was
                    // resolved against this server's own directory.
                    let cwd = match client_cwd(&st, req.cwd) {
                        Ok(cwd) => cwd,
                        Err(e) => return responder.respond_with_error(e),
                    };
                    match load(&st, &id, cwd).await {
                        Ok(()) => {
                            responder.respond(LoadSessionResponse::new().modes(mode_state("ask")))
                        }
                        Err(e) => responder.respond_with_error(st.rpc_error(&e)),
                    }
                })
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: ListSessionsRequest, responder, _cx| match list(&s4, &req) {
                Ok(r) => responder.respond(r),
                Err(e) => responder.respond_with_error(s4.rpc_error(&e)),
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: PromptRequest, responder, cx| {
                let st = s5.clone();
                let conn = cx.clone();
                cx.spawn(async move {
                    match turn::prompt(&st, &conn, req).await {
                        Ok(r) => responder.respond(r),
                        Err(e) => responder.respond_with_error(st.rpc_error(&e)),
                    }
                })
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: SetSessionModeRequest, responder, _cx| {
                let id = req.session_id.to_string();
                let picked = mode_from_id(&req.mode_id.to_string());
                match (s6.session(&id), picked) {
                    (Ok(_), Some(m)) => {
                        lock(&s6.modes).insert(id, m);
                        responder.respond(SetSessionModeResponse::new())
                    }
                    (Err(e), _) => responder.respond_with_error(s6.rpc_error(&e)),
                    (_, None) => responder.respond_with_error(
                        s6.rpc_error(
                            &CohostError::new(
                                ErrorCode::ConfigInvalid,
                                format!("unknown mode `{}`", req.mode_id),
                            )
                            .with_fix("pick ask, auto or deny"),
                        ),
                    ),
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: SetSessionConfigOptionRequest, responder, cx| {
                let st = s8.clone();
                cx.spawn(async move {
                    if let Some(set) = room::set(&st, &req) {
                        return match set {
                            Ok(options) => {
                                responder.respond(SetSessionConfigOptionResponse::new(options))
                            }
                            Err(e) => responder.respond_with_error(st.rpc_error(&e)),
                        };
                    }
                    match model::set(&st.hub, req).await {
                        Ok(options) => {
                            responder.respond(SetSessionConfigOptionResponse::new(options))
                        }
                        Err(e) => responder.respond_with_error(st.rpc_error(&e)),
                    }
                })
            },
            on_receive_request!(),
        )
        .on_receive_notification(
            async move |n: CancelNotification, _cx| {
                let id = n.session_id.to_string();
                // Before the prompt's turn has begun too: the handle keeps
                // the interrupt for it.
                if let Ok(s) = s7.session(&id) {
                    s.live.interrupt();
                }
                Ok(())
            },
            on_receive_notification!(),
        )
        .connect_to({
            let (incoming, outgoing) = crate::stdio_guard::stdio();
            Lines::new(outgoing, incoming)
        })
        .await;
    state.hub.close_all();
    served.map_err(|e| {
        CohostError::new(
            ErrorCode::NetworkError,
            format!("the ACP connection failed: {e}"),
        )
    })
}

/// `session/load`: the open session, else the stored one resumed (its id
/// stays the same, so the client's id keeps working).
async fn load(st: &AcpState, id: &str, cwd: std::path::PathBuf) -> Result<(), CohostError> {
    if st.hub.get(id).is_ok() {
        return Ok(());
    }
    let store = cohost_host::SessionStore::of(st.hub.host());
    if store.get(id)?.is_none() {
        return Err(CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("no stored cohost session `{id}`"),
        )
        .with_fix("pick one from session/list (or `cohost sessions`)"));
    }
    let s = st
        .hub
        .open(OpenRequest {
            cwd: Some(cwd),
            resume: Some(id.to_string()),
            ..OpenRequest::default()
        })
        .await?;
    if s.id() != id {
        st.hub.close(s.id());
        return Err(CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("session `{id}` resumed under another id"),
        ));
    }
    Ok(())
}

/// `session/list`: the session store, newest first, for the provider this
/// server runs (every provider without `--agent`).
fn list(st: &AcpState, req: &ListSessionsRequest) -> Result<ListSessionsResponse, CohostError> {
    let store = cohost_host::SessionStore::of(st.hub.host());
    let mut recs = store.list()?;
    recs.sort_by_key(|r| std::cmp::Reverse(r.updated_at_ms));
    let sessions = recs
        .into_iter()
        .filter(|r| st.hub.default_provider().is_none_or(|p| p == r.provider))
        .filter(|r| req.cwd.as_ref().is_none_or(|c| *c == r.cwd))
        .map(|r| {
            SessionInfo::new(r.id.clone(), r.cwd.clone())
                .title(format!("{} · {}", r.provider, r.id))
        })
        .collect();
    Ok(ListSessionsResponse::new(sessions))
}
