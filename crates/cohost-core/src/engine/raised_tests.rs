//! Approvals raised for calls the agent did not bring to cohost: shown and
//! decided in the running turn like the agent's own, the decision going
//! back to the raiser and never to the agent.

use super::tests::run;
use super::*;
use crate::approval::{ApprovalContext, Decision, FnDecisionSource, NeverAnswers, Policy};
use crate::double::Factory;
use crate::event::{ApprovalOption, DecisionOrigin, Event, EventBody, ToolKind, ToolStatus};
use crate::port::ToolCallInfo;
use crate::sync::lock;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::oneshot;

async fn session(decisions: SharedDecisionSource) -> HostSession {
    let mut s = HostSession::new(
        Arc::new(Factory::default()),
        AdapterConfig::default(),
        decisions,
        SessionOptions::default(),
    );
    s.start().await.unwrap();
    s
}

fn bridge_call() -> ToolCallInfo {
    ToolCallInfo {
        tool_id: "bridge-1".into(),
        name: "mcp__cohost_room__ask_member".into(),
        kind: ToolKind::Other,
        input: serde_json::json!({"name": "claude", "prompt": "review it"}),
    }
}

fn options() -> Vec<ApprovalOption> {
    vec![ApprovalOption::AllowOnce, ApprovalOption::RejectOnce]
}

/// Run `prompt`, raising the bridge call as soon as the turn has begun
/// (from its first event, before the agent asks anything).
async fn run_raising(
    s: &mut HostSession,
    prompt: &str,
) -> (TurnOutcome, Vec<Event>, oneshot::Receiver<Decision>) {
    let control = s.control();
    let mut raised = None;
    let mut events = Vec::new();
    let outcome = s
        .prompt(PromptInput::text(prompt), &mut |e: Event| {
            if raised.is_none() {
                raised = Some(control.raise_approval(bridge_call(), options()));
            }
            events.push(e);
        })
        .await;
    (outcome, events, raised.expect("the turn emitted events"))
}

