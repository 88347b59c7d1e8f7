//! The tools' bodies: open or find a session, run a turn and follow it.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use cohost_core::{CohostError, ContextFile, Decision, DecisionOrigin, ErrorCode, PromptInput};
use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::time::Instant;

use super::elicit;
use super::params::{
    AskAgent, AskRoom, ContinueSession, ListApprovals, ResolveApproval, Wait as WaitArgs,
};
use super::state::McpState;
use super::turn::{PendingView, TurnReport, TurnTracker};
use crate::hub::{HubSession, OpenRequest};

/// The longest `wait` blocks.
const MAX_WAIT: Duration = Duration::from_secs(300);

/// `list_agents`.
pub(super) async fn list_agents(st: &McpState) -> Result<Value, CohostError> {
    let host = st.hub().host();
    let cfg = host.config()?;
    let statuses = cohost_discovery::all_statuses(host, &cfg).await;
    let agents: Vec<Value> = statuses
        .iter()
        .map(|s| {
            json!({
                "id": s.provider_id,
                "label": s.label,
                "kind": s.kind,
                "status": s.status,
                "message": s.message,
                "suggested_fix": s.suggested_fix,
                "capabilities": s.driver,
            })
        })
        .collect();
    Ok(json!({ "agents": agents, "default": st.hub().default_provider() }))
}

fn prompt_input(prompt: String, files: Vec<std::path::PathBuf>) -> PromptInput {
    let mut input = PromptInput::text(prompt);
    input.context_files = files
        .into_iter()
        .map(|path| ContextFile {
            path,
            content: None,
        })
        .collect();
    input
}

/// A prompt with something in it, or the tool error that says so.
fn asked(prompt: &str) -> Result<(), CohostError> {
    if prompt.trim().is_empty() {
        return Err(
            CohostError::new(ErrorCode::ConfigInvalid, "the prompt is empty")
                .with_fix("pass the question in `prompt`"),
        );
    }
    Ok(())
}

/// `ask_agent`.
pub(super) async fn ask_agent(
    st: &McpState,
    a: AskAgent,
    ctx: RequestContext<RoleServer>,
) -> Result<Value, CohostError> {
    asked(&a.prompt)?;
    let s = st
        .hub()
        .open(OpenRequest {
            provider: a.provider,
            // The client's directory, absolute: a relative one would be
            // this server's.
            cwd: a
                .cwd
                .map(cohost_host::session::client_working_dir)
                .transpose()?,
            model: a.model,
            approval: a.approval.into(),
            resume: None,
        })
        .await?;
    let tracker = st.tracker(&s);
    let input = prompt_input(a.prompt, a.context_files);
    turn(&s, &tracker, input, a.wait.unwrap_or(true), ctx).await
}

/// `ask_room`: a room of `agents`, one prompt to every member at once.
pub(super) async fn ask_room(
    st: &McpState,
    a: AskRoom,
    ctx: RequestContext<RoleServer>,
) -> Result<Value, CohostError> {
    asked(&a.prompt)?;
    if a.agents.len() < 2 {
        return Err(
            CohostError::new(ErrorCode::ConfigInvalid, "a room takes at least two agents")
                .with_fix("name two or more in `agents`, or use ask_agent for one"),
        );
    }
    let req = OpenRequest {
        cwd: a
            .cwd
            .map(cohost_host::session::client_working_dir)
            .transpose()?,
        approval: a.approval.into(),
        ..OpenRequest::default()
    };
    let (room, members) = st.hub().open_room(req, &a.agents).await?;
    let wait = a.wait.unwrap_or(true);
    let turns = members.iter().map(|(name, s)| {
        let tracker = st.tracker(s);
        let input = prompt_input(a.prompt.clone(), a.context_files.clone());
        let ctx = ctx.clone();
        async move {
            let out = turn(s, &tracker, input, wait, ctx).await;
            let mut v = match out {
                Ok(v) => v,
                Err(e) => json!({ "session_id": s.id(), "provider": s.descriptor.id, "error": e }),
            };
            if let Value::Object(o) = &mut v {
                o.insert("name".into(), Value::String(name.clone()));
            }
            v
        }
    });
    let results = futures::future::join_all(turns).await;
    Ok(json!({ "room": room, "members": results }))
}

