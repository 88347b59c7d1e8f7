//! Engine tests on core's scripted test double (`crate::double`), with tokio's paused clock so deadlines
//! and backoff take no real time.

use super::*;
use crate::approval::{NeverAnswers, Policy};
use crate::double::{self, Factory, Options, Script};
use crate::event::{ApprovalOption, DecisionOrigin, Event, EventBody, ToolStatus};
use crate::port::ApprovalMode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::time::Instant;

async fn session_with(
    factory: Arc<dyn AdapterFactory>,
    approval: ApprovalMode,
    decisions: SharedDecisionSource,
) -> HostSession {
    let config = AdapterConfig {
        approval,
        ..AdapterConfig::default()
    };
    let mut s = HostSession::new(factory, config, decisions, SessionOptions::default());
    s.start().await.unwrap();
    assert_eq!(s.state(), State::Ready);
    s
}

pub(super) async fn double_session(
    approval: ApprovalMode,
    decisions: SharedDecisionSource,
) -> HostSession {
    session_with(Arc::new(Factory::default()), approval, decisions).await
}

pub(super) async fn run(s: &mut HostSession, prompt: &str) -> (TurnOutcome, Vec<Event>) {
    let mut events = Vec::new();
    let outcome = s
        .prompt(PromptInput::text(prompt), &mut |e: Event| events.push(e))
        .await;
    assert_well_formed(&events);
    (outcome, events)
}

/// Invariants of every turn: start first, end last, ids, chunk numbering.
fn assert_well_formed(events: &[Event]) {
    assert!(
        matches!(
            events.first().map(|e| &e.body),
            Some(EventBody::StreamStart { .. })
        ),
        "first event must be stream_start: {events:?}"
    );
    assert!(
        matches!(
            events.last().map(|e| &e.body),
            Some(EventBody::StreamEnd { .. })
        ),
        "last event must be stream_end: {events:?}"
    );
    let prompt_id = &events[0].prompt_id;
    let mut next: std::collections::HashMap<String, u64> = Default::default();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(&e.prompt_id, prompt_id);
        assert_eq!(e.id, format!("{prompt_id}.{i}"));
        if let EventBody::StreamChunk {
            stream_id,
            chunk_index,
            ..
        }
        | EventBody::ReasoningChunk {
            stream_id,
            chunk_index,
            ..
        } = &e.body
        {
            let n = next.entry(stream_id.clone()).or_insert(0);
            assert_eq!(*chunk_index, *n, "chunk indexes must rise by exactly 1");
            *n += 1;
        }
    }
}

