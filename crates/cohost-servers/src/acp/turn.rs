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

use super::map;
use super::state::AcpState;
use crate::hub::HubSession;

/// Removes the session's running-prompt entry and marks it idle however
/// the prompt ends.
/// (The ACP session's id: a room's differs from its member's.)
struct Running<'a>(&'a AcpState, Arc<HubSession>, String);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        lock(&self.0.running).remove(&self.2);
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
    let s = st.session(&id)?;
    {
        let mut running = lock(&st.running);
        if running.contains(&id) {
            return Err(CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("session `{id}` is already running a prompt"),
            )
            .with_fix("wait for it to end, or send session/cancel"));
        }
        running.insert(id.clone());
    }
    s.begin_turn();
    let _running = Running(st, s.clone(), id.clone());
    let mut rx = s.live.subscribe_new();
    s.live.prompt(map::prompt(req.prompt))?;
    let sid = req.session_id;
    let send = |u: SessionUpdate| {
        if let Err(e) = conn.send_notification(SessionNotification::new(sid.clone(), u)) {
            tracing::debug!(error = %e, "session/update not delivered");
        }
    };
    let mut announced: HashSet<String> = HashSet::new();
    let mut last_error: Option<CohostError> = None;
    // `session/cancel` interrupts through the session's handle; the turn
    // limit is the engine's.
    loop {
        let ev = match rx.recv().await {
            Ok(Some(ev)) => ev,
            Ok(None) => return Err(crashed(&id)),
            Err(lagged) => {
                return Err(CohostError::new(
                    ErrorCode::InvalidOutput,
                    format!("the ACP prompt of session `{id}` {lagged}"),
                ))
            }
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
        self.session.live.decide_seen(&self.tool_id, decision);
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
                            deciders: Vec::new(),
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