/// `continue_session`: an open session, else a stored one reopened.
pub(super) async fn continue_session(
    st: &McpState,
    a: ContinueSession,
    ctx: RequestContext<RoleServer>,
) -> Result<Value, CohostError> {
    let s = match st.hub().get(&a.session_id) {
        Ok(s) => s,
        Err(_) => {
            st.hub()
                .open(OpenRequest {
                    approval: a.approval.into(),
                    resume: Some(a.session_id.clone()),
                    ..OpenRequest::default()
                })
                .await?
        }
    };
    let tracker = st.tracker(&s);
    let input = prompt_input(a.prompt, a.context_files);
    turn(&s, &tracker, input, a.wait.unwrap_or(true), ctx).await
}

async fn turn(
    s: &Arc<HubSession>,
    tracker: &TurnTracker,
    input: PromptInput,
    wait: bool,
    ctx: RequestContext<RoleServer>,
) -> Result<Value, CohostError> {
    let n = tracker.begin()?;
    s.begin_turn();
    if let Err(e) = s.live.prompt(input).map_err(CohostError::from) {
        tracker.abort(&e);
        s.end_turn();
        return Err(e);
    }
    if !wait {
        return Ok(view(s, &tracker.report(), false));
    }
    let report = follow(s, tracker, n, &ctx).await;
    match (&report.error, report.end_reason) {
        (Some(e), Some(cohost_core::EndReason::Error)) => {
            // The tool error carries cohost's code and fix, plus the session.
            let mut e = e.clone();
            e.message = format!("{} (session {})", e.message, s.id());
            Err(e)
        }
        _ => Ok(view(s, &report, true)),
    }
}

/// Follow turn `n` to its end: stream its text as progress, hand its
/// approvals to elicitation, interrupt it when the request is cancelled.
async fn follow(
    s: &Arc<HubSession>,
    tracker: &TurnTracker,
    n: u64,
    ctx: &RequestContext<RoleServer>,
) -> TurnReport {
    let mut rx = tracker.subscribe();
    let progress = ctx.meta.get_progress_token();
    let can_elicit = elicit::supported(&ctx.peer);
    let mut sent = 0usize;
    let mut asked: HashSet<String> = HashSet::new();
    let mut stopping = false;
    loop {
        let (delta, fresh, done) = {
            let r = rx.borrow_and_update();
            let delta = r.answer.get(sent..).unwrap_or_default().to_string();
            sent = r.answer.len();
            let fresh: Vec<PendingView> = r
                .pending_approvals
                .iter()
                .filter(|p| !asked.contains(&p.tool_id))
                .cloned()
                .collect();
            (delta, fresh, r.turn != n || !r.running)
        };
        if let (Some(token), false) = (&progress, delta.is_empty()) {
            let note =
                ProgressNotificationParam::new(token.clone(), sent as f64).with_message(delta);
            if let Err(e) = ctx.peer.notify_progress(note).await {
                tracing::debug!(error = %e, "progress notification not delivered");
            }
        }
        for p in fresh {
            asked.insert(p.tool_id.clone());
            if can_elicit {
                tokio::spawn(elicit::ask(ctx.peer.clone(), s.clone(), p.now()));
            }
        }
        if done {
            break;
        }
        tokio::select! {
            changed = rx.changed() => if changed.is_err() { break },
            // The client cancelled the call: the turn stops too (the turn
            // limit is the engine's).
            _ = ctx.ct.cancelled(), if !stopping => {
                stopping = true;
                s.live.interrupt();
            }
        }
    }
    tracker.report()
}

/// What a client sees of a session.
fn view(s: &HubSession, r: &TurnReport, done: bool) -> Value {
    json!({
        "session_id": s.id(),
        "provider": s.descriptor.id,
        "model": s.model,
        "cwd": s.cwd,
        "done": done,
        "running": r.running,
        "turn": r.turn,
        "answer": r.answer,
        "end_reason": r.end_reason,
        "usage": r.usage,
        "tool_calls": r.tool_calls,
        "pending_approvals": r.pending_approvals,
        "native_session_id": r.native_session_id,
        "error": r.error,
    })
}

/// `session_status`: one session, or `{"sessions": [...]}` for all.
pub(super) fn status(st: &McpState, id: Option<&str>) -> Result<Value, CohostError> {
    let one = |s: &Arc<HubSession>| {
        let r = st.tracker(s).report();
        view(s, &r, !r.running)
    };
    match id {
        Some(id) => Ok(one(&st.hub().get(id)?)),
        None => Ok(json!({ "sessions": st.hub().list().iter().map(one).collect::<Vec<_>>() })),
    }
}

