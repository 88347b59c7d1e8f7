//! The running session on the mock agent: commands while a turn streams,
//! several sessions at once, late subscribers, the end.

use std::sync::Arc;
use std::time::Duration;

use cohost_agents::mock::{MockFactory, MockOptions};
use cohost_core::{
    AdapterConfig, AdapterFactory, ApprovalMode, ApprovalOption, Decision, DecisionOrigin,
    EndReason, Event, EventBody, HostSession, Policy, PromptInput, SessionOptions,
};

use super::*;

pub(crate) fn fast() -> MockOptions {
    MockOptions {
        chunk_delay: Duration::ZERO,
        slow_delay: Duration::from_millis(20),
        ..MockOptions::default()
    }
}

pub(crate) async fn start(
    factory: Arc<MockFactory>,
    approvals: Option<PendingApprovals>,
    model: Option<String>,
) -> RunningSession {
    let config = AdapterConfig {
        approval: ApprovalMode::Ask,
        model: model.clone(),
        ..AdapterConfig::default()
    };
    let source: Arc<dyn cohost_core::DecisionSource> = match &approvals {
        Some(a) => Arc::new(a.clone()),
        None => Arc::new(Policy::AllowAll),
    };
    let descriptor = factory.descriptor();
    let mut s = HostSession::new(factory, config, source, SessionOptions::default());
    s.start().await.unwrap();
    let info = SessionInfo {
        record_id: None,
        descriptor,
        cwd: std::env::temp_dir(),
        model,
    };
    RunningSession::spawn(s, info, approvals, LogLimits::default())
}

pub(crate) async fn mock() -> RunningSession {
    start(Arc::new(MockFactory::new(fast())), None, None).await
}

/// Every event of one turn, read from `sub` up to its `stream_end`.
async fn turn_events(sub: &mut Subscription) -> Vec<Event> {
    let mut out = Vec::new();
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(10), sub.recv())
            .await
            .expect("the turn went on for 10 s")
            .expect("not cut off")
            .expect("the session did not end mid-turn");
        let end = matches!(ev.body, EventBody::StreamEnd { .. });
        out.push(ev);
        if end {
            return out;
        }
    }
}

fn text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

fn end_reason(events: &[Event]) -> Option<EndReason> {
    events.iter().find_map(|e| match e.body {
        EventBody::StreamEnd { reason, .. } => Some(reason),
        _ => None,
    })
}

#[tokio::test]
async fn a_prompt_streams_to_every_subscriber_and_its_ticket_says_how_it_ended() {
    let s = mock().await;
    let mut a = s.subscribe();
    let mut b = s.subscribe();
    let turn = s
        .prompt(PromptInput::text("[mock:say] hello there"))
        .unwrap();
    let ea = turn_events(&mut a).await;
    let eb = turn_events(&mut b).await;
    assert_eq!(text(&ea), "hello there");
    assert_eq!(ea, eb, "both subscribers see the same events");
    assert!(ea.iter().all(|e| e.correlation_id == turn.correlation_id()));
    let outcome = turn.outcome().await.unwrap();
    assert_eq!(outcome.reason, EndReason::Completed);
    assert!(!s.busy());
}

#[tokio::test]
async fn an_interrupt_reaches_the_running_turn_and_the_session_goes_on() {
    let s = mock().await;
    let mut sub = s.subscribe();
    let turn = s.prompt(PromptInput::text("[mock:slow]")).unwrap();
    // The first delta says the turn streams; then interrupt from the handle.
    loop {
        let ev = sub.recv().await.unwrap().unwrap();
        if matches!(ev.body, EventBody::StreamChunk { .. }) {
            break;
        }
    }
    assert!(s.busy());
    assert!(s.interrupt());
    let rest = turn_events(&mut sub).await;
    assert_eq!(end_reason(&rest), Some(EndReason::Interrupted));
    assert_eq!(turn.outcome().await.unwrap().reason, EndReason::Interrupted);
    let next = s.prompt(PromptInput::text("[mock:say] again")).unwrap();
    assert_eq!(text(&turn_events(&mut sub).await), "again");
    assert_eq!(next.outcome().await.unwrap().reason, EndReason::Completed);
}

#[tokio::test]
async fn an_approval_is_decided_through_the_handle_while_the_turn_waits() {
    let approvals = PendingApprovals::new("gone");
    let s = start(
        Arc::new(MockFactory::new(fast())),
        Some(approvals.clone()),
        None,
    )
    .await;
    let mut sub = s.subscribe();
    let turn = s.prompt(PromptInput::text("[mock:tool]")).unwrap();
    let tool_id = loop {
        let ev = sub.recv().await.unwrap().unwrap();
        if let EventBody::ToolApprovalRequested { tool_id, .. } = ev.body {
            break tool_id;
        }
    };
    // Answered as soon as the event is seen, before the engine may have
    // parked the request: the handle keeps it until it is asked.
    assert!(s.decide_seen(&tool_id, Decision::allow(DecisionOrigin::User)));
    let rest = turn_events(&mut sub).await;
    let decided = rest.iter().find_map(|e| match &e.body {
        EventBody::ToolApprovalDecided {
            decision, origin, ..
        } => Some((*decision, *origin)),
        _ => None,
    });
    assert_eq!(
        decided,
        Some((ApprovalOption::AllowOnce, DecisionOrigin::User))
    );
    assert_eq!(turn.outcome().await.unwrap().reason, EndReason::Completed);
    assert!(
        !s.decide(Some(&tool_id), Decision::allow(DecisionOrigin::User)),
        "nothing is waiting any more"
    );
}