fn text_of(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

pub(super) fn end_of(events: &[Event]) -> (EndReason, Option<Usage>) {
    match &events.last().unwrap().body {
        EventBody::StreamEnd { reason, usage } => (*reason, *usage),
        other => panic!("not an end: {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn text_turn_streams_numbered_chunks_and_usage() {
    let mut s = double_session(ApprovalMode::Ask, Arc::new(Policy::DenyAll)).await;
    let (outcome, events) = run(&mut s, "hello").await;
    assert_eq!(outcome.reason, EndReason::Completed);
    assert!(text_of(&events).contains("You said: \"hello\""));
    let chunks = events
        .iter()
        .filter(|e| matches!(e.body, EventBody::StreamChunk { .. }))
        .count();
    assert!(chunks >= 2);
    assert!(events
        .iter()
        .any(|e| matches!(e.body, EventBody::ReasoningChunk { chunk_index: 0, .. })));
    let (reason, usage) = end_of(&events);
    assert_eq!(reason, EndReason::Completed);
    assert!(usage.unwrap().output_tokens > 0);
    assert_eq!(s.state(), State::Ready);
    match &events[0].body {
        EventBody::StreamStart {
            provider,
            session_id,
            ..
        } => {
            assert_eq!(provider, double::ID);
            assert!(session_id.is_some());
        }
        _ => unreachable!(),
    }
    // A second turn gets a new prompt id and restarts chunk numbering.
    let (_, events2) = run(&mut s, "again").await;
    assert_ne!(events2[0].prompt_id, events[0].prompt_id);
}

pub(super) fn tool_events(
    events: &[Event],
) -> (
    bool,
    Option<(ApprovalOption, DecisionOrigin)>,
    Option<ToolStatus>,
) {
    let requested = events
        .iter()
        .any(|e| matches!(e.body, EventBody::ToolApprovalRequested { .. }));
    let decided = events.iter().find_map(|e| match e.body {
        EventBody::ToolApprovalDecided {
            decision, origin, ..
        } => Some((decision, origin)),
        _ => None,
    });
    let executed = events.iter().find_map(|e| match e.body {
        EventBody::ToolExecuted { status, .. } => Some(status),
        _ => None,
    });
    (requested, decided, executed)
}

#[tokio::test(start_paused = true)]
async fn approval_allow() {
    let mut s = double_session(ApprovalMode::Ask, Arc::new(Policy::AllowAll)).await;
    let (outcome, events) = run(&mut s, "[double:tool]").await;
    assert_eq!(outcome.reason, EndReason::Completed);
    let (requested, decided, executed) = tool_events(&events);
    assert!(requested);
    assert_eq!(
        decided,
        Some((ApprovalOption::AllowOnce, DecisionOrigin::Policy))
    );
    assert_eq!(executed, Some(ToolStatus::Ok));
}

#[tokio::test(start_paused = true)]
async fn approval_deny() {
    let mut s = double_session(ApprovalMode::Ask, Arc::new(Policy::DenyAll)).await;
    let (outcome, events) = run(&mut s, "[double:tool]").await;
    assert_eq!(outcome.reason, EndReason::Completed);
    let (requested, decided, executed) = tool_events(&events);
    assert!(requested);
    assert_eq!(
        decided,
        Some((ApprovalOption::RejectOnce, DecisionOrigin::Policy))
    );
    assert_eq!(executed, Some(ToolStatus::Denied));
}

#[tokio::test(start_paused = true)]
async fn approval_deadline_denies() {
    let mut s = double_session(ApprovalMode::Ask, Arc::new(NeverAnswers)).await;
    let t0 = Instant::now();
    let (outcome, events) = run(&mut s, "[double:tool]").await;
    let waited = t0.elapsed();
    assert_eq!(outcome.reason, EndReason::Completed);
    let (_, decided, executed) = tool_events(&events);
    assert_eq!(
        decided,
        Some((ApprovalOption::RejectOnce, DecisionOrigin::Deadline))
    );
    assert_eq!(executed, Some(ToolStatus::Denied));
    let deadline = SessionOptions::default().approval_deadline;
    assert!(
        waited >= deadline && waited < deadline + Duration::from_secs(1),
        "{waited:?}"
    );
    let advertised = events.iter().find_map(|e| match e.body {
        EventBody::ToolApprovalRequested { deadline_ms, .. } => Some(deadline_ms),
        _ => None,
    });
    assert_eq!(advertised, Some(deadline.as_millis() as u64));
}

#[tokio::test(start_paused = true)]
async fn auto_approve_requests_nothing() {
    let mut s = double_session(ApprovalMode::AutoApprove, Arc::new(NeverAnswers)).await;
    let (_, events) = run(&mut s, "[double:tool]").await;
    let (requested, decided, executed) = tool_events(&events);
    assert!(!requested);
    assert!(decided.is_none());
    assert_eq!(executed, Some(ToolStatus::Ok));
    assert!(events
        .iter()
        .any(|e| matches!(e.body, EventBody::ToolCall { .. })));
}

#[tokio::test(start_paused = true)]
async fn interrupt_during_streaming_returns_to_ready() {
    let mut s = double_session(ApprovalMode::Ask, Arc::new(Policy::DenyAll)).await;
    let control = s.control();
    let mut events = Vec::new();
    let mut interrupted_at = None;
    let t0 = Instant::now();
    let outcome = s
        .prompt(PromptInput::text("[double:slow]"), &mut |e: Event| {
            if matches!(e.body, EventBody::StreamChunk { chunk_index: 2, .. }) {
                control.interrupt();
                interrupted_at = Some(Instant::now());
            }
            events.push(e);
        })
        .await;
    assert_well_formed(&events);
    assert_eq!(outcome.reason, EndReason::Interrupted);
    assert_eq!(end_of(&events).0, EndReason::Interrupted);
    let took = interrupted_at.unwrap().elapsed();
    assert!(
        took < Duration::from_millis(50),
        "protocol cancel should be immediate: {took:?}"
    );
    assert!(t0.elapsed() < Duration::from_secs(1));
    assert_eq!(s.state(), State::Ready);
    // The same session completes another prompt.
    let (outcome, _) = run(&mut s, "again").await;
    assert_eq!(outcome.reason, EndReason::Completed);
}

#[tokio::test(start_paused = true)]
async fn interrupt_escalates_on_a_hung_agent_and_respawns() {
    let factory = Arc::new(Factory::default());
    let mut s = session_with(
        factory.clone(),
        ApprovalMode::Ask,
        Arc::new(Policy::DenyAll),
    )
    .await;
    let control = s.control();
    let mut events = Vec::new();
    let mut sent_at = None;
    let outcome = s
        .prompt(PromptInput::text("[double:hang]"), &mut |e: Event| {
            if matches!(e.body, EventBody::StreamChunk { .. }) {
                control.interrupt();
                sent_at = Some(Instant::now());
            }
            events.push(e);
        })
        .await;
    assert_eq!(outcome.reason, EndReason::Interrupted);
    let took = sent_at.unwrap().elapsed();
    assert!(
        took < Duration::from_secs(2),
        "ladder must finish within 2 s: {took:?}"
    );
    assert!(
        took >= Duration::from_millis(1300),
        "cancel and SIGINT waits come first: {took:?}"
    );
    assert_eq!(s.state(), State::Ready);
    assert_eq!(factory.created(), 2, "the killed agent is replaced");
    let (outcome, _) = run(&mut s, "after").await;
    assert_eq!(outcome.reason, EndReason::Completed);
}

#[tokio::test(start_paused = true)]
async fn interrupt_while_waiting_for_approval_cancels_it() {
    let mut s = double_session(ApprovalMode::Ask, Arc::new(NeverAnswers)).await;
    let control = s.control();
    let mut events = Vec::new();
    let outcome = s
        .prompt(PromptInput::text("[double:tool]"), &mut |e: Event| {
            if matches!(e.body, EventBody::ToolApprovalRequested { .. }) {
                control.interrupt();
            }
            events.push(e);
        })
        .await;
    assert_eq!(outcome.reason, EndReason::Interrupted);
    let (_, decided, _) = tool_events(&events);
    assert_eq!(
        decided,
        Some((ApprovalOption::RejectOnce, DecisionOrigin::Cancelled))
    );
    assert_eq!(s.state(), State::Ready);
}

#[tokio::test(start_paused = true)]
async fn crash_is_reported_then_respawned() {
    let factory = Arc::new(Factory::default());
    let mut s = session_with(
        factory.clone(),
        ApprovalMode::Ask,
        Arc::new(Policy::DenyAll),
    )
    .await;
    let (outcome, events) = run(&mut s, "[double:crash]").await;
    assert_eq!(outcome.reason, EndReason::Error);
    assert_eq!(outcome.error.unwrap().code, ErrorCode::ProcessCrashed);
    assert!(events.iter().any(|e| matches!(&e.body,
        EventBody::Error(err) if err.code == ErrorCode::ProcessCrashed && err.message.contains("exit status 101"))));
    assert_eq!(s.state(), State::Failed);
    let (outcome, _) = run(&mut s, "hello again").await;
    assert_eq!(outcome.reason, EndReason::Completed);
    assert_eq!(factory.created(), 2);
    assert_eq!(s.state(), State::Ready);
}

/// First adapter crashes mid-turn; every replacement dies during start-up.
#[derive(Default)]
struct DoomedFactory {
    created: AtomicUsize,
}

impl AdapterFactory for DoomedFactory {
    fn descriptor(&self) -> ProviderDescriptor {
        double::descriptor()
    }
    fn create(&self) -> Box<dyn AgentAdapter> {
        let n = self.created.fetch_add(1, Ordering::SeqCst);
        let opts = Options {
            force: Some(Script::Crash),
            fail_init: n > 0,
            ..Options::default()
        };
        Factory::new(opts).create()
    }
}

#[tokio::test(start_paused = true)]
async fn three_failed_respawns_then_failed_with_process_crashed() {
    let factory = Arc::new(DoomedFactory::default());
    let mut s = session_with(
        factory.clone(),
        ApprovalMode::Ask,
        Arc::new(Policy::DenyAll),
    )
    .await;
    let (outcome, _) = run(&mut s, "one").await;
    assert_eq!(outcome.error.unwrap().code, ErrorCode::ProcessCrashed);
    let t0 = Instant::now();
    let (outcome, events) = run(&mut s, "two").await;
    let err = outcome.error.unwrap();
    assert_eq!(err.code, ErrorCode::ProcessCrashed);
    assert!(err.message.contains("after 3 attempts"), "{}", err.message);
    assert!(!err.retryable);
    assert!(matches!(&events[1].body, EventBody::Error(e) if e.code == ErrorCode::ProcessCrashed));
    assert_eq!(s.state(), State::Failed);
    assert_eq!(
        factory.created.load(Ordering::SeqCst),
        4,
        "1 original + 3 respawns"
    );
    // Backoff 250 + 500 + 1000 ms.
    assert!(
        t0.elapsed() >= Duration::from_millis(1750),
        "{:?}",
        t0.elapsed()
    );
    // No further respawns once the budget is spent.
    let (outcome, _) = run(&mut s, "three").await;
    assert_eq!(outcome.error.unwrap().code, ErrorCode::ProcessCrashed);
    assert_eq!(factory.created.load(Ordering::SeqCst), 4);
}

#[tokio::test(start_paused = true)]
async fn repeated_crashes_exhaust_the_budget_but_a_success_resets_it() {
    let factory = Arc::new(Factory::new(Options {
        force: Some(Script::Crash),
        ..Options::default()
    }));
    let mut s = session_with(
        factory.clone(),
        ApprovalMode::Ask,
        Arc::new(Policy::DenyAll),
    )
    .await;
    for _ in 0..4 {
        let (o, _) = run(&mut s, "x").await;
        assert_eq!(o.error.unwrap().code, ErrorCode::ProcessCrashed);
    }
    // 1 original + 3 respawns, each of which crashed in its turn.
    assert_eq!(factory.created(), 4);
    let (o, _) = run(&mut s, "x").await;
    assert!(o.error.unwrap().message.contains("after 3 attempts"));
    assert_eq!(factory.created(), 4);
}

#[tokio::test(start_paused = true)]
async fn garbage_is_reported_but_does_not_end_the_turn() {
    let mut s = double_session(ApprovalMode::Ask, Arc::new(Policy::DenyAll)).await;
    let (outcome, events) = run(&mut s, "[double:garbage]").await;
    assert_eq!(outcome.reason, EndReason::Completed);
    let invalid = events
        .iter()
        .filter(
            |e| matches!(&e.body, EventBody::Error(err) if err.code == ErrorCode::InvalidOutput),
        )
        .count();
    assert_eq!(invalid, 2);
    assert!(text_of(&events).ends_with("More good output."));
}

#[tokio::test(start_paused = true)]
async fn error_scenario_ends_with_error() {
    let mut s = double_session(ApprovalMode::Ask, Arc::new(Policy::DenyAll)).await;
    let (outcome, events) = run(&mut s, "[double:error:AUTH_REQUIRED]").await;
    assert_eq!(outcome.reason, EndReason::Error);
    assert_eq!(outcome.error.unwrap().code, ErrorCode::AuthRequired);
    assert_eq!(end_of(&events).0, EndReason::Error);
    assert_eq!(s.state(), State::Ready, "a failed turn is not a crash");
}

#[tokio::test(start_paused = true)]
async fn failed_start_and_terminate() {
    let factory = Arc::new(Factory::new(Options {
        fail_init: true,
        ..Options::default()
    }));
    let mut s = HostSession::new(
        factory,
        AdapterConfig::default(),
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    assert!(s.start().await.is_err());
    assert_eq!(s.state(), State::Failed);
    s.terminate().await.unwrap();
    assert_eq!(s.state(), State::Terminated);
    s.terminate().await.unwrap();
    let (outcome, _) = run(&mut s, "x").await;
    assert_eq!(outcome.reason, EndReason::Error);
}

#[tokio::test(start_paused = true)]
async fn resume_id_is_kept_across_respawn() {
    let factory = Arc::new(Factory::default());
    let config = AdapterConfig {
        resume: Some("earlier-session".into()),
        ..AdapterConfig::default()
    };
    let mut s = HostSession::new(
        factory,
        config,
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    s.start().await.unwrap();
    assert_eq!(s.native_session_id(), Some("earlier-session"));
    let (_, events) = run(&mut s, "[double:crash]").await;
    assert!(
        matches!(&events[0].body, EventBody::StreamStart { session_id: Some(id), .. } if id == "earlier-session")
    );
    let (_, events) = run(&mut s, "hi").await;
    assert!(
        matches!(&events[0].body, EventBody::StreamStart { session_id: Some(id), .. } if id == "earlier-session")
    );
}

fn started_id(events: &[Event]) -> Option<String> {
    match &events[0].body {
        EventBody::StreamStart { session_id, .. } => session_id.clone(),
        _ => None,
    }
}

#[tokio::test(start_paused = true)]
async fn an_id_announced_by_a_crashed_turn_is_not_adopted() {
    let factory = Arc::new(Factory::new(Options {
        late_session_id: true,
        ..Options::default()
    }));
    let mut s = session_with(factory, ApprovalMode::Ask, Arc::new(Policy::DenyAll)).await;
    assert_eq!(s.native_session_id(), None);
    let (_, crashed) = run(&mut s, "[double:crash]").await;
    let crashed_id = started_id(&crashed).unwrap();
    assert_eq!(
        s.native_session_id(),
        None,
        "a crashed turn's id is not resumable"
    );
    // The respawned agent starts fresh instead of resuming a session that never saved.
    let (_, fresh) = run(&mut s, "hello").await;
    let fresh_id = started_id(&fresh).unwrap();
    assert_ne!(fresh_id, crashed_id);
    assert_eq!(
        s.native_session_id(),
        Some(fresh_id.as_str()),
        "completed turns adopt it"
    );
    // After a completed turn, a crash respawns into the same conversation.
    run(&mut s, "[double:crash]").await;
    let (_, resumed) = run(&mut s, "again").await;
    assert_eq!(started_id(&resumed), Some(fresh_id));
}

#[tokio::test(start_paused = true)]
async fn a_turn_past_its_limit_is_interrupted_and_says_why() {
    let config = AdapterConfig {
        approval: ApprovalMode::AutoApprove,
        ..AdapterConfig::default()
    };
    let opts = SessionOptions {
        turn_limit: Some(Duration::from_secs(1)),
        ..SessionOptions::default()
    };
    let factory = Arc::new(Factory::default());
    let mut s = HostSession::new(factory, config, Arc::new(Policy::AllowAll), opts);
    s.start().await.unwrap();
    let started = Instant::now();
    // `slow` streams 50 deltas 100 ms apart: 5 s without the limit.
    let (outcome, events) = run(&mut s, "[double:slow]").await;
    assert_eq!(outcome.reason, EndReason::Interrupted);
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(events.iter().any(|e| matches!(&e.body,
        EventBody::Status { message, .. } if message.contains("limit of 1 s"))));
    // The next turn gets its own full limit and completes.
    let (outcome, _) = run(&mut s, "[double:text]").await;
    assert_eq!(outcome.reason, EndReason::Completed);
}