fn decided(events: &[Event], tool: &str) -> Vec<(ApprovalOption, DecisionOrigin, Vec<String>)> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolApprovalDecided {
                tool_id,
                decision,
                origin,
                deciders,
            } if tool_id == tool => Some((*decision, *origin, deciders.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_raised_request_is_shown_and_decided_like_the_agents_own_and_its_decision_comes_back() {
    // The raised call is denied by ana, the agent's own tool allowed: were
    // the raised decision sent to the agent, its tool would be denied.
    let seen: Arc<Mutex<Vec<ApprovalContext>>> = Arc::default();
    let log = seen.clone();
    let decisions = FnDecisionSource(move |ctx: ApprovalContext| {
        let raised = ctx.tool_id == "bridge-1";
        lock(&log).push(ctx);
        let d = if raised {
            Decision::deny(DecisionOrigin::User, "not now").by(vec!["ana".into()])
        } else {
            Decision::allow(DecisionOrigin::User)
        };
        Box::pin(async move { d }) as futures::future::BoxFuture<'static, Decision>
    });
    let mut s = session(Arc::new(decisions)).await;
    let (outcome, events, raised) = run_raising(&mut s, "[double:tool]").await;
    assert_eq!(outcome.reason, EndReason::Completed, "{events:#?}");
    let d = raised
        .await
        .expect("the engine answers every raised request");
    assert_eq!(
        (d.option, d.origin, d.deciders, d.message.as_deref()),
        (
            ApprovalOption::RejectOnce,
            DecisionOrigin::User,
            vec!["ana".to_string()],
            Some("not now")
        )
    );
    let requested = events.iter().find_map(|e| match &e.body {
        EventBody::ToolApprovalRequested {
            tool_id,
            name,
            kind,
            input,
            options: o,
            deadline_ms,
        } if tool_id == "bridge-1" => Some((name, *kind, input, o, *deadline_ms)),
        _ => None,
    });
    let (name, kind, input, o, deadline_ms) = requested.expect("a request event");
    assert_eq!(name, "mcp__cohost_room__ask_member");
    assert_eq!(kind, ToolKind::Other);
    assert_eq!(input["name"], "claude");
    assert_eq!(o, &options());
    assert_eq!(deadline_ms, 120_000);
    assert_eq!(
        decided(&events, "bridge-1"),
        [(
            ApprovalOption::RejectOnce,
            DecisionOrigin::User,
            vec!["ana".to_string()]
        )]
    );
    // The agent's own tool got its own decision, and ran.
    assert!(events.iter().any(|e| matches!(
        &e.body,
        EventBody::ToolExecuted { tool_id, status: ToolStatus::Ok, .. } if tool_id == "double-tool-1"
    )));
    let asked: Vec<String> = lock(&seen).iter().map(|c| c.tool_id.clone()).collect();
    assert_eq!(
        asked,
        ["bridge-1", "double-tool-1"],
        "one at a time, in order"
    );
    assert!(lock(&seen)[0].prompt_id == outcome.prompt_id);
    assert_eq!(s.state(), State::Ready);
}

#[tokio::test(start_paused = true)]
async fn a_policy_allows_a_raised_request_at_once() {
    let mut s = session(Arc::new(Policy::AllowAll)).await;
    let (outcome, events, raised) = run_raising(&mut s, "[double:slow]").await;
    assert_eq!(outcome.reason, EndReason::Completed);
    let d = raised.await.unwrap();
    assert_eq!(
        (d.option, d.origin),
        (ApprovalOption::AllowOnce, DecisionOrigin::Policy)
    );
    assert_eq!(
        decided(&events, "bridge-1"),
        [(ApprovalOption::AllowOnce, DecisionOrigin::Policy, vec![])]
    );
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_raised_request_is_denied_at_the_deadline() {
    let mut s = HostSession::new(
        Arc::new(Factory::default()),
        AdapterConfig::default(),
        Arc::new(NeverAnswers),
        SessionOptions {
            approval_deadline: Duration::from_secs(1),
            ..SessionOptions::default()
        },
    );
    s.start().await.unwrap();
    // The slow turn runs 5 s: the deadline comes first.
    let (_, events, raised) = run_raising(&mut s, "[double:slow]").await;
    let d = raised.await.unwrap();
    assert_eq!(
        (d.option, d.origin),
        (ApprovalOption::RejectOnce, DecisionOrigin::Deadline)
    );
    assert_eq!(decided(&events, "bridge-1").len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_turn_that_ends_before_the_decision_denies_the_raised_request() {
    // Nobody answers within the 5 s slow turn (deadline 120 s).
    let mut s = session(Arc::new(NeverAnswers)).await;
    let (outcome, events, raised) = run_raising(&mut s, "[double:slow]").await;
    assert_eq!(outcome.reason, EndReason::Completed);
    let d = raised.await.unwrap();
    assert_eq!(
        (d.option, d.origin),
        (ApprovalOption::RejectOnce, DecisionOrigin::Cancelled)
    );
    assert_eq!(
        decided(&events, "bridge-1"),
        [(
            ApprovalOption::RejectOnce,
            DecisionOrigin::Cancelled,
            vec![]
        )],
        "front ends see the request closed"
    );
}

#[tokio::test(start_paused = true)]
async fn an_interrupt_denies_a_waiting_raised_request() {
    let mut s = session(Arc::new(NeverAnswers)).await;
    let control = s.control();
    let stop = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        control.interrupt();
    });
    let (outcome, events, raised) = run_raising(&mut s, "[double:slow]").await;
    stop.await.unwrap();
    assert_eq!(outcome.reason, EndReason::Interrupted);
    let d = raised.await.unwrap();
    assert_eq!(
        (d.option, d.origin),
        (ApprovalOption::RejectOnce, DecisionOrigin::Cancelled)
    );
    assert_eq!(decided(&events, "bridge-1").len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_request_raised_while_no_turn_runs_is_denied_without_asking() {
    let asked = Arc::new(Mutex::new(0));
    let count = asked.clone();
    let decisions = FnDecisionSource(move |_ctx: ApprovalContext| {
        *lock(&count) += 1;
        Box::pin(async { Decision::allow(DecisionOrigin::User) })
            as futures::future::BoxFuture<'static, Decision>
    });
    let mut s = session(Arc::new(decisions)).await;
    let raised = s.control().raise_approval(bridge_call(), options());
    let (_, events) = run(&mut s, "[double:text]").await;
    let d = raised.await.unwrap();
    assert_eq!(
        (d.option, d.origin),
        (ApprovalOption::RejectOnce, DecisionOrigin::Cancelled)
    );
    assert!(d.message.unwrap().contains("no turn"));
    assert!(decided(&events, "bridge-1").is_empty());
    assert_eq!(*lock(&asked), 0);
}
