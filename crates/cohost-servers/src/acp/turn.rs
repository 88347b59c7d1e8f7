//! One `session/prompt`: queue the prompt on the session, stream the turn's
//! events as `session/update`, ask the client about each approval, and end
//! with the stop reason (or cohost's error).

use std::collections::HashSet;
use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    PromptRequest, PromptResponse, RequestPermissionOutcome, RequestPermissionRequest, SessionId,
    SessionNotification, SessionUpdate, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::Client;
use cohost_core::sync::lock;
use cohost_core::{
    ApprovalMode, ApprovalOption, CohostError, Decision, DecisionOrigin, EndReason, ErrorCode,
    EventBody, ToolKind,
};
use tokio::sync::{broadcast, Notify};

use super::{map, AcpState};
use crate::hub::{HubSession, TurnStop};

/// Removes the session's running-prompt entry and marks it idle however
/// the prompt ends.
struct Running<'a>(&'a AcpState, Arc<HubSession>);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        lock(&self.0.running).remove(self.1.id());
        self.1.end_turn();
    }
}

fn crashed(id: &str) -> CohostError {
    CohostError::new(
        ErrorCode::ProcessCrashed,
        format!("session `{id}` ended during the turn"),
    )
    .with_fix("open a new session, or session/load this one")
}

/// Run one prompt turn to its end.
pub(super) async fn prompt(
    st: &AcpState,
    conn: &ConnectionTo<Client>,
    req: PromptRequest,
) -> Result<PromptResponse, CohostError> {
    let id = req.session_id.to_string();
    let s = st.hub.get(&id)?;
    let wake = Arc::new(Notify::new());
    {
        let mut running = lock(&st.running);
        if running.contains_key(&id) {
            return Err(CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("session `{id}` is already running a prompt"),
            )
            .with_fix("wait for it to end, or send session/cancel"));
        }
        running.insert(id.clone(), wake.clone());
    }
    s.begin_turn();
    let _running = Running(st, s.clone());
    let (_, mut rx) = s.live.subscribe();
    s.live.prompt_input(map::prompt(req.prompt)).await?;
    let sid = req.session_id;
    let send = |u: SessionUpdate| {
        if let Err(e) = conn.send_notification(SessionNotification::new(sid.clone(), u)) {
            tracing::debug!(error = %e, "session/update not delivered");
        }
    };
    let mut announced: HashSet<String> = HashSet::new();
    let mut last_error: Option<CohostError> = None;
    let mut stop = TurnStop::new(st.hub.limits());
    loop {
        let ev = tokio::select! {
            ev = rx.recv() => ev,
            _ = wake.notified(), if !stop.stopping() => {
                stop.stop(&s);
                continue;
            }
            _ = stop.due() => {
                stop.fire(&s);
                continue;
            }
        };
        let ev = match ev {
            Ok(ev) => ev,
            Err(broadcast::error::RecvError::Lagged(n)) => {
                tracing::warn!(missed = n, "the ACP prompt lagged behind the session");
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return Err(crashed(&id)),
        };
        match &ev.body {
            EventBody::ToolCall { tool_id, .. } => {
                announced.insert(tool_id.clone());
            }
            EventBody::ToolApprovalRequested {
                tool_id,
                name,
                kind,
                input,
                options,
                ..
            } => {
                if announced.insert(tool_id.clone()) {
                    send(SessionUpdate::ToolCall(map::tool_call(
                        tool_id,
                        name,
                        *kind,
                        input,
                        ToolCallStatus::Pending,
                    )));
                }
                let ask = Ask {
                    conn: conn.clone(),
                    session: s.clone(),
                    sid: sid.clone(),
                    tool_id: tool_id.clone(),
                    name: name.clone(),
                    kind: *kind,
                    input: input.clone(),
                    options: options.clone(),
                };
                tokio::spawn(ask.run(st.mode(&id)));
            }
            EventBody::Error(e) => last_error = Some(e.clone()),
            EventBody::StreamEnd { reason, .. } => {
                return match reason {
                    EndReason::Error => Err(last_error.unwrap_or_else(|| crashed(&id))),
                    r => Ok(PromptResponse::new(map::stop_reason(*r))),
                };
            }
            _ => {}
        }
        if let Some(u) = map::update(&ev.body) {
            send(u);
        }
    }
}

/// One approval, answered by the session's mode or by the client.
struct Ask {
    conn: ConnectionTo<Client>,
    session: Arc<HubSession>,
    sid: SessionId,
    tool_id: String,
    name: String,
    kind: ToolKind,
    input: serde_json::Value,
    options: Vec<ApprovalOption>,
}

impl Ask {
    async fn run(self, mode: ApprovalMode) {
        let decision = match mode {
            ApprovalMode::AutoApprove => Decision::allow(DecisionOrigin::Policy),
            ApprovalMode::DenyAll => Decision::deny(
                DecisionOrigin::Policy,
                "denied by the session's mode (deny)",
            ),
            ApprovalMode::Ask => self.ask_client().await,
        };
        // The client may answer before the engine asks its decision source.
        self.session
            .live
            .decisions
            .answer_early(&self.tool_id, decision);
    }

    async fn ask_client(&self) -> Decision {
        let call = ToolCallUpdate::new(
            self.tool_id.clone(),
            ToolCallUpdateFields::new()
                .title(self.name.clone())
                .name(self.name.clone())
                .kind(map::kind(self.kind))
                .status(ToolCallStatus::Pending)
                .raw_input(self.input.clone()),
        );
        let req = RequestPermissionRequest::new(
            self.sid.clone(),
            call,
            map::permission_options(&self.options),
        );
        match self.conn.send_request(req).block_task().await {
            Ok(r) => match r.outcome {
                RequestPermissionOutcome::Selected(sel) => {
                    match map::option_from_id(&sel.option_id.to_string()) {
                        Some(option) => Decision {
                            option,
                            message: None,
                            origin: DecisionOrigin::User,
                        },
                        None => Decision::deny(
                            DecisionOrigin::User,
                            format!("unknown permission option `{}`", sel.option_id),
                        ),
                    }
                }
                RequestPermissionOutcome::Cancelled => {
                    Decision::deny(DecisionOrigin::Cancelled, "the prompt was cancelled")
                }
                _ => Decision::deny(DecisionOrigin::User, "unknown permission outcome"),
            },
            Err(e) => Decision::deny(
                DecisionOrigin::Cancelled,
                format!("the client did not answer the permission request: {e}"),
            ),
        }
    }
}