/// `wait`: until the turn ends or the (bounded) timeout passes.
pub(super) async fn wait(
    st: &McpState,
    a: WaitArgs,
    ctx: RequestContext<RoleServer>,
) -> Result<Value, CohostError> {
    let s = st.hub().get(&a.session_id)?;
    let tracker = st.tracker(&s);
    let timeout = Duration::from_secs(a.timeout_secs.unwrap_or(30)).min(MAX_WAIT);
    let mut rx = tracker.subscribe();
    let until = Instant::now() + timeout;
    loop {
        if !rx.borrow_and_update().running {
            break;
        }
        tokio::select! {
            changed = rx.changed() => if changed.is_err() { break },
            _ = tokio::time::sleep_until(until) => break,
            _ = ctx.ct.cancelled() => break,
        }
    }
    let r = tracker.report();
    Ok(view(&s, &r, !r.running))
}

/// `steer`: text for the running turn, steered or queued.
pub(super) async fn steer(st: &McpState, a: super::params::Steer) -> Result<Value, CohostError> {
    let s = st.hub().get(&a.session_id)?;
    if !st.tracker(&s).report().running {
        return Err(CohostError::new(
            cohost_core::ErrorCode::ConfigInvalid,
            format!("session `{}` runs no turn to steer", a.session_id),
        )
        .with_fix("send it as a new turn with continue_session"));
    }
    let outcome = s.live.steer(PromptInput::text(a.text), None).await?;
    let mut out = json!({ "session_id": a.session_id });
    match outcome {
        cohost_session::SteerOutcome::Steered => out["outcome"] = json!("steered"),
        cohost_session::SteerOutcome::Queued { item, turn } => {
            out["outcome"] = json!("queued");
            out["item"] = serde_json::to_value(&item).unwrap_or_default();
            out["correlation_id"] = json!(turn.correlation_id());
        }
        cohost_session::SteerOutcome::Started(turn) => {
            out["outcome"] = json!("started");
            out["correlation_id"] = json!(turn.correlation_id());
        }
    }
    Ok(out)
}

/// `interrupt`.
pub(super) fn interrupt(st: &McpState, id: &str) -> Result<Value, CohostError> {
    let s = st.hub().get(id)?;
    let running = st.tracker(&s).report().running;
    let sent = running && s.live.interrupt();
    Ok(json!({ "session_id": id, "interrupt_sent": sent, "was_running": running }))
}

/// `list_approvals`.
pub(super) fn list_approvals(st: &McpState, a: ListApprovals) -> Result<Value, CohostError> {
    let sessions = match &a.session_id {
        Some(id) => vec![st.hub().get(id)?],
        None => st.hub().list(),
    };
    let mut out = Vec::new();
    for s in sessions {
        for p in st.tracker(&s).report().pending_approvals {
            let mut v = serde_json::to_value(&p).unwrap_or_default();
            if let Value::Object(o) = &mut v {
                o.insert("session_id".into(), Value::String(s.id().to_string()));
                o.insert("provider".into(), Value::String(s.descriptor.id.clone()));
            }
            out.push(v);
        }
    }
    Ok(json!({ "approvals": out }))
}

/// `resolve_approval`.
pub(super) fn resolve_approval(st: &McpState, a: ResolveApproval) -> Result<Value, CohostError> {
    let s = st.hub().get(&a.session_id)?;
    let option: cohost_core::ApprovalOption = a.decision.into();
    let decision = Decision {
        option,
        message: a.message,
        origin: DecisionOrigin::User,
        deciders: Vec::new(),
    };
    // Pending as far as the client can know (its request event was seen):
    // the engine may not have asked its decision source yet.
    let pending = st
        .tracker(&s)
        .report()
        .pending_approvals
        .iter()
        .any(|p| p.tool_id == a.tool_id);
    if pending {
        s.live.decide_seen(&a.tool_id, decision);
        Ok(json!({ "session_id": a.session_id, "tool_id": a.tool_id, "decision": option }))
    } else {
        Err(CohostError::new(
            ErrorCode::ConfigInvalid,
            format!(
                "no approval is pending for tool `{}` in session {}",
                a.tool_id, a.session_id
            ),
        )
        .with_fix("it may have been decided already or hit its deadline; see list_approvals"))
    }
}