#[tokio::test]
async fn sessions_run_side_by_side_in_one_process() {
    let sessions = [mock().await, mock().await, mock().await];
    let mut subs: Vec<Subscription> = sessions.iter().map(|s| s.subscribe()).collect();
    let turns: Vec<Turn> = sessions
        .iter()
        .map(|s| s.prompt(PromptInput::text("[mock:slow]")).unwrap())
        .collect();
    // Every session streams before any has ended: they run concurrently.
    for sub in &mut subs {
        loop {
            let ev = sub.recv().await.unwrap().unwrap();
            assert!(!matches!(ev.body, EventBody::StreamEnd { .. }));
            if matches!(ev.body, EventBody::StreamChunk { .. }) {
                break;
            }
        }
    }
    assert!(sessions.iter().all(RunningSession::busy));
    // Stopping one leaves the others streaming.
    sessions[1].interrupt();
    assert_eq!(
        end_reason(&turn_events(&mut subs[1]).await),
        Some(EndReason::Interrupted)
    );
    assert!(sessions[0].busy() && sessions[2].busy());
    for (s, t) in sessions.iter().zip(turns) {
        s.interrupt();
        t.outcome().await.unwrap();
    }
}

#[tokio::test]
async fn a_late_subscriber_is_replayed_what_it_missed() {
    let s = mock().await;
    let t = s.prompt(PromptInput::text("[mock:say] one two")).unwrap();
    t.outcome().await.unwrap();
    let mut late = s.subscribe();
    let replayed = turn_events(&mut late).await;
    assert_eq!(text(&replayed), "one two");
    let mut fresh = s.subscribe_new();
    assert!(fresh.try_recv().is_none());
}

#[tokio::test]
async fn terminate_stops_the_turn_drops_the_queue_and_ends_every_subscription() {
    let s = mock().await;
    let mut sub = s.subscribe();
    let running = s.prompt(PromptInput::text("[mock:slow]")).unwrap();
    let queued = s.prompt(PromptInput::text("[mock:say] never")).unwrap();
    loop {
        let ev = sub.recv().await.unwrap().unwrap();
        if matches!(ev.body, EventBody::StreamChunk { .. }) {
            break;
        }
    }
    s.terminate().await.unwrap();
    assert_eq!(
        running.outcome().await.unwrap().reason,
        EndReason::Interrupted
    );
    let e = queued.outcome().await.unwrap_err();
    assert_eq!(e, crate::SessionError::EndedBeforeTurn);
    assert_eq!(e.code(), cohost_core::ErrorCode::Cancelled);
    let mut rest = Vec::new();
    while let Ok(Some(ev)) = sub.recv().await {
        rest.push(ev);
    }
    assert!(!text(&rest).contains("never"));
    assert!(s.prompt(PromptInput::text("more")).is_err());
    assert!(!s.busy());
    s.terminate().await.unwrap();
}

#[tokio::test]
async fn the_last_prompt_stops_the_agent_after_its_turn() {
    let s = mock().await;
    let mut sub = s.subscribe();
    let t = s.prompt_last(PromptInput::text("[mock:say] bye")).unwrap();
    assert_eq!(text(&turn_events(&mut sub).await), "bye");
    assert_eq!(t.outcome().await.unwrap().reason, EndReason::Completed);
    assert_eq!(sub.recv().await, Ok(None), "the session ended");
    assert!(s.prompt(PromptInput::text("more")).is_err());
}

#[tokio::test]
async fn dropping_every_handle_ends_the_session() {
    let s = mock().await;
    let mut sub = s.subscribe();
    drop(s);
    let end = tokio::time::timeout(Duration::from_secs(5), sub.recv()).await;
    assert_eq!(end.unwrap(), Ok(None));
}

#[tokio::test]
async fn set_model_restarts_the_agent_with_the_model_between_turns() {
    let factory = Arc::new(MockFactory::new(fast()));
    let s = start(factory.clone(), None, Some("text".into())).await;
    assert_eq!(factory.created(), 1);
    let mut sub = s.subscribe();
    s.set_model(Some("say".into())).await.unwrap();
    assert_eq!(factory.created(), 2);
    assert_eq!(s.model().as_deref(), Some("say"));
    // The mock takes its scenario from the model: `say` repeats the prompt.
    s.prompt(PromptInput::text("now this")).unwrap();
    assert_eq!(text(&turn_events(&mut sub).await), "now this");
}

#[tokio::test]
async fn an_interrupt_sent_before_the_queued_turn_began_still_stops_it() {
    let s = mock().await;
    let mut sub = s.subscribe();
    let turn = s.prompt(PromptInput::text("[mock:slow]")).unwrap();
    // At once: the session's task has not started the turn yet.
    assert!(s.interrupt());
    let events = turn_events(&mut sub).await;
    assert_eq!(end_reason(&events), Some(EndReason::Interrupted));
    assert_eq!(turn.outcome().await.unwrap().reason, EndReason::Interrupted);
    // Forgotten with that turn: the next one runs to its end.
    let next = s.prompt(PromptInput::text("[mock:say] fine")).unwrap();
    assert_eq!(text(&turn_events(&mut sub).await), "fine");
    assert_eq!(next.outcome().await.unwrap().reason, EndReason::Completed);
}

#[tokio::test]
async fn an_interrupt_while_idle_does_not_stop_the_next_turn() {
    let s = mock().await;
    let mut sub = s.subscribe();
    s.interrupt();
    let t = s.prompt(PromptInput::text("[mock:say] whole")).unwrap();
    assert_eq!(text(&turn_events(&mut sub).await), "whole");
    assert_eq!(t.outcome().await.unwrap().reason, EndReason::Completed);
}
